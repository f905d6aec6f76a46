//! Kernels of `autodiff_runtime::kernels` against other implementations: takes the matrix product
//! (n = 64, 256, 1024, f32 and f64) and the activations (forward and VJP over 4096 elements), gives
//! criterion measurements, then tables of ratios measured in the same run: matmul GFLOP/s against
//! the `matrixmultiply` crate, nalgebra's own product and this core's FMA peak (measured by a loop
//! of independent FMA chains), the transposed products of the matmul VJP against matrixmultiply,
//! and activation throughput against a scalar loop over `std`.
//!
//! Run: `cargo bench --bench kernels` (about two and a half minutes once built, on two cores;
//! criterion's plots are off), or `cargo bench --bench kernels -- --tables` to skip criterion and
//! print the tables only (about a minute and a half). The machine may be shared and noisy, so the tables time every variant of a row in
//! turn, round after round, and divide medians: a neighbour slows all variants of a row alike.
//! The tables are skipped when criterion runs as a test (`cargo test --benches`) or lists.

use std::hint::black_box;
use std::time::{Duration, Instant};

use autodiff_runtime::kernels::{self as k, MatMut, MatRef};
use criterion::Criterion;
use nalgebra::DMatrix;
use num_traits::Float;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SIZES: [usize; 3] = [64, 256, 1024];
const ACT_LEN: usize = 4096;
/// Time of one sample in the tables, and number of rounds.
const SAMPLE: Duration = Duration::from_millis(30);
const ROUNDS: usize = 15;

fn random(n: usize, seed: u64) -> Vec<f64> {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| r.gen_range(-1.0..1.0)).collect()
}

/// Seconds per call of each variant: each is calibrated to about `SAMPLE` per sample, then
/// `ROUNDS` rounds time one sample of every variant in turn; the median over rounds is returned.
fn medians(variants: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let reps: Vec<u32> = variants
        .iter_mut()
        .map(|f| {
            let mut reps = 1u32;
            loop {
                let t = Instant::now();
                for _ in 0..reps {
                    f();
                }
                if t.elapsed() >= SAMPLE / 2 || reps >= 1 << 24 {
                    break (reps * 2).max(1);
                }
                reps *= 2;
            }
        })
        .collect();
    let mut times = vec![Vec::with_capacity(ROUNDS); variants.len()];
    for _ in 0..ROUNDS {
        for (v, f) in variants.iter_mut().enumerate() {
            let t = Instant::now();
            for _ in 0..reps[v] {
                f();
            }
            times[v].push(t.elapsed().as_secs_f64() / f64::from(reps[v]));
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// FMA peak of one core
// ---------------------------------------------------------------------------------------------

/// Flops per call of the peak loops: 1024 steps, 16 independent chains, one FMA (2 flops) each.
const PEAK_STEPS: usize = 1024;

#[cfg(target_arch = "x86_64")]
mod peak {
    use std::arch::x86_64::*;

    /// 16 independent FMA chains of 512-bit vectors (f64: 8 lanes); returns a sum so the work is
    /// kept.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn avx512_f64(steps: usize, a: f64, b: f64) -> f64 {
        let (va, vb) = (_mm512_set1_pd(a), _mm512_set1_pd(b));
        let mut acc = [_mm512_set1_pd(1.0); 16];
        for _ in 0..steps {
            for v in acc.iter_mut() {
                *v = _mm512_fmadd_pd(*v, va, vb);
            }
        }
        let mut s = _mm512_setzero_pd();
        for v in acc {
            s = _mm512_add_pd(s, v);
        }
        _mm512_reduce_add_pd(s)
    }

    /// The same with 256-bit vectors (f64: 4 lanes).
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn avx2_f64(steps: usize, a: f64, b: f64) -> f64 {
        let (va, vb) = (_mm256_set1_pd(a), _mm256_set1_pd(b));
        let mut acc = [_mm256_set1_pd(1.0); 12];
        for _ in 0..steps {
            for v in acc.iter_mut() {
                *v = _mm256_fmadd_pd(*v, va, vb);
            }
        }
        let mut s = _mm256_setzero_pd();
        for v in acc {
            s = _mm256_add_pd(s, v);
        }
        let mut out = [0.0; 4];
        _mm256_storeu_pd(out.as_mut_ptr(), s);
        out.iter().sum()
    }
}

/// The single-core FMA throughput loop of the widest available path, its f64 flops per call and
/// its name (f32 peaks are twice these: twice the lanes at the same instruction throughput).
fn fma_peak_loop() -> (Box<dyn FnMut()>, f64, &'static str) {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512f") {
            let f = || {
                // SAFETY: AVX-512F was detected just above.
                black_box(unsafe { peak::avx512_f64(PEAK_STEPS, black_box(0.999), 1e-3) });
            };
            return (Box::new(f), (PEAK_STEPS * 16 * 8 * 2) as f64, "AVX-512");
        }
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            let f = || {
                // SAFETY: AVX2 and FMA were detected just above.
                black_box(unsafe { peak::avx2_f64(PEAK_STEPS, black_box(0.999), 1e-3) });
            };
            return (Box::new(f), (PEAK_STEPS * 12 * 4 * 2) as f64, "AVX2");
        }
    }
    (Box::new(|| ()), f64::NAN, "none")
}

