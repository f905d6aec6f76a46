//! Gradient of a 784-256-10 MLP loss (batch 128, f32, relu hidden layer, softmax cross-entropy
//! with integer labels) against its primal (issue 11, item 5): takes the same loss written three
//! ways, gives criterion measurements, then one table of medians and ratios measured in the same
//! run:
//! - `nn`: the `autodiff_runtime::nn` layers (`dense`, `relu`, `cross_entropy`, running the
//!   kernels) inside a `#[differentiate]` function; the macro reverses each call through the
//!   layer's hand-written rule;
//! - `loops`: plain index loops inside a `#[differentiate]` function, the macro differentiating
//!   the scalar code;
//! - `hand`: a hand-written adjoint calling the kernels directly (the reference: what the `nn`
//!   gradient could cost), with the `nn` primal as its primal;
//! - `nalgebra`: `DMatrix`/`DVector` products and `from_fn` bias terms with the `nn` activation
//!   and loss on their storage; its primal is nalgebra's own code, its gradient the macro's
//!   (products through the runtime's `na::mat_mul` rule on the kernels).
//!
//! The table also times, in the same rounds, what the `nn` gradient spends on the adjoint of `x`
//! (not in `wrt`, computed by the first layer's rule and discarded), and counts page faults per
//! call of the `_vjp` and `_grad` variants (Linux).
//!
//! Run: `cargo bench --bench mlp` (criterion, then the table: about a minute once built), or
//! `cargo bench --bench mlp -- --tables` for the table only (about 5 s). Under `cargo test --benches` criterion runs each benchmark once
//! at a small size (batch 4, 16-8-10: the test profile is unoptimized) and the table is skipped.
//! The table times every variant in turn, round after round (`ROUNDS` rounds, each sample about
//! `SAMPLE` long), and divides medians, as benches/kernels.rs and benches/overhead.rs do: a noisy
//! neighbour slows all variants of a round alike. Before timing, the three gradients are compared
//! (they must agree to f32 rounding).
//!
//! The JAX and PyTorch versions of the same gradient: `benches/peers/mlp.py`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use autodiff_runtime::kernels::{self as k, MatMut, MatRef};
use autodiff_runtime::{differentiate, nn};
use criterion::Criterion;
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Time of one sample in the table, and number of rounds.
const SAMPLE: Duration = Duration::from_millis(30);
const ROUNDS: usize = 15;

/// Sizes of the network: input, hidden, classes, and the batch.
#[derive(Clone, Copy)]
struct Shape {
    input: usize,
    hidden: usize,
    classes: usize,
    batch: usize,
}

const FULL: Shape = Shape {
    input: 784,
    hidden: 256,
    classes: 10,
    batch: 128,
};

/// The size `cargo test --benches` runs once (unoptimized code).
const SMALL: Shape = Shape {
    input: 16,
    hidden: 8,
    classes: 10,
    batch: 4,
};

// ---------------------------------------------------------------------------------------------
// The loss, three ways
// ---------------------------------------------------------------------------------------------

/// Mean softmax cross-entropy of `relu(x w1 + b1) w2 + b2` against `labels`: `x` is
/// `batch x n_in` (one sample a row, `batch = labels.len()`), `w1` is `n_in x n_hidden`, `w2`
/// `n_hidden x n_out`, all row-major, written with the `nn` layers.
#[allow(clippy::too_many_arguments)]
#[differentiate(wrt(w1, b1, w2, b2))]
fn mlp_nn(
    w1: &[f32],
    b1: &[f32],
    w2: &[f32],
    b2: &[f32],
    x: &[f32],
    labels: &[usize],
    n_in: usize,
    n_hidden: usize,
    n_out: usize,
) -> f32 {
    let batch = labels.len();
    let mut z = vec![0.0f32; batch * n_hidden];
    nn::dense(x, w1, b1, &mut z, batch, n_in, n_hidden);
    let mut a = vec![0.0f32; batch * n_hidden];
    nn::relu(&z, &mut a);
    let mut logits = vec![0.0f32; batch * n_out];
    nn::dense(&a, w2, b2, &mut logits, batch, n_hidden, n_out);
    nn::cross_entropy(&logits, labels, batch, n_out)
}

