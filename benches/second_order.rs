//! Second order: takes three objectives written with `#[differentiate(hvp)]`, gives criterion
//! measurements of their value, gradient (`_grad`) and Hessian-vector product (`_hvp`, forward
//! over reverse), a hand-written Hessian-vector product where one is short, and a dense Hessian
//! (`_hessian`) of a small instance; then one table of medians measured in the same run with the
//! ratios hvp / gradient (issue target: at most 4), hvp / value and generated / hand-written.
//!
//! Problems:
//! - `rosenbrock`: extended Rosenbrock over a slice (a loop of polynomials; its Hessian is
//!   tridiagonal, so the hand-written product is a short loop);
//! - `logsumexp`: a softmax cross-entropy with a quadratic penalty (exp, ln, max in loops);
//! - `chain`: the potential energy of a chain of springs with Morse bonds (exp, sqrt, branches).
//!
//! Run: `cargo bench --bench second_order` (criterion then the table), or
//! `cargo bench --bench second_order -- --tables` (the table only, about 10 s). Under
//! `cargo test --benches` criterion runs each benchmark once and the table is skipped.

#[allow(dead_code)]
#[path = "overhead_parts/common.rs"]
mod common;

use autodiff_runtime::differentiate;
use common::{format_ratio, format_time, interleaved_medians, print_table, uniform, Variant};
use criterion::Criterion;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Duration;

const SAMPLE: Duration = Duration::from_millis(20);
const ROUNDS: usize = 15;

#[differentiate(hvp)]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        s += 100.0 * a * a + b * b;
    }
    s
}

/// `H d` of `rosenbrock`, by hand: the tridiagonal Hessian applied in one loop.
fn rosenbrock_hv_hand(x: &[f64], d: &[f64], out: &mut [f64]) {
    out.fill(0.0);
    for i in 0..x.len() - 1 {
        let (xi, xj) = (x[i], x[i + 1]);
        let hii = 1200.0 * xi * xi - 400.0 * xj + 2.0;
        let hij = -400.0 * xi;
        out[i] += hii * d[i] + hij * d[i + 1];
        out[i + 1] += hij * d[i] + 200.0 * d[i + 1];
    }
}

#[differentiate(wrt(w), hvp)]
fn logsumexp(w: &[f64], scores: &[f64], label: usize) -> f64 {
    let n = scores.len();
    let mut m = f64::NEG_INFINITY;
    for i in 0..n {
        m = m.max(w[i] * scores[i]);
    }
    let mut z = 0.0;
    for i in 0..n {
        z += (w[i] * scores[i] - m).exp();
    }
    let mut penalty = 0.0;
    for wi in w.iter() {
        penalty += wi * wi;
    }
    z.ln() + m - w[label] * scores[label] + 0.01 * penalty
}

#[differentiate(hvp)]
fn chain(p: &[f64], rest: f64) -> f64 {
    let mut e = 0.0;
    for i in 0..p.len() / 2 - 1 {
        let dx = p[2 * i + 2] - p[2 * i];
        let dy = p[2 * i + 3] - p[2 * i + 1];
        let r = (dx * dx + dy * dy).sqrt();
        let m = 1.0 - (-(r - rest)).exp();
        e += m * m;
        if r < 0.5 * rest {
            e += (0.5 * rest - r).powi(3);
        }
    }
    e
}

struct Problem {
    name: &'static str,
    variants: Vec<Variant<'static>>,
}