// ---------------------------------------------------------------------------------------------
// Matrix products
// ---------------------------------------------------------------------------------------------

/// The three products of one size and type, each writing `C = A B` into its own buffer.
macro_rules! gemm_variants {
    ($t:ty, $n:expr, $mm:path) => {{
        let n = $n;
        let a: Vec<$t> = random(n * n, 1).into_iter().map(|v| v as $t).collect();
        let b: Vec<$t> = random(n * n, 2).into_iter().map(|v| v as $t).collect();
        let (na, nb) = (
            DMatrix::<$t>::from_row_slice(n, n, &a),
            DMatrix::<$t>::from_row_slice(n, n, &b),
        );
        let mut nc = DMatrix::<$t>::zeros(n, n);
        let (mut c1, mut c2) = (vec![0.0 as $t; n * n], vec![0.0 as $t; n * n]);
        let (a3, b3, mut c3) = (a.clone(), b.clone(), c1.clone());
        let ours = move || {
            let (av, bv) = (MatRef::new(&a, n, n), MatRef::new(&b, n, n));
            k::matmul(1.0, av, bv, 0.0, MatMut::new(&mut c1, n, n));
            black_box(&c1);
        };
        // The AVX2+FMA path forced, for CPUs without AVX-512 (the default path if it is absent).
        let avx2 = k::available_isas()
            .into_iter()
            .find(|&i| i == k::Isa::Avx2Fma)
            .unwrap_or(k::detected_isa());
        let ours_avx2 = move || {
            let (av, bv) = (MatRef::new(&a3, n, n), MatRef::new(&b3, n, n));
            k::with_isa(avx2, || {
                k::matmul(1.0, av, bv, 0.0, MatMut::new(&mut c3, n, n))
            });
            black_box(&c3);
        };
        let (a2, b2) = (na.transpose(), nb.transpose()); // row-major copies for matrixmultiply
        let mm = move || {
            let (a, b) = (a2.as_slice(), b2.as_slice());
            let ni = n as isize;
            // SAFETY: `a`, `b` and `c2` hold n x n row-major matrices (row stride n, column
            // stride 1), `c2` does not alias them.
            unsafe {
                $mm(
                    n,
                    n,
                    n,
                    1.0,
                    a.as_ptr(),
                    ni,
                    1,
                    b.as_ptr(),
                    ni,
                    1,
                    0.0,
                    c2.as_mut_ptr(),
                    ni,
                    1,
                )
            };
            black_box(&c2);
        };
        let nal = move || {
            nc.gemm(1.0, &na, &nb, 0.0);
            black_box(&nc);
        };
        (ours, mm, nal, ours_avx2)
    }};
}

fn gemm_criterion(c: &mut Criterion) {
    let mut g = c.benchmark_group("matmul");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(800));
    for n in SIZES {
        let (mut o, mut m, mut a, _) = gemm_variants!(f64, n, matrixmultiply::dgemm);
        g.bench_function(format!("f64/{n}/ours"), |b| b.iter(&mut o));
        g.bench_function(format!("f64/{n}/matrixmultiply"), |b| b.iter(&mut m));
        g.bench_function(format!("f64/{n}/nalgebra"), |b| b.iter(&mut a));
        let (mut o, mut m, mut a, _) = gemm_variants!(f32, n, matrixmultiply::sgemm);
        g.bench_function(format!("f32/{n}/ours"), |b| b.iter(&mut o));
        g.bench_function(format!("f32/{n}/matrixmultiply"), |b| b.iter(&mut m));
        g.bench_function(format!("f32/{n}/nalgebra"), |b| b.iter(&mut a));
    }
    g.finish();
}

