//! Overhead of generated derivatives: takes the problems of `problems/`, gives criterion
//! measurements of each one's primal, hand-written and generated adjoint, hand-written and
//! generated tangent, then tables of ratios (reverse mode, forward mode), of peak heap bytes per
//! call, and of the two-variable test functions against num-dual, measured in the same run.
//!
//! Run: `cargo bench --bench overhead` (about 4 minutes once built on two cores), or
//! `cargo bench --bench overhead -- --quick` (criterion's own numbers then noisier; the tables
//! keep their full length). A criterion filter (`-- rosenbrock`) also restricts the tables to the
//! problems whose name contains it or is contained in it.
//!
//! Problems: extended Rosenbrock, a spring chain, a two-layer network (`problems/mod.rs`), a 2-D
//! heat equation (`problems/heat.rs`), a Runge-Kutta-4 Lotka-Volterra fit (`problems/rk4.rs`);
//! then Rosenbrock, Himmelblau, Beale and Ackley in two variables (`problems/small.rs`, measured
//! and printed by `overhead_parts/small.rs`).
//!
//! Variants, per problem (criterion ids `<problem>/<variant>`):
//! - `primal`: the plain function, as written for `#[differentiate]`;
//! - `hand_vjp`: the hand-written adjoint, seed 1, adding into buffers allocated once;
//! - `generated_vjp`: the generated `_vjp`, called the same way (apples to apples with `hand_vjp`);
//! - `generated_grad`: the generated `_grad`, which also allocates and zeroes its result;
//! - `hand_jvp`: the hand-written tangent (forward mode), along a fixed random direction;
//! - `generated_jvp`: the generated `_jvp` along the same direction.
//!
//! The ratio table: criterion keeps its medians to itself (they only reach files under
//! `target/criterion`, which may be stale or elsewhere), so after the criterion phase this file
//! measures its own medians. Each variant is calibrated to a repetition count that takes about
//! `SAMPLE_TARGET`; then `ROUNDS` rounds each time one sample of every variant of the problem in
//! turn, so that a noisy neighbour slows all variants alike instead of skewing one ratio. A
//! variant's time is the median over the rounds of (sample time / repetitions); the ratios divide
//! those medians. Checked by timing stand-ins for the generated functions that call the
//! hand-written ones: the table read 0.99 to 1.01 where criterion's short runs disagreed by 30 %.
//! The tables are skipped when criterion runs as a test (`cargo test --benches`) or lists its
//! benchmarks.
//!
//! Peak heap per call: after the timings, each variant is called once more with the counting
//! global allocator of `overhead_parts/peak_heap.rs` on; the table gives the most bytes the call
//! held at once beyond what was live before it (for `_vjp`: tapes plus its own `Vec` locals and
//! their adjoint buffers) and how many allocations it made.

mod overhead_parts;
mod problems;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use overhead_parts::pde_ode::{HeatInputs, LvInputs};
use overhead_parts::peak_heap::{format_bytes, heap_use_of_one_call, PeakHeap};
use problems::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Counts the heap bytes of one call for the peak-heap table (off, one load per request, while
/// timing).
#[global_allocator]
static HEAP: PeakHeap = PeakHeap;

/// One way to compute a problem: a name and a closure that owns its buffers and returns the value.
pub(crate) type Variant<'a> = (&'static str, Box<dyn FnMut() -> f64 + 'a>);

/// The variant names, in table order; a problem may lack the generated ones.
pub(crate) const PRIMAL: &str = "primal";
pub(crate) const HAND_VJP: &str = "hand_vjp";
pub(crate) const GENERATED_VJP: &str = "generated_vjp";
pub(crate) const GENERATED_GRAD: &str = "generated_grad";
pub(crate) const HAND_JVP: &str = "hand_jvp";
pub(crate) const GENERATED_JVP: &str = "generated_jvp";

/// Seed of the tangent directions of the forward-mode variants (apart from the inputs' stream, so
/// adding or removing variants leaves the inputs as they were).
const DIRECTION_SEED: u64 = 77;

/// A tangent direction for a forward-mode variant: `len` components in [-1, 1].
pub(crate) fn direction(len: usize) -> Vec<f64> {
    uniform(
        &mut ChaCha8Rng::seed_from_u64(DIRECTION_SEED),
        len,
        -1.0,
        1.0,
    )
}

/// Time one sample of the ratio table aims at.
const SAMPLE_TARGET: Duration = Duration::from_millis(4);
/// Rounds of the ratio table (odd, so the median is one sample).
const ROUNDS: usize = 41;

pub(crate) fn uniform(rng: &mut ChaCha8Rng, len: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..len).map(|_| rng.gen_range(lo..hi)).collect()
}

