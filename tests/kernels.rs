//! Kernels of `autodiff_runtime::kernels` against scalar references: takes every kernel, every
//! instruction-set path this CPU has (each one forced with `with_isa`, and proved to have run by
//! the per-thread call counters), gives checks of matrix products over a grid of shapes (0, 1, the
//! micro-kernel sizes ±1, odd sizes, block boundaries), transposed operands, leading dimensions and
//! alpha/beta; of the vector kernels; of activations against the scalar std formulas in ulp over a
//! sweep of the whole float range; and of every JVP/VJP against central differences and the
//! dot-product test `<J t, c> = <t, Jᵀ c>`.
//!
//! Runs in the debug profile in a few seconds. The larger ulp sweep is `#[ignore]`d:
//! `cargo test --release --test kernels -- --ignored`.

use autodiff_runtime::kernels::{self as k, Isa, MatMut, MatRef, Real};
use num_traits::NumCast;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Runs `f` once per available path, forced, and checks that the path's counter moved.
fn each_isa(mut f: impl FnMut(Isa)) {
    let isas = k::available_isas();
    assert_eq!(isas[0], Isa::Portable);
    for isa in isas {
        let before = k::isa_calls(isa);
        k::with_isa(isa, || {
            assert_eq!(k::current_isa(), isa);
            f(isa)
        });
        assert!(
            k::isa_calls(isa) > before,
            "no kernel call was dispatched to {isa:?}"
        );
    }
}

fn cast<T: Real>(x: f64) -> T {
    <T as NumCast>::from(x).unwrap()
}

fn f64_of<T: Real>(x: T) -> f64 {
    x.to_f64().unwrap()
}

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn random_vec<T: Real>(r: &mut ChaCha8Rng, n: usize) -> Vec<T> {
    (0..n).map(|_| cast(r.gen_range(-1.0..1.0))).collect()
}

#[test]
fn detection_matches_cpu_features() {
    let isas = k::available_isas();
    #[cfg(target_arch = "x86_64")]
    {
        let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
        assert_eq!(isas.contains(&Isa::Avx2Fma), avx2);
        assert_eq!(
            isas.contains(&Isa::Avx512),
            avx2 && is_x86_feature_detected!("avx512f")
        );
    }
    assert_eq!(k::detected_isa(), *isas.last().unwrap());
    // with_isa nests and restores.
    k::with_isa(Isa::Portable, || {
        assert_eq!(k::current_isa(), Isa::Portable);
        k::with_isa(k::detected_isa(), || {
            assert_eq!(k::current_isa(), k::detected_isa())
        });
        assert_eq!(k::current_isa(), Isa::Portable);
    });
    assert_eq!(k::current_isa(), k::detected_isa());
}

// ---------------------------------------------------------------------------------------------
// Matrix products
// ---------------------------------------------------------------------------------------------

/// A stored matrix: `op` is its logical `rows x cols` view, stored transposed when `trans`.
struct Stored<T> {
    data: Vec<T>,
    rows: usize,
    cols: usize,
    ld: usize,
    trans: bool,
}

impl<T: Real> Stored<T> {
    fn random(r: &mut ChaCha8Rng, rows: usize, cols: usize, pad: usize, trans: bool) -> Self {
        let (sr, sc) = if trans { (cols, rows) } else { (rows, cols) };
        let ld = sc + pad;
        let mut data = random_vec(r, sr * ld);
        // Padding holds NaN: reading it would show in the result.
        for i in 0..sr {
            for j in sc..ld {
                data[i * ld + j] = T::nan();
            }
        }
        Stored {
            data,
            rows,
            cols,
            ld,
            trans,
        }
    }
    fn view(&self) -> MatRef<'_, T> {
        if self.trans {
            MatRef::with_ld(&self.data, self.cols, self.rows, self.ld).t()
        } else {
            MatRef::with_ld(&self.data, self.rows, self.cols, self.ld)
        }
    }
    fn get(&self, i: usize, j: usize) -> f64 {
        f64_of(if self.trans {
            self.data[j * self.ld + i]
        } else {
            self.data[i * self.ld + j]
        })
    }
}

const SENTINEL: f64 = 12345.0;

