//! Tests of the nalgebra support: takes every `na::` operation (in f32 and f64, over shapes with
//! zero, one, odd and 8-17 sized dimensions) and the value-trait impls for nalgebra matrices,
//! gives checks of the forward mode against central differences, of reverse against forward mode
//! by the dot-product test, of accumulation, short and empty seeds and dropped calls, of the
//! pullbacks against the reverse mode (bit for bit, with every subset of the adjoints) and against
//! known values, of the values against nalgebra's own (bit for bit where nalgebra's summation is
//! reproduced, within the rounding bound for the product), and of zeros, accumulation, scaling and
//! flat access of `DMatrix`, `DVector`, `RowDVector`, `Matrix3`, `Vector3` and views.

mod common;

use autodiff_runtime::check::{check_jvp_fd, dot_product_test};
use autodiff_runtime::jacobian::{to_flat_vec, Flat};
use autodiff_runtime::kernels::Real;
use autodiff_runtime::na;
use autodiff_runtime::value::{accumulate, add_scaled, scale, set_zero, zero_tangent};
use common::{c, TestFloat};
use nalgebra::{
    DMatrix, DVector, Matrix2x3, Matrix3, Matrix3x2, Matrix4, RowDVector, SMatrix, SVector, Vector3,
};

// ---------------------------------------------------------------------------------------------
// Helpers

/// xorshift64*: reproducible test data without a dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`, rounded to `T`.
    fn uniform<T: Real>(&mut self, lo: f64, hi: f64) -> T {
        c(lo + (hi - lo) * self.unit())
    }

    /// `n` values uniform in `[-1, 1)`.
    fn vec<T: Real>(&mut self, n: usize) -> Vec<T> {
        (0..n).map(|_| self.uniform(-1.0, 1.0)).collect()
    }

    /// `n` values of magnitude in `[0.5, 1.5)` and random sign (denominators).
    fn away_from_zero<T: Real>(&mut self, n: usize) -> Vec<T> {
        (0..n)
            .map(|_| {
                let m: T = self.uniform(0.5, 1.5);
                if self.unit() < 0.5 {
                    -m
                } else {
                    m
                }
            })
            .collect()
    }
}

/// Whether `a` and `b` are the same float, bit for bit (NaNs excepted: none occur here).
fn same<T: Real>(a: T, b: T) -> bool {
    a == b && a.is_sign_negative() == b.is_sign_negative()
}

#[track_caller]
fn assert_same_vec<T: Real>(what: &str, got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(same(g, w), "{what}: index {i}: got {g:?}, want {w:?}");
    }
}

/// `(rtol, atol)` of a forward-mode derivative against `check_jvp_fd`'s central difference. The
/// operations are polynomials of degree at most 2 (no truncation error) except `component_div`
/// and `norm`, so the difference's error is its rounding, about `ε^(2/3)` relative to the
/// function's magnitude (`3.7e-11` in f64, `2.4e-5` in f32) times the number of terms summed,
/// which the check's documented tolerances (`1e-7`, `1e-2`) cover.
fn fd_tol<T: Real + TestFloat>() -> (T, T) {
    if T::NAME == "f64" {
        (c(1e-7), c(1e-8))
    } else {
        (c(1e-2), c(1e-3))
    }
}

/// Relative tolerance of the dot-product test with `n` scalars in and out: both sides are sums of
/// at most `n` products of values computed by sums of at most `n` terms (`γ_2n` with `u = ε / 2`).
fn dot_rtol<T: Real>(n: usize) -> T {
    T::epsilon() * c::<T>(2.0 * n as f64 + 2.0)
}

/// The primal of an `Op`: inputs to output (a scalar output as a `Vec` of one).
type Primal<T> = Box<dyn Fn(&[Vec<T>]) -> Vec<T>>;
/// Its forward mode: inputs and their tangents to the output and its tangent.
type Forward<T> = Box<dyn Fn(&[Vec<T>], &[Vec<T>]) -> (Vec<T>, Vec<T>)>;
/// Its reverse mode: inputs, adjoint buffers of the inputs and a seed to the output.
type Reverse<T> = Box<dyn Fn(&[Vec<T>], &mut [Vec<T>], &[T]) -> Vec<T>>;
/// Its dropped reverse mode: inputs and adjoint buffers.
type Dropped<T> = Box<dyn Fn(&[Vec<T>], &mut [Vec<T>])>;
/// Its pullback: inputs, adjoint buffers, which of them to pass as `Some`, and a seed.
type Pullback<T> = Box<dyn Fn(&[Vec<T>], &mut [Vec<T>], &[bool], &[T])>;
/// Its pushforward: inputs, tangents and which of them to pass as `Some`, to the output and its
/// tangent.
type Pushforward<T> = Box<dyn Fn(&[Vec<T>], &[Vec<T>], &[bool]) -> (Vec<T>, Vec<T>)>;

/// An operation under test, as a function of its float inputs (each a flat slice; a scalar input
/// is a slice of one), with its five companions.
struct Op<T> {
    name: String,
    inputs: Vec<Vec<T>>,
    /// A `Vec` output (seeds may be short) rather than a scalar.
    vec_out: bool,
    f: Primal<T>,
    jvp: Forward<T>,
    vjp: Reverse<T>,
    dropped: Dropped<T>,
    pullback: Pullback<T>,
    pushforward: Pushforward<T>,
    /// Its tangent is a plain product (`mat_mul`, on the kernels) rather than strong-zero terms.
    plain_products: bool,
}

/// The seed of a scalar output (`&[]` is zero).
fn scalar_seed<T: Real>(seed: &[T]) -> T {
    seed.first().copied().unwrap_or_else(T::zero)
}

/// Splits a flat vector into pieces of the given lengths.
fn split<T: Real>(flat: &[T], lens: &[usize]) -> Vec<Vec<T>> {
    let mut at = 0;
    lens.iter()
        .map(|&n| {
            let piece = flat[at..at + n].to_vec();
            at += n;
            piece
        })
        .collect()
}

/// The checks every operation gets (see the module docs).
fn check_op<T: Real + TestFloat>(op: &Op<T>, rng: &mut Rng) {
    let ctx = format!("{} ({})", op.name, T::NAME);
    let lens: Vec<usize> = op.inputs.iter().map(Vec::len).collect();
    let x: Vec<T> = op.inputs.concat();
    let value = (op.f)(&op.inputs);

    // Forward mode: the same value, the derivative against a central difference.
    let t: Vec<T> = rng.vec(x.len());
    let (v, jt) = (op.jvp)(&op.inputs, &split(&t, &lens));
    assert_same_vec(&format!("{ctx}: jvp value"), &v, &value);
    assert_eq!(jt.len(), value.len(), "{ctx}: tangent length");
    let (rtol, atol) = fd_tol::<T>();
    check_jvp_fd(|xs| (op.f)(&split(xs, &lens)), &x, &t, &jt, rtol, atol)
        .unwrap_or_else(|e| panic!("{ctx}: {e}"));

    // Reverse mode: the same value, <J t, c> == <t, Jᵀ c>.
    let cot: Vec<T> = rng.vec(value.len());
    let zeros = || split(&vec![T::zero(); x.len()], &lens);
    let mut adj = zeros();
    let v = (op.vjp)(&op.inputs, &mut adj, &cot);
    assert_same_vec(&format!("{ctx}: vjp value"), &v, &value);
    let jtc = adj.concat();
    dot_product_test(&jt, &cot, &t, &jtc, dot_rtol(x.len() + value.len()))
        .unwrap_or_else(|e| panic!("{ctx}: {e}"));

    // It accumulates: a second call adds the same again (`g + g` is exact).
    (op.vjp)(&op.inputs, &mut adj, &cot);
    let twice: Vec<T> = jtc.iter().map(|&g| g + g).collect();
    assert_same_vec(&format!("{ctx}: vjp twice"), &adj.concat(), &twice);

    // Into nonzero buffers: `base + g`, added once per element.
    let base = split(&rng.vec(x.len()), &lens);
    let mut adj = base.clone();
    (op.vjp)(&op.inputs, &mut adj, &cot);
    let want: Vec<T> = base
        .concat()
        .iter()
        .zip(&jtc)
        .map(|(&b, &g)| b + g)
        .collect();
    assert_same_vec(&format!("{ctx}: vjp into nonzero"), &adj.concat(), &want);

    // Short and empty seeds: the missing entries are zero.
    if op.vec_out {
        let n = value.len();
        for len in [0, n / 2, n.saturating_sub(1)] {
            let short = &cot[..len];
            let mut padded = short.to_vec();
            padded.resize(n, T::zero());
            let mut from_short = base.clone();
            let v = (op.vjp)(&op.inputs, &mut from_short, short);
            assert_same_vec(&format!("{ctx}: short seed value"), &v, &value);
            let mut from_padded = base.clone();
            (op.vjp)(&op.inputs, &mut from_padded, &padded);
            assert_same_vec(
                &format!("{ctx}: seed of {len} of {n}"),
                &from_short.concat(),
                &from_padded.concat(),
            );
        }
    }
    // A zero (or, for a Vec, empty) seed adds nothing.
    let mut untouched = base.clone();
    let v = (op.vjp)(&op.inputs, &mut untouched, &[]);
    assert_same_vec(&format!("{ctx}: empty seed value"), &v, &value);
    assert_same_vec(
        &format!("{ctx}: empty seed"),
        &untouched.concat(),
        &base.concat(),
    );
    if !op.vec_out {
        (op.vjp)(&op.inputs, &mut untouched, &[T::zero()]);
        assert_same_vec(
            &format!("{ctx}: zero seed"),
            &untouched.concat(),
            &base.concat(),
        );
    }

    // The dropped companion adds nothing either.
    (op.dropped)(&op.inputs, &mut untouched);
    assert_same_vec(
        &format!("{ctx}: dropped"),
        &untouched.concat(),
        &base.concat(),
    );
}

/// The pullback against the reverse mode, whose adjoints `check_op` checks: with every buffer
/// `Some`, exactly what `vjp` adds, bit for bit, into zero and nonzero buffers, for a full, a short
/// and an empty seed (a zero one for a scalar output); with any buffers `None`, the others get the
/// same and the `None` ones stay as they were.
fn check_pullback<T: Real + TestFloat>(op: &Op<T>, rng: &mut Rng) {
    let ctx = format!("{} ({})", op.name, T::NAME);
    let lens: Vec<usize> = op.inputs.iter().map(Vec::len).collect();
    let n_in: usize = lens.iter().sum();
    let n_out = (op.f)(&op.inputs).len();
    let full: Vec<T> = rng.vec(n_out);
    let mut seeds = vec![full.clone(), Vec::new()];
    if op.vec_out {
        seeds.push(full[..n_out / 2].to_vec());
        seeds.push(full[..n_out.saturating_sub(1)].to_vec());
    } else {
        seeds.push(vec![T::zero()]);
    }
    let bases = [
        split(&vec![T::zero(); n_in], &lens),
        split(&rng.vec(n_in), &lens),
    ];
    for seed in &seeds {
        for base in &bases {
            let mut want = base.clone();
            (op.vjp)(&op.inputs, &mut want, seed);
            for mask in 0..1u32 << lens.len() {
                let on: Vec<bool> = (0..lens.len()).map(|i| mask >> i & 1 == 1).collect();
                let mut got = base.clone();
                (op.pullback)(&op.inputs, &mut got, &on, seed);
                for i in 0..lens.len() {
                    let expected = if on[i] { &want[i] } else { &base[i] };
                    assert_same_vec(
                        &format!(
                            "{ctx}: pullback, seed of {} of {n_out}, Some {on:?}, adjoint {i}",
                            seed.len()
                        ),
                        &got[i],
                        expected,
                    );
                }
            }
        }
    }
}

/// Whether `a` and `b` are the same float bit for bit, or both NaN (of any payload).
fn same_or_nan<T: Real>(a: T, b: T) -> bool {
    same(a, b) || (a.is_nan() && b.is_nan())
}