/// [`mlp_nn`] with its first layer on `nn::Data`: the reverse sweep computes no adjoint of `x`.
#[allow(clippy::too_many_arguments)]
#[differentiate(wrt(w1, b1, w2, b2))]
fn mlp_data(
    w1: &[f32],
    b1: &[f32],
    w2: &[f32],
    b2: &[f32],
    x: &[f32],
    labels: &[usize],
    n_in: usize,
    n_hidden: usize,
    n_out: usize,
) -> f32 {
    let batch = labels.len();
    let mut z = vec![0.0f32; batch * n_hidden];
    nn::dense_data(nn::Data(x), w1, b1, &mut z, batch, n_in, n_hidden);
    let mut a = vec![0.0f32; batch * n_hidden];
    nn::relu(&z, &mut a);
    let mut logits = vec![0.0f32; batch * n_out];
    nn::dense(&a, w2, b2, &mut logits, batch, n_hidden, n_out);
    nn::cross_entropy(&logits, labels, batch, n_out)
}

/// The same loss written with plain loops, one sample at a time.
#[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
#[differentiate(wrt(w1, b1, w2, b2))]
fn mlp_loops(
    w1: &[f32],
    b1: &[f32],
    w2: &[f32],
    b2: &[f32],
    x: &[f32],
    labels: &[usize],
    n_in: usize,
    n_hidden: usize,
    n_out: usize,
) -> f32 {
    let batch = labels.len();
    let mut hidden = vec![0.0f32; n_hidden];
    let mut logits = vec![0.0f32; n_out];
    let mut loss = 0.0f32;
    for s in 0..batch {
        hidden.copy_from_slice(b1);
        for j in 0..n_in {
            let xv = x[s * n_in + j];
            for i in 0..n_hidden {
                hidden[i] += xv * w1[j * n_hidden + i];
            }
        }
        for i in 0..n_hidden {
            hidden[i] = hidden[i].max(0.0);
        }
        logits.copy_from_slice(b2);
        for i in 0..n_hidden {
            let h = hidden[i];
            for c in 0..n_out {
                logits[c] += h * w2[i * n_out + c];
            }
        }
        let mut m = f32::NEG_INFINITY;
        for c in 0..n_out {
            m = m.max(logits[c]);
        }
        let mut sum = 0.0f32;
        for c in 0..n_out {
            sum += (logits[c] - m).exp();
        }
        loss += m + sum.ln() - logits[labels[s]];
    }
    loss / batch as f32
}

/// The same loss written with nalgebra: `x` is `n_in x batch` (one sample a column), `w1`
/// `n_hidden x n_in`, `w2` `n_out x n_hidden`; their column-major storage is the row-major
/// storage of [`mlp_nn`]'s `x`, `w1`, `w2`, so both read the same buffers.
#[differentiate(wrt(w1, b1, w2, b2))]
fn mlp_na(
    w1: &DMatrix<f32>,
    b1: &DVector<f32>,
    w2: &DMatrix<f32>,
    b2: &DVector<f32>,
    x: &DMatrix<f32>,
    labels: &[usize],
) -> f32 {
    let z = w1 * x;
    let z = DMatrix::from_fn(z.nrows(), z.ncols(), |i, j| z[(i, j)] + b1[i]);
    let mut a = vec![0.0f32; z.len()];
    nn::relu(z.as_slice(), &mut a);
    let a = DMatrix::from_vec(z.nrows(), z.ncols(), a);
    let logits = w2 * &a;
    let logits = DMatrix::from_fn(logits.nrows(), logits.ncols(), |i, j| {
        logits[(i, j)] + b2[i]
    });
    // Column-major `n_out x batch` is row-major `batch x n_out`.
    nn::cross_entropy(logits.as_slice(), labels, labels.len(), logits.nrows())
}

/// [`Params`] as nalgebra values (the same numbers; see [`mlp_na`]).
struct NaParams {
    w1: DMatrix<f32>,
    b1: DVector<f32>,
    w2: DMatrix<f32>,
    b2: DVector<f32>,
    x: DMatrix<f32>,
}

impl NaParams {
    fn new(p: &Params, s: Shape) -> Self {
        NaParams {
            w1: DMatrix::from_column_slice(s.hidden, s.input, &p.w1),
            b1: DVector::from_column_slice(&p.b1),
            w2: DMatrix::from_column_slice(s.classes, s.hidden, &p.w2),
            b2: DVector::from_column_slice(&p.b2),
            x: DMatrix::from_column_slice(s.input, s.batch, &p.x),
        }
    }
}

/// Buffers of the hand-written adjoint, allocated once.
struct HandWork {
    z: Vec<f32>,
    a: Vec<f32>,
    logits: Vec<f32>,
    dlogits: Vec<f32>,
    da: Vec<f32>,
}