struct RosenbrockInputs {
    x: Vec<f64>,
}

impl RosenbrockInputs {
    fn new(rng: &mut ChaCha8Rng) -> Self {
        RosenbrockInputs {
            x: uniform(rng, ROSENBROCK_N, -1.5, 1.5),
        }
    }

    fn variants(&self) -> Vec<Variant<'_>> {
        let x = &self.x[..];
        let n = ROSENBROCK_N;
        let mut dx = vec![0.0; n];
        #[allow(unused_mut)] // the generated variants push onto it
        let mut variants: Vec<Variant<'_>> = vec![
            (
                PRIMAL,
                Box::new(move || rosenbrock(black_box(x), black_box(n))),
            ),
            (
                HAND_VJP,
                Box::new(move || {
                    rosenbrock_adjoint(black_box(x), black_box(n), black_box(&mut dx), 1.0)
                }),
            ),
        ];
        {
            let mut dx = vec![0.0; n];
            variants.push((
                GENERATED_VJP,
                Box::new(move || {
                    generated::rosenbrock_vjp(black_box(x), black_box(n), black_box(&mut dx), 1.0)
                }),
            ));
            variants.push((
                GENERATED_GRAD,
                Box::new(move || {
                    black_box(generated::rosenbrock_grad(black_box(x), black_box(n))).0
                }),
            ));
        }
        let u = direction(n);
        let u2 = u.clone();
        variants.push((
            HAND_JVP,
            Box::new(move || black_box(rosenbrock_tangent(black_box(x), black_box(n), &u)).1),
        ));
        variants.push((
            GENERATED_JVP,
            Box::new(move || {
                black_box(generated::rosenbrock_jvp(black_box(x), black_box(n), &u2)).1
            }),
        ));
        variants
    }
}

struct SpringChainInputs {
    k: Vec<f64>,
    x0: Vec<f64>,
    v0: Vec<f64>,
}

impl SpringChainInputs {
    fn new(rng: &mut ChaCha8Rng) -> Self {
        SpringChainInputs {
            k: uniform(rng, SPRING_N, 0.5, 1.5),
            x0: uniform(rng, SPRING_N, -0.5, 0.5),
            v0: uniform(rng, SPRING_N, -0.5, 0.5),
        }
    }