#[track_caller]
fn assert_same_or_nan_vec<T: Real>(what: &str, got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            same_or_nan(g, w),
            "{what}: index {i}: got {g:?}, want {w:?}"
        );
    }
}

/// `v` with every third entry, from `offset` on, replaced by the next of `pick` (cyclically).
fn sprinkle<T: Real>(v: &[T], offset: usize, pick: &[T]) -> Vec<T> {
    v.iter()
        .enumerate()
        .map(|(i, &x)| {
            if (i + offset).is_multiple_of(3) {
                pick[(i / 3 + offset) % pick.len()]
            } else {
                x
            }
        })
        .collect()
}

/// The pushforward against the forward mode. With every tangent `Some`, `jvp`'s value and tangent
/// bit for bit; with any `None`, bit for bit what `jvp` gives with `+0` tangents there (NaNs of
/// any payload counted as one), over the op's inputs and variants of them: specials (`±0`, `±inf`,
/// `±1`, NaN) in every third place, all negative (where two zero terms are `-0 + -0`), all
/// special; against random tangents, tangents with `±0` and `±inf` in every third place, and all
/// `-0`. For a plain product (`mat_mul`), a `None` whose operand partner holds an `inf` or a NaN
/// is left to `mat_mul_pushforward_drops_the_nan_of_a_zero_product` (`jvp` is NaN there).
/// Returns the number of comparisons made.
fn check_pushforward<T: Real + TestFloat>(op: &Op<T>, rng: &mut Rng) -> usize {
    let ctx = format!("{} ({})", op.name, T::NAME);
    let (zero, one, inf) = (T::zero(), T::one(), T::infinity());
    let specials = [zero, -zero, inf, -inf, one, -one, T::nan()];
    let variants: Vec<(&str, Vec<Vec<T>>)> = vec![
        ("inputs", op.inputs.clone()),
        (
            "specials",
            op.inputs
                .iter()
                .enumerate()
                .map(|(k, v)| sprinkle(v, k, &specials))
                .collect(),
        ),
        (
            "specials, shifted",
            op.inputs
                .iter()
                .enumerate()
                .map(|(k, v)| sprinkle(v, k + 1, &specials[..4]))
                .collect(),
        ),
        (
            "negative",
            op.inputs
                .iter()
                .map(|v| v.iter().map(|&x| -x.abs()).collect())
                .collect(),
        ),
        (
            "all special",
            op.inputs
                .iter()
                .enumerate()
                .map(|(k, v)| (0..v.len()).map(|i| specials[(i + k) % 4]).collect())
                .collect(),
        ),
    ];
    let lens: Vec<usize> = op.inputs.iter().map(Vec::len).collect();
    let mut compared = 0;
    for (what, inputs) in &variants {
        let value = (op.f)(inputs);
        let random: Vec<Vec<T>> = lens.iter().map(|&n| rng.vec(n)).collect();
        let tangent_sets = [
            ("random", random.clone()),
            (
                "zeros and infinities",
                random
                    .iter()
                    .enumerate()
                    .map(|(k, t)| sprinkle(t, k, &[zero, -zero, inf, -inf]))
                    .collect(),
            ),
            (
                "-0",
                lens.iter().map(|&n| vec![-zero; n]).collect::<Vec<_>>(),
            ),
        ];
        for (tw, tangents) in &tangent_sets {
            for mask in 0..1u32 << lens.len() {
                let on: Vec<bool> = (0..lens.len()).map(|i| mask >> i & 1 == 1).collect();
                if op.plain_products
                    && (0..lens.len())
                        .any(|i| !on[i] && inputs[1 - i].iter().any(|x| !x.is_finite()))
                {
                    continue;
                }
                let zeroed: Vec<Vec<T>> = tangents
                    .iter()
                    .zip(&on)
                    .map(|(t, &o)| if o { t.clone() } else { vec![zero; t.len()] })
                    .collect();
                let (want_v, want_t) = (op.jvp)(inputs, &zeroed);
                let (v, t) = (op.pushforward)(inputs, tangents, &on);
                let at = format!("{ctx}: {what}, {tw} tangents, Some {on:?}");
                assert_same_or_nan_vec(&format!("{at}: value"), &v, &want_v);
                assert_same_or_nan_vec(&format!("{at}: value against f"), &v, &value);
                assert_same_or_nan_vec(&format!("{at}: tangent"), &t, &want_t);
                compared += 1;
            }
        }
    }
    compared
}

// ---------------------------------------------------------------------------------------------
// The operations, as `Op`s

fn mat_mul_op<T: Real>(rng: &mut Rng, m: usize, k: usize, n: usize) -> Op<T> {
    Op {
        name: format!("mat_mul {m}x{k} * {k}x{n}"),
        inputs: vec![rng.vec(m * k), rng.vec(k * n)],
        vec_out: true,
        f: Box::new(move |x| na::mat_mul(&x[0], &x[1], m, k, n)),
        jvp: Box::new(move |x, t| na::mat_mul_jvp(&x[0], &x[1], m, k, n, &t[0], &t[1])),
        vjp: Box::new(move |x, d, s| {
            let [da, db] = d else { unreachable!() };
            na::mat_mul_vjp(&x[0], &x[1], m, k, n, da, db, s)
        }),
        dropped: Box::new(move |x, d| {
            let [da, db] = d else { unreachable!() };
            na::mat_mul_vjp_dropped(&x[0], &x[1], m, k, n, da, db)
        }),
        pullback: Box::new(move |x, d, on, s| {
            let [da, db] = d else { unreachable!() };
            let (da, db) = (on[0].then_some(&mut da[..]), on[1].then_some(&mut db[..]));
            na::mat_mul_pullback(&x[0], &x[1], m, k, n, da, db, s)
        }),
        pushforward: Box::new(move |x, t, on| {
            let (da, db) = (on[0].then_some(&t[0][..]), on[1].then_some(&t[1][..]));
            na::mat_mul_pushforward(&x[0], &x[1], m, k, n, da, db)
        }),
        plain_products: true,
    }
}

/// An element-wise binary operation and its companions.
macro_rules! binary_op {
    ($rng:expr, $n:expr, $b:expr, $f:ident, $jvp:ident, $vjp:ident, $dropped:ident, $pb:ident,
     $pf:ident) => {
        Op {
            name: format!("{} of {}", stringify!($f), $n),
            inputs: vec![$rng.vec($n), $b],
            vec_out: true,
            f: Box::new(|x| na::$f(&x[0], &x[1])),
            jvp: Box::new(|x, t| na::$jvp(&x[0], &x[1], &t[0], &t[1])),
            vjp: Box::new(|x, d, s| {
                let [da, db] = d else { unreachable!() };
                na::$vjp(&x[0], &x[1], da, db, s)
            }),
            dropped: Box::new(|x, d| {
                let [da, db] = d else { unreachable!() };
                na::$dropped(&x[0], &x[1], da, db)
            }),
            pullback: Box::new(|x, d, on, s| {
                let [da, db] = d else { unreachable!() };
                let (da, db) = (on[0].then_some(&mut da[..]), on[1].then_some(&mut db[..]));
                na::$pb(&x[0], &x[1], da, db, s)
            }),
            pushforward: Box::new(|x, t, on| {
                let (da, db) = (on[0].then_some(&t[0][..]), on[1].then_some(&t[1][..]));
                na::$pf(&x[0], &x[1], da, db)
            }),
            plain_products: false,
        }
    };
}

/// An operation of a vector and a scalar `s` (`$s`, a slice of one) and its companions.
macro_rules! with_scalar_op {
    ($rng:expr, $n:expr, $s:expr, $f:ident, $jvp:ident, $vjp:ident, $dropped:ident, $pb:ident,
     $pf:ident) => {
        Op {
            name: format!("{} of {}", stringify!($f), $n),
            inputs: vec![$rng.vec($n), $s],
            vec_out: true,
            f: Box::new(|x| na::$f(&x[0], x[1][0])),
            jvp: Box::new(|x, t| na::$jvp(&x[0], x[1][0], &t[0], t[1][0])),
            vjp: Box::new(|x, d, s| {
                let [da, ds] = d else { unreachable!() };
                na::$vjp(&x[0], x[1][0], da, &mut ds[0], s)
            }),
            dropped: Box::new(|x, d| {
                let [da, ds] = d else { unreachable!() };
                na::$dropped(&x[0], x[1][0], da, &mut ds[0])
            }),
            pullback: Box::new(|x, d, on, s| {
                let [da, ds] = d else { unreachable!() };
                let (da, ds) = (on[0].then_some(&mut da[..]), on[1].then_some(&mut ds[0]));
                na::$pb(&x[0], x[1][0], da, ds, s)
            }),
            pushforward: Box::new(|x, t, on| {
                let (da, ds) = (on[0].then_some(&t[0][..]), on[1].then_some(t[1][0]));
                na::$pf(&x[0], x[1][0], da, ds)
            }),
            plain_products: false,
        }
    };
}

/// A unary operation with a `Vec` output and its companions; `$dims` are extra `usize` arguments.
macro_rules! unary_vec_op {
    ($name:expr, $a:expr, $f:ident, $jvp:ident, $vjp:ident, $dropped:ident, $pb:ident,
     $pf:ident $(, $dims:expr)*) => {
        Op {
            name: $name,
            inputs: vec![$a],
            vec_out: true,
            f: Box::new(move |x| na::$f(&x[0] $(, $dims)*)),
            jvp: Box::new(move |x, t| na::$jvp(&x[0] $(, $dims)*, &t[0])),
            vjp: Box::new(move |x, d, s| na::$vjp(&x[0] $(, $dims)*, &mut d[0], s)),
            dropped: Box::new(move |x, d| na::$dropped(&x[0] $(, $dims)*, &mut d[0])),
            pullback: Box::new(move |x, d, on, s| {
                na::$pb(&x[0] $(, $dims)*, on[0].then_some(&mut d[0][..]), s)
            }),
            pushforward: Box::new(move |x, t, on| {
                na::$pf(&x[0] $(, $dims)*, on[0].then_some(&t[0][..]))
            }),
            plain_products: false,
        }
    };
}

/// A unary operation with a scalar output and its companions; `$dims` are extra `usize`
/// arguments.
macro_rules! unary_scalar_op {
    ($name:expr, $a:expr, $f:ident, $jvp:ident, $vjp:ident, $dropped:ident, $pb:ident,
     $pf:ident $(, $dims:expr)*) => {
        Op {
            name: $name,
            inputs: vec![$a],
            vec_out: false,
            f: Box::new(move |x| vec![na::$f(&x[0] $(, $dims)*)]),
            jvp: Box::new(move |x, t| {
                let (v, dv) = na::$jvp(&x[0] $(, $dims)*, &t[0]);
                (vec![v], vec![dv])
            }),
            vjp: Box::new(move |x, d, s| {
                vec![na::$vjp(&x[0] $(, $dims)*, &mut d[0], scalar_seed(s))]
            }),
            dropped: Box::new(move |x, d| na::$dropped(&x[0] $(, $dims)*, &mut d[0])),
            pullback: Box::new(move |x, d, on, s| {
                na::$pb(&x[0] $(, $dims)*, on[0].then_some(&mut d[0][..]), scalar_seed(s))
            }),
            pushforward: Box::new(move |x, t, on| {
                let (v, dv) = na::$pf(&x[0] $(, $dims)*, on[0].then_some(&t[0][..]));
                (vec![v], vec![dv])
            }),
            plain_products: false,
        }
    };
}