/// One product checked against the f64 reference; returns nothing, panics with the case.
#[allow(clippy::too_many_arguments)]
fn check_gemm<T: Real>(
    r: &mut ChaCha8Rng,
    (m, n, kk): (usize, usize, usize),
    (ta, tb): (bool, bool),
    pad: usize,
    alpha: f64,
    beta: f64,
) {
    let a = Stored::<T>::random(r, m, kk, pad, ta);
    let b = Stored::<T>::random(r, kk, n, (pad + 1) % 3, tb);
    let ldc = n + pad;
    let mut c: Vec<T> = random_vec(r, m * ldc);
    for i in 0..m {
        for j in 0..ldc {
            if j >= n {
                c[i * ldc + j] = cast(SENTINEL);
            } else if beta == 0.0 {
                c[i * ldc + j] = T::nan(); // must be ignored
            }
        }
    }
    let c0 = c.clone();
    k::matmul(
        cast(alpha),
        a.view(),
        b.view(),
        cast(beta),
        MatMut::with_ld(&mut c, m, n, ldc),
    );
    let eps = f64_of(T::epsilon());
    for i in 0..m {
        for j in 0..ldc {
            let got = f64_of(c[i * ldc + j]);
            if j >= n {
                assert_eq!(got, SENTINEL, "padding of C written at ({i}, {j})");
                continue;
            }
            let (mut want, mut mag) = (0.0, 0.0);
            for p in 0..kk {
                want += a.get(i, p) * b.get(p, j);
                mag += (a.get(i, p) * b.get(p, j)).abs();
            }
            let cv = f64_of(c0[i * ldc + j]);
            let (want, mag) = if beta == 0.0 {
                (alpha * want, alpha.abs() * mag)
            } else {
                (
                    alpha * want + beta * cv,
                    alpha.abs() * mag + (beta * cv).abs(),
                )
            };
            let tol = 4.0 * (kk as f64 + 2.0) * eps * mag + f64::MIN_POSITIVE;
            assert!(
                (got - want).abs() <= tol,
                "{}: C[{i}][{j}] = {got}, want {want} (m={m} n={n} k={kk} ta={ta} tb={tb} \
                 pad={pad} alpha={alpha} beta={beta} isa={:?})",
                std::any::type_name::<T>(),
                k::current_isa()
            );
        }
    }
}

const DIMS: [usize; 14] = [0, 1, 2, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33];
const ALPHA_BETA: [(f64, f64); 5] = [(1.0, 0.0), (2.5, 0.0), (1.0, 1.0), (-0.5, 2.0), (0.0, 0.5)];

fn gemm_grid<T: Real>(seed: u64) {
    each_isa(|_| {
        let mut r = rng(seed);
        let mut case = 0;
        for (x, &m) in DIMS.iter().enumerate() {
            for (y, &n) in DIMS.iter().enumerate() {
                let kk = DIMS[(x + 2 * y) % DIMS.len()];
                let (alpha, beta) = ALPHA_BETA[case % ALPHA_BETA.len()];
                let trans = [(false, false), (true, false), (false, true), (true, true)][case % 4];
                check_gemm::<T>(&mut r, (m, n, kk), trans, case % 3, alpha, beta);
                case += 1;
            }
        }
        // Every inner dimension of the grid, and every transposition, at a few (m, n).
        for (x, &kk) in DIMS.iter().enumerate() {
            for t in 0..4 {
                let trans = (t & 1 == 1, t & 2 == 2);
                let (m, n) = (DIMS[(x + 5) % 14], DIMS[(x + 9) % 14]);
                check_gemm::<T>(&mut r, (m, n, kk), trans, t % 3, 1.5, -1.0);
            }
        }
    });
}

#[test]
fn matmul_grid_f64() {
    gemm_grid::<f64>(1);
}

#[test]
fn matmul_grid_f32() {
    gemm_grid::<f32>(2);
}

