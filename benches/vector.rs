//! Vector forward mode against scalar passes: takes three problems of `benches/overhead.rs` (the
//! spring chain, the two-layer network, the Runge-Kutta Lotka-Volterra fit; their
//! `#[differentiate(vector)]` copies in `problems/generated.rs`), gives criterion measurements of
//! `N` directional derivatives computed by `N` calls of the generated `_jvp` and by one call of
//! `_jvpn::<N>`, for `N` = 4 and 8, then a table of medians measured in the same run, their
//! ratio, and what one `_jvpn::<N>` pass costs in `_jvp` passes.
//!
//! Run: `cargo bench --bench vector` (criterion then the table, about 2 minutes once built), or
//! `cargo bench --bench vector -- --tables` (the table only, about 20 s). Under
//! `cargo test --benches` criterion runs each benchmark once and the table is skipped.
//!
//! Variants (criterion ids `<problem>/<variant>`), along the same `N` seeded random directions:
//! - `jvp_xN`: `N` calls of `_jvp`, one per direction;
//! - `jvpn_N`: one call of `_jvpn::<N>`, the directions laid out as `[f64; N]` per input scalar
//!   (built once, outside the timing, like the directions of `jvp_xN`).
//!
//! Before timing, each problem checks that lane `k` of `_jvpn` is `_jvp` along direction `k`.
//! The table times the two variants of a problem in turn, round after round, and divides medians,
//! as `benches/overhead.rs` does (`overhead_parts/common.rs`, `interleaved_medians`).

#[allow(dead_code)]
#[path = "overhead_parts/common.rs"]
mod common;
#[allow(unused_imports)]
#[path = "problems/mod.rs"]
mod problems;

use std::hint::black_box;
use std::time::Duration;

use common::{format_ratio, format_time, interleaved_medians, print_table, uniform, Variant};
use criterion::Criterion;
use problems::generated::*;
use problems::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Time one sample of the table aims at, and the number of rounds (odd: the median is a sample).
const SAMPLE: Duration = Duration::from_millis(10);
const ROUNDS: usize = 21;

/// `N` directions over `len` inputs: as `N` vectors (for `_jvp`) and as lanes (for `_jvpn`).
fn directions<const N: usize>(rng: &mut ChaCha8Rng, len: usize) -> (Vec<Vec<f64>>, Vec<[f64; N]>) {
    let dirs: Vec<Vec<f64>> = (0..N).map(|_| uniform(rng, len, -1.0, 1.0)).collect();
    let lanes = (0..len)
        .map(|i| std::array::from_fn(|k| dirs[k][i]))
        .collect();
    (dirs, lanes)
}

/// Lane `k` of one `_jvpn` pass against `N` `_jvp` passes.
fn check_lanes<const N: usize>(problem: &str, jvps: &[f64], lanes: [f64; N]) {
    for (k, (a, b)) in jvps.iter().zip(lanes).enumerate() {
        assert!(
            (a - b).abs() <= 1e-12 * a.abs().max(1.0),
            "{problem}: lane {k} of _jvpn is {b}, _jvp gives {a}"
        );
    }
}

/// The spring chain (`SPRING_N` masses, `SPRING_STEPS` steps), directions over `k`, `x0`, `v0`.
fn spring<'a, const N: usize>(rng: &mut ChaCha8Rng) -> [Variant<'a>; 2] {
    let n = SPRING_N;
    let k = uniform(rng, n, 0.5, 1.5);
    let x0 = uniform(rng, n, -0.5, 0.5);
    let v0 = uniform(rng, n, -0.5, 0.5);
    let (dirs, lanes) = directions::<N>(rng, 3 * n);
    let (c, dt, steps) = (SPRING_C, SPRING_DT, SPRING_STEPS);
    let (k2, x02, v02) = (k.clone(), x0.clone(), v0.clone());
    let jvp = move |d: &[f64]| {
        let (dk, rest) = d.split_at(n);
        let (dx0, dv0) = rest.split_at(n);
        spring_chain_jvp(black_box(&k), &x0, &v0, c, dt, n, steps, dk, dx0, dv0).1
    };
    let jvpn = move |l: &[[f64; N]]| {
        let (dk, rest) = l.split_at(n);
        let (dx0, dv0) = rest.split_at(n);
        spring_chain_jvpn(black_box(&k2), &x02, &v02, c, dt, n, steps, dk, dx0, dv0).1
    };
    variants("spring_chain", dirs, lanes, jvp, jvpn)
}