    fn variants(&self) -> Vec<Variant<'_>> {
        let (k, x0, v0) = (&self.k[..], &self.x0[..], &self.v0[..]);
        let (c, dt, n, steps) = (SPRING_C, SPRING_DT, SPRING_N, SPRING_STEPS);
        let (mut dk, mut dx0, mut dv0) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        #[allow(unused_mut)] // the generated variants push onto it
        let mut variants: Vec<Variant<'_>> = vec![
            (
                PRIMAL,
                Box::new(move || {
                    spring_chain(
                        black_box(k),
                        black_box(x0),
                        black_box(v0),
                        c,
                        dt,
                        black_box(n),
                        steps,
                    )
                }),
            ),
            (
                HAND_VJP,
                Box::new(move || {
                    spring_chain_adjoint(
                        black_box(k),
                        black_box(x0),
                        black_box(v0),
                        c,
                        dt,
                        black_box(n),
                        steps,
                        black_box(&mut dk),
                        black_box(&mut dx0),
                        black_box(&mut dv0),
                        1.0,
                    )
                }),
            ),
        ];
        {
            let (mut dk, mut dx0, mut dv0) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            variants.push((
                GENERATED_VJP,
                Box::new(move || {
                    generated::spring_chain_vjp(
                        black_box(k),
                        black_box(x0),
                        black_box(v0),
                        c,
                        dt,
                        black_box(n),
                        steps,
                        black_box(&mut dk),
                        black_box(&mut dx0),
                        black_box(&mut dv0),
                        1.0,
                    )
                }),
            ));
            variants.push((
                GENERATED_GRAD,
                Box::new(move || {
                    let (k, x0, v0, n) = (black_box(k), black_box(x0), black_box(v0), black_box(n));
                    black_box(generated::spring_chain_grad(k, x0, v0, c, dt, n, steps)).0
                }),
            ));
        }
        let u = direction(3 * n);
        let u2 = u.clone();
        variants.push((
            HAND_JVP,
            Box::new(move || {
                let (dk, dx0, dv0) = (&u[..n], &u[n..2 * n], &u[2 * n..]);
                let (k, x0, v0, n) = (black_box(k), black_box(x0), black_box(v0), black_box(n));
                black_box(spring_chain_tangent(
                    k, x0, v0, c, dt, n, steps, dk, dx0, dv0,
                ))
                .1
            }),
        ));
        variants.push((
            GENERATED_JVP,
            Box::new(move || {
                let (dk, dx0, dv0) = (&u2[..n], &u2[n..2 * n], &u2[2 * n..]);
                let (k, x0, v0, n) = (black_box(k), black_box(x0), black_box(v0), black_box(n));
                black_box(generated::spring_chain_jvp(
                    k, x0, v0, c, dt, n, steps, dk, dx0, dv0,
                ))
                .1
            }),
        ));
        variants
    }
}

struct TwoLayerInputs {
    w1: Vec<f64>,
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: Vec<f64>,
    xs: Vec<f64>,
    ys: Vec<f64>,
}

impl TwoLayerInputs {
    fn new(rng: &mut ChaCha8Rng) -> Self {
        let (d, h, o, batch) = (NET_D, NET_H, NET_O, NET_BATCH);
        // Weights scaled like a usual initialisation, so tanh is neither linear nor saturated.
        let s1 = 1.0 / (d as f64).sqrt();
        let s2 = 1.0 / (h as f64).sqrt();
        TwoLayerInputs {
            w1: uniform(rng, h * d, -s1, s1),
            b1: uniform(rng, h, -0.1, 0.1),
            w2: uniform(rng, o * h, -s2, s2),
            b2: uniform(rng, o, -0.1, 0.1),
            xs: uniform(rng, batch * d, -1.0, 1.0),
            ys: uniform(rng, batch * o, -1.0, 1.0),
        }
    }