/// Shapes that cross the cache blocks: two `kc` blocks (the second accumulates), more columns
/// than one `nc` block, more rows than one `mc` block; with A and B packed (transposed, large)
/// and read in place (row-major: full panels in place, the last partial one packed).
#[test]
fn matmul_block_boundaries() {
    each_isa(|_| {
        let mut r = rng(3);
        check_gemm::<f32>(&mut r, (10, 40, 300), (false, false), 1, 1.0, 2.0);
        check_gemm::<f64>(&mut r, (10, 20, 300), (true, false), 0, 1.0, 0.0);
        check_gemm::<f32>(&mut r, (5, 1030, 3), (false, false), 2, 1.0, 0.0);
        check_gemm::<f64>(&mut r, (5, 530, 3), (false, false), 0, -1.0, 1.0);
        check_gemm::<f32>(&mut r, (4100, 9, 3), (false, false), 1, 0.5, 0.0);
        check_gemm::<f64>(&mut r, (13, 530, 300), (false, false), 1, 1.0, 1.0);
        check_gemm::<f64>(&mut r, (9, 17, 520), (true, true), 0, -2.0, 0.0);
        check_gemm::<f32>(&mut r, (7, 1030, 260), (false, true), 2, 1.0, 0.5);
        check_gemm::<f64>(&mut r, (4100, 9, 3), (true, false), 0, 1.0, 0.0);
    });
}

#[test]
fn matmul_alpha_zero_reads_neither_a_nor_b() {
    each_isa(|_| {
        let a = [f64::NAN; 6];
        let b = [f64::NAN; 6];
        let mut c = [1.0, 2.0, 3.0, 4.0];
        let (av, bv) = (MatRef::new(&a, 2, 3), MatRef::new(&b, 3, 2));
        k::matmul(0.0, av, bv, 2.0, MatMut::new(&mut c, 2, 2));
        assert_eq!(c, [2.0, 4.0, 6.0, 8.0]);
        k::matmul(0.0, av, bv, 0.0, MatMut::new(&mut c, 2, 2));
        assert_eq!(c, [0.0; 4]);
    });
}

/// The reverse-mode rule the macro will use: for `C = A B`, `A_bar += C_bar Bᵀ` and
/// `B_bar += Aᵀ C_bar` through transposed views and beta = 1, checked by the dot-product test
/// `<C_bar, dA B + A dB> = <A_bar, dA> + <B_bar, dB>` and by accumulation into non-zero adjoints.
#[test]
fn matmul_vjp_through_transposed_views() {
    each_isa(|_| {
        let mut r = rng(4);
        let (m, n, kk) = (19, 23, 17);
        let a: Vec<f64> = random_vec(&mut r, m * kk);
        let b: Vec<f64> = random_vec(&mut r, kk * n);
        let (da, db): (Vec<f64>, Vec<f64>) =
            (random_vec(&mut r, m * kk), random_vec(&mut r, kk * n));
        let c_bar: Vec<f64> = random_vec(&mut r, m * n);
        let (av, bv, cbv) = (
            MatRef::new(&a, m, kk),
            MatRef::new(&b, kk, n),
            MatRef::new(&c_bar, m, n),
        );
        let mut dc = vec![0.0; m * n];
        k::matmul(
            1.0,
            MatRef::new(&da, m, kk),
            bv,
            0.0,
            MatMut::new(&mut dc, m, n),
        );
        k::matmul(
            1.0,
            av,
            MatRef::new(&db, kk, n),
            1.0,
            MatMut::new(&mut dc, m, n),
        );
        let a_bar0: Vec<f64> = random_vec(&mut r, m * kk);
        let b_bar0: Vec<f64> = random_vec(&mut r, kk * n);
        let (mut a_bar, mut b_bar) = (a_bar0.clone(), b_bar0.clone());
        k::matmul(1.0, cbv, bv.t(), 1.0, MatMut::new(&mut a_bar, m, kk));
        k::matmul(1.0, av.t(), cbv, 1.0, MatMut::new(&mut b_bar, kk, n));
        let diff = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(u, v)| u - v).collect::<Vec<_>>();
        let lhs = k::dot(&c_bar, &dc);
        let rhs = k::dot(&diff(&a_bar, &a_bar0), &da) + k::dot(&diff(&b_bar, &b_bar0), &db);
        assert!(
            (lhs - rhs).abs() <= 1e-12 * lhs.abs().max(1.0),
            "{lhs} vs {rhs}"
        );
    });
}

#[test]
#[should_panic(expected = "kernels::matmul: shapes do not agree: A is 2 x 3, B is 2 x 2")]
fn matmul_inner_mismatch_panics() {
    let (a, b, mut c) = ([0.0; 6], [0.0; 4], [0.0; 4]);
    k::matmul(
        1.0,
        MatRef::new(&a, 2, 3),
        MatRef::new(&b, 2, 2),
        0.0,
        MatMut::new(&mut c, 2, 2),
    );
}

