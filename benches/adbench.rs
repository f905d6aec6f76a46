//! ADBench GMM, bundle adjustment and LSTM: takes the shipped instances (`tests/data/adbench`), gives
//! criterion measurements of each one's objective, generated derivative and hand-written
//! derivative, then one table of medians measured in the same run with the ratios
//! derivative/objective and generated/hand-written, next to ADBench's published ratios.
//!
//! Variants (criterion ids `<instance>/<variant>`):
//! - `objective`: GMM `gmm_objective`; BA all `3p` residuals (`ba_reprojection` and
//!   `ba_weight_error` per observation);
//! - `generated`: GMM `gmm_objective_vjp` (value and gradient, adding into buffers allocated once
//!   and zeroed each call); BA the values of the sparse Jacobian, two `ba_reprojection_vjp` and one
//!   `ba_weight_error_jvp` per observation (the CSR pattern is built once, outside the timing);
//!   LSTM `lstm_objective_vjp` like GMM;
//! - `hand`: the hand-written gradient / Jacobian blocks, called the same way.
//!
//! Run: `cargo bench --bench adbench` (criterion then the table, about 1.5 minutes once built),
//! or `cargo bench --bench adbench -- --tables` (the table only, about 15 s). Under
//! `cargo test --benches` criterion runs each benchmark of the small instances once and the
//! table is skipped.
//!
//! The table times every variant of an instance in turn, round after round (`ROUNDS` rounds, each
//! sample about `SAMPLE` long), and divides medians, as benches/overhead.rs does, so a noisy
//! neighbour slows all variants of a round alike. ADBench's own timing keeps the minimum of its
//! samples instead; its "relative" number is derivative time / objective time, both in the same
//! language. Published columns: the 2018 paper's draft relative-runtime tables (10k-point GMM,
//! BA ba1; Manual and Tapenade, 2015 runs on a Xeon E5-1620; the paper has no LSTM) and a timing
//! of ADBench's Manual C++ module on the development machine
//! (`reference_results/local_manual_cpp_timings.tsv`).

#[path = "adbench_problems/mod.rs"]
mod adbench;
#[allow(dead_code)]
#[path = "overhead_parts/common.rs"]
mod common;

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use adbench::io::{read_ba, read_gmm, read_lstm, BaInput, GmmInput, LstmInput};
use adbench::{ba, data_root, gmm, lstm};
use common::{format_ratio, format_time, interleaved_medians, print_table, Variant};
use criterion::Criterion;

/// Time one sample of the table aims at, and the number of rounds (odd: the median is a sample).
const SAMPLE: Duration = Duration::from_millis(20);
const ROUNDS: usize = 15;

/// GMM instances (relative to `data/gmm/`) with, for the 10k ones, the paper's column
/// (#parameters).
const GMM: &[(&str, Option<&str>)] = &[
    ("1k/gmm_d2_K5", None),
    ("1k/gmm_d2_K10", None),
    ("1k/gmm_d10_K5", None),
    ("1k/gmm_d10_K25", None),
    ("10k/gmm_d2_K5", Some("30")),
    ("10k/gmm_d10_K5", Some("330")),
    ("10k/gmm_d2_K200", Some("1200")),
];
/// BA instances with the paper's column (#observations) where it has one.
const BA: &[(&str, Option<&str>)] = &[
    ("test", None),
    ("ba1_n49_m7776_p31843", Some("31843")),
    ("ba2_n21_m11315_p36455", None),
];
/// LSTM instances.
const LSTM: &[&str] = &["lstm_l2_c1024", "lstm_l4_c1024"];
/// What `cargo test --benches` runs (unoptimized): the smallest instances.
const SMALL_GMM: &[&str] = &["test", "1k/gmm_d2_K5"];
const SMALL_BA: &[&str] = &["test"];

const OBJECTIVE: &str = "objective";
const GENERATED: &str = "generated";
const HAND: &str = "hand";

fn load_gmm(name: &str) -> GmmInput {
    read_gmm(&data_root().join(format!("data/gmm/{name}.txt")), false)
}

fn load_ba(name: &str) -> BaInput {
    read_ba(&data_root().join(format!("data/ba/{name}.txt")))
}

