//! Checkpointing: takes a time-stepping simulation (a damped chain of 32 masses on nonlinear
//! springs, state 64 `f64`s, 100,000 explicit steps, a misfit of the final state) and gives
//! criterion measurements, then one table measured in the same run, of the misfit's gradient with
//! respect to the initial state and the stiffness computed seven ways: the whole loop as one
//! `#[differentiate]` function (`simulate_vjp`, no checkpointing), the runtime's driver
//! (`autodiff_runtime::checkpoint`) storing every state, the driver on binomial schedules of
//! 40, 317 (`⌈√n⌉`, the default) and 2,000 snapshots, each step reversed by the generated
//! `step_vjp`, and the loop marked `#[checkpoint]` (default budget, and 40 snapshots). Columns: median time, time over the primal and over the whole-loop gradient, peak
//! heap bytes held during one call and allocations, primal steps run and states stored. Then the
//! ratios of issue 13's targets (≥ 20x less peak memory, ≤ 2.5x the time), for the driver and
//! for the attribute.
//!
//! Run: `cargo bench --bench checkpoint` (criterion then the table), or
//! `cargo bench --bench checkpoint -- --tables` (the table only, about 10 s). Under
//! `cargo test --benches` criterion runs each benchmark once on 1,000 steps and the table is
//! skipped.
//!
//! Peak heap: this binary's global allocator (`PeakHeap`, as in `overhead_heap.rs`) adds each
//! allocation's requested size to a running total and subtracts each deallocation's while a
//! measurement is on, keeping the maximum; the window covers one call after a warm-up call, so
//! it counts what the gradient itself holds at once: tapes of `simulate_vjp`, stored states and
//! the driver's working copies, the buffers of each `step_vjp` call, the gradient returned. The
//! counting is off while times are measured (one relaxed atomic load per allocation).

use std::hint::black_box;
use std::time::Duration;

#[allow(dead_code)]
#[path = "overhead_parts/common.rs"]
mod common;
#[path = "overhead_parts/peak_heap.rs"]
mod peak_heap;

use autodiff_runtime::checkpoint::{self, Schedule, Stats};
use autodiff_runtime::differentiate;
use common::{format_ratio, format_time, interleaved_medians, print_table, Variant};
use criterion::Criterion;
use peak_heap::{format_bytes, heap_use};

const MASSES: usize = 32;
const STEPS: usize = 100_000;
const SAMPLE: Duration = Duration::from_millis(150);
const ROUNDS: usize = 9;

// Index loops over the masses read like the formulas.
#[allow(clippy::needless_range_loop)]
mod sim {
    use super::differentiate;

    /// One explicit step, in place, of masses `s[..n]` with velocities `s[n..]` between two
    /// walls: linear springs of stiffness `k`, a cubic restoring term, damping.
    #[differentiate]
    pub fn step(s: &mut [f64], k: f64) {
        let n = s.len() / 2;
        for i in 0..n {
            let left = if i == 0 { 0.0 } else { s[i - 1] };
            let right = if i + 1 == n { 0.0 } else { s[i + 1] };
            let f = k * (left + right - 2.0 * s[i]) - 0.3 * s[i].powi(3) - 0.005 * s[n + i];
            s[n + i] += 0.01 * f;
        }
        for i in 0..n {
            s[i] += 0.01 * s[n + i];
        }
    }

    /// `steps` of `step` written out as one loop: the gradient without checkpointing.
    #[differentiate]
    pub fn simulate(s: &mut [f64], k: f64, steps: usize) {
        let n = s.len() / 2;
        for _ in 0..steps {
            for i in 0..n {
                let left = if i == 0 { 0.0 } else { s[i - 1] };
                let right = if i + 1 == n { 0.0 } else { s[i + 1] };
                let f = k * (left + right - 2.0 * s[i]) - 0.3 * s[i].powi(3) - 0.005 * s[n + i];
                s[n + i] += 0.01 * f;
            }
            for i in 0..n {
                s[i] += 0.01 * s[n + i];
            }
        }
    }