impl HandWork {
    fn new(s: Shape) -> Self {
        HandWork {
            z: vec![0.0; s.batch * s.hidden],
            a: vec![0.0; s.batch * s.hidden],
            logits: vec![0.0; s.batch * s.classes],
            dlogits: vec![0.0; s.batch * s.classes],
            da: vec![0.0; s.batch * s.hidden],
        }
    }
}

/// Hand-written adjoint of [`mlp_nn`] on the kernels: returns the loss and adds `seed` times its
/// gradient into `dw1`, `db1`, `dw2`, `db2`. No adjoint of `x`.
#[allow(clippy::too_many_arguments)]
fn mlp_hand_vjp(
    p: &Params,
    s: Shape,
    work: &mut HandWork,
    dw1: &mut [f32],
    db1: &mut [f32],
    dw2: &mut [f32],
    db2: &mut [f32],
    seed: f32,
) -> f32 {
    let (b, h, o, n) = (s.batch, s.hidden, s.classes, s.input);
    let HandWork {
        z,
        a,
        logits,
        dlogits,
        da,
    } = work;
    nn::dense(&p.x, &p.w1, &p.b1, z, b, n, h);
    k::relu(z, a);
    nn::dense(a, &p.w2, &p.b2, logits, b, h, o);
    let lg = MatRef::new(&logits[..], b, o);
    let loss = k::cross_entropy_labels(lg, &p.labels);
    dlogits.fill(0.0);
    k::cross_entropy_labels_vjp(lg, &p.labels, seed, MatMut::new(dlogits, b, o));
    let dl = MatRef::new(&dlogits[..], b, o);
    k::matmul(
        1.0,
        MatRef::new(a, b, h).t(),
        dl,
        1.0,
        MatMut::new(dw2, h, o),
    );
    for r in dlogits.chunks_exact(o) {
        k::axpy(1.0, r, db2);
    }
    k::matmul(
        1.0,
        dl,
        MatRef::new(&p.w2, h, o).t(),
        0.0,
        MatMut::new(da, b, h),
    );
    // dz = relu'(z) da, into `a` (no longer needed).
    a.fill(0.0);
    k::relu_vjp(z, da, a);
    let dz = MatRef::new(&a[..], b, h);
    k::matmul(
        1.0,
        MatRef::new(&p.x, b, n).t(),
        dz,
        1.0,
        MatMut::new(dw1, n, h),
    );
    for r in a.chunks_exact(h) {
        k::axpy(1.0, r, db1);
    }
    loss
}

// ---------------------------------------------------------------------------------------------
// Inputs and variants
// ---------------------------------------------------------------------------------------------

/// Parameters and data: Glorot-uniform weights, small biases, inputs in [0, 1), random labels.
struct Params {
    w1: Vec<f32>,
    b1: Vec<f32>,
    w2: Vec<f32>,
    b2: Vec<f32>,
    x: Vec<f32>,
    labels: Vec<usize>,
}

impl Params {
    fn new(s: Shape) -> Self {
        let mut r = ChaCha8Rng::seed_from_u64(11);
        let mut uniform = |n: usize, a: f32| -> Vec<f32> {
            (0..n).map(|_| r.gen_range(-a..a)).collect::<Vec<f32>>()
        };
        let g1 = (6.0 / (s.input + s.hidden) as f32).sqrt();
        let g2 = (6.0 / (s.hidden + s.classes) as f32).sqrt();
        let w1 = uniform(s.input * s.hidden, g1);
        let b1 = uniform(s.hidden, 0.1);
        let w2 = uniform(s.hidden * s.classes, g2);
        let b2 = uniform(s.classes, 0.1);
        let x = uniform(s.batch * s.input, 1.0)
            .iter()
            .map(|v| v.abs())
            .collect();
        let labels = (0..s.batch).map(|_| r.gen_range(0..s.classes)).collect();
        Params {
            w1,
            b1,
            w2,
            b2,
            x,
            labels,
        }
    }
}

/// Gradient buffers (w1, b1, w2, b2).
struct Grads([Vec<f32>; 4]);

impl Grads {
    fn new(s: Shape) -> Self {
        Grads([
            vec![0.0; s.input * s.hidden],
            vec![0.0; s.hidden],
            vec![0.0; s.hidden * s.classes],
            vec![0.0; s.classes],
        ])
    }
}

type Variant<'a> = (&'static str, Box<dyn FnMut() -> f32 + 'a>);