#[test]
#[should_panic(expected = "kernels::matmul: shapes do not agree")]
fn matmul_output_mismatch_panics() {
    let (a, b, mut c) = ([0.0; 6], [0.0; 6], [0.0; 6]);
    k::matmul(
        1.0,
        MatRef::new(&a, 2, 3),
        MatRef::new(&b, 3, 2),
        0.0,
        MatMut::new(&mut c, 3, 2),
    );
}

#[test]
#[should_panic(expected = "needs 11 elements, the slice has 10")]
fn short_slice_panics() {
    MatRef::with_ld(&[0.0; 10], 3, 3, 4);
}

#[test]
#[should_panic(expected = "leading dimension 2 is smaller than the number of columns 3")]
fn small_leading_dimension_panics() {
    MatRef::with_ld(&[0.0; 10], 3, 3, 2);
}

// ---------------------------------------------------------------------------------------------
// Vector kernels
// ---------------------------------------------------------------------------------------------

fn vector_kernels<T: Real>() {
    each_isa(|_| {
        let mut r = rng(5);
        let eps = f64_of(T::epsilon());
        for &n in &[0, 1, 7, 31, 32, 33, 100] {
            let (x, y): (Vec<T>, Vec<T>) = (random_vec(&mut r, n), random_vec(&mut r, n));
            let want: f64 = x.iter().zip(&y).map(|(&a, &b)| f64_of(a) * f64_of(b)).sum();
            let got = f64_of(k::dot(&x, &y));
            assert!((got - want).abs() <= 4.0 * n as f64 * eps, "dot n={n}");
            let mut z = y.clone();
            k::axpy(cast(0.75), &x, &mut z);
            for i in 0..n {
                let w = f64_of(y[i]) + 0.75 * f64_of(x[i]);
                assert!((f64_of(z[i]) - w).abs() <= 4.0 * eps, "axpy n={n}");
            }
            for &m in &[0, 1, 9, 33] {
                for (trans, pad) in [(false, 0), (false, 3), (true, 0), (true, 2)] {
                    let a = Stored::<T>::random(&mut r, m, n, pad, trans);
                    let y0: Vec<T> = random_vec(&mut r, m);
                    for beta in [0.0, 0.5] {
                        let mut yv = if beta == 0.0 {
                            vec![T::nan(); m]
                        } else {
                            y0.clone()
                        };
                        k::matvec(cast(2.0), a.view(), &x, cast(beta), &mut yv);
                        for i in 0..m {
                            let s: f64 = (0..n).map(|j| a.get(i, j) * f64_of(x[j])).sum();
                            let w = 2.0 * s
                                + if beta == 0.0 {
                                    0.0
                                } else {
                                    beta * f64_of(y0[i])
                                };
                            let tol = 8.0 * (n as f64 + 2.0) * eps;
                            assert!(
                                (f64_of(yv[i]) - w).abs() <= tol,
                                "matvec m={m} n={n} {trans}"
                            );
                        }
                    }
                    // ger: A += alpha u vᵀ on the row-major A
                    if !trans {
                        let u: Vec<T> = random_vec(&mut r, m);
                        let mut ad = a.data.clone();
                        k::ger(cast(-1.5), &u, &x, MatMut::with_ld(&mut ad, m, n, n + pad));
                        for i in 0..m {
                            for j in 0..n + pad {
                                let (got, old) = (ad[i * (n + pad) + j], a.data[i * (n + pad) + j]);
                                if j >= n {
                                    assert!(got.is_nan(), "ger wrote padding");
                                    continue;
                                }
                                let w = f64_of(old) - 1.5 * f64_of(u[i]) * f64_of(x[j]);
                                assert!((f64_of(got) - w).abs() <= 4.0 * eps, "ger");
                            }
                        }
                    }
                }
            }
        }
    });
}

#[test]
fn vector_kernels_f64() {
    vector_kernels::<f64>();
}

#[test]
fn vector_kernels_f32() {
    vector_kernels::<f32>();
}

#[test]
#[should_panic(expected = "kernels::dot: length mismatch: x has 3 elements, y has 2")]
fn dot_mismatch_panics() {
    k::dot(&[1.0, 2.0, 3.0], &[1.0, 2.0]);
}