/// The three variants of a GMM instance, each owning its buffers.
fn gmm_variants(g: &GmmInput) -> Vec<Variant<'_>> {
    let vjp = |hand: bool| {
        let (mut da, mut dm, mut di) =
            (vec![0.0; g.k], vec![0.0; g.k * g.d], vec![0.0; g.icf.len()]);
        move || {
            da.fill(0.0);
            dm.fill(0.0);
            di.fill(0.0);
            let f = if hand {
                gmm::gmm_objective_hand_vjp
            } else {
                gmm::gmm_objective_vjp
            };
            let args = (black_box(&g.alphas), black_box(&g.means), black_box(&g.icf));
            let v = f(
                g.d, g.k, g.n, args.0, args.1, args.2, &g.x, g.gamma, g.m, &mut da, &mut dm,
                &mut di, 1.0,
            );
            v + da[0] + dm[0] + di[0]
        }
    };
    vec![
        (OBJECTIVE, Box::new(move || gmm::objective(black_box(g)))),
        (GENERATED, Box::new(vjp(false))),
        (HAND, Box::new(vjp(true))),
    ]
}

fn load_lstm(name: &str) -> LstmInput {
    read_lstm(&data_root().join(format!("data/lstm/{name}.txt")))
}

/// The three variants of an LSTM instance.
fn lstm_variants(m: &LstmInput) -> Vec<Variant<'_>> {
    let vjp = |hand: bool| {
        let (mut dm, mut de) = (
            vec![0.0; m.main_params.len()],
            vec![0.0; m.extra_params.len()],
        );
        move || {
            dm.fill(0.0);
            de.fill(0.0);
            let f = if hand {
                lstm::lstm_objective_hand_vjp
            } else {
                lstm::lstm_objective_vjp
            };
            let (main, extra) = (black_box(&m.main_params), black_box(&m.extra_params));
            let v = f(
                m.l,
                m.c,
                m.b,
                main,
                extra,
                &m.state,
                &m.sequence,
                &mut dm,
                &mut de,
                1.0,
            );
            v + dm[0] + de[0]
        }
    };
    vec![
        (OBJECTIVE, Box::new(move || lstm::objective(black_box(m)))),
        (GENERATED, Box::new(vjp(false))),
        (HAND, Box::new(vjp(true))),
    ]
}

/// The three variants of a BA instance.
fn ba_variants(b: &BaInput) -> Vec<Variant<'_>> {
    let mut reproj = vec![0.0; 2 * b.p()];
    let mut werr = vec![0.0; b.p()];
    let objective = move || {
        ba::objective(black_box(b), &mut reproj, &mut werr);
        reproj[0] + werr[0]
    };
    let jacobian = |block: fn(&[f64; 11], &[f64; 3], f64, &[f64; 2]) -> ba::Block| {
        let mut j = ba::jacobian_pattern(b);
        move || {
            ba::fill_jacobian(black_box(b), &mut j, block);
            j.vals[0]
        }
    };
    vec![
        (OBJECTIVE, Box::new(objective)),
        (GENERATED, Box::new(jacobian(ba::generated_block))),
        (HAND, Box::new(jacobian(ba::hand_block))),
    ]
}

/// Panics unless the generated and hand-written derivatives of an instance agree (ADBench's rule).
fn check_gmm(name: &str, g: &GmmInput) {
    let (fg, gg) = gmm::generated_gradient(g);
    let (fh, gh) = gmm::hand_gradient(g);
    assert_eq!(fg, fh, "{name}: objectives differ");
    adbench::adbench_compare(&gg, &gh, adbench::ADBENCH_TOLERANCE)
        .unwrap_or_else(|e| panic!("{name}: generated against hand-written gradient: {e}"));
}

fn check_lstm(name: &str, m: &LstmInput) {
    let (fg, gg) = lstm::generated_gradient(m);
    let (fh, gh) = lstm::hand_gradient(m);
    assert_eq!(fg, fh, "{name}: losses differ");
    let scale = gg.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    for (i, (g, h)) in gg.iter().zip(&gh).enumerate() {
        assert!(
            (g - h).abs() <= 1e-12 * scale,
            "{name}: entry {i}: generated {g:e}, hand-written {h:e}"
        );
    }
}

fn check_ba(name: &str, b: &BaInput) {
    let (jg, jh) = (ba::generated_jacobian(b), ba::hand_jacobian(b));
    adbench::adbench_compare(&jg.vals, &jh.vals, adbench::ADBENCH_TOLERANCE)
        .unwrap_or_else(|e| panic!("{name}: generated against hand-written Jacobian: {e}"));
}