/// Every timed variant, in table order. The `_vjp` variants add into buffers allocated once;
/// the `_grad` ones allocate and zero their result, as a user calling `f_grad` gets.
fn variants(p: &Params, s: Shape) -> Vec<Variant<'_>> {
    let (n, h, o) = (s.input, s.hidden, s.classes);
    let mut g_nn = Grads::new(s);
    let mut g_data = Grads::new(s);
    let mut g_loops = Grads::new(s);
    let mut g_hand = Grads::new(s);
    let mut work = HandWork::new(s);
    let dz: Vec<f32> = p.x[..s.batch * h].iter().map(|v| v - 0.5).collect();
    let na = std::rc::Rc::new(NaParams::new(p, s));
    let (na1, na2, na3) = (na.clone(), na.clone(), na);
    let mut g_na = (
        DMatrix::<f32>::zeros(h, n),
        DVector::<f32>::zeros(h),
        DMatrix::<f32>::zeros(o, h),
        DVector::<f32>::zeros(o),
    );
    vec![
        (
            "na primal",
            Box::new(move || mlp_na(&na1.w1, &na1.b1, &na1.w2, &na1.b2, &na1.x, &p.labels)),
        ),
        (
            "na vjp",
            Box::new(move || {
                let (dw1, db1, dw2, db2) = &mut g_na;
                let q = &na2;
                mlp_na_vjp(
                    &q.w1, &q.b1, &q.w2, &q.b2, &q.x, &p.labels, dw1, db1, dw2, db2, 1.0,
                )
            }),
        ),
        (
            "na grad",
            Box::new(move || {
                let q = &na3;
                let (v, g) = mlp_na_grad(&q.w1, &q.b1, &q.w2, &q.b2, &q.x, &p.labels);
                black_box(g);
                v
            }),
        ),
        (
            "nn primal",
            Box::new(move || mlp_nn(&p.w1, &p.b1, &p.w2, &p.b2, &p.x, &p.labels, n, h, o)),
        ),
        (
            "nn vjp",
            Box::new(move || {
                let [dw1, db1, dw2, db2] = &mut g_nn.0;
                mlp_nn_vjp(
                    &p.w1, &p.b1, &p.w2, &p.b2, &p.x, &p.labels, n, h, o, dw1, db1, dw2, db2, 1.0,
                )
            }),
        ),
        (
            "nn grad",
            Box::new(move || {
                let (v, g) = mlp_nn_grad(&p.w1, &p.b1, &p.w2, &p.b2, &p.x, &p.labels, n, h, o);
                black_box(g);
                v
            }),
        ),
        (
            "data primal",
            Box::new(move || mlp_data(&p.w1, &p.b1, &p.w2, &p.b2, &p.x, &p.labels, n, h, o)),
        ),
        (
            "data vjp",
            Box::new(move || {
                let [dw1, db1, dw2, db2] = &mut g_data.0;
                mlp_data_vjp(
                    &p.w1, &p.b1, &p.w2, &p.b2, &p.x, &p.labels, n, h, o, dw1, db1, dw2, db2, 1.0,
                )
            }),
        ),
        (
            "data grad",
            Box::new(move || {
                let (v, g) = mlp_data_grad(&p.w1, &p.b1, &p.w2, &p.b2, &p.x, &p.labels, n, h, o);
                black_box(g);
                v
            }),
        ),
        (
            "loops primal",
            Box::new(move || mlp_loops(&p.w1, &p.b1, &p.w2, &p.b2, &p.x, &p.labels, n, h, o)),
        ),
        (
            "loops vjp",
            Box::new(move || {
                let [dw1, db1, dw2, db2] = &mut g_loops.0;
                mlp_loops_vjp(
                    &p.w1, &p.b1, &p.w2, &p.b2, &p.x, &p.labels, n, h, o, dw1, db1, dw2, db2, 1.0,
                )
            }),
        ),
        (
            "loops grad",
            Box::new(move || {
                let (v, g) = mlp_loops_grad(&p.w1, &p.b1, &p.w2, &p.b2, &p.x, &p.labels, n, h, o);
                black_box(g);
                v
            }),
        ),
        (
            // What the `nn` gradient spends on `x`, which is not in `wrt`: generated code passes
            // the layer's rule a fresh zero buffer for its adjoint, and the rule cannot tell it
            // apart from a wanted one, so it runs the product `dZ W1ᵀ` into it.
            "x adjoint",
            Box::new(move || {
                let mut dx = vec![0.0f32; s.batch * n];
                k::matmul(
                    1.0,
                    MatRef::new(&dz, s.batch, h),
                    MatRef::new(&p.w1, n, h).t(),
                    1.0,
                    MatMut::new(&mut dx, s.batch, n),
                );
                dx[0]
            }),
        ),
        (
            "hand vjp",
            Box::new(move || {
                let [dw1, db1, dw2, db2] = &mut g_hand.0;
                mlp_hand_vjp(p, s, &mut work, dw1, db1, dw2, db2, 1.0)
            }),
        ),
    ]
}