#[test]
#[should_panic(expected = "kernels::matvec: shapes do not agree")]
fn matvec_mismatch_panics() {
    k::matvec(
        1.0,
        MatRef::new(&[0.0; 6], 2, 3),
        &[0.0; 2],
        0.0,
        &mut [0.0; 2],
    );
}

// ---------------------------------------------------------------------------------------------
// Activations
// ---------------------------------------------------------------------------------------------

/// Ordered integers of floats, for ulp distances, and a sweep of the whole float range.
trait Sweep: Real {
    fn ord(self) -> i64;
    /// Every finite magnitude class: `count` bit patterns evenly spaced over all positive finite
    /// floats (subnormals included), both signs.
    fn bit_sweep(count: u64) -> Vec<Self>;
}

impl Sweep for f64 {
    fn ord(self) -> i64 {
        let b = self.to_bits() as i64;
        if b < 0 {
            i64::MIN - b
        } else {
            b
        }
    }
    fn bit_sweep(count: u64) -> Vec<f64> {
        let step = 0x7ff0_0000_0000_0000 / count;
        (0..count)
            .flat_map(|i| {
                let x = f64::from_bits(i * step + i % 7);
                [x, -x]
            })
            .collect()
    }
}

impl Sweep for f32 {
    fn ord(self) -> i64 {
        let b = self.to_bits() as i32;
        (if b < 0 { i32::MIN - b } else { b }) as i64
    }
    fn bit_sweep(count: u64) -> Vec<f32> {
        let step = 0x7f80_0000 / count;
        (0..count)
            .flat_map(|i| {
                let x = f32::from_bits((i * step + i % 7) as u32);
                [x, -x]
            })
            .collect()
    }
}

fn ulps<T: Sweep>(a: T, b: T) -> u64 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => 0,
        (false, false) => a.ord().abs_diff(b.ord()),
        _ => u64::MAX,
    }
}

fn sweep<T: Sweep>(count: u64) -> Vec<T> {
    let mut v: Vec<T> = [0.0, 1.0, 0.5, 2.0, 30.0, 100.0, 700.0, 1e300]
        .iter()
        .flat_map(|&x| [cast(x), cast(-x)])
        .collect();
    v.extend([
        T::infinity(),
        T::neg_infinity(),
        T::nan(),
        T::min_positive_value(),
    ]);
    v.extend([
        T::max_value(),
        T::min_value(),
        T::epsilon(),
        -T::min_positive_value(),
    ]);
    v.extend(T::bit_sweep(count));
    // Dense where the functions bend.
    v.extend((0..count).map(|i| cast::<T>(-30.0 + 60.0 * (i as f64 + 0.37) / count as f64)));
    v
}