    /// The same loop marked `#[checkpoint]` around `step`: the reverse sweep stores `⌈√n⌉`
    /// states (or `snapshots`) and recomputes the others. (Only the `_vjp`s are called.)
    #[allow(dead_code)]
    #[differentiate]
    pub fn simulate_ck(s: &mut [f64], k: f64, steps: usize) {
        #[checkpoint]
        for _ in 0..steps {
            step(s, k);
        }
    }

    #[allow(dead_code)]
    #[differentiate]
    pub fn simulate_ck_budget(s: &mut [f64], k: f64, steps: usize, snapshots: usize) {
        #[checkpoint(snapshots = snapshots)]
        for _ in 0..steps {
            step(s, k);
        }
    }

    /// The misfit of the final positions to a target shape.
    #[differentiate]
    pub fn misfit(s: &[f64]) -> f64 {
        let n = s.len() / 2;
        let mut m = 0.0;
        for i in 0..n {
            let target = 0.1 * (i as f64 * 0.3).sin();
            m += (s[i] - target) * (s[i] - target);
        }
        m
    }
}
use sim::*;

const K: f64 = 40.0;

fn start() -> Vec<f64> {
    (0..2 * MASSES)
        .map(|i| {
            if i < MASSES {
                0.3 * ((i * 7 + 3) as f64).sin()
            } else {
                0.0
            }
        })
        .collect()
}

/// The misfit, its gradient with respect to the initial state and `k`, and the driver's counts.
struct Gradient {
    misfit: f64,
    ds: Vec<f64>,
    dk: f64,
    stats: Option<Stats>,
}

fn by_whole_loop(s0: &[f64], steps: usize) -> Gradient {
    let mut end = s0.to_vec();
    simulate(&mut end, K, steps);
    let (m, g) = misfit_grad(&end);
    let (mut ds, mut dk) = (g.s, 0.0);
    simulate_vjp(&mut s0.to_vec(), K, steps, &mut ds, &mut dk);
    Gradient {
        misfit: m,
        ds,
        dk,
        stats: None,
    }
}

/// The whole loop with `#[checkpoint]` (`snapshots`: `None` for the default `⌈√n⌉`).
fn by_attribute(s0: &[f64], steps: usize, snapshots: Option<usize>) -> Gradient {
    let mut end = s0.to_vec();
    simulate(&mut end, K, steps);
    let (m, g) = misfit_grad(&end);
    let (mut ds, mut dk) = (g.s, 0.0);
    match snapshots {
        None => simulate_ck_vjp(&mut s0.to_vec(), K, steps, &mut ds, &mut dk),
        Some(b) => simulate_ck_budget_vjp(&mut s0.to_vec(), K, steps, b, &mut ds, &mut dk),
    }
    Gradient {
        misfit: m,
        ds,
        dk,
        stats: None,
    }
}

fn by_driver(s0: &[f64], steps: usize, schedule: Schedule) -> Gradient {
    let mut dk = 0.0;
    let (m, ds, stats) = checkpoint::adjoint(
        steps,
        schedule,
        s0.to_vec(),
        |_, s: &mut Vec<f64>| step(s, K),
        |end| {
            let (m, g) = misfit_grad(end);
            (m, g.s)
        },
        |_, s, ds| step_vjp(s, K, ds, &mut dk),
    );
    Gradient {
        misfit: m,
        ds,
        dk,
        stats: Some(stats),
    }
}

fn primal(s0: &[f64], steps: usize) -> f64 {
    let mut s = s0.to_vec();
    simulate(&mut s, K, steps);
    misfit(&s)
}

/// A way to get the gradient.
#[derive(Clone, Copy)]
enum How {
    /// `simulate_vjp`: no checkpointing.
    WholeLoop,
    /// The runtime's driver around `step_vjp`.
    Driver(Schedule),
    /// `simulate_ck_vjp`: `#[checkpoint]` on the loop, with this many snapshots (`None`: `⌈√n⌉`).
    Attribute(Option<usize>),
}