fn gemm_table() {
    let (mut peak, peak_flops, isa) = fma_peak_loop();
    println!(
        "\nmatmul C = A B, n x n, GFLOP/s (median of {ROUNDS} interleaved rounds), path {:?}; \
         peak: single-core {isa} FMA loop (16 independent chains) timed in the same rounds, \
         f32 peak = 2 x f64 peak; avx2/mm: our AVX2+FMA path forced, against matrixmultiply",
        k::detected_isa()
    );
    println!(
        "{:<10} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9}",
        "", "ours", "mm", "nalgebra", "peak", "ours/mm", "ours/na", "ours/peak", "avx2/mm"
    );
    for n in SIZES {
        let flops = 2.0 * (n * n * n) as f64;
        for ty in ["f64", "f32"] {
            let t = if ty == "f64" {
                let (mut o, mut m, mut a, mut o2) = gemm_variants!(f64, n, matrixmultiply::dgemm);
                medians(&mut [&mut o, &mut m, &mut a, &mut peak, &mut o2])
            } else {
                let (mut o, mut m, mut a, mut o2) = gemm_variants!(f32, n, matrixmultiply::sgemm);
                medians(&mut [&mut o, &mut m, &mut a, &mut peak, &mut o2])
            };
            let lanes = if ty == "f64" { 1.0 } else { 2.0 };
            let g: Vec<f64> = t.iter().map(|s| flops / s / 1e9).collect();
            let pk = lanes * peak_flops / t[3] / 1e9;
            println!(
                "{:<10} {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>9.2} {:>9.2} {:>8.0}% {:>9.2}",
                format!("{ty} {n}"),
                g[0],
                g[1],
                g[2],
                pk,
                g[0] / g[1],
                g[0] / g[2],
                100.0 * g[0] / pk,
                g[4] / g[1]
            );
        }
    }
}

/// `ours` and matrixmultiply on one transposed product (`Aᵀ B` or `A Bᵀ`): the products of the
/// matmul VJP.
macro_rules! transposed_variants {
    ($t:ty, $n:expr, $ta:expr, $tb:expr, $mm:path) => {{
        let (n, ta, tb) = ($n, $ta, $tb);
        let a: Vec<$t> = random(n * n, 5).into_iter().map(|v| v as $t).collect();
        let b: Vec<$t> = random(n * n, 6).into_iter().map(|v| v as $t).collect();
        let (a2, b2) = (a.clone(), b.clone());
        let (mut c1, mut c2) = (vec![0.0 as $t; n * n], vec![0.0 as $t; n * n]);
        let ours = move || {
            let (av, bv) = (MatRef::new(&a, n, n), MatRef::new(&b, n, n));
            let av = if ta { av.t() } else { av };
            let bv = if tb { bv.t() } else { bv };
            k::matmul(1.0, av, bv, 0.0, MatMut::new(&mut c1, n, n));
            black_box(&c1);
        };
        let ni = n as isize;
        let (rsa, csa) = if ta { (1, ni) } else { (ni, 1) };
        let (rsb, csb) = if tb { (1, ni) } else { (ni, 1) };
        let mm = move || {
            // SAFETY: `a2`, `b2` and `c2` hold n x n matrices; the strides describe them (row-major,
            // or read transposed), `c2` does not alias them.
            unsafe {
                $mm(
                    n,
                    n,
                    n,
                    1.0,
                    a2.as_ptr(),
                    rsa,
                    csa,
                    b2.as_ptr(),
                    rsb,
                    csb,
                    0.0,
                    c2.as_mut_ptr(),
                    ni,
                    1,
                )
            };
            black_box(&c2);
        };
        (ours, mm)
    }};
}