fn criterion_phase(c: &mut Criterion, gmm_names: &[&str], ba_names: &[&str], lstm_names: &[&str]) {
    let mut run = |group: String, variants: &mut [Variant<'_>]| {
        let mut g = c.benchmark_group(group);
        for (name, f) in variants.iter_mut() {
            g.bench_function(*name, |b| b.iter(&mut **f));
        }
        g.finish();
    };
    for name in gmm_names {
        let g = load_gmm(name);
        run(format!("gmm/{name}"), &mut gmm_variants(&g));
    }
    for name in ba_names {
        let b = load_ba(name);
        run(format!("ba/{name}"), &mut ba_variants(&b));
    }
    for name in lstm_names {
        let m = load_lstm(name);
        run(format!("lstm/{name}"), &mut lstm_variants(&m));
    }
}

/// Median seconds per call of the variants `objective`, `generated`, `hand`, interleaved.
fn medians3(variants: &mut [Variant<'_>]) -> [f64; 3] {
    let m = interleaved_medians(variants, SAMPLE, ROUNDS);
    [m[0], m[1], m[2]]
}

/// A value of one of the reference tables: the row whose first cell is `row`, the column whose
/// header is `column` (lines starting with `#` are comments).
fn reference(file: &str, row: &str, column: &str) -> Option<f64> {
    let path = data_root().join("reference_results").join(file);
    let text = std::fs::read_to_string(Path::new(&path)).ok()?;
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next()?.split('\t').collect();
    let at = header.iter().position(|h| *h == column)?;
    let cells: Vec<&str> = lines
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|c| c[0] == row)?;
    cells.get(at)?.parse().ok()
}

fn format_reference(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |r| format!("{r:.2}"))
}

fn table() {
    let mut rows = Vec::new();
    let mut measure = |label: String,
                       paper: Option<(&str, &str)>,
                       local: String,
                       variants: &mut [Variant<'_>]| {
        eprintln!("measuring {label}");
        let [obj, gen, hand] = medians3(variants);
        let (manual, tapenade) = match paper {
            Some((file, col)) => (
                reference(file, "Manual", col),
                reference(file, "Tapenade", col),
            ),
            None => (None, None),
        };
        let local = reference("local_manual_cpp_timings.tsv", &local, "J_over_F");
        rows.push([
            label,
            format_time(Some(obj)),
            format_time(Some(gen)),
            format_time(Some(hand)),
            format_ratio(Some(gen), Some(obj)),
            format_ratio(Some(hand), Some(obj)),
            format_ratio(Some(gen), Some(hand)),
            format_reference(manual),
            format_reference(tapenade),
            format_reference(local),
        ]);
    };
    for (name, col) in GMM {
        let g = load_gmm(name);
        check_gmm(name, &g);
        let paper = col.map(|c| ("paper2018_gmm_10k_rel_draft.tsv", c));
        measure(
            format!("gmm {name}"),
            paper,
            format!("gmm/{name}"),
            &mut gmm_variants(&g),
        );
    }
    for (name, col) in BA {
        let b = load_ba(name);
        check_ba(name, &b);
        let paper = col.map(|c| ("paper2018_ba_rel_draft.tsv", c));
        measure(
            format!("ba {name}"),
            paper,
            format!("ba/{name}"),
            &mut ba_variants(&b),
        );
    }
    for name in LSTM {
        let m = load_lstm(name);
        check_lstm(name, &m);
        let local = format!("lstm/{name}");
        measure(format!("lstm {name}"), None, local, &mut lstm_variants(&m));
    }
    println!();
    println!(
        "ADBench, medians of {ROUNDS} interleaved samples of ~{} ms per variant (this run); derivative = gradient (GMM, LSTM) or sparse Jacobian values (BA)",
        SAMPLE.as_millis()
    );
    println!("published derivative/objective: paper = 2018 paper draft tables (10k GMM, ba1); Manual C++ here = ADBench's Manual module timed on this machine");
    print_table(
        &[
            "instance",
            "objective",
            "generated",
            "hand",
            "gen/obj",
            "hand/obj",
            "gen/hand",
            "paper Manual",
            "paper Tapenade",
            "Manual C++ here",
        ],
        &rows,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`) criterion only checks
    // that each benchmark runs, on the small instances, and the table is skipped.
    let as_test = !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--list");
    let tables_only = args.iter().any(|a| a == "--tables");
    if !tables_only {
        let mut c = Criterion::default()
            .without_plots()
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(1))
            .sample_size(10)
            .configure_from_args();
        if as_test {
            criterion_phase(&mut c, SMALL_GMM, SMALL_BA, &[]);
        } else {
            let gmm_names: Vec<&str> = GMM.iter().map(|(n, _)| *n).collect();
            let ba_names: Vec<&str> = BA.iter().map(|(n, _)| *n).collect();
            criterion_phase(&mut c, &gmm_names, &ba_names, LSTM);
        }
        c.final_summary();
    }
    if !as_test {
        table();
    }
}