    fn variants(&self) -> Vec<Variant<'_>> {
        let (w1, b1, w2, b2) = (&self.w1[..], &self.b1[..], &self.w2[..], &self.b2[..]);
        let (xs, ys) = (&self.xs[..], &self.ys[..]);
        let (d, h, o, batch) = (NET_D, NET_H, NET_O, NET_BATCH);
        let (mut dw1, mut db1) = (vec![0.0; h * d], vec![0.0; h]);
        let (mut dw2, mut db2) = (vec![0.0; o * h], vec![0.0; o]);
        #[allow(unused_mut)] // the generated variants push onto it
        let mut variants: Vec<Variant<'_>> = vec![
            (
                PRIMAL,
                Box::new(move || {
                    let (w1, b1, w2, b2) =
                        (black_box(w1), black_box(b1), black_box(w2), black_box(b2));
                    two_layer_loss(
                        w1,
                        b1,
                        w2,
                        b2,
                        black_box(xs),
                        black_box(ys),
                        d,
                        h,
                        o,
                        black_box(batch),
                    )
                }),
            ),
            (
                HAND_VJP,
                Box::new(move || {
                    let (w1, b1, w2, b2) =
                        (black_box(w1), black_box(b1), black_box(w2), black_box(b2));
                    two_layer_loss_adjoint(
                        w1,
                        b1,
                        w2,
                        b2,
                        black_box(xs),
                        black_box(ys),
                        d,
                        h,
                        o,
                        black_box(batch),
                        black_box(&mut dw1),
                        black_box(&mut db1),
                        black_box(&mut dw2),
                        black_box(&mut db2),
                        1.0,
                    )
                }),
            ),
        ];
        {
            let (mut dw1, mut db1) = (vec![0.0; h * d], vec![0.0; h]);
            let (mut dw2, mut db2) = (vec![0.0; o * h], vec![0.0; o]);
            variants.push((
                GENERATED_VJP,
                Box::new(move || {
                    let (w1, b1, w2, b2) =
                        (black_box(w1), black_box(b1), black_box(w2), black_box(b2));
                    generated::two_layer_loss_vjp(
                        w1,
                        b1,
                        w2,
                        b2,
                        black_box(xs),
                        black_box(ys),
                        d,
                        h,
                        o,
                        black_box(batch),
                        black_box(&mut dw1),
                        black_box(&mut db1),
                        black_box(&mut dw2),
                        black_box(&mut db2),
                        1.0,
                    )
                }),
            ));
            variants.push((
                GENERATED_GRAD,
                Box::new(move || {
                    let (w1, b1, w2, b2) =
                        (black_box(w1), black_box(b1), black_box(w2), black_box(b2));
                    let (xs, ys, batch) = (black_box(xs), black_box(ys), black_box(batch));
                    black_box(generated::two_layer_loss_grad(
                        w1, b1, w2, b2, xs, ys, d, h, o, batch,
                    ))
                    .0
                }),
            ));
        }
        // `w1`, `b1`, `w2`, `b2`'s parts of one direction vector.
        let (n1, n2, n3) = (h * d, h, o * h);
        let at = [0, n1, n1 + n2, n1 + n2 + n3, n1 + n2 + n3 + o];
        let u = direction(at[4]);
        let u2 = u.clone();
        variants.push((
            HAND_JVP,
            Box::new(move || {
                let (w1, b1, w2, b2) = (black_box(w1), black_box(b1), black_box(w2), black_box(b2));
                let (xs, ys, batch) = (black_box(xs), black_box(ys), black_box(batch));
                let (dw1, db1) = (&u[at[0]..at[1]], &u[at[1]..at[2]]);
                let (dw2, db2) = (&u[at[2]..at[3]], &u[at[3]..at[4]]);
                black_box(two_layer_loss_tangent(
                    w1, b1, w2, b2, xs, ys, d, h, o, batch, dw1, db1, dw2, db2,
                ))
                .1
            }),
        ));
        variants.push((
            GENERATED_JVP,
            Box::new(move || {
                let (w1, b1, w2, b2) = (black_box(w1), black_box(b1), black_box(w2), black_box(b2));
                let (xs, ys, batch) = (black_box(xs), black_box(ys), black_box(batch));
                let (dw1, db1) = (&u2[at[0]..at[1]], &u2[at[1]..at[2]]);
                let (dw2, db2) = (&u2[at[2]..at[3]], &u2[at[3]..at[4]]);
                black_box(generated::two_layer_loss_jvp(
                    w1, b1, w2, b2, xs, ys, d, h, o, batch, dw1, db1, dw2, db2,
                ))
                .1
            }),
        ));
        variants
    }
}

/// Calls `visit` with each problem's name and variants; the inputs are seeded, so every run
/// measures the same numbers.
fn for_each_problem(mut visit: impl FnMut(&'static str, &mut [Variant<'_>])) {
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let rosenbrock = RosenbrockInputs::new(&mut rng);
    let springs = SpringChainInputs::new(&mut rng);
    let net = TwoLayerInputs::new(&mut rng);
    let heat = HeatInputs::new(&mut rng);
    let lv = LvInputs::new(&mut rng);
    visit("rosenbrock", &mut rosenbrock.variants());
    visit("spring_chain", &mut springs.variants());
    visit("two_layer_loss", &mut net.variants());
    visit("heat_2d", &mut heat.variants());
    visit("rk4_lotka_volterra", &mut lv.variants());
}