/// The two-layer network (`NET_D`, `NET_H`, `NET_O`, `NET_BATCH`), directions over all weights.
fn network<'a, const N: usize>(rng: &mut ChaCha8Rng) -> [Variant<'a>; 2] {
    let (d, h, o, batch) = (NET_D, NET_H, NET_O, NET_BATCH);
    let (s1, s2) = (1.0 / (d as f64).sqrt(), 1.0 / (h as f64).sqrt());
    let w1 = uniform(rng, h * d, -s1, s1);
    let b1 = uniform(rng, h, -0.1, 0.1);
    let w2 = uniform(rng, o * h, -s2, s2);
    let b2 = uniform(rng, o, -0.1, 0.1);
    let xs = uniform(rng, batch * d, -1.0, 1.0);
    let ys = uniform(rng, batch * o, -1.0, 1.0);
    let sizes = [h * d, h, o * h, o];
    let (dirs, lanes) = directions::<N>(rng, sizes.iter().sum());
    let split = move |all: usize| {
        let a = sizes[0];
        let b = a + sizes[1];
        let c = b + sizes[2];
        debug_assert_eq!(c + sizes[3], all);
        (a, b, c)
    };
    let p = (w1, b1, w2, b2, xs, ys);
    let q = p.clone();
    let jvp = move |t: &[f64]| {
        let (a, b, c) = split(t.len());
        let (w1, b1, w2, b2, xs, ys) = &p;
        let tw = (&t[..a], &t[a..b], &t[b..c], &t[c..]);
        two_layer_loss_jvp(
            black_box(w1),
            b1,
            w2,
            b2,
            xs,
            ys,
            d,
            h,
            o,
            batch,
            tw.0,
            tw.1,
            tw.2,
            tw.3,
        )
        .1
    };
    let jvpn = move |t: &[[f64; N]]| {
        let (a, b, c) = split(t.len());
        let (w1, b1, w2, b2, xs, ys) = &q;
        let tw = (&t[..a], &t[a..b], &t[b..c], &t[c..]);
        two_layer_loss_jvpn(
            black_box(w1),
            b1,
            w2,
            b2,
            xs,
            ys,
            d,
            h,
            o,
            batch,
            tw.0,
            tw.1,
            tw.2,
            tw.3,
        )
        .1
    };
    variants("two_layer_loss", dirs, lanes, jvp, jvpn)
}

/// The Lotka-Volterra fit (`LV_STEPS` Runge-Kutta steps), directions over the rates and `y0`.
fn lotka_volterra_fit<'a, const N: usize>(rng: &mut ChaCha8Rng) -> [Variant<'a>; 2] {
    let scale = uniform(rng, 4, 0.9, 1.1);
    let y0 = uniform(rng, 2, 0.8, 1.2);
    let p: [f64; 4] = std::array::from_fn(|i| LV_RATES[i] * scale[i]);
    let y0 = [y0[0], y0[1]];
    let obs = uniform(rng, 2 * LV_STEPS, 0.3, 2.0);
    let obs2 = obs.clone();
    let (dirs, lanes) = directions::<N>(rng, 6);
    let jvp = move |t: &[f64]| {
        let (tp, ty) = ([t[0], t[1], t[2], t[3]], [t[4], t[5]]);
        lv_fit_jvp(black_box(&p), &y0, &obs, LV_H, LV_STEPS, &tp, &ty).1
    };
    let jvpn = move |t: &[[f64; N]]| {
        let (tp, ty) = ([t[0], t[1], t[2], t[3]], [t[4], t[5]]);
        lv_fit_jvpn(black_box(&p), &y0, &obs2, LV_H, LV_STEPS, &tp, &ty).1
    };
    variants("lv_fit", dirs, lanes, jvp, jvpn)
}