fn dot_op<T: Real>(rng: &mut Rng, n: usize) -> Op<T> {
    Op {
        name: format!("dot of {n}"),
        inputs: vec![rng.vec(n), rng.vec(n)],
        vec_out: false,
        f: Box::new(|x| vec![na::dot(&x[0], &x[1])]),
        jvp: Box::new(|x, t| {
            let (v, dv) = na::dot_jvp(&x[0], &x[1], &t[0], &t[1]);
            (vec![v], vec![dv])
        }),
        vjp: Box::new(|x, d, s| {
            let [da, db] = d else { unreachable!() };
            vec![na::dot_vjp(&x[0], &x[1], da, db, scalar_seed(s))]
        }),
        dropped: Box::new(|x, d| {
            let [da, db] = d else { unreachable!() };
            na::dot_vjp_dropped(&x[0], &x[1], da, db)
        }),
        pullback: Box::new(|x, d, on, s| {
            let [da, db] = d else { unreachable!() };
            let (da, db) = (on[0].then_some(&mut da[..]), on[1].then_some(&mut db[..]));
            na::dot_pullback(&x[0], &x[1], da, db, scalar_seed(s))
        }),
        pushforward: Box::new(|x, t, on| {
            let (da, db) = (on[0].then_some(&t[0][..]), on[1].then_some(&t[1][..]));
            let (v, dv) = na::dot_pushforward(&x[0], &x[1], da, db);
            (vec![v], vec![dv])
        }),
        plain_products: false,
    }
}

fn dot_mat_op<T: Real>(rng: &mut Rng, rows: usize, cols: usize) -> Op<T> {
    Op {
        name: format!("dot_mat of {rows}x{cols}"),
        inputs: vec![rng.vec(rows * cols), rng.vec(rows * cols)],
        vec_out: false,
        f: Box::new(move |x| vec![na::dot_mat(&x[0], &x[1], rows, cols)]),
        jvp: Box::new(move |x, t| {
            let (v, dv) = na::dot_mat_jvp(&x[0], &x[1], rows, cols, &t[0], &t[1]);
            (vec![v], vec![dv])
        }),
        vjp: Box::new(move |x, d, s| {
            let [da, db] = d else { unreachable!() };
            vec![na::dot_mat_vjp(
                &x[0],
                &x[1],
                rows,
                cols,
                da,
                db,
                scalar_seed(s),
            )]
        }),
        dropped: Box::new(move |x, d| {
            let [da, db] = d else { unreachable!() };
            na::dot_mat_vjp_dropped(&x[0], &x[1], rows, cols, da, db)
        }),
        pullback: Box::new(move |x, d, on, s| {
            let [da, db] = d else { unreachable!() };
            let (da, db) = (on[0].then_some(&mut da[..]), on[1].then_some(&mut db[..]));
            na::dot_mat_pullback(&x[0], &x[1], rows, cols, da, db, scalar_seed(s))
        }),
        pushforward: Box::new(move |x, t, on| {
            let (da, db) = (on[0].then_some(&t[0][..]), on[1].then_some(&t[1][..]));
            let (v, dv) = na::dot_mat_pushforward(&x[0], &x[1], rows, cols, da, db);
            (vec![v], vec![dv])
        }),
        plain_products: false,
    }
}

/// Every operation over its shapes.
fn all_ops<T: Real>(rng: &mut Rng) -> Vec<Op<T>> {
    let mut ops = Vec::new();
    for (m, k, n) in [
        (2, 3, 4),
        (1, 1, 1),
        (3, 1, 2),
        (0, 2, 3),
        (2, 0, 3),
        (2, 3, 0),
        (5, 7, 3),
        (9, 8, 17),
        (16, 1, 9),
        (13, 17, 8),
    ] {
        ops.push(mat_mul_op(rng, m, k, n));
    }
    for n in [0, 1, 3, 8, 17] {
        let b = rng.vec(n);
        ops.push(binary_op!(
            rng,
            n,
            b,
            add,
            add_jvp,
            add_vjp,
            add_vjp_dropped,
            add_pullback,
            add_pushforward
        ));
        let b = rng.vec(n);
        ops.push(binary_op!(
            rng,
            n,
            b,
            sub,
            sub_jvp,
            sub_vjp,
            sub_vjp_dropped,
            sub_pullback,
            sub_pushforward
        ));
        let b = rng.vec(n);
        ops.push(binary_op!(
            rng,
            n,
            b,
            component_mul,
            component_mul_jvp,
            component_mul_vjp,
            component_mul_vjp_dropped,
            component_mul_pullback,
            component_mul_pushforward
        ));
        let b = rng.away_from_zero(n);
        ops.push(binary_op!(
            rng,
            n,
            b,
            component_div,
            component_div_jvp,
            component_div_vjp,
            component_div_vjp_dropped,
            component_div_pullback,
            component_div_pushforward
        ));
        ops.push(unary_vec_op!(
            format!("neg of {n}"),
            rng.vec(n),
            neg,
            neg_jvp,
            neg_vjp,
            neg_vjp_dropped,
            neg_pullback,
            neg_pushforward
        ));
        ops.push(with_scalar_op!(
            rng,
            n,
            rng.vec(1),
            scale,
            scale_jvp,
            scale_vjp,
            scale_vjp_dropped,
            scale_pullback,
            scale_pushforward
        ));
        ops.push(with_scalar_op!(
            rng,
            n,
            rng.vec(1),
            add_scalar,
            add_scalar_jvp,
            add_scalar_vjp,
            add_scalar_vjp_dropped,
            add_scalar_pullback,
            add_scalar_pushforward
        ));
        ops.push(with_scalar_op!(
            rng,
            n,
            rng.away_from_zero(1),
            div_scalar,
            div_scalar_jvp,
            div_scalar_vjp,
            div_scalar_vjp_dropped,
            div_scalar_pullback,
            div_scalar_pushforward
        ));
    }
    for (rows, cols) in [
        (1, 1),
        (2, 3),
        (3, 2),
        (4, 1),
        (1, 5),
        (7, 9),
        (0, 3),
        (3, 0),
    ] {
        ops.push(unary_vec_op!(
            format!("transpose of {rows}x{cols}"),
            rng.vec(rows * cols),
            transpose,
            transpose_jvp,
            transpose_vjp,
            transpose_vjp_dropped,
            transpose_pullback,
            transpose_pushforward,
            rows,
            cols
        ));
        for j in [0, cols.saturating_sub(1)] {
            if j < cols {
                ops.push(unary_vec_op!(
                    format!("column {j} of {rows}x{cols}"),
                    rng.vec(rows * cols),
                    column,
                    column_jvp,
                    column_vjp,
                    column_vjp_dropped,
                    column_pullback,
                    column_pushforward,
                    rows,
                    cols,
                    j
                ));
            }
        }
        for i in [0, rows.saturating_sub(1)] {
            if i < rows {
                ops.push(unary_vec_op!(
                    format!("row {i} of {rows}x{cols}"),
                    rng.vec(rows * cols),
                    row,
                    row_jvp,
                    row_vjp,
                    row_vjp_dropped,
                    row_pullback,
                    row_pushforward,
                    rows,
                    cols,
                    i
                ));
            }
        }
    }
    for n in [0, 1, 2, 3, 4, 7, 8, 9, 16, 17, 33] {
        ops.push(dot_op(rng, n));
        ops.push(unary_scalar_op!(
            format!("sum of {n}"),
            rng.vec(n),
            sum,
            sum_jvp,
            sum_vjp,
            sum_vjp_dropped,
            sum_pullback,
            sum_pushforward
        ));
        ops.push(unary_scalar_op!(
            format!("mean of {n}"),
            rng.vec(n),
            mean,
            mean_jvp,
            mean_vjp,
            mean_vjp_dropped,
            mean_pullback,
            mean_pushforward
        ));
        ops.push(unary_scalar_op!(
            format!("norm_squared of {n}"),
            rng.vec(n),
            norm_squared,
            norm_squared_jvp,
            norm_squared_vjp,
            norm_squared_vjp_dropped,
            norm_squared_pullback,
            norm_squared_pushforward
        ));
        ops.push(unary_scalar_op!(
            format!("norm of {n}"),
            rng.vec(n),
            norm,
            norm_jvp,
            norm_vjp,
            norm_vjp_dropped,
            norm_pullback,
            norm_pushforward
        ));
    }
    for (rows, cols) in [(1, 9), (9, 1), (3, 3), (10, 3), (17, 2), (0, 2), (2, 0)] {
        ops.push(dot_mat_op(rng, rows, cols));
        ops.push(unary_scalar_op!(
            format!("norm_squared_mat of {rows}x{cols}"),
            rng.vec(rows * cols),
            norm_squared_mat,
            norm_squared_mat_jvp,
            norm_squared_mat_vjp,
            norm_squared_mat_vjp_dropped,
            norm_squared_mat_pullback,
            norm_squared_mat_pushforward,
            rows,
            cols
        ));
        ops.push(unary_scalar_op!(
            format!("norm_mat of {rows}x{cols}"),
            rng.vec(rows * cols),
            norm_mat,
            norm_mat_jvp,
            norm_mat_vjp,
            norm_mat_vjp_dropped,
            norm_mat_pullback,
            norm_mat_pushforward,
            rows,
            cols
        ));
    }
    ops
}

fn derivatives<T: Real + TestFloat>() {
    let mut rng = Rng::new(11);
    let ops = all_ops::<T>(&mut rng);
    assert!(ops.len() > 100);
    for op in &ops {
        check_op(op, &mut rng);
        check_pullback(op, &mut rng);
    }
}

fn pushforwards<T: Real + TestFloat>() {
    let mut rng = Rng::new(12);
    let mut ops = all_ops::<T>(&mut rng);
    // More edge shapes of the product: every dimension 0 or 1, a vector times a vector.
    for (m, k, n) in [
        (0, 0, 0),
        (1, 0, 1),
        (0, 1, 1),
        (1, 1, 0),
        (0, 3, 0),
        (1, 5, 1),
        (4, 1, 1),
        (1, 1, 4),
        (5, 1, 4),
    ] {
        ops.push(mat_mul_op(&mut rng, m, k, n));
    }
    let mut compared = 0;
    for op in &ops {
        let n = check_pushforward(op, &mut rng);
        assert!(n > 0, "{}: nothing compared", op.name);
        compared += n;
    }
    // 5 input variants x 3 tangent sets x (2 or 4) masks, less the skipped products.
    assert!(compared > 100 * 15 * 2, "{compared}");
}

#[test]
fn pushforwards_f64() {
    pushforwards::<f64>();
}

#[test]
fn pushforwards_f32() {
    pushforwards::<f32>();
}

#[test]
fn derivatives_f64() {
    derivatives::<f64>();
}

#[test]
fn derivatives_f32() {
    derivatives::<f32>();
}

// ---------------------------------------------------------------------------------------------
// Values against nalgebra

/// The float types of the comparisons with nalgebra, whose arithmetic needs `RealField`.
trait NaFloat: Real + TestFloat + nalgebra::RealField + autodiff_runtime::Scalar {}
impl NaFloat for f32 {}
impl NaFloat for f64 {}

/// `|x|` (a plain function: with `RealField` in scope, the method is ambiguous).
fn fabs<T: Real>(x: T) -> T {
    x.abs()
}

/// `γ_k = k u / (1 - k u)` with `u = ε / 2`: the bound on the relative error of a `k`-term dot
/// product in any summation order, against `Σ |a_l b_l|`.
fn gamma<T: Real>(k: usize) -> T {
    let ku = c::<T>(k as f64) * T::epsilon() / c(2.0);
    ku / (T::one() - ku)
}

/// `ours` against nalgebra's `theirs` for `C = A B`: both within `γ_k Σ_l |a_il b_lj|` of the
/// exact entry, so within twice that of each other.
#[track_caller]
fn assert_product_close<T: NaFloat>(what: &str, a: &DMatrix<T>, b: &DMatrix<T>, ours: &[T]) {
    let theirs = a * b;
    let (m, k, n) = (a.nrows(), a.ncols(), b.ncols());
    assert_eq!(ours.len(), m * n, "{what}: length");
    let two_gamma = gamma::<T>(k) * c(2.0);
    for j in 0..n {
        for i in 0..m {
            let abs: T = (0..k).fold(T::zero(), |s, l| s + fabs(a[(i, l)] * b[(l, j)]));
            let (o, t) = (ours[i + j * m], theirs[(i, j)]);
            assert!(
                fabs(o - t) <= two_gamma * abs,
                "{what}: ({i}, {j}) of {m}x{k} * {k}x{n}: ours {o:?}, nalgebra {t:?}, bound {:?}",
                two_gamma * abs
            );
        }
    }
}