/// The ways to get the gradient, by name. The whole loop comes first, storing every state second
/// and the default budget through the driver fourth (`table` reads them by position).
fn methods(steps: usize) -> Vec<(String, How)> {
    let sqrt = Schedule::sqrt(steps);
    let Schedule::Binomial { snapshots } = sqrt else {
        unreachable!()
    };
    vec![
        ("whole loop (simulate_vjp)".to_string(), How::WholeLoop),
        (
            "store all (driver)".to_string(),
            How::Driver(Schedule::StoreAll),
        ),
        (
            "binomial, 2000 snapshots".to_string(),
            How::Driver(Schedule::binomial(2000)),
        ),
        (format!("binomial, {snapshots} = ⌈√n⌉"), How::Driver(sqrt)),
        (
            "binomial, 40 snapshots".to_string(),
            How::Driver(Schedule::binomial(40)),
        ),
        (
            format!("#[checkpoint] loop, {snapshots} = ⌈√n⌉"),
            How::Attribute(None),
        ),
        (
            "#[checkpoint(snapshots = 40)]".to_string(),
            How::Attribute(Some(40)),
        ),
    ]
}

fn gradient(s0: &[f64], steps: usize, how: How) -> Gradient {
    match how {
        How::WholeLoop => by_whole_loop(s0, steps),
        How::Driver(schedule) => by_driver(s0, steps, schedule),
        How::Attribute(snapshots) => by_attribute(s0, steps, snapshots),
    }
}

fn variants(s0: &[f64], steps: usize) -> Vec<Variant<'_>> {
    let mut v: Vec<Variant<'_>> = vec![("primal", Box::new(move || primal(black_box(s0), steps)))];
    for (name, how) in methods(steps) {
        let name: &'static str = Box::leak(name.into_boxed_str());
        v.push((
            name,
            Box::new(move || {
                let g = gradient(black_box(s0), steps, how);
                g.misfit + g.ds[0] + g.dk
            }),
        ));
    }
    v
}

// ------------------------------------------------------------------------------------------------

/// Checks the gradients against each other: the driver's bit for bit against storing every
/// state, the `#[checkpoint]` loops' bit for bit against each other, everything to rounding
/// against the whole loop. Gives the largest relative difference to the latter.
fn check(grads: &[Gradient], methods: &[(String, How)]) -> f64 {
    let reference = &grads[0];
    let scale = reference
        .ds
        .iter()
        .fold(reference.dk.abs(), |m, x| m.max(x.abs()));
    let mut worst: f64 = 0.0;
    let first_attribute = methods
        .iter()
        .position(|(_, h)| matches!(h, How::Attribute(_)))
        .expect("a #[checkpoint] row");
    for (g, (_, how)) in grads.iter().zip(methods).skip(1) {
        // The attribute adds each step's `k` adjoint into a fresh zero, then into the total; the
        // driver's closure adds into the total inside `step_vjp`: the same terms, rounded apart.
        let same = match how {
            How::Attribute(_) => &grads[first_attribute],
            _ => &grads[1],
        };
        assert_eq!(g.misfit, same.misfit);
        assert_eq!((&g.ds, g.dk), (&same.ds, same.dk), "schedules disagree");
        for (a, b) in
            g.ds.iter()
                .chain([&g.dk])
                .zip(reference.ds.iter().chain([&reference.dk]))
        {
            worst = worst.max((a - b).abs() / scale);
        }
    }
    assert!(
        worst < 1e-9,
        "checkpointed and whole loop differ by {worst:e} of the largest entry"
    );
    worst
}