/// Seed of the two-variable functions' points (apart from the large problems' stream).
const SMALL_SEED: u64 = 2025;

fn small_rng() -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(SMALL_SEED)
}

fn criterion_phase(c: &mut Criterion) {
    for_each_problem(|problem, variants| {
        let mut group = c.benchmark_group(problem);
        for (name, run) in variants.iter_mut() {
            group.bench_function(*name, |b| b.iter(&mut *run));
        }
        group.finish();
    });
    overhead_parts::small::for_each_small(&mut small_rng(), |problem, variants| {
        let mut group = c.benchmark_group(problem);
        for (name, run) in variants.iter_mut() {
            group.bench_function(*name, |b| b.iter(&mut *run));
        }
        group.finish();
    });
}

/// Seconds per call of `run` over `reps` calls.
fn time_sample(run: &mut dyn FnMut() -> f64, reps: u64) -> f64 {
    let start = Instant::now();
    for _ in 0..reps {
        black_box(run());
    }
    start.elapsed().as_secs_f64() / reps as f64
}

/// Repetitions that make one sample of `run` last about `SAMPLE_TARGET`; warms `run` up on the way.
fn calibrate(run: &mut dyn FnMut() -> f64) -> u64 {
    let mut reps = 1;
    loop {
        let start = Instant::now();
        for _ in 0..reps {
            black_box(run());
        }
        let elapsed = start.elapsed();
        if elapsed >= SAMPLE_TARGET / 4 {
            let per_call = elapsed.as_secs_f64() / reps as f64;
            return ((SAMPLE_TARGET.as_secs_f64() / per_call).round() as u64).max(1);
        }
        reps *= 2;
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Median seconds per call of every variant, the variants' samples interleaved round by round.
pub(crate) fn interleaved_medians(variants: &mut [Variant<'_>]) -> Vec<f64> {
    let reps: Vec<u64> = variants
        .iter_mut()
        .map(|(_, run)| calibrate(&mut **run))
        .collect();
    let mut samples = vec![Vec::with_capacity(ROUNDS); variants.len()];
    for _ in 0..ROUNDS {
        for (i, (_, run)) in variants.iter_mut().enumerate() {
            samples[i].push(time_sample(&mut **run, reps[i]));
        }
    }
    samples.into_iter().map(median).collect()
}

fn format_time(seconds: Option<f64>) -> String {
    match seconds {
        None => "-".to_string(),
        Some(s) if s < 1e-3 => format!("{:.2} us", s * 1e6),
        Some(s) => format!("{:.3} ms", s * 1e3),
    }
}

pub(crate) fn format_ratio(num: Option<f64>, den: Option<f64>) -> String {
    match (num, den) {
        (Some(a), Some(b)) => format!("{:.2}", a / b),
        _ => "-".to_string(),
    }
}

fn ratio_phase(wanted: impl Fn(&str) -> bool) {
    let mut rows = Vec::new();
    let mut forward_rows = Vec::new();
    let mut heap_rows = Vec::new();
    for_each_problem(|problem, variants| {
        if !wanted(problem) {
            return;
        }
        eprintln!("measuring ratios: {problem}");
        let medians = interleaved_medians(variants);
        let time_of = |name: &str| {
            variants
                .iter()
                .zip(&medians)
                .find(|((n, _), _)| *n == name)
                .map(|(_, &t)| t)
        };
        let (p, h, gv, gg) = (
            time_of(PRIMAL),
            time_of(HAND_VJP),
            time_of(GENERATED_VJP),
            time_of(GENERATED_GRAD),
        );
        rows.push([
            problem.to_string(),
            format_time(p),
            format_time(h),
            format_time(gv),
            format_time(gg),
            format_ratio(h, p),
            format_ratio(gv, h),
            format_ratio(gg, h),
            format_ratio(gv, p),
        ]);
        let (hj, gj) = (time_of(HAND_JVP), time_of(GENERATED_JVP));
        forward_rows.push([
            problem.to_string(),
            format_time(p),
            format_time(hj),
            format_time(gj),
            format_ratio(hj, p),
            format_ratio(gj, hj),
            format_ratio(gj, p),
        ]);
        let mut heap = |name: &str| {
            variants
                .iter_mut()
                .find(|(n, _)| *n == name)
                .map_or("-".to_string(), |(_, run)| {
                    let used = heap_use_of_one_call(&mut **run);
                    format!("{} ({})", format_bytes(used.peak_bytes), used.allocations)
                })
        };
        heap_rows.push([
            problem.to_string(),
            heap(PRIMAL),
            heap(HAND_VJP),
            heap(GENERATED_VJP),
            heap(GENERATED_GRAD),
            heap(HAND_JVP),
            heap(GENERATED_JVP),
        ]);
    });
    if rows.is_empty() {
        return;
    }
    println!();
    println!(
        "Ratios of medians ({ROUNDS} interleaved samples of ~{} ms per variant, this run; \"-\": variant absent):",
        SAMPLE_TARGET.as_millis()
    );
    print_table(
        &[
            "problem",
            "primal",
            "hand vjp",
            "gen vjp",
            "gen grad",
            "hand/primal",
            "gen vjp/hand",
            "gen grad/hand",
            "gen vjp/primal",
        ],
        &rows,
    );
    println!();
    println!("Forward mode (one directional derivative), same run:");
    print_table(
        &[
            "problem",
            "primal",
            "hand jvp",
            "gen jvp",
            "hand jvp/primal",
            "gen jvp/hand",
            "gen jvp/primal",
        ],
        &forward_rows,
    );
    println!();
    println!(
        "Peak heap bytes held during one call beyond those live before it (allocations made), same run:"
    );
    print_table(
        &[
            "problem", "primal", "hand vjp", "gen vjp", "gen grad", "hand jvp", "gen jvp",
        ],
        &heap_rows,
    );
}

/// Prints `rows` under `header`, columns padded to their widest cell.
pub(crate) fn print_table<const N: usize>(header: &[&str; N], rows: &[[String; N]]) {
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].len())
                .max()
                .unwrap_or(0)
                .max(header[c].len())
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(c, s)| {
                if c == 0 {
                    format!("{s:<w$}", w = widths[c])
                } else {
                    format!("{s:>w$}", w = widths[c])
                }
            })
            .collect();
        println!("{}", padded.join("  "));
    };
    line(&header.map(String::from));
    for row in rows {
        line(row);
    }
}