fn random_dmatrix<T: Real>(rng: &mut Rng, rows: usize, cols: usize) -> DMatrix<T> {
    DMatrix::from_vec(rows, cols, rng.vec(rows * cols))
}

fn mat_mul_vs_nalgebra<T: NaFloat>() {
    let mut rng = Rng::new(3);
    let sizes = [0, 1, 2, 3, 5, 7, 8, 9, 13, 16, 17];
    for isa in autodiff_runtime::kernels::available_isas() {
        for &m in &sizes {
            for &k in &sizes {
                for &n in &sizes {
                    let a = random_dmatrix::<T>(&mut rng, m, k);
                    let b = random_dmatrix::<T>(&mut rng, k, n);
                    let ours = autodiff_runtime::kernels::with_isa(isa, || {
                        na::mat_mul(a.as_slice(), b.as_slice(), m, k, n)
                    });
                    assert_product_close(&format!("mat_mul on {isa:?}"), &a, &b, &ours);
                }
            }
        }
    }
    // Larger, past the kernels' first blocking sizes.
    for (m, k, n) in [(67, 300, 45), (130, 31, 129)] {
        let a = random_dmatrix::<T>(&mut rng, m, k);
        let b = random_dmatrix::<T>(&mut rng, k, n);
        let ours = na::mat_mul(a.as_slice(), b.as_slice(), m, k, n);
        assert_product_close("mat_mul", &a, &b, &ours);
    }
    // Static matrices: their storage is column-major too.
    let a = Matrix2x3::<T>::from_column_slice(&rng.vec(6));
    let b = Matrix3::<T>::from_column_slice(&rng.vec(9));
    let ours = na::mat_mul(a.as_slice(), b.as_slice(), 2, 3, 3);
    let (da, db) = (
        DMatrix::from_column_slice(2, 3, a.as_slice()),
        DMatrix::from_column_slice(3, 3, b.as_slice()),
    );
    assert_product_close("Matrix2x3 * Matrix3", &da, &db, &ours);
    let theirs = a * b;
    assert_eq!(theirs.as_slice().len(), ours.len());
}

#[test]
fn mat_mul_matches_nalgebra() {
    mat_mul_vs_nalgebra::<f64>();
    mat_mul_vs_nalgebra::<f32>();
}