fn sig(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// The limit at -inf where the std formula gives `-inf * 0 = NaN`.
fn at_neg_inf(x: f64, f: impl Fn(f64) -> f64) -> f64 {
    if x == f64::NEG_INFINITY {
        -0.0
    } else {
        f(x)
    }
}

fn gelu_tanh_ref(x: f64) -> f64 {
    at_neg_inf(x, |x| {
        let u = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
        x * sig(2.0 * u)
    })
}

/// `x σ(x)`; where `e^x` is near or below the subnormal range, `x e^x = (x e^(x+100)) e^-100`
/// (`x + 100` is exact there) so that `e^x` is not rounded to a few bits before the product.
fn silu_ref(x: f64) -> f64 {
    at_neg_inf(x, |x| {
        if x < -700.0 {
            (x * (x + 100.0).exp()) * (-100.0f64).exp() / (1.0 + x.exp())
        } else {
            x * sig(x)
        }
    })
}

type Fwd<T> = fn(&[T], &mut [T]);
type JvpFn<T> = fn(&[T], &[T], &mut [T], &mut [T]);
type VjpFn<T> = fn(&[T], &[T], &mut [T]);

/// An activation, its kernels, its scalar std reference (f64), the largest ulp error allowed for
/// `f32` and `f64` (the bound measured by the sweep), and where its derivative is smooth.
struct Act<T> {
    name: &'static str,
    f: Fwd<T>,
    jvp: JvpFn<T>,
    vjp: VjpFn<T>,
    reference: fn(f64) -> f64,
    ulp: (u64, u64),
    domain: (f64, f64),
    /// Condition number `|x f'(x) / f(x)|` bound where it exceeds 1 (the ulp bound is multiplied
    /// by it there: an error of one rounding in an intermediate is amplified that much).
    cond: fn(f64) -> f64,
}

fn well_conditioned(_: f64) -> f64 {
    1.0
}

/// gelu_tanh(x) = x σ(2u) has condition number about 1 + |2u| for x < 0: rounding `u` in the
/// working precision costs |2u| ulp (the reference has the same problem in its own precision). The
/// plain bound is checked down to x = -1 (|2u| <= 1.8), this one below (17 ulp at x = -3 in f64).
fn gelu_tanh_cond(x: f64) -> f64 {
    let two_u = 2.0 * (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
    if x < -1.0 {
        1.0 + 3.0 * two_u.abs()
    } else {
        1.0
    }
}

fn acts<T: Real>() -> Vec<Act<T>> {
    fn gelu_erf_f64(x: f64) -> f64 {
        // The f64 kernel, itself checked against an mpmath table by the module's unit tests.
        let mut y = [0.0];
        k::with_isa(Isa::Portable, || k::gelu_erf(&[x], &mut y));
        y[0]
    }
    macro_rules! act {
        ($name:ident, $r:expr, $ulp:expr, $dom:expr) => {
            Act {
                name: stringify!($name),
                f: k::$name::<T>,
                jvp: jvp_of!($name),
                vjp: vjp_of!($name),
                reference: $r,
                ulp: $ulp,
                domain: $dom,
                cond: well_conditioned,
            }
        };
    }
    macro_rules! jvp_of {
        (relu) => {
            k::relu_jvp::<T>
        };
        (sigmoid) => {
            k::sigmoid_jvp::<T>
        };
        (tanh) => {
            k::tanh_jvp::<T>
        };
        (gelu_tanh) => {
            k::gelu_tanh_jvp::<T>
        };
        (gelu_erf) => {
            k::gelu_erf_jvp::<T>
        };
        (silu) => {
            k::silu_jvp::<T>
        };
        (softplus) => {
            k::softplus_jvp::<T>
        };
        (exp) => {
            k::exp_jvp::<T>
        };
        (log) => {
            k::log_jvp::<T>
        };
    }
    macro_rules! vjp_of {
        (relu) => {
            k::relu_vjp::<T>
        };
        (sigmoid) => {
            k::sigmoid_vjp::<T>
        };
        (tanh) => {
            k::tanh_vjp::<T>
        };
        (gelu_tanh) => {
            k::gelu_tanh_vjp::<T>
        };
        (gelu_erf) => {
            k::gelu_erf_vjp::<T>
        };
        (silu) => {
            k::silu_vjp::<T>
        };
        (softplus) => {
            k::softplus_vjp::<T>
        };
        (exp) => {
            k::exp_vjp::<T>
        };
        (log) => {
            k::log_vjp::<T>
        };
    }
    let mut v = vec![
        act!(
            relu,
            |x| if x <= 0.0 { 0.0 } else { x },
            (0, 0),
            (-3.0, 3.0)
        ),
        act!(sigmoid, sig, ULP_SIGMOID, (-8.0, 8.0)),
        act!(tanh, f64::tanh, ULP_TANH, (-5.0, 5.0)),
        Act {
            cond: gelu_tanh_cond,
            ..act!(gelu_tanh, gelu_tanh_ref, ULP_GELU_TANH, (-6.0, 6.0))
        },
        act!(silu, silu_ref, ULP_SILU, (-8.0, 8.0)),
        act!(
            softplus,
            |x| x.max(0.0) + (-x.abs()).exp().ln_1p(),
            ULP_SOFTPLUS,
            (-8.0, 8.0)
        ),
        act!(exp, f64::exp, ULP_EXP, (-5.0, 5.0)),
        act!(log, f64::ln, ULP_LOG, (0.05, 20.0)),
    ];
    // gelu_erf: the f32 kernel against the f64 one; the f64 kernel is checked in the unit tests.
    let mut g = act!(gelu_erf, gelu_erf_f64, ULP_GELU_ERF, (-6.0, 6.0));
    if std::mem::size_of::<T>() == 8 {
        g.ulp.1 = u64::MAX;
    }
    v.push(g);
    let leaky = Act {
        name: "leaky_relu",
        f: |x, y| k::leaky_relu(x, y, cast(0.125)),
        jvp: |x, dx, y, dy| k::leaky_relu_jvp(x, dx, y, dy, cast(0.125)),
        vjp: |x, yb, xb| k::leaky_relu_vjp(x, yb, xb, cast(0.125)),
        reference: |x| if x > 0.0 { x } else { 0.125 * x },
        ulp: (0, 0),
        domain: (-3.0, 3.0),
        cond: well_conditioned,
    };
    v.push(leaky);
    v
}

// Largest ulp errors measured over the sweeps (f32, f64); see KERNELS-NOTES.md.
const ULP_EXP: (u64, u64) = (1, 1);
const ULP_LOG: (u64, u64) = (1, 1);
const ULP_SIGMOID: (u64, u64) = (2, 2);
const ULP_TANH: (u64, u64) = (2, 4);
const ULP_SILU: (u64, u64) = (3, 4);
const ULP_SOFTPLUS: (u64, u64) = (2, 2);
const ULP_GELU_TANH: (u64, u64) = (4, 5);
const ULP_GELU_ERF: (u64, u64) = (6, 5);

/// Checks every activation on every path over `sweep(count)`; returns the largest ulp error of
/// each (name, path) and panics after printing them all if one is above its bound.
fn ulp_sweep<T: Sweep>(count: u64) {
    let xs: Vec<T> = sweep(count);
    let f64_sized = std::mem::size_of::<T>() == 8;
    let mut report = Vec::new();
    each_isa(|isa| {
        for act in acts::<T>() {
            let bound = if f64_sized { act.ulp.1 } else { act.ulp.0 };
            if bound == u64::MAX {
                continue;
            }
            let mut y = vec![T::zero(); xs.len()];
            (act.f)(&xs, &mut y);
            let (mut worst, mut at) = (0, T::zero());
            for (&x, &v) in xs.iter().zip(&y) {
                let want: T = cast((act.reference)(f64_of(x)));
                let d = ulps(v, want);
                let cond = (act.cond)(f64_of(x));
                if d > bound && cond > 1.0 && d as f64 <= bound as f64 * cond {
                    continue;
                }
                if d > worst {
                    (worst, at) = (d, x);
                }
            }
            report.push((act.name, isa, worst, at, bound));
        }
    });
    let ty = std::any::type_name::<T>();
    for (name, isa, worst, at, bound) in &report {
        println!("{ty} {isa:?} {name}: max {worst} ulp at x = {at:?} (bound {bound})");
    }
    for (name, isa, worst, at, bound) in &report {
        assert!(
            worst <= bound,
            "{ty} {isa:?} {name}: {worst} ulp at x = {at:?} (bound {bound})"
        );
    }
}

#[test]
fn activation_ulp_f64() {
    ulp_sweep::<f64>(3000);
}

#[test]
fn activation_ulp_f32() {
    ulp_sweep::<f32>(3000);
}

/// The same bounds over 1300 times more points (about 20 s in release).
#[test]
#[ignore = "large sweep: cargo test --release --test kernels -- --ignored"]
fn activation_ulp_large_sweep() {
    ulp_sweep::<f64>(4_000_000);
    ulp_sweep::<f32>(4_000_000);
}

/// JVP against central differences of the f64 reference, JVP's value against the forward kernel,
/// VJP against JVP by the dot-product test, VJP accumulating into a non-zero adjoint.
fn activation_derivatives<T: Real>(tol: f64) {
    each_isa(|isa| {
        let mut r = rng(6);
        for act in acts::<T>() {
            let n = 67;
            let (lo, hi) = act.domain;
            let x: Vec<T> = (0..n)
                .map(|_| {
                    let v: f64 = r.gen_range(lo..hi);
                    cast(if v.abs() < 0.02 { v + 0.05 } else { v }) // away from relu's kink
                })
                .collect();
            let (t, c): (Vec<T>, Vec<T>) = (random_vec(&mut r, n), random_vec(&mut r, n));
            let (mut y, mut dy, mut yf) =
                (vec![T::zero(); n], vec![T::zero(); n], vec![T::zero(); n]);
            (act.jvp)(&x, &t, &mut y, &mut dy);
            (act.f)(&x, &mut yf);
            let ctx = format!("{} {} {isa:?}", std::any::type_name::<T>(), act.name);
            for i in 0..n {
                assert_eq!(
                    f64_of(y[i]).to_bits(),
                    f64_of(yf[i]).to_bits(),
                    "{ctx}: jvp's y"
                );
                let xi = f64_of(x[i]);
                let h = 1e-5 * xi.abs().max(1.0);
                let fd = ((act.reference)(xi + h) - (act.reference)(xi - h)) / (2.0 * h);
                let want = fd * f64_of(t[i]);
                let got = f64_of(dy[i]);
                assert!(
                    (got - want).abs() <= tol * (1.0 + want.abs()),
                    "{ctx}: dy at x = {xi}: {got} vs central difference {want}"
                );
            }
            let x_bar0: Vec<T> = random_vec(&mut r, n);
            let mut x_bar = x_bar0.clone();
            (act.vjp)(&x, &c, &mut x_bar);
            let lhs: f64 = dy
                .iter()
                .zip(&c)
                .map(|(&a, &b)| f64_of(a) * f64_of(b))
                .sum();
            let rhs: f64 = (0..n)
                .map(|i| (f64_of(x_bar[i]) - f64_of(x_bar0[i])) * f64_of(t[i]))
                .sum();
            assert!(
                (lhs - rhs).abs() <= 64.0 * f64_of(T::epsilon()) * (1.0 + lhs.abs()),
                "{ctx}: <J t, c> = {lhs} but <t, Jᵀ c> = {rhs}"
            );
        }
    });
}

#[test]
fn activation_derivatives_f64() {
    activation_derivatives::<f64>(1e-7);
}

#[test]
fn activation_derivatives_f32() {
    activation_derivatives::<f32>(2e-5);
}

/// Derivatives stay finite and bounded far out (no `inf * 0`), and tangents/adjoints that are zero
/// give zero even where the derivative is infinite (strong zero).
#[test]
fn activation_derivatives_at_extremes() {
    let xs = [
        -f64::INFINITY,
        -1e300,
        -1e30,
        -1000.0,
        1000.0,
        1e30,
        1e300,
        f64::INFINITY,
    ];
    each_isa(|isa| {
        for act in acts::<f64>() {
            if matches!(act.name, "exp" | "log" | "leaky_relu" | "relu") {
                continue;
            }
            let mut x_bar = vec![0.0; xs.len()];
            (act.vjp)(&xs, &[1.0; 8], &mut x_bar);
            for (&x, &d) in xs.iter().zip(&x_bar) {
                assert!(
                    (-0.2..=1.2).contains(&d),
                    "{} {isa:?}: f'({x}) = {d}",
                    act.name
                );
            }
            let mut y = vec![0.0; xs.len()];
            (act.f)(&xs, &mut y);
            assert!(y.iter().all(|v| !v.is_nan()), "{} {isa:?}: {y:?}", act.name);
        }
        let mut x_bar = [3.0];
        k::log_vjp(&[0.0], &[0.0], &mut x_bar);
        assert_eq!(x_bar, [3.0]);
        let (mut y, mut dy) = ([0.0], [7.0]);
        k::exp_jvp(&[1000.0], &[0.0], &mut y, &mut dy);
        assert_eq!((y, dy), ([f64::INFINITY], [0.0]));
    });
}

#[test]
fn relu_derivative_at_zero_is_zero() {
    each_isa(|_| {
        let mut x_bar = [0.0, 0.0, 0.0];
        k::relu_vjp(&[0.0, -0.0, 1e-300], &[1.0, 1.0, 1.0], &mut x_bar);
        assert_eq!(x_bar, [0.0, 0.0, 1.0]);
        let mut x_bar = [0.0];
        k::leaky_relu_vjp(&[0.0], &[1.0], &mut x_bar, 0.25);
        assert_eq!(x_bar, [0.25]);
    });
}

#[test]
#[should_panic(expected = "kernels::sigmoid_vjp: length mismatch: x has 2 elements, x_bar has 3")]
fn activation_length_mismatch_panics() {
    k::sigmoid_vjp(&[0.0; 2], &[0.0; 2], &mut [0.0; 3]);
}