fn table(steps: usize) {
    let s0 = start();
    let methods = methods(steps);
    // Memory, counts and the check, one call each after a warm-up call.
    let mut grads = Vec::new();
    let mut memory = Vec::new();
    for (_, how) in &methods {
        black_box(gradient(&s0, steps, *how));
        let (peak, allocs, g) = heap_use(|| gradient(&s0, steps, *how));
        memory.push((peak, allocs));
        grads.push(g);
    }
    let worst = check(&grads, &methods);
    let (primal_peak, _, _) = heap_use(|| primal(&s0, steps));

    let mut vs = variants(&s0, steps);
    let t = interleaved_medians(&mut vs, SAMPLE, ROUNDS);
    let (t_primal, t_whole) = (t[0], t[1]);
    let header = [
        "gradient",
        "time",
        "/primal",
        "/whole loop",
        "peak heap (allocs)",
        "whole loop heap/this",
        "driver's primal steps",
        "stored states",
    ];
    let mut rows = vec![[
        "(primal: simulate, misfit)".to_string(),
        format_time(Some(t_primal)),
        "1.00".to_string(),
        "-".to_string(),
        format_bytes(primal_peak),
        "-".to_string(),
        "-".to_string(),
        "-".to_string(),
    ]];
    for (i, (name, _)) in methods.iter().enumerate() {
        let (peak, allocs) = memory[i];
        let (runs, stored) = match grads[i].stats {
            Some(s) => (s.primal_steps.to_string(), s.peak_states.to_string()),
            None => ("-".to_string(), "-".to_string()),
        };
        rows.push([
            name.clone(),
            format_time(Some(t[i + 1])),
            format_ratio(Some(t[i + 1]), Some(t_primal)),
            format_ratio(Some(t[i + 1]), Some(t_whole)),
            format!("{} ({allocs})", format_bytes(peak)),
            format!("{:.0}x", memory[0].0 as f64 / peak.max(1) as f64),
            runs,
            stored,
        ]);
    }
    println!(
        "\ngradient through {steps} steps of a {MASSES}-mass chain (state {} f64 = {} B), \
         medians of {ROUNDS} interleaved rounds:",
        2 * MASSES,
        16 * MASSES
    );
    print_table(&header, &rows);
    println!(
        "driver gradients equal bit for bit, so do the #[checkpoint] loops'; the whole loop's \
         differs by {worst:.1e} of the largest entry. Primal steps: the driver's calls of \
         `step`; each `step_vjp` (and `simulate_vjp`, after `simulate`) runs its steps' forward \
         sweeps again inside. The #[checkpoint] loops run the driver's schedule."
    );
    // Issue 13's targets, for the default budget through the driver (row 3 of `methods`) and
    // the attribute (row 5).
    let whole = memory[0].0 as f64;
    let (all, sqrt, attr) = (memory[1].0 as f64, memory[3].0 as f64, memory[5].0 as f64);
    let (t_all, t_sqrt, t_attr) = (t[2], t[4], t[6]);
    let met = |ok: bool| if ok { "met" } else { "not met" };
    let against_targets = |name: &str, heap: f64, time: f64, also: String| {
        println!(
            "{name}: peak memory {:.0}x less than the whole loop (target ≥ 20x: {}); time {:.2}x \
             the whole loop (target ≤ 2.5x: {}); {also}",
            whole / heap,
            met(whole / heap >= 20.0),
            time / t_whole,
            met(time / t_whole <= 2.5),
        )
    };
    against_targets(
        &methods[3].0,
        sqrt,
        t_sqrt,
        format!(
            "{:.0}x less memory than storing every state, {:.2}x its time",
            all / sqrt,
            t_sqrt / t_all
        ),
    );
    against_targets(
        &methods[5].0,
        attr,
        t_attr,
        format!(
            "{:.2}x the driver's time on the same budget",
            t_attr / t_sqrt
        ),
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let as_test = !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--list");
    let tables_only = args.iter().any(|a| a == "--tables");
    let steps = if as_test { 1_000 } else { STEPS };
    if !tables_only {
        let s0 = start();
        let mut c = Criterion::default()
            .without_plots()
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(3))
            .sample_size(10)
            .configure_from_args();
        let mut g = c.benchmark_group(format!("checkpoint/{steps}"));
        for (name, f) in variants(&s0, steps).iter_mut() {
            g.bench_function(*name, |b| b.iter(&mut **f));
        }
        g.finish();
        c.final_summary();
    }
    if !as_test {
        table(steps);
    }
}