/// `jvp_xN` and `jvpn_N` of a problem, after checking that they agree.
fn variants<'a, const N: usize>(
    problem: &str,
    dirs: Vec<Vec<f64>>,
    lanes: Vec<[f64; N]>,
    jvp: impl Fn(&[f64]) -> f64 + 'a,
    jvpn: impl Fn(&[[f64; N]]) -> [f64; N] + 'a,
) -> [Variant<'a>; 2] {
    let each: Vec<f64> = dirs.iter().map(|d| jvp(d)).collect();
    check_lanes(problem, &each, jvpn(&lanes));
    let names: [&'static str; 2] = match N {
        4 => ["jvp_x4", "jvpn_4"],
        8 => ["jvp_x8", "jvpn_8"],
        _ => ["jvp_xN", "jvpn_N"],
    };
    [
        (
            names[0],
            Box::new(move || dirs.iter().map(|d| jvp(black_box(d))).sum()),
        ),
        (
            names[1],
            Box::new(move || jvpn(black_box(&lanes)).iter().sum()),
        ),
    ]
}

/// Every problem at `N` = 4 and 8, each from its own seeded stream.
fn for_each_case(mut f: impl FnMut(&str, usize, &mut [Variant<'_>; 2])) {
    let rng = |s: u64| ChaCha8Rng::seed_from_u64(1300 + s);
    f("spring_chain", 4, &mut spring::<4>(&mut rng(1)));
    f("spring_chain", 8, &mut spring::<8>(&mut rng(1)));
    f("two_layer_loss", 4, &mut network::<4>(&mut rng(2)));
    f("two_layer_loss", 8, &mut network::<8>(&mut rng(2)));
    f("lv_fit", 4, &mut lotka_volterra_fit::<4>(&mut rng(3)));
    f("lv_fit", 8, &mut lotka_volterra_fit::<8>(&mut rng(3)));
}

fn criterion_phase(c: &mut Criterion) {
    for_each_case(|problem, _, variants| {
        let mut group = c.benchmark_group(problem);
        for (name, run) in variants.iter_mut() {
            group.bench_function(*name, |b| b.iter(&mut *run));
        }
        group.finish();
    });
}

fn table() {
    let mut rows = Vec::new();
    for_each_case(|problem, n, variants| {
        eprintln!("measuring: {problem}, N = {n}");
        let t = interleaved_medians(variants, SAMPLE, ROUNDS);
        let one = t[0] / n as f64;
        rows.push([
            problem.to_string(),
            n.to_string(),
            format_time(Some(t[0])),
            format_time(Some(t[1])),
            format_ratio(Some(t[1]), Some(t[0])),
            format_ratio(Some(t[1]), Some(one)),
        ]);
    });
    println!();
    println!(
        "N directional derivatives: N calls of _jvp against one _jvpn::<N> (medians of {ROUNDS} \
         interleaved samples of ~{} ms, this run):",
        SAMPLE.as_millis()
    );
    print_table(
        &[
            "problem",
            "N",
            "N x _jvp",
            "_jvpn::<N>",
            "_jvpn / (N x _jvp)",
            "_jvpn / one _jvp",
        ],
        &rows,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`) criterion only checks
    // that each benchmark runs, and the table is skipped.
    let as_test = !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--list");
    if !args.iter().any(|a| a == "--tables") {
        let mut c = Criterion::default()
            .without_plots()
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2))
            .sample_size(20)
            .configure_from_args();
        criterion_phase(&mut c);
        c.final_summary();
    }
    if !as_test {
        table();
    }
}
