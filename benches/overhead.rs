//! Overhead of generated derivatives: takes the problems of `problems/`, gives criterion
//! measurements of each one's primal, hand-written and generated adjoint, hand-written and
//! generated tangent, then tables of ratios (reverse mode, forward mode) and of the two-variable
//! test functions against num-dual, measured in the same run. Peak heap bytes per call come from
//! the binary beside it, `overhead_heap.rs` (`cargo bench --bench overhead_heap`).
//!
//! Run: `cargo bench --bench overhead` (about 4 minutes once built on two cores), or
//! `cargo bench --bench overhead -- --quick` (criterion's own numbers then noisier; the tables
//! keep their full length). A criterion filter (`-- rosenbrock`) also restricts the tables to the
//! problems whose name contains it or is contained in it.
//!
//! Problems: extended Rosenbrock, a spring chain, a two-layer network (`problems/mod.rs`), a 2-D
//! heat equation (`problems/heat.rs`), a Runge-Kutta-4 Lotka-Volterra fit (`problems/rk4.rs`);
//! then Rosenbrock, Himmelblau, Beale and Ackley in two variables (`problems/small.rs`, measured
//! and printed by `overhead_parts/small.rs`, with num-dual's fixed-size forward gradient).
//!
//! Variants, per problem (criterion ids `<problem>/<variant>`):
//! - `primal`: the plain function, as written for `#[differentiate]`;
//! - `hand_vjp`: the hand-written adjoint, seed 1, adding into buffers allocated once; the seed
//!   goes through `black_box` for both adjoints (a hand-written adjoint inlined into its closure
//!   with a literal seed had its products by the seed folded away, which the generated `_vjp`,
//!   called out of line, could not);
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
//! The problems' inputs and variants live in `overhead_parts/` (shared with `overhead_heap.rs`).
//!
//! JAX on the same problems and inputs: `AUTODIFF_PEERS_DIR=dir cargo bench --bench overhead --
//! --quick --noplot` writes the inputs, our values and gradients and this run's medians into
//! `dir`; `python3 benches/peers/overhead.py dir` then times JAX there and prints both.

mod overhead_parts;
mod problems;

use std::time::Duration;

use criterion::Criterion;
use overhead_parts::common::*;
use overhead_parts::large::for_each_problem;
use overhead_parts::peers::{write_peer_files, OursRow};

/// Environment variable naming a folder: the run then writes into it the problems' inputs, our
/// values and gradients, and this run's medians, for `benches/peers/overhead.py`.
const PEERS_DIR: &str = "AUTODIFF_PEERS_DIR";

/// Time one sample of the ratio table aims at.
const SAMPLE_TARGET: Duration = Duration::from_millis(4);
/// Rounds of the ratio table (odd, so the median is one sample).
const ROUNDS: usize = 41;

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

fn ratio_phase(wanted: impl Fn(&str) -> bool) -> Vec<OursRow> {
    let mut ours = Vec::new();
    let mut rows = Vec::new();
    let mut forward_rows = Vec::new();
    for_each_problem(|problem, variants| {
        if !wanted(problem) {
            return;
        }
        eprintln!("measuring ratios: {problem}");
        let medians = interleaved_medians(variants, SAMPLE_TARGET, ROUNDS);
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
        ours.push((problem, [p, gv, gg, h]));
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
    });
    if rows.is_empty() {
        return ours;
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
    ours
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
    let ours = ratio_phase(wanted);
    if let Some(dir) = std::env::var_os(PEERS_DIR) {
        let dir = std::path::PathBuf::from(dir);
        match write_peer_files(&dir, &ours) {
            Ok(()) => {
                eprintln!("wrote the inputs and our medians for peers/overhead.py into {dir:?}")
            }
            Err(e) => {
                eprintln!("could not write the files for peers/overhead.py into {dir:?}: {e}")
            }
        }
    }
    overhead_parts::small::small_phase(&mut small_rng(), wanted, |v| {
        interleaved_medians(v, SAMPLE_TARGET, ROUNDS)
    });
}