/// Largest difference between two gradients, relative to the largest entry of the first.
fn max_rel_diff(a: &Grads, b: &Grads) -> f32 {
    let scale = a.0.iter().flatten().fold(0.0f32, |m, v| m.max(v.abs()));
    let diff =
        a.0.iter()
            .flatten()
            .zip(b.0.iter().flatten())
            .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()));
    diff / scale
}

/// Runs each way once from zero buffers and checks that values and gradients agree.
fn check_agreement(p: &Params, s: Shape) {
    let (n, h, o) = (s.input, s.hidden, s.classes);
    let (mut a, mut b, mut c) = (Grads::new(s), Grads::new(s), Grads::new(s));
    let [w1, b1, w2, b2] = &mut a.0;
    let va = mlp_nn_vjp(
        &p.w1, &p.b1, &p.w2, &p.b2, &p.x, &p.labels, n, h, o, w1, b1, w2, b2, 1.0,
    );
    let [w1, b1, w2, b2] = &mut b.0;
    let vb = mlp_loops_vjp(
        &p.w1, &p.b1, &p.w2, &p.b2, &p.x, &p.labels, n, h, o, w1, b1, w2, b2, 1.0,
    );
    let [w1, b1, w2, b2] = &mut c.0;
    let vc = mlp_hand_vjp(p, s, &mut HandWork::new(s), w1, b1, w2, b2, 1.0);
    let (d_loops, d_hand) = (max_rel_diff(&a, &b), max_rel_diff(&a, &c));
    let q = NaParams::new(p, s);
    let (vn, gn) = mlp_na_grad(&q.w1, &q.b1, &q.w2, &q.b2, &q.x, &p.labels);
    let d = Grads([
        gn.w1.as_slice().to_vec(),
        gn.b1.as_slice().to_vec(),
        gn.w2.as_slice().to_vec(),
        gn.b2.as_slice().to_vec(),
    ]);
    let d_na = max_rel_diff(&a, &d);
    let mut e = Grads::new(s);
    let [w1, b1, w2, b2] = &mut e.0;
    let ve = mlp_data_vjp(
        &p.w1, &p.b1, &p.w2, &p.b2, &p.x, &p.labels, n, h, o, w1, b1, w2, b2, 1.0,
    );
    assert!(
        ve == va && max_rel_diff(&a, &e) == 0.0,
        "the nn::Data version differs from the nn one"
    );
    assert!(
        (va - vn).abs() <= 1e-5 * va.abs() && d_na < 1e-5,
        "nalgebra differs: loss {vn} vs {va}, gradient {d_na:e}"
    );
    assert!(
        (va - vb).abs() <= 1e-4 * va.abs() && va == vc,
        "losses differ: nn {va}, loops {vb}, hand {vc}"
    );
    assert!(
        d_loops < 1e-3 && d_hand < 1e-5,
        "gradients differ: loops vs nn {d_loops:e}, hand vs nn {d_hand:e}"
    );
    eprintln!(
        "loss {va:.6}; gradients agree: max |loops - nn| {d_loops:.1e}, max |hand - nn| \
         {d_hand:.1e}, max |nalgebra - nn| {d_na:.1e} (relative to the largest entry)"
    );
}

// ---------------------------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------------------------