/// Criterion options that take a value as the next argument (unless written `--option=value`).
const OPTIONS_WITH_VALUE: &[&str] = &[
    "-c",
    "--color",
    "-s",
    "--save-baseline",
    "-b",
    "--baseline",
    "--baseline-lenient",
    "--load-baseline",
    "--sample-size",
    "--warm-up-time",
    "--measurement-time",
    "--nresamples",
    "--noise-threshold",
    "--confidence-level",
    "--significance-level",
    "--profile-time",
    "--plotting-backend",
    "--output-format",
    "--format",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50)
        .configure_from_args();
    criterion_phase(&mut criterion);
    criterion.final_summary();

    // Criterion benchmarks only under `cargo bench` (which passes `--bench`) without `--test`.
    let has = |flag: &str| args.iter().any(|a| a == flag);
    if !has("--bench") || has("--test") || has("--list") || has("--profile-time") {
        return;
    }
    let mut filter = None;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if OPTIONS_WITH_VALUE.contains(&arg.as_str()) {
            i += 1;
        } else if !arg.starts_with('-') {
            filter = Some(arg.clone());
        }
        i += 1;
    }
    let wanted = |problem: &str| match &filter {
        None => true,
        Some(f) => problem.contains(f.as_str()) || f.contains(problem),
    };
    ratio_phase(wanted);
    overhead_parts::small::small_phase(&mut small_rng(), wanted);
}