fn problems(n: usize) -> Vec<Problem> {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let x = uniform(&mut rng, n, -1.0, 1.0);
    let d = uniform(&mut rng, n, -1.0, 1.0);
    let scores = uniform(&mut rng, n, -2.0, 2.0);
    let p: Vec<f64> = (0..n)
        .map(|k| if k % 2 == 0 { k as f64 * 0.5 } else { 0.1 })
        .zip(uniform(&mut rng, n, -0.1, 0.1))
        .map(|(a, b)| a + b)
        .collect();
    let mut out = vec![0.0; n];
    let (x1, x2, x3, x4, x5) = (x.clone(), x.clone(), x.clone(), x.clone(), x.clone());
    let x6 = x.clone();
    let (d1, d2, d4) = (d.clone(), d.clone(), d.clone());
    let (s1, s2, s3) = (scores.clone(), scores.clone(), scores.clone());
    let (p1, p2, p3) = (p.clone(), p.clone(), p.clone());
    vec![
        Problem {
            name: "rosenbrock",
            variants: vec![
                ("value", Box::new(move || rosenbrock(black_box(&x1)))),
                (
                    "grad",
                    Box::new(move || rosenbrock_grad(black_box(&x2)).1.x[0]),
                ),
                (
                    "hvp",
                    Box::new(move || rosenbrock_hvp(black_box(&x3), black_box(&d1)).2.x[0]),
                ),
                (
                    "hand_hvp",
                    Box::new(move || {
                        rosenbrock_hv_hand(black_box(&x4), black_box(&d2), &mut out);
                        out[0]
                    }),
                ),
            ],
        },
        Problem {
            name: "logsumexp",
            variants: vec![
                ("value", Box::new(move || logsumexp(black_box(&x5), &s1, 3))),
                (
                    "grad",
                    Box::new(move || logsumexp_grad(black_box(&x), &s2, 3).1.w[0]),
                ),
                (
                    "hvp",
                    Box::new(move || logsumexp_hvp(black_box(&x6), &s3, 3, black_box(&d4)).2.w[0]),
                ),
            ],
        },
        Problem {
            name: "chain",
            variants: vec![
                ("value", Box::new(move || chain(black_box(&p1), 0.5))),
                (
                    "grad",
                    Box::new(move || chain_grad(black_box(&p2), 0.5).1.p[0]),
                ),
                (
                    "hvp",
                    Box::new(move || chain_hvp(black_box(&p3), 0.5, black_box(&d), 0.0).2.p[0]),
                ),
            ],
        },
    ]
}

fn table(n: usize) {
    let header = [
        "problem",
        "value",
        "grad",
        "hvp",
        "hand hvp",
        "hvp/grad",
        "hvp/value",
        "hvp/hand",
    ];
    let mut rows = Vec::new();
    for mut p in problems(n) {
        let names: Vec<&str> = p.variants.iter().map(|v| v.0).collect();
        let t = interleaved_medians(&mut p.variants, SAMPLE, ROUNDS);
        let get = |v: &str| names.iter().position(|n| *n == v).map(|i| t[i]);
        let (value, grad, hvp, hand) = (get("value"), get("grad"), get("hvp"), get("hand_hvp"));
        rows.push([
            format!("{} (n = {n})", p.name),
            format_time(value),
            format_time(grad),
            format_time(hvp),
            format_time(hand),
            format_ratio(hvp, grad),
            format_ratio(hvp, value),
            format_ratio(hvp, hand),
        ]);
    }
    println!("\nsecond order, medians of {ROUNDS} interleaved rounds:");
    print_table(&header, &rows);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let x = uniform(&mut rng, 20, -1.0, 1.0);
    let mut dense: Vec<Variant<'_>> = vec![
        ("grad", Box::new(|| rosenbrock_grad(black_box(&x)).1.x[0])),
        (
            "hessian",
            Box::new(|| rosenbrock_hessian(black_box(&x)).2[(0, 0)]),
        ),
    ];
    let t = interleaved_medians(&mut dense, SAMPLE, ROUNDS);
    println!(
        "dense Hessian of rosenbrock (n = 20, 20 hvps): {} = {} gradients",
        format_time(Some(t[1])),
        format_ratio(Some(t[1]), Some(t[0]))
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let as_test = !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--list");
    let tables_only = args.iter().any(|a| a == "--tables");
    let n = if as_test { 16 } else { 1000 };
    if !tables_only {
        let mut c = Criterion::default()
            .without_plots()
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(1))
            .sample_size(10)
            .configure_from_args();
        for mut p in problems(n) {
            let mut g = c.benchmark_group(format!("{}/{n}", p.name));
            for (name, f) in p.variants.iter_mut() {
                g.bench_function(*name, |b| b.iter(&mut **f));
            }
            g.finish();
        }
        c.final_summary();
    }
    if !as_test {
        table(n);
    }
}