fn transposed_table() {
    println!(
        "\nmatmul with a transposed operand (the VJP products), GFLOP/s (median of {ROUNDS} \
         interleaved rounds)"
    );
    println!("{:<14} {:>8} {:>8} {:>8}", "", "ours", "mm", "ours/mm");
    for n in SIZES {
        let flops = 2.0 * (n * n * n) as f64;
        for (name, ta, tb) in [("AᵀB", true, false), ("ABᵀ", false, true)] {
            for ty in ["f64", "f32"] {
                let t = if ty == "f64" {
                    let (mut o, mut m) =
                        transposed_variants!(f64, n, ta, tb, matrixmultiply::dgemm);
                    medians(&mut [&mut o, &mut m])
                } else {
                    let (mut o, mut m) =
                        transposed_variants!(f32, n, ta, tb, matrixmultiply::sgemm);
                    medians(&mut [&mut o, &mut m])
                };
                let g: Vec<f64> = t.iter().map(|s| flops / s / 1e9).collect();
                println!(
                    "{:<14} {:>8.1} {:>8.1} {:>8.2}",
                    format!("{ty} {n} {name}"),
                    g[0],
                    g[1],
                    g[0] / g[1]
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Activations
// ---------------------------------------------------------------------------------------------

/// `[ours forward, std forward, ours VJP, std VJP]` of one activation.
type Variants = [Box<dyn FnMut()>; 4];

/// The [`Variants`] over `ACT_LEN` elements: our kernels, and a plain loop calling the scalar std
/// formula `f` (forward) or its derivative `df` (VJP, `x_bar += f'(x) y_bar`). The closures are
/// generic, so the std formulas are inlined in their loops.
fn act_variants<T: Float + Send + 'static>(
    log: bool,
    fwd: fn(&[T], &mut [T]),
    vjp: fn(&[T], &[T], &mut [T]),
    f: impl Fn(T) -> T + 'static,
    df: impl Fn(T) -> T + 'static,
) -> Variants {
    let cast = |v: f64| T::from(v).unwrap();
    let x: Vec<T> = random(ACT_LEN, 3)
        .into_iter()
        .map(|v| cast(if log { v + 1.5 } else { 4.0 * v }))
        .collect();
    let yb: Vec<T> = random(ACT_LEN, 4).into_iter().map(cast).collect();
    let (x1, x2, x3, x4) = (x.clone(), x.clone(), x.clone(), x);
    let (yb1, yb2) = (yb.clone(), yb);
    let (mut y1, mut y2) = (vec![T::zero(); ACT_LEN], vec![T::zero(); ACT_LEN]);
    let (mut g1, mut g2) = (vec![T::zero(); ACT_LEN], vec![T::zero(); ACT_LEN]);
    [
        Box::new(move || {
            fwd(black_box(&x1), &mut y1);
            black_box(&y1);
        }),
        Box::new(move || {
            for (y, &x) in y2.iter_mut().zip(black_box(&x2)) {
                *y = f(x);
            }
            black_box(&y2);
        }),
        Box::new(move || {
            vjp(black_box(&x3), &yb1, &mut g1);
            black_box(&g1);
        }),
        Box::new(move || {
            for (g, (&x, &b)) in g2.iter_mut().zip(black_box(&x4).iter().zip(&yb2)) {
                *g = *g + df(x) * b;
            }
            black_box(&g2);
        }),
    ]
}

/// Every activation's variants for one float type: `(name, variants)`. The std formulas are the
/// textbook ones (`gelu_erf` has no std baseline: std has no `erf`; its two std slots are copies).
fn activations<T: k::Real>() -> Vec<(&'static str, Variants)> {
    let c = |v: f64| T::from(v).unwrap();
    let (one, half) = (T::one(), c(0.5));
    let (gc, gk) = (c((2.0 / std::f64::consts::PI).sqrt()), c(0.044715));
    let sig = move |x: T| one / (one + (-x).exp());
    vec![
        (
            "relu",
            act_variants(
                false,
                k::relu::<T>,
                k::relu_vjp::<T>,
                |x: T| x.max(T::zero()),
                |x: T| if x > T::zero() { T::one() } else { T::zero() },
            ),
        ),
        (
            "sigmoid",
            act_variants(false, k::sigmoid::<T>, k::sigmoid_vjp::<T>, sig, move |x| {
                let s = sig(x);
                s * (one - s)
            }),
        ),
        (
            "tanh",
            act_variants(
                false,
                k::tanh::<T>,
                k::tanh_vjp::<T>,
                |x: T| x.tanh(),
                move |x: T| {
                    let t = x.tanh();
                    one - t * t
                },
            ),
        ),
        (
            "gelu_tanh",
            act_variants(
                false,
                k::gelu_tanh::<T>,
                k::gelu_tanh_vjp::<T>,
                move |x: T| half * x * (one + (gc * (x + gk * x * x * x)).tanh()),
                move |x: T| {
                    let t = (gc * (x + gk * x * x * x)).tanh();
                    half * (one + t) + half * x * (one - t * t) * gc * (one + c(3.0) * gk * x * x)
                },
            ),
        ),
        (
            "silu",
            act_variants(
                false,
                k::silu::<T>,
                k::silu_vjp::<T>,
                move |x| x * sig(x),
                move |x| {
                    let s = sig(x);
                    s * (one + x * (one - s))
                },
            ),
        ),
        (
            "softplus",
            act_variants(
                false,
                k::softplus::<T>,
                k::softplus_vjp::<T>,
                |x: T| x.max(T::zero()) + (-x.abs()).exp().ln_1p(),
                sig,
            ),
        ),
        (
            "exp",
            act_variants(
                false,
                k::exp::<T>,
                k::exp_vjp::<T>,
                |x: T| x.exp(),
                |x: T| x.exp(),
            ),
        ),
        (
            "log",
            act_variants(
                true,
                k::log::<T>,
                k::log_vjp::<T>,
                |x: T| x.ln(),
                move |x: T| one / x,
            ),
        ),
        (
            "gelu_erf",
            act_variants(false, k::gelu_erf::<T>, k::gelu_erf_vjp::<T>, |x| x, |x| x),
        ),
    ]
}

fn act_criterion(c: &mut Criterion) {
    let mut g = c.benchmark_group("activations");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(400));
    for (name, [mut f, mut fs, mut v, mut vs]) in activations::<f64>() {
        g.bench_function(format!("f64/{name}/forward"), |b| b.iter(&mut f));
        g.bench_function(format!("f64/{name}/vjp"), |b| b.iter(&mut v));
        if name != "gelu_erf" {
            g.bench_function(format!("f64/{name}/std_forward"), |b| b.iter(&mut fs));
            g.bench_function(format!("f64/{name}/std_vjp"), |b| b.iter(&mut vs));
        }
    }
    g.finish();
}

fn act_table() {
    println!(
        "\nactivations over {ACT_LEN} elements, path {:?}: ns per element (median of {ROUNDS} \
         interleaved rounds) and speed-up over a scalar std loop",
        k::detected_isa()
    );
    println!(
        "{:<16} {:>8} {:>8} {:>7} {:>8} {:>8} {:>7}",
        "", "fwd", "std fwd", "ratio", "vjp", "std vjp", "ratio"
    );
    let rows = activations::<f64>().into_iter().map(|(n, v)| ("f64", n, v));
    let rows = rows.chain(activations::<f32>().into_iter().map(|(n, v)| ("f32", n, v)));
    for (ty, name, mut v) in rows {
        let [f, fs, vj, vs] = &mut v;
        let t = medians(&mut [&mut **f, &mut **fs, &mut **vj, &mut **vs]);
        let ns: Vec<f64> = t.iter().map(|s| s * 1e9 / ACT_LEN as f64).collect();
        let label = format!("{ty} {name}");
        if name == "gelu_erf" {
            println!(
                "{label:<16} {:>8.3} {:>8} {:>7} {:>8.3} {:>8} {:>7}",
                ns[0], "-", "-", ns[2], "-", "-"
            );
        } else {
            println!(
                "{label:<16} {:>8.3} {:>8.3} {:>6.1}x {:>8.3} {:>8.3} {:>6.1}x",
                ns[0],
                ns[1],
                ns[1] / ns[0],
                ns[2],
                ns[3],
                ns[3] / ns[2]
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`) criterion only tests
    // that each benchmark runs, and the tables are skipped.
    let as_test = !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--list");
    let tables_only = args.iter().any(|a| a == "--tables");
    if !tables_only {
        let mut c = Criterion::default().without_plots().configure_from_args();
        gemm_criterion(&mut c);
        act_criterion(&mut c);
        c.final_summary();
    }
    if !as_test {
        gemm_table();
        transposed_table();
        act_table();
    }
}