#[test]
fn mat_mul_small_exact_example() {
    // Integers: every rounding is exact, so the product is nalgebra's exactly.
    let a = DMatrix::from_row_slice(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let b = DMatrix::from_row_slice(3, 2, &[7.0, 8.0, 9.0, 10.0, 11.0, 12.0]);
    let c = na::mat_mul(a.as_slice(), b.as_slice(), 2, 3, 2);
    assert_eq!(c, (&a * &b).as_slice());
    assert_eq!(c, [58.0, 139.0, 64.0, 154.0]); // column-major [[58, 64], [139, 154]]
                                               // k = 0: zeros; m = 0 or n = 0: empty.
    assert_eq!(na::mat_mul::<f64>(&[], &[], 2, 0, 3), vec![0.0; 6]);
    assert_eq!(
        na::mat_mul::<f64>(&[], &[1.0, 2.0], 0, 2, 1),
        Vec::<f64>::new()
    );
}

fn rearrangements_vs_nalgebra<T: NaFloat>() {
    let mut rng = Rng::new(5);
    for rows in [0, 1, 2, 3, 8, 9] {
        for cols in [0, 1, 2, 5, 16] {
            let a = random_dmatrix::<T>(&mut rng, rows, cols);
            let s = a.as_slice();
            let t = na::transpose(s, rows, cols);
            assert_eq!(t, a.transpose().as_slice(), "transpose of {rows}x{cols}");
            for j in 0..cols {
                let col = na::column(s, rows, cols, j);
                assert_eq!(col, a.column(j).iter().copied().collect::<Vec<_>>());
            }
            for i in 0..rows {
                let row = na::row(s, rows, cols, i);
                assert_eq!(row, a.row(i).iter().copied().collect::<Vec<_>>());
            }
        }
    }
    let m = Matrix3x2::<T>::from_column_slice(&rng.vec(6));
    assert_eq!(na::transpose(m.as_slice(), 3, 2), m.transpose().as_slice());
    assert_eq!(
        na::row(m.as_slice(), 3, 2, 1),
        m.row(1).iter().copied().collect::<Vec<_>>()
    );
}

#[test]
fn transpose_column_row_match_nalgebra() {
    rearrangements_vs_nalgebra::<f64>();
    rearrangements_vs_nalgebra::<f32>();
}

fn elementwise_vs_nalgebra<T: NaFloat>() {
    let mut rng = Rng::new(6);
    for n in [0, 1, 5, 17] {
        let a = DVector::<T>::from_vec(rng.vec(n));
        let b = DVector::<T>::from_vec(rng.away_from_zero(n));
        let s: T = rng.uniform(-2.0, 2.0);
        let (x, y) = (a.as_slice(), b.as_slice());
        assert_same_vec("add", &na::add(x, y), (&a + &b).as_slice());
        assert_same_vec("sub", &na::sub(x, y), (&a - &b).as_slice());
        let mul = a.component_mul(&b);
        assert_same_vec("component_mul", &na::component_mul(x, y), mul.as_slice());
        let div = a.component_div(&b);
        assert_same_vec("component_div", &na::component_div(x, y), div.as_slice());
        assert_same_vec("neg", &na::neg(x), (-&a).as_slice());
        assert_same_vec("scale", &na::scale(x, s), (&a * s).as_slice());
        assert_same_vec(
            "add_scalar",
            &na::add_scalar(x, s),
            a.add_scalar(s).as_slice(),
        );
    }
}

#[test]
fn elementwise_match_nalgebra() {
    elementwise_vs_nalgebra::<f64>();
    elementwise_vs_nalgebra::<f32>();
}

#[track_caller]
fn assert_same<T: Real>(what: &str, ours: T, theirs: T) {
    assert!(
        same(ours, theirs),
        "{what}: ours {ours:?}, nalgebra {theirs:?}"
    );
}

/// Column vectors take the slice-only functions; a sum over 40 terms of mixed signs rounds
/// differently in almost every order, so bit-for-bit equality here is evidence of the same order.
fn reductions_vs_nalgebra<T: NaFloat>() {
    let mut rng = Rng::new(7);
    for n in 0..=40 {
        let a = DVector::<T>::from_vec(rng.vec(n));
        let b = DVector::<T>::from_vec(rng.vec(n));
        let (x, y) = (a.as_slice(), b.as_slice());
        let what = format!("DVector of {n}");
        assert_same(&format!("dot, {what}"), na::dot(x, y), a.dot(&b));
        assert_same(&format!("sum, {what}"), na::sum(x), a.sum());
        assert_same(&format!("mean, {what}"), na::mean(x), a.mean());
        assert_same(
            &format!("norm², {what}"),
            na::norm_squared(x),
            a.norm_squared(),
        );
        assert_same(&format!("norm, {what}"), na::norm(x), a.norm());
        // The shaped forms agree on a column.
        assert_same(&what, na::dot_mat(x, y, n, 1), a.dot(&b));
        assert_same(&what, na::norm_squared_mat(x, n, 1), a.norm_squared());
        assert_same(&what, na::norm_mat(x, n, 1), a.norm());

        // Row vectors: one element per column, so nalgebra sums left to right.
        let r = RowDVector::<T>::from_vec(rng.vec(n));
        let q = RowDVector::<T>::from_vec(rng.vec(n));
        let (x, y) = (r.as_slice(), q.as_slice());
        let what = format!("RowDVector of {n}");
        assert_same(&format!("dot, {what}"), na::dot_mat(x, y, 1, n), r.dot(&q));
        assert_same(&format!("sum, {what}"), na::sum(x), r.sum());
        assert_same(&format!("mean, {what}"), na::mean(x), r.mean());
        let n2 = na::norm_squared_mat(x, 1, n);
        assert_same(&format!("norm², {what}"), n2, r.norm_squared());
        assert_same(&format!("norm, {what}"), na::norm_mat(x, 1, n), r.norm());
    }
    for rows in 0..=17 {
        for cols in [0, 1, 2, 3, 5] {
            let a = random_dmatrix::<T>(&mut rng, rows, cols);
            let b = random_dmatrix::<T>(&mut rng, rows, cols);
            let (x, y) = (a.as_slice(), b.as_slice());
            let what = format!("DMatrix {rows}x{cols}");
            assert_same(&what, na::dot_mat(x, y, rows, cols), a.dot(&b));
            assert_same(&what, na::sum(x), a.sum());
            assert_same(&what, na::mean(x), a.mean());
            assert_same(&what, na::norm_squared_mat(x, rows, cols), a.norm_squared());
            assert_same(&what, na::norm_mat(x, rows, cols), a.norm());
        }
    }
}

#[test]
fn reductions_match_nalgebra_bit_for_bit() {
    reductions_vs_nalgebra::<f64>();
    reductions_vs_nalgebra::<f32>();
}

/// Static shapes: every row count but 4 is summed as the dynamic ones are.
fn static_reductions<T: NaFloat, const R: usize, const C: usize>(rng: &mut Rng) {
    let a = SMatrix::<T, R, C>::from_column_slice(&rng.vec(R * C));
    let b = SMatrix::<T, R, C>::from_column_slice(&rng.vec(R * C));
    let (x, y) = (a.as_slice(), b.as_slice());
    let what = format!("SMatrix<{R}, {C}>");
    assert_same(&what, na::dot_mat(x, y, R, C), a.dot(&b));
    assert_same(&what, na::sum(x), a.sum());
    assert_same(&what, na::mean(x), a.mean());
    assert_same(&what, na::norm_squared_mat(x, R, C), a.norm_squared());
    assert_same(&what, na::norm_mat(x, R, C), a.norm());
    if C == 1 {
        assert_same(&what, na::dot(x, y), a.dot(&b));
        assert_same(&what, na::norm_squared(x), a.norm_squared());
        assert_same(&what, na::norm(x), a.norm());
    }
}

fn static_shapes<T: NaFloat>() {
    let mut rng = Rng::new(8);
    for _ in 0..50 {
        static_reductions::<T, 1, 1>(&mut rng);
        static_reductions::<T, 2, 1>(&mut rng);
        static_reductions::<T, 3, 1>(&mut rng);
        static_reductions::<T, 5, 1>(&mut rng);
        static_reductions::<T, 9, 1>(&mut rng);
        static_reductions::<T, 17, 1>(&mut rng);
        static_reductions::<T, 1, 9>(&mut rng);
        static_reductions::<T, 2, 2>(&mut rng);
        static_reductions::<T, 3, 3>(&mut rng);
        static_reductions::<T, 2, 3>(&mut rng);
        static_reductions::<T, 9, 2>(&mut rng);
    }
    let v = Vector3::<T>::from_column_slice(&rng.vec(3));
    assert_same("Vector3 norm", na::norm(v.as_slice()), v.norm());
    let m = Matrix3::<T>::from_column_slice(&rng.vec(9));
    assert_same("Matrix3 norm", na::norm_mat(m.as_slice(), 3, 3), m.norm());
}

#[test]
fn static_shapes_match_nalgebra_bit_for_bit() {
    static_shapes::<f64>();
    static_shapes::<f32>();
}

/// The documented exception: nalgebra sums a statically 4-row column pairwise,
/// `(p0 + p2) + (p1 + p3)`, where a slice is summed left to right: equal to rounding only.
fn four_rows<T: NaFloat>() {
    let mut rng = Rng::new(9);
    let mut differ = 0;
    for _ in 0..200 {
        let a = SVector::<T, 4>::from_column_slice(&rng.vec(4));
        let b = SVector::<T, 4>::from_column_slice(&rng.vec(4));
        let (x, y) = (a.as_slice(), b.as_slice());
        let p: Vec<T> = x.iter().zip(y).map(|(&p, &q)| p * q).collect();
        assert_same(
            "Vector4 dot, pairwise",
            a.dot(&b),
            (p[0] + p[2]) + (p[1] + p[3]),
        );
        let ours = na::dot(x, y);
        // The dynamic vector of the same elements is summed as here.
        let dynamic = DVector::from_column_slice(x).dot(&DVector::from_column_slice(y));
        assert_same("DVector of 4 dot", ours, dynamic);
        let abs = p.iter().fold(T::zero(), |s, &q| s + fabs(q));
        assert!(fabs(ours - a.dot(&b)) <= gamma::<T>(4) * c(2.0) * abs);
        differ += usize::from(!same(ours, a.dot(&b)));

        let m = Matrix4::<T>::from_column_slice(&rng.vec(16));
        let ours = na::norm_squared_mat(m.as_slice(), 4, 4);
        let exact_bound = gamma::<T>(16) * c(2.0) * ours;
        assert!(fabs(ours - m.norm_squared()) <= exact_bound);
    }
    // The orders do differ (so this test is about something).
    assert!(differ > 0, "{}", T::NAME);
}

#[test]
fn four_static_rows_equal_to_rounding() {
    four_rows::<f64>();
    four_rows::<f32>();
}

#[test]
fn empty_mean_is_zero_as_in_nalgebra() {
    let empty = DVector::<f64>::zeros(0);
    assert_eq!(empty.mean(), 0.0);
    assert_eq!(na::mean::<f64>(&[]), 0.0);
    assert_eq!(na::mean_jvp::<f32>(&[], &[]), (0.0, 0.0));
    let mut d: [f64; 0] = [];
    assert_eq!(na::mean_vjp(&[], &mut d, 1.0), 0.0);
}

#[test]
fn norm_overflows_where_nalgebra_does() {
    // Plain sqrt of the sum of squares: 1e200² overflows, in nalgebra as here.
    let big = DVector::from_vec(vec![1e200, 1e200]);
    assert_eq!(big.norm(), f64::INFINITY);
    assert_eq!(na::norm(big.as_slice()), f64::INFINITY);
    // ... and the derivative taken with that value is zero.
    let (n, t) = na::norm_jvp(big.as_slice(), &[1.0, 1.0]);
    assert_eq!((n, t), (f64::INFINITY, 0.0));
    // Below overflow the value is nalgebra's, to the bit.
    let v = DVector::<f64>::from_vec(vec![3e150, 4e150]);
    assert_eq!(na::norm(v.as_slice()).to_bits(), v.norm().to_bits());
}

fn norm_at_zero<T: Real>() {
    for n in [0, 1, 3, 9] {
        let zero = vec![T::zero(); n];
        let t: Vec<T> = (0..n).map(|i| c(i as f64 + 1.0)).collect();
        assert_eq!(na::norm_jvp(&zero, &t), (T::zero(), T::zero()));
        assert_eq!(na::norm_mat_jvp(&zero, n, 1, &t), (T::zero(), T::zero()));
        let mut d: Vec<T> = t.clone();
        assert_eq!(na::norm_vjp(&zero, &mut d, T::one()), T::zero());
        assert_eq!(na::norm_mat_vjp(&zero, 1, n, &mut d, T::one()), T::zero());
        assert_eq!(d, t, "norm'(0) = 0 adds nothing");
    }
}

#[test]
fn norm_derivative_at_zero_is_zero() {
    norm_at_zero::<f64>();
    norm_at_zero::<f32>();
}

#[test]
fn zero_seed_is_a_strong_zero() {
    // `inf` partials (a / 0, s = inf) times a zero seed or tangent add nothing, not NaN.
    let (a, b) = ([1.0, 2.0], [0.0, 4.0]);
    let (y, dy) = na::component_div_jvp(&a, &b, &[1.0, 1.0], &[0.0, 0.0]);
    assert_eq!(y, [f64::INFINITY, 0.5]);
    assert_eq!(dy, [f64::INFINITY, 0.25]);
    let (_, dy) = na::component_div_jvp(&a, &b, &[0.0, 1.0], &[0.0, 0.0]);
    assert_eq!(dy, [0.0, 0.25]);
    let (mut da, mut db) = ([0.0; 2], [0.0; 2]);
    na::component_div_vjp(&a, &b, &mut da, &mut db, &[0.0, 1.0]);
    assert_eq!((da, db), ([0.0, 0.25], [0.0, -0.125]));
    let (mut da, mut ds) = ([0.0; 2], 0.0);
    na::scale_vjp(&a, f64::INFINITY, &mut da, &mut ds, &[0.0, 0.0]);
    assert_eq!((da, ds), ([0.0; 2], 0.0));
}

// ---------------------------------------------------------------------------------------------
// Pullbacks: known values

#[test]
fn mat_mul_pullback_values() {
    // A = [[1, 2, 3], [4, 5, 6]], B = [[1, 0], [0, 1], [1, 1]], C̄ = [[1, 2], [3, 4]], all stored
    // column-major: Ā = C̄ Bᵀ = [[1, 2, 3], [3, 4, 7]],
    // B̄ = Aᵀ C̄ = [[13, 18], [17, 24], [21, 30]].
    let a = [1.0, 4.0, 2.0, 5.0, 3.0, 6.0];
    let b = [1.0, 0.0, 1.0, 0.0, 1.0, 1.0];
    let seed = [1.0, 3.0, 2.0, 4.0];
    let (mut da, mut db) = ([1.0; 6], [-1.0; 6]);
    na::mat_mul_pullback(&a, &b, 2, 3, 2, Some(&mut da), Some(&mut db), &seed);
    assert_eq!(da, [2.0, 4.0, 3.0, 5.0, 4.0, 8.0]);
    assert_eq!(db, [12.0, 16.0, 20.0, 17.0, 23.0, 29.0]);

    // Only B̄ (`w * x` with the data `x` first): the same B̄, no Ā anywhere.
    let mut db = [0.0; 6];
    na::mat_mul_pullback(&a, &b, 2, 3, 2, None, Some(&mut db), &seed);
    assert_eq!(db, [13.0, 17.0, 21.0, 18.0, 24.0, 30.0]);
    // Only Ā.
    let mut da = [0.0; 6];
    na::mat_mul_pullback(&a, &b, 2, 3, 2, Some(&mut da), None, &seed);
    assert_eq!(da, [1.0, 3.0, 2.0, 4.0, 3.0, 7.0]);

    // A short seed is C̄'s first column, the rest zero: C̄ = [[1, 0], [3, 0]].
    let (mut da, mut db) = ([0.0; 6], [0.0; 6]);
    na::mat_mul_pullback(&a, &b, 2, 3, 2, Some(&mut da), Some(&mut db), &seed[..2]);
    assert_eq!(da, [1.0, 3.0, 0.0, 0.0, 1.0, 3.0]);
    assert_eq!(db, [13.0, 17.0, 21.0, 0.0, 0.0, 0.0]);
    // An empty seed adds nothing.
    na::mat_mul_pullback(&a, &b, 2, 3, 2, Some(&mut da), Some(&mut db), &[]);
    assert_eq!(da, [1.0, 3.0, 0.0, 0.0, 1.0, 3.0]);

    // The same in f32, and the same as mat_mul_vjp adds.
    let a32 = a.map(|x| x as f32);
    let b32 = b.map(|x| x as f32);
    let seed32 = seed.map(|x| x as f32);
    let (mut da, mut db) = ([0.0f32; 6], [0.0f32; 6]);
    na::mat_mul_pullback(&a32, &b32, 2, 3, 2, Some(&mut da), Some(&mut db), &seed32);
    let (mut va, mut vb) = ([0.0f32; 6], [0.0f32; 6]);
    let c = na::mat_mul_vjp(&a32, &b32, 2, 3, 2, &mut va, &mut vb, &seed32);
    assert_eq!(c, [4.0, 10.0, 5.0, 11.0]);
    assert_eq!((da, db), (va, vb));
    assert_eq!(da, [1.0, 3.0, 2.0, 4.0, 3.0, 7.0]);
}

#[test]
fn scale_pullback_values() {
    // a * s with a = [1, 2, 3], s = 2 and the short seed [1, 0.5]: da += [2, 1, 0],
    // ds += 1 * 1 + 0.5 * 2 = 2.
    let a = [1.0, 2.0, 3.0];
    let (mut da, mut ds) = ([1.0; 3], 10.0);
    na::scale_pullback(&a, 2.0, Some(&mut da), Some(&mut ds), &[1.0, 0.5]);
    assert_eq!((da, ds), ([3.0, 2.0, 1.0], 12.0));
    let mut ds = 10.0;
    na::scale_pullback(&a, 2.0, None, Some(&mut ds), &[1.0, 0.5]);
    assert_eq!(ds, 12.0);
    let mut da = [1.0f32; 3];
    na::scale_pullback(&[1.0f32, 2.0, 3.0], 2.0, Some(&mut da), None, &[1.0, 0.5]);
    assert_eq!(da, [3.0, 2.0, 1.0]);
    // An empty seed leaves `ds` alone (no `+ 0` turning a `-0` into `0`).
    let mut ds = -0.0f64;
    na::scale_pullback(&a, 2.0, None, Some(&mut ds), &[]);
    assert!(ds == 0.0 && ds.is_sign_negative());
}

#[test]
fn dot_mat_pullback_values() {
    // da += 3 b, db += 3 a; nothing for a zero seed.
    let (a, b) = ([1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]);
    let (mut da, mut db) = ([1.0; 4], [0.0; 4]);
    na::dot_mat_pullback(&a, &b, 2, 2, Some(&mut da), Some(&mut db), 3.0);
    assert_eq!((da, db), ([16.0, 19.0, 22.0, 25.0], [3.0, 6.0, 9.0, 12.0]));
    na::dot_mat_pullback(&a, &b, 2, 2, None, Some(&mut db), 3.0);
    assert_eq!(
        (da, db),
        ([16.0, 19.0, 22.0, 25.0], [6.0, 12.0, 18.0, 24.0])
    );
    na::dot_mat_pullback(&a, &b, 2, 2, Some(&mut da), Some(&mut db), 0.0);
    assert_eq!(
        (da, db),
        ([16.0, 19.0, 22.0, 25.0], [6.0, 12.0, 18.0, 24.0])
    );
    let mut db = [0.0f32; 4];
    na::dot_mat_pullback(
        &[1.0f32, 2.0, 3.0, 4.0],
        &[0.0; 4],
        4,
        1,
        None,
        Some(&mut db),
        0.5,
    );
    assert_eq!(db, [0.5, 1.0, 1.5, 2.0]);
}

#[test]
fn norm_pullback_values() {
    // ‖[[3, 4], [0, 0]]‖ = 5: da += 10 a / 5; at a = 0 nothing.
    let a = [3.0, 0.0, 4.0, 0.0];
    let mut da = [1.0; 4];
    na::norm_mat_pullback(&a, 2, 2, Some(&mut da), 10.0);
    assert_eq!(da, [7.0, 1.0, 9.0, 1.0]);
    na::norm_mat_pullback(&[0.0; 4], 2, 2, Some(&mut da), 10.0);
    assert_eq!(da, [7.0, 1.0, 9.0, 1.0]);
    na::norm_mat_pullback(&a, 2, 2, None, 10.0);
    let mut dv = [0.0f32; 2];
    na::norm_pullback(&[3.0f32, 4.0], Some(&mut dv), 5.0);
    assert_eq!(dv, [3.0, 4.0]);
    let mut dv = [0.0; 2];
    na::norm_squared_pullback(&[3.0, 4.0], Some(&mut dv), 0.5);
    assert_eq!(dv, [3.0, 4.0]);
}

#[test]
fn other_pullback_values() {
    // div_scalar: a / 4 with seed [2, 8]: da += seed / 4, ds -= Σ seed (a / 4) / 4 = 1.125.
    let (mut da, mut ds) = ([0.0; 2], 0.0);
    na::div_scalar_pullback(&[1.0, 2.0], 4.0, Some(&mut da), Some(&mut ds), &[2.0, 8.0]);
    assert_eq!((da, ds), ([0.5, 2.0], -1.125));
    // add_scalar: da += seed (zero-padded), ds += Σ seed.
    let (mut da, mut ds) = ([0.0; 3], 0.0);
    na::add_scalar_pullback(&[9.0; 3], 7.0, Some(&mut da), Some(&mut ds), &[1.0, 2.0]);
    assert_eq!((da, ds), ([1.0, 2.0, 0.0], 3.0));
    // transpose of a 2 x 3: the 3 x 2 seed [1..6] lands on A as [[1, 2, 3], [4, 5, 6]].
    let mut da = [0.0; 6];
    let seed = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    na::transpose_pullback(&[0.0; 6], 2, 3, Some(&mut da), &seed);
    assert_eq!(da, [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    // column 1 and row 1 of a 2 x 3.
    let mut da = [0.0; 6];
    na::column_pullback(&[0.0; 6], 2, 3, 1, Some(&mut da), &[1.0, 2.0]);
    na::row_pullback(&[0.0; 6], 2, 3, 1, Some(&mut da), &[10.0, 20.0, 30.0]);
    assert_eq!(da, [0.0, 10.0, 1.0, 22.0, 0.0, 30.0]);
    // component_mul, add, sub, neg.
    let (mut da, mut db) = ([0.0; 2], [0.0; 2]);
    na::component_mul_pullback(
        &[2.0, 3.0],
        &[5.0, 7.0],
        Some(&mut da),
        Some(&mut db),
        &[1.0],
    );
    assert_eq!((da, db), ([5.0, 0.0], [2.0, 0.0]));
    na::add_pullback(&[0.0; 2], &[0.0; 2], Some(&mut da), None, &[1.0, 1.0]);
    na::sub_pullback(&[0.0; 2], &[0.0; 2], None, Some(&mut db), &[1.0, 1.0]);
    na::neg_pullback(&[0.0; 2], Some(&mut da), &[0.5]);
    assert_eq!((da, db), ([5.5, 1.0], [1.0, -1.0]));
    // sum, mean, dot.
    let mut da = [0.0; 3];
    na::sum_pullback(&[1.0, 2.0, 3.0], Some(&mut da), 2.0);
    na::mean_pullback(&[1.0, 2.0, 3.0], Some(&mut da), 3.0);
    assert_eq!(da, [3.0, 3.0, 3.0]);
    let (mut da, mut db) = ([0.0; 2], [0.0; 2]);
    na::dot_pullback(&[1.0, 2.0], &[3.0, 4.0], Some(&mut da), Some(&mut db), 2.0);
    assert_eq!((da, db), ([6.0, 8.0], [2.0, 4.0]));
}

#[test]
fn pullback_zero_seed_is_a_strong_zero() {
    // As `zero_seed_is_a_strong_zero`, through the pullbacks: `a / 0` and `s = inf`.
    let (a, b) = ([1.0, 2.0], [0.0, 4.0]);
    let (mut da, mut db) = ([0.0; 2], [0.0; 2]);
    na::component_div_pullback(&a, &b, Some(&mut da), Some(&mut db), &[0.0, 1.0]);
    assert_eq!((da, db), ([0.0, 0.25], [0.0, -0.125]));
    let mut db = [0.0; 2];
    na::component_div_pullback(&a, &b, None, Some(&mut db), &[0.0, 1.0]);
    assert_eq!(db, [0.0, -0.125]);
    let (mut da, mut ds) = ([0.0; 2], 0.0);
    na::scale_pullback(&a, f64::INFINITY, Some(&mut da), Some(&mut ds), &[0.0, 0.0]);
    assert_eq!((da, ds), ([0.0; 2], 0.0));
    let (mut da, mut ds) = ([0.0f32; 2], 0.0f32);
    na::div_scalar_pullback(
        &[1.0f32, 2.0],
        0.0,
        Some(&mut da),
        Some(&mut ds),
        &[0.0, 0.0],
    );
    assert_eq!((da, ds), ([0.0; 2], 0.0));
}

// ---------------------------------------------------------------------------------------------
// Pushforwards: known values

/// Whether `x` is `-0`.
fn is_neg_zero<T: Real>(x: T) -> bool {
    x == T::zero() && x.is_sign_negative()
}

/// Whether `x` is `+0`.
fn is_pos_zero<T: Real>(x: T) -> bool {
    x == T::zero() && x.is_sign_positive()
}

fn mat_mul_pushforward_values_in<T: Real>() {
    // A = [[1, 2, 3], [4, 5, 6]], B = [[1, 0], [0, 1], [1, 1]], dA = [[1, 0, 0], [0, 1, 0]],
    // dB = [[0, 1], [1, 0], [0, 0]], all column-major: C = [[4, 5], [10, 11]],
    // dA B = [[1, 0], [0, 1]], A dB = [[2, 1], [5, 4]].
    let v = |xs: &[f64]| -> Vec<T> { xs.iter().map(|&x| c(x)).collect() };
    let (a, b) = (
        v(&[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]),
        v(&[1.0, 0.0, 1.0, 0.0, 1.0, 1.0]),
    );
    let (da, db) = (
        v(&[1.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
        v(&[0.0, 1.0, 0.0, 1.0, 0.0, 0.0]),
    );
    let c_want = v(&[4.0, 10.0, 5.0, 11.0]);
    let cases = [
        (Some(&da[..]), Some(&db[..]), v(&[3.0, 5.0, 1.0, 5.0])),
        (Some(&da[..]), None, v(&[1.0, 0.0, 0.0, 1.0])),
        (None, Some(&db[..]), v(&[2.0, 5.0, 1.0, 4.0])),
        (None, None, v(&[0.0; 4])),
    ];
    for (ta, tb, want) in cases {
        let (cv, dc) = na::mat_mul_pushforward(&a, &b, 2, 3, 2, ta, tb);
        assert_eq!(cv, c_want);
        assert_eq!(dc, want, "{:?} {:?}", ta.is_some(), tb.is_some());
        assert!(dc.iter().all(|x| x.is_sign_positive()), "{dc:?}");
    }
    // The same as the jvp with zeros in the place of a `None`.
    let zeros = vec![T::zero(); 6];
    let jvp = na::mat_mul_jvp(&a, &b, 2, 3, 2, &zeros, &db);
    assert_eq!(
        na::mat_mul_pushforward(&a, &b, 2, 3, 2, None, Some(&db)),
        jvp
    );
    // k = 0: zeros of m x n, whatever is `Some`; m = 0: empty.
    let (cv, dc) = na::mat_mul_pushforward::<T>(&[], &[], 2, 0, 3, Some(&[]), None);
    assert_eq!((cv, dc), (vec![T::zero(); 6], vec![T::zero(); 6]));
    let (b, db) = (v(&[1.0, 2.0]), v(&[3.0, 4.0]));
    let (cv, dc) = na::mat_mul_pushforward::<T>(&[], &b, 0, 2, 1, None, Some(&db));
    assert_eq!((cv.len(), dc.len()), (0, 0));
    // 1 x 1 x 1: c = a b, dc = da b + a db.
    let (cv, dc) = na::mat_mul_pushforward(&v(&[3.0]), &v(&[5.0]), 1, 1, 1, None, Some(&v(&[2.0])));
    assert_eq!((cv, dc), (v(&[15.0]), v(&[6.0])));
}

#[test]
fn mat_mul_pushforward_values() {
    mat_mul_pushforward_values_in::<f64>();
    mat_mul_pushforward_values_in::<f32>();
}

#[test]
fn mat_mul_pushforward_drops_the_nan_of_a_zero_product() {
    // The documented difference: B holds an inf, so the jvp's plain product 0 B is NaN in its
    // first column, where the pushforward has no such product. A = [[1, 2], [3, 4]],
    // B = [[inf, 1], [0, 1]], dB = ones: A dB = [[3, 3], [7, 7]].
    let inf = f64::INFINITY;
    let (a, b) = ([1.0, 3.0, 2.0, 4.0], [inf, 0.0, 1.0, 1.0]);
    let ones = [1.0; 4];
    let (cv, dc) = na::mat_mul_pushforward(&a, &b, 2, 2, 2, None, Some(&ones));
    assert_eq!(cv, [inf, inf, 3.0, 7.0]);
    assert_eq!(dc, [3.0, 7.0, 3.0, 7.0]);
    let (jv, jt) = na::mat_mul_jvp(&a, &b, 2, 2, 2, &[0.0; 4], &ones);
    assert_eq!(jv, cv);
    assert!(jt[0].is_nan() && jt[1].is_nan());
    assert_eq!(jt[2..], [3.0, 7.0]);
    // dA = ones, dB `None`: dA B = [[inf, 2], [inf, 2]], as the jvp gives it (A is finite, so
    // its A 0 is zeros).
    let (_, dc) = na::mat_mul_pushforward(&a, &b, 2, 2, 2, Some(&ones), None);
    assert_eq!(dc, [inf, inf, 2.0, 2.0]);
    assert_eq!(na::mat_mul_jvp(&a, &b, 2, 2, 2, &ones, &[0.0; 4]).1, dc);
    // The same in f32, with the inf in A and dA `None` the other way round.
    let (a, b) = ([f32::INFINITY, 0.0, 1.0, 1.0], [1.0f32, 3.0, 2.0, 4.0]);
    let (_, dc) = na::mat_mul_pushforward(&a, &b, 2, 2, 2, Some(&[1.0; 4]), None);
    // dA B = ones * B = [[4, 6], [4, 6]].
    assert_eq!(dc, [4.0, 4.0, 6.0, 6.0]);
    let jt = na::mat_mul_jvp(&a, &b, 2, 2, 2, &[1.0; 4], &[0.0; 4]).1;
    assert!(jt[0].is_nan() && jt[2].is_nan());
}

#[test]
fn pushforward_strong_zero_values() {
    let inf = f64::INFINITY;
    // scale by s = inf: da * s with a zero da entry is 0, not NaN; ds `None`.
    let (y, dy) = na::scale_pushforward(&[1.0, -2.0, 0.0], inf, Some(&[1.0, 0.0, 2.0]), None);
    assert_eq!(y[..2], [inf, -inf]);
    assert!(y[2].is_nan());
    assert_eq!(dy, [inf, 0.0, inf]);
    // a * ds with da `None`: the inf partial s never meets the zero da.
    let (_, dy) = na::scale_pushforward(&[1.0, -2.0, 0.0], inf, None, Some(0.5));
    assert_eq!(dy, [0.5, -1.0, 0.0]);
    // Both `None`: 0 s + 0 a, `-0` where s and a are negative, as the jvp gives it.
    let (_, dy) = na::scale_pushforward(&[-1.0f32, 2.0], -3.0, None, None);
    assert!(is_neg_zero(dy[0]) && is_pos_zero(dy[1]));
    assert_eq!(
        na::scale_jvp(&[-1.0f32, 2.0], -3.0, &[0.0; 2], 0.0).1[0].to_bits(),
        dy[0].to_bits()
    );

    // a / b with b = [0, 4]: y = [inf, 0.5]; da / b is inf or strong 0, -(y / b) db is -inf or 0.
    let (a, b) = ([1.0, 2.0], [0.0, 4.0]);
    let (y, dy) = na::component_div_pushforward(&a, &b, Some(&[1.0, 1.0]), None);
    assert_eq!((y, dy), (vec![inf, 0.5], vec![inf, 0.25]));
    let (_, dy) = na::component_div_pushforward(&a, &b, Some(&[0.0, 1.0]), None);
    assert_eq!(dy, [0.0, 0.25]);
    let (_, dy) = na::component_div_pushforward(&a, &b, None, Some(&[1.0, 1.0]));
    assert_eq!(dy, [-inf, -0.125]);
    let (_, dy) = na::component_div_pushforward(&a, &b, None, Some(&[0.0, 1.0]));
    assert_eq!(dy, [0.0, -0.125]);

    // component_mul with da `None`: a db, but `-0 + +0 = +0` where a db is `-0` and 0 b is `+0`.
    let (_, dy) = na::component_mul_pushforward(&[2.0, 3.0], &[5.0, 7.0], None, Some(&[-0.0, 1.0]));
    assert!(is_pos_zero(dy[0]));
    assert_eq!(dy[1], 3.0);
    // ... and `-0` where b is negative too, so 0 b is `-0`.
    let (_, dy) =
        na::component_mul_pushforward(&[2.0, 3.0], &[-5.0, 7.0], None, Some(&[-0.0, 1.0]));
    assert!(is_neg_zero(dy[0]));
    // add: da + 0 turns `-0` into `+0`, as da + db with a zero db does.
    let (y, dy) = na::add_pushforward(&[1.0, 2.0], &[3.0, 4.0], Some(&[-0.0, 1.5]), None);
    assert_eq!(y, [4.0, 6.0]);
    assert!(is_pos_zero(dy[0]) && dy[1] == 1.5);
    let (y, dy) = na::sub_pushforward(&[1.0, 2.0], &[3.0, 4.0], None, Some(&[1.0, -2.0]));
    assert_eq!((y, dy), (vec![-2.0, -2.0], vec![-1.0, 2.0]));

    // div_scalar: a / 4; da / 4, or -(a / 4) ds / 4.
    let (y, dy) = na::div_scalar_pushforward(&[1.0, 2.0], 4.0, Some(&[4.0, 8.0]), None);
    assert_eq!((y, dy), (vec![0.25, 0.5], vec![1.0, 2.0]));
    let (_, dy) = na::div_scalar_pushforward(&[1.0, 2.0], 4.0, None, Some(8.0));
    assert_eq!(dy, [-0.5, -1.0]);
    // By s = 0: the strong zero of a zero da against 1 / 0.
    let (_, dy) = na::div_scalar_pushforward(&[1.0f32, 2.0], 0.0, Some(&[0.0, 1.0]), None);
    assert_eq!(dy, [0.0, f32::INFINITY]);
}

#[test]
fn pushforward_zero_tangent_values() {
    // neg: `None` is `-0`s, as -(zeros) in the jvp.
    let (y, dy) = na::neg_pushforward(&[1.0, -2.0], None);
    assert_eq!(y, [-1.0, 2.0]);
    assert!(dy.iter().all(|&x| is_neg_zero(x)));
    assert_eq!(
        na::neg_pushforward(&[1.0f32], Some(&[2.0])),
        (vec![-1.0], vec![-2.0])
    );
    // add_scalar: da + 0 and 0 + ds, `-0` turned into `+0`.
    let (y, dy) = na::add_scalar_pushforward(&[1.0, 2.0], 3.0, Some(&[-0.0, 1.0]), None);
    assert_eq!(y, [4.0, 5.0]);
    assert!(is_pos_zero(dy[0]) && dy[1] == 1.0);
    let (_, dy) = na::add_scalar_pushforward(&[1.0, 2.0], 3.0, None, Some(-0.0));
    assert!(dy.iter().all(|&x| is_pos_zero(x)));
    let (_, dy) = na::add_scalar_pushforward(&[1.0f32, 2.0, 3.0], 3.0, None, Some(2.0));
    assert_eq!(dy, [2.0; 3]);
    assert_eq!(
        na::add_scalar_pushforward(&[1.0f32], 0.5, Some(&[1.0]), Some(2.0)),
        (vec![1.5], vec![3.0])
    );
    // transpose, column and row: zeros of the output's shape.
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]; // 2 x 3, column-major
    let (t, dt) = na::transpose_pushforward(&a, 2, 3, None);
    assert_eq!((t, dt), (vec![1.0, 3.0, 5.0, 2.0, 4.0, 6.0], vec![0.0; 6]));
    let (col, dcol) = na::column_pushforward(&a, 2, 3, 1, None);
    assert_eq!((col, dcol), (vec![3.0, 4.0], vec![0.0; 2]));
    let da = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0];
    let (row, drow) = na::row_pushforward(&a, 2, 3, 1, Some(&da));
    assert_eq!((row, drow), (vec![2.0, 4.0, 6.0], vec![20.0, 40.0, 60.0]));
    let (_, drow) = na::row_pushforward(&a, 2, 3, 0, None);
    assert_eq!(drow, [0.0; 3]);

    // dot_mat of [[1, 3], [2, 4]] and [[5, 7], [6, 8]]: 70; da B = 5 + 8, A db = 10.
    let (a, b) = ([1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]);
    let (da, db) = ([1.0, 0.0, 0.0, 1.0], [1.0; 4]);
    assert_eq!(
        na::dot_mat_pushforward(&a, &b, 2, 2, Some(&da), Some(&db)),
        (70.0, 23.0)
    );
    assert_eq!(
        na::dot_mat_pushforward(&a, &b, 2, 2, Some(&da), None),
        (70.0, 13.0)
    );
    assert_eq!(
        na::dot_mat_pushforward(&a, &b, 2, 2, None, Some(&db)),
        (70.0, 10.0)
    );
    assert_eq!(
        na::dot_mat_pushforward(&a, &b, 2, 2, None, None),
        (70.0, 0.0)
    );
    assert_eq!(
        na::dot_pushforward(&[1.0f32, 2.0], &[3.0, 4.0], None, Some(&[1.0, -1.0])),
        (11.0, -1.0)
    );
    // A sum from +0 is never -0: -0 tangents against positive partials give +0, as the jvp.
    let (_, t) = na::dot_pushforward(&[1.0, 2.0], &[3.0, 4.0], Some(&[-0.0, -0.0]), None);
    assert!(is_pos_zero(t));

    // sum, mean, the norms: `None` is 0.
    assert_eq!(na::sum_pushforward(&[1.0, 2.0, 3.0], None), (6.0, 0.0));
    assert_eq!(
        na::sum_pushforward(&[1.0, 2.0, 3.0], Some(&[1.0, 1.0, -0.5])),
        (6.0, 1.5)
    );
    assert_eq!(
        na::mean_pushforward(&[1.0f32, 2.0, 3.0], Some(&[3.0, 0.0, 0.0])),
        (2.0, 1.0)
    );
    assert_eq!(na::mean_pushforward::<f64>(&[], None), (0.0, 0.0));
    assert_eq!(
        na::norm_squared_pushforward(&[3.0, 4.0], Some(&[1.0, 0.5])),
        (25.0, 10.0)
    );
    assert_eq!(
        na::norm_squared_mat_pushforward(&[3.0, 4.0], 1, 2, None),
        (25.0, 0.0)
    );
    assert_eq!(
        na::norm_pushforward(&[3.0, 4.0], Some(&[1.0, 0.0])),
        (5.0, 0.6)
    );
    assert_eq!(na::norm_pushforward(&[3.0f32, 4.0], None), (5.0, 0.0));
    assert_eq!(
        na::norm_mat_pushforward(&[0.0; 4], 2, 2, Some(&[1.0; 4])),
        (0.0, 0.0)
    );
    assert_eq!(
        na::norm_mat_pushforward(&[3.0, 0.0, 4.0, 0.0], 2, 2, None),
        (5.0, 0.0)
    );
}

#[test]
fn private_path_names_the_module() {
    // Generated code calls `::autodiff_runtime::__private::na::...`.
    use autodiff_runtime::__private::na as generated;
    assert_eq!(generated::sum(&[1.0, 2.0]), 3.0);
}

// ---------------------------------------------------------------------------------------------
// Shape errors

#[test]
#[should_panic(expected = "na::mat_mul: b has 5 elements, expected a 3 x 2 matrix")]
fn mat_mul_checks_shapes() {
    let _ = na::mat_mul(&[0.0; 6], &[0.0; 5], 2, 3, 2);
}

#[test]
#[should_panic(expected = "na::mat_mul_vjp: da has 5 elements, expected a 2 x 3 matrix")]
fn mat_mul_vjp_checks_adjoint_shapes() {
    let (mut da, mut db) = ([0.0; 5], [0.0; 6]);
    let _ = na::mat_mul_vjp(&[0.0; 6], &[0.0; 6], 2, 3, 2, &mut da, &mut db, &[]);
}

#[test]
#[should_panic(expected = "na::mat_mul_vjp: the seed has 5 elements, the output only 4")]
fn mat_mul_vjp_checks_seed_length() {
    let (mut da, mut db) = ([0.0; 6], [0.0; 6]);
    let _ = na::mat_mul_vjp(&[0.0; 6], &[0.0; 6], 2, 3, 2, &mut da, &mut db, &[1.0; 5]);
}

#[test]
#[should_panic(expected = "na::mat_mul_pullback: da has 5 elements, expected a 2 x 3 matrix")]
fn mat_mul_pullback_checks_adjoint_shapes() {
    let (mut da, mut db) = ([0.0; 5], [0.0; 6]);
    na::mat_mul_pullback(
        &[0.0; 6],
        &[0.0; 6],
        2,
        3,
        2,
        Some(&mut da),
        Some(&mut db),
        &[],
    );
}

#[test]
#[should_panic(expected = "na::mat_mul_pullback: a has 5 elements, expected a 2 x 3 matrix")]
fn mat_mul_pullback_checks_operands_without_adjoints() {
    na::mat_mul_pullback::<f64>(&[0.0; 5], &[0.0; 6], 2, 3, 2, None, None, &[]);
}

#[test]
#[should_panic(expected = "na::mat_mul_pullback: the seed has 5 elements, the output only 4")]
fn mat_mul_pullback_checks_seed_length() {
    na::mat_mul_pullback::<f64>(&[0.0; 6], &[0.0; 6], 2, 3, 2, None, None, &[1.0; 5]);
}

#[test]
#[should_panic(expected = "na::scale_pullback: the seed has 4 elements, the output only 3")]
fn scale_pullback_checks_seed_length() {
    na::scale_pullback(&[0.0; 3], 1.0, None, None, &[1.0; 4]);
}

#[test]
#[should_panic(expected = "na::dot_mat_pullback: b has 3 elements, expected a 2 x 2 matrix")]
fn dot_mat_pullback_checks_shapes() {
    na::dot_mat_pullback(&[0.0; 4], &[0.0; 3], 2, 2, None, None, 1.0);
}

#[test]
#[should_panic(expected = "na::norm_mat_pullback: shapes differ: a has 4 elements, da has 3")]
fn norm_mat_pullback_checks_adjoint_shape() {
    na::norm_mat_pullback(&[1.0; 4], 2, 2, Some(&mut [0.0; 3]), 1.0);
}

#[test]
#[should_panic(expected = "na::column_pullback: column 3 is out of bounds of a 2 x 3 matrix")]
fn column_pullback_checks_bounds() {
    na::column_pullback::<f64>(&[0.0; 6], 2, 3, 3, None, &[]);
}

#[test]
#[should_panic(expected = "na::mat_mul_pushforward: db has 5 elements, expected a 3 x 2 matrix")]
fn mat_mul_pushforward_checks_tangent_shapes() {
    let _ = na::mat_mul_pushforward(&[0.0; 6], &[0.0; 6], 2, 3, 2, None, Some(&[0.0; 5]));
}

#[test]
#[should_panic(expected = "na::mat_mul_pushforward: a has 5 elements, expected a 2 x 3 matrix")]
fn mat_mul_pushforward_checks_operands_without_tangents() {
    let _ = na::mat_mul_pushforward::<f64>(&[0.0; 5], &[0.0; 6], 2, 3, 2, None, None);
}

#[test]
#[should_panic(expected = "na::scale_pushforward: shapes differ: a has 3 elements, da has 2")]
fn scale_pushforward_checks_tangent_length() {
    let _ = na::scale_pushforward(&[0.0; 3], 1.0, Some(&[0.0; 2]), None);
}

#[test]
#[should_panic(expected = "na::dot_mat_pushforward: shapes differ: b has 4 elements, db has 3")]
fn dot_mat_pushforward_checks_tangent_length() {
    let _ = na::dot_mat_pushforward(&[0.0; 4], &[0.0; 4], 2, 2, None, Some(&[0.0; 3]));
}

#[test]
#[should_panic(expected = "na::column: column 3 is out of bounds of a 2 x 3 matrix")]
fn column_pushforward_checks_bounds() {
    let _ = na::column_pushforward::<f64>(&[0.0; 6], 2, 3, 3, None);
}

#[test]
#[should_panic(expected = "na::add: shapes differ: a has 3 elements, b has 2")]
fn add_checks_lengths() {
    let _ = na::add(&[1.0; 3], &[1.0; 2]);
}

#[test]
#[should_panic(expected = "na::dot_jvp: shapes differ: b has 2 elements, db has 3")]
fn dot_jvp_checks_tangent_lengths() {
    let _ = na::dot_jvp(&[1.0; 2], &[1.0; 2], &[1.0; 2], &[1.0; 3]);
}

#[test]
#[should_panic(expected = "na::column: column 3 is out of bounds of a 2 x 3 matrix")]
fn column_checks_bounds() {
    let _ = na::column(&[0.0; 6], 2, 3, 3);
}

#[test]
#[should_panic(expected = "na::row_vjp: row 2 is out of bounds of a 2 x 3 matrix")]
fn row_vjp_checks_bounds() {
    let mut d = [0.0; 6];
    let _ = na::row_vjp(&[0.0; 6], 2, 3, 2, &mut d, &[]);
}

#[test]
#[should_panic(expected = "na::transpose: a has 7 elements, expected a 2 x 3 matrix")]
fn transpose_checks_shape() {
    let _ = na::transpose(&[0.0; 7], 2, 3);
}

// ---------------------------------------------------------------------------------------------
// Value traits

fn value_traits<T: NaFloat>() {
    let mut rng = Rng::new(10);

    // DMatrix: zeros of the same shape, +=, scale, add_scaled, set_zero.
    let m = random_dmatrix::<T>(&mut rng, 3, 4);
    let mut t: DMatrix<T> = zero_tangent(&m);
    assert_eq!(t.shape(), (3, 4));
    assert!(t.iter().all(|&x| x == T::zero()));
    accumulate(&mut t, &m);
    assert_eq!(t, m);
    accumulate(&mut t, &m);
    assert_eq!(t, &m + &m);
    scale(&mut t, c::<T>(0.5));
    assert_eq!(t, m);
    add_scaled(&mut t, &m, c::<T>(-2.0));
    assert_eq!(t, -&m);
    set_zero(&mut t);
    assert_eq!(t, DMatrix::zeros(3, 4));

    // DVector, RowDVector: dynamic length.
    let v = DVector::<T>::from_vec(rng.vec(5));
    let mut tv: DVector<T> = zero_tangent(&v);
    assert_eq!(tv.len(), 5);
    accumulate(&mut tv, &v);
    accumulate(&mut tv, &v);
    assert_eq!(tv, &v + &v);
    let r = RowDVector::<T>::from_vec(rng.vec(4));
    let tr: RowDVector<T> = zero_tangent(&r);
    assert_eq!(tr.shape(), (1, 4));

    // Matrix3, Vector3: static shapes.
    let m3 = Matrix3::<T>::from_column_slice(&rng.vec(9));
    let mut t3: Matrix3<T> = zero_tangent(&m3);
    assert_eq!(t3, Matrix3::zeros());
    accumulate(&mut t3, &m3);
    add_scaled(&mut t3, &m3, c::<T>(3.0));
    assert_eq!(t3, m3 * c::<T>(4.0));
    let v3 = Vector3::<T>::from_column_slice(&rng.vec(3));
    let mut tv3: Vector3<T> = zero_tangent(&v3);
    accumulate(&mut tv3, &v3);
    scale(&mut tv3, c::<T>(2.0));
    assert_eq!(tv3, v3 * c::<T>(2.0));

    // A view and a reference have the owned matrix as tangent.
    let view = m.view((1, 1), (2, 3));
    let tview: DMatrix<T> = zero_tangent(&view);
    assert_eq!(tview.shape(), (2, 3));
    let tref: DMatrix<T> = zero_tangent(&&m);
    assert_eq!(tref.shape(), (3, 4));

    // An adjoint buffer behind `&mut` accumulates in place.
    let mut buf = DVector::<T>::zeros(5);
    {
        let mut r: &mut DVector<T> = &mut buf;
        accumulate(&mut r, &&mut v.clone());
    }
    assert_eq!(buf, v);

    // Flat: column-major, as `as_slice`; set and get round trip.
    for mut x in [
        random_dmatrix::<T>(&mut rng, 3, 4),
        random_dmatrix::<T>(&mut rng, 0, 2),
    ] {
        assert_eq!(to_flat_vec(&x), x.as_slice());
        assert_eq!(x.flat_len(), x.len());
        let new: Vec<T> = rng.vec(x.len());
        for (k, &value) in new.iter().enumerate() {
            x.flat_set(k, value);
        }
        assert_eq!(x.as_slice(), new.as_slice());
        assert_eq!(to_flat_vec(&x), new);
    }
    let m23 = Matrix2x3::<T>::from_row_slice(&[c(1.0), c(2.0), c(3.0), c(4.0), c(5.0), c(6.0)]);
    // Column-major: (0,0), (1,0), (0,1), (1,1), (0,2), (1,2).
    let want: Vec<T> = [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
        .iter()
        .map(|&x| c(x))
        .collect();
    assert_eq!(to_flat_vec(&m23), want);
    let mut v3 = Vector3::<T>::zeros();
    v3.flat_set(2, c(7.0));
    assert_eq!((v3.flat_len(), v3.flat_get(2), v3[2]), (3, c(7.0), c(7.0)));
    let mut dv = DVector::<T>::zeros(2);
    dv.flat_set(1, c(-1.0));
    assert_eq!(dv.as_slice(), [T::zero(), c(-1.0)]);
}

#[test]
fn value_traits_for_nalgebra() {
    value_traits::<f64>();
    value_traits::<f32>();
}

#[test]
fn dual_matrices_are_differentiable() {
    use autodiff_runtime::Dual;
    let m = DMatrix::from_element(2, 2, Dual::new(1.0, 2.0));
    let mut t = zero_tangent(&m);
    accumulate(&mut t, &m);
    assert_eq!(t[(1, 0)].re, 1.0);
    assert_eq!(t[(1, 0)].eps, 2.0);
}

#[test]
fn strong_zero_when_scaling_a_matrix() {
    let mut t = DVector::from_vec(vec![0.0, 1.0]);
    scale(&mut t, f64::INFINITY);
    assert_eq!(t.as_slice(), [0.0, f64::INFINITY]);
}

#[test]
#[should_panic(expected = "cannot add a 2 x 3 matrix tangent into a 3 x 2 one")]
fn accumulate_checks_shapes() {
    let mut a = DMatrix::<f64>::zeros(3, 2);
    accumulate(&mut a, &DMatrix::zeros(2, 3));
}

#[test]
#[should_panic(expected = "cannot add a 1 x 3 matrix tangent into a 1 x 2 one")]
fn add_scaled_checks_shapes() {
    let mut a = RowDVector::<f64>::zeros(2);
    add_scaled(&mut a, &RowDVector::zeros(3), 2.0);
}

// ---------------------------------------------------------------------------------------------
// determinant

/// `na::determinant` against nalgebra's, and its derivative (cofactors) against central
/// differences and the reverse mode, for sizes 0 to 6; then at singular matrices of rank
/// `n - 1` (the derivative is the adjugate's transpose, not zero, not NaN), and errors.
#[test]
fn determinant_values_and_derivatives() {
    let mut rng = Rng::new(91);
    for n in 0..=6usize {
        for trial in 0..4 {
            let a: Vec<f64> = (0..n * n).map(|_| rng.uniform(-1.0, 1.0)).collect();
            let m = DMatrix::from_column_slice(n, n, &a);
            let d = na::determinant(&a, n, n);
            let want = m.determinant();
            assert!(
                (d - want).abs() <= 1e-12 * (1.0 + want.abs()),
                "n {n} trial {trial}: {d} against nalgebra's {want}"
            );
            check_determinant_derivative(&a, n, 1e-6);
        }
    }
    // Rank n - 1: the last column a combination of the others.
    for n in 2..=6usize {
        let mut a: Vec<f64> = (0..n * n).map(|_| rng.uniform(-1.0, 1.0)).collect();
        for i in 0..n {
            let second = if n > 2 { a[i + n] } else { 0.0 };
            a[i + (n - 1) * n] = 0.5 * a[i] - 0.25 * second;
        }
        assert!(na::determinant(&a, n, n).abs() < 1e-12);
        let (_, dy) = na::determinant_jvp(&a, n, n, &vec![1.0; n * n]);
        assert!(dy.is_finite());
        check_determinant_derivative(&a, n, 1e-6);
        // Exactly singular for the LU path (n > 3): a zero column.
        let mut z = a.clone();
        z[..n].fill(0.0);
        let mut g = vec![0.0; n * n];
        na::determinant_pullback(&z, n, n, Some(&mut g), 1.0);
        assert!(g.iter().all(|v| v.is_finite()));
        // With one zero column, only that column's cofactors can be nonzero.
        for j in 1..n {
            for i in 0..n {
                assert_eq!(
                    g[i + j * n],
                    0.0,
                    "n {n}: cofactor ({i}, {j}) of a zero column"
                );
            }
        }
        check_determinant_derivative(&z, n, 1e-6);
    }
}

/// Central differences of the determinant along random directions and along each element,
/// against `determinant_jvp`; `determinant_vjp` against the forward mode by the dot-product test;
/// the pullback accumulates.
fn check_determinant_derivative(a: &[f64], n: usize, h: f64) {
    let mut rng = Rng::new(7 + n as u64);
    let t: Vec<f64> = (0..n * n).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let (_, dy) = na::determinant_jvp(a, n, n, &t);
    let at = |s: f64| -> f64 {
        let p: Vec<f64> = a.iter().zip(&t).map(|(x, d)| x + s * d).collect();
        na::determinant(&p, n, n)
    };
    let fd = (at(h) - at(-h)) / (2.0 * h);
    assert!(
        (dy - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
        "n {n}: jvp {dy} against central differences {fd}"
    );
    let mut g = vec![0.0; n * n];
    let v = na::determinant_vjp(a, n, n, &mut g, 2.0);
    assert_eq!(v, na::determinant(a, n, n));
    let dot: f64 = g.iter().zip(&t).map(|(x, y)| x * y).sum();
    assert!(
        (dot - 2.0 * dy).abs() <= 1e-12 * (1.0 + dy.abs()),
        "n {n}: dot-product test {dot} against {}",
        2.0 * dy
    );
    na::determinant_pullback(a, n, n, Some(&mut g), 2.0);
    let dot2: f64 = g.iter().zip(&t).map(|(x, y)| x * y).sum();
    assert!(
        (dot2 - 4.0 * dy).abs() <= 1e-12 * (1.0 + dy.abs()),
        "accumulates"
    );
    na::determinant_pullback(a, n, n, None, 2.0);
}

#[test]
#[should_panic(expected = "the determinant of a non-square 2 x 3 matrix")]
fn determinant_of_a_non_square_matrix_panics() {
    na::determinant(&[0.0; 6], 2, 3);
}

#[test]
fn trace_values_and_derivatives() {
    let mut rng = Rng::new(5);
    for n in 0..=5usize {
        let a: Vec<f64> = (0..n * n).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let t: Vec<f64> = (0..n * n).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let m = DMatrix::from_column_slice(n, n, &a);
        assert_eq!(na::trace(&a, n, n), m.trace());
        let (v, dv) = na::trace_jvp(&a, n, n, &t);
        assert_eq!(v, m.trace());
        assert_eq!(dv, DMatrix::from_column_slice(n, n, &t).trace());
        let mut g = vec![0.5; n * n];
        assert_eq!(na::trace_vjp(&a, n, n, &mut g, 2.0), v);
        for j in 0..n {
            for i in 0..n {
                assert_eq!(g[i + j * n], if i == j { 2.5 } else { 0.5 });
            }
        }
        na::trace_pullback(&a, n, n, None, 1.0);
    }
}