/// Seconds per call of each variant: each is calibrated to about `SAMPLE` per sample, then
/// `ROUNDS` rounds time one sample of every variant in turn; the median over rounds is returned.
fn medians(variants: &mut [Variant<'_>]) -> Vec<f64> {
    let reps: Vec<u32> = variants
        .iter_mut()
        .map(|(_, f)| {
            let mut reps = 1u32;
            loop {
                let t = Instant::now();
                for _ in 0..reps {
                    black_box(f());
                }
                let el = t.elapsed();
                if el >= SAMPLE / 2 {
                    let per_call = el.as_secs_f64() / f64::from(reps);
                    break ((SAMPLE.as_secs_f64() / per_call).round() as u32).max(1);
                }
                reps *= 2;
            }
        })
        .collect();
    let mut times = vec![Vec::with_capacity(ROUNDS); variants.len()];
    for _ in 0..ROUNDS {
        for (v, (_, f)) in variants.iter_mut().enumerate() {
            let t = Instant::now();
            for _ in 0..reps[v] {
                black_box(f());
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

/// Minor page faults of this process so far (Linux: field 10 of /proc/self/stat), if readable.
fn minor_faults() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split(' ').nth(7)?.parse().ok()
}

/// Minor page faults per call of `f` over 20 calls.
fn faults_per_call(f: &mut dyn FnMut() -> f32) -> Option<f64> {
    let before = minor_faults()?;
    for _ in 0..20 {
        black_box(f());
    }
    Some((minor_faults()? - before) as f64 / 20.0)
}

fn ms(s: f64) -> String {
    format!("{:.3} ms", s * 1e3)
}

fn table() {
    let s = FULL;
    let p = Params::new(s);
    check_agreement(&p, s);
    let mut vs = variants(&p, s);
    let names: Vec<&str> = vs.iter().map(|(n, _)| *n).collect();
    let t = medians(&mut vs);
    let time = |name: &str| t[names.iter().position(|n| *n == name).unwrap()];
    println!(
        "\nMLP {}-{}-{} loss gradient, batch {}, f32, relu, softmax cross-entropy (labels); \
         median of {ROUNDS} interleaved rounds, path {:?}",
        s.input,
        s.hidden,
        s.classes,
        s.batch,
        k::detected_isa()
    );
    println!(
        "{:<28} {:>10} {:>10} {:>10} {:>12} {:>12}",
        "written with", "primal", "_vjp", "_grad", "_vjp/primal", "_grad/primal"
    );
    for (label, key) in [
        ("nn layers (kernels)", "nn"),
        ("nn layers, x as nn::Data", "data"),
        ("nalgebra + nn activations", "na"),
        ("plain loops", "loops"),
    ] {
        let (pr, vj, gr) = (
            time(&format!("{key} primal")),
            time(&format!("{key} vjp")),
            time(&format!("{key} grad")),
        );
        println!(
            "{label:<28} {:>10} {:>10} {:>10} {:>12.2} {:>12.2}",
            ms(pr),
            ms(vj),
            ms(gr),
            vj / pr,
            gr / pr
        );
    }
    let (pr, hv) = (time("nn primal"), time("hand vjp"));
    println!(
        "{:<28} {:>10} {:>10} {:>10} {:>12.2} {:>12}",
        "hand-written on kernels",
        "(nn)",
        ms(hv),
        "-",
        hv / pr,
        "-"
    );
    let xa = time("x adjoint");
    println!(
        "of the nn _vjp, the adjoint of x (not in wrt; zero buffer + dZ W1ᵀ, discarded): {} = \
         {:.2} x primal; nn _vjp without it: {:.2} x primal",
        ms(xa),
        xa / pr,
        (time("nn vjp") - xa) / pr
    );
    let mut faults = |name: &str| {
        let f = &mut vs.iter_mut().find(|(n, _)| *n == name).unwrap().1;
        faults_per_call(&mut **f).map_or("-".to_string(), |c| format!("{c:.0}"))
    };
    println!(
        "page faults per call (the allocator giving memory back between calls): nn _vjp {}, \
         nn _grad {}, loops _vjp {}, loops _grad {}",
        faults("nn vjp"),
        faults("nn grad"),
        faults("loops vjp"),
        faults("loops grad")
    );
    println!(
        "plain loops / nn layers: primal {:.1}x, _vjp {:.1}x; nn _vjp / hand-written {:.2}",
        time("loops primal") / pr,
        time("loops vjp") / time("nn vjp"),
        time("nn vjp") / hv
    );
}

fn criterion_phase(c: &mut Criterion, s: Shape) {
    let p = Params::new(s);
    check_agreement(&p, s);
    let mut group = c.benchmark_group("mlp");
    group.sample_size(10);
    for (name, mut f) in variants(&p, s) {
        group.bench_function(name.replace(' ', "_"), |b| b.iter(&mut f));
    }
    group.finish();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`) criterion only tests
    // that each benchmark runs (at the small size), and the table is skipped.
    let as_test = !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--list");
    let tables_only = args.iter().any(|a| a == "--tables");
    if !tables_only {
        let mut c = Criterion::default()
            .without_plots()
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3))
            .configure_from_args();
        criterion_phase(&mut c, if as_test { SMALL } else { FULL });
        c.final_summary();
    }
    if !as_test {
        table();
    }
}
