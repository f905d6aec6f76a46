//! ADBench GMM, bundle adjustment and LSTM: takes the shipped instances (`tests/data/adbench`), gives
//! criterion measurements of each one's objective, generated derivative, hand-written derivative,
//! num-dual forward-mode derivative and finite differences, then one table of medians measured in
//! the same run with the ratios derivative/objective and generated/hand-written, next to ADBench's
//! published ratios.
//!
//! Variants (criterion ids `<instance>/<variant>`):
//! - `objective`: GMM `gmm_objective`; BA all `3p` residuals (`ba_reprojection` and
//!   `ba_weight_error` per observation);
//! - `generated`: GMM `gmm_objective_vjp` (value and gradient, adding into buffers allocated once
//!   and zeroed each call); BA the values of the sparse Jacobian, two `ba_reprojection_vjp` and one
//!   `ba_weight_error_jvp` per observation (the CSR pattern is built once, outside the timing);
//!   LSTM `lstm_objective_vjp` like GMM;
//! - `hand`: the hand-written gradient / Jacobian blocks, called the same way;
//! - `num_dual`: num-dual's forward mode on a generic copy of the objective
//!   (`adbench_problems/peers.rs`), `CHUNK` = 8 parameters per pass (`DualSVec64<8>`); BA one pass
//!   per observation over its 15 inputs (`DualSVec64<15>`);
//! - `fd`: ADBench's central finite differences (two objective calls per parameter; BA 30
//!   reprojection calls per observation).
//!
//! num-dual and finite differences compute the whole gradient when it has at most `WHOLE_UP_TO`
//! parameters (and always for BA). Above, a whole gradient would take seconds to minutes per call,
//! so `num_dual` times `SAMPLED` of its passes, spread evenly from the first chunk to the last
//! (a pass costs more or less depending on which parameters it seeds: num-dual skips partials that
//! are still zero), and `fd` times the parameters at the start of those chunks (every parameter
//! costs the same two objective calls); the table scales the median to all passes / parameters and
//! marks the cell with `*`. The criterion ids time the subset as it is, unscaled.
//!
//! Run: `cargo bench --bench adbench` (criterion then the table, about 3 minutes once built), or
//! `cargo bench --bench adbench -- --tables` (the table only, about 1.5 minutes). With `--tables`,
//! `--write-readme` also replaces the table in README.md (between the `adbench-table` markers)
//! with this run's, dated, with the machine and the load average. Every table run writes its
//! medians to `adbench-table.tsv` in cargo's target folder for `benches/peers/adbench.py`. Under
//! `cargo test --benches` criterion runs each benchmark of the small instances once, the checks
//! run on them, and the table is skipped.
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
#[path = "adbench_problems/peers.rs"]
mod peers;

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use adbench::io::{read_ba, read_gmm, read_lstm, BaInput, GmmInput, LstmInput};
use adbench::{ba, data_root, gmm, lstm};
use common::{format_ratio, format_time, interleaved_medians, Variant};
use criterion::Criterion;
use peers::{fd_gradient, passes, DualGradient, Flat, CHUNK};

/// Time one sample of the table aims at, and the number of rounds (odd: the median is a sample).
const SAMPLE: Duration = Duration::from_millis(20);
const ROUNDS: usize = 15;

/// num-dual and finite differences compute the whole gradient up to this many parameters.
const WHOLE_UP_TO: usize = 64;
/// Above, the num-dual passes (and finite-difference parameters) timed.
const SAMPLED: usize = 4;

/// Finite differences against our gradient: ADBench's tolerance for its Finite module.
const FD_TOLERANCE: f64 = 1e-4;

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
const NUM_DUAL: &str = "num_dual";
const FD: &str = "fd";

/// The README's table markers.
const README_START: &str = "<!-- adbench-table:start -->";
const README_END: &str = "<!-- adbench-table:end -->";

fn load_gmm(name: &str) -> GmmInput {
    read_gmm(&data_root().join(format!("data/gmm/{name}.txt")), false)
}

fn load_ba(name: &str) -> BaInput {
    read_ba(&data_root().join(format!("data/ba/{name}.txt")))
}

fn load_lstm(name: &str) -> LstmInput {
    read_lstm(&data_root().join(format!("data/lstm/{name}.txt")))
}

/// What the `num_dual` and `fd` variants of a GMM or LSTM instance compute: num-dual passes
/// (chunks) and finite-difference parameters, and the factors that scale their times to a whole
/// gradient (1 when they are whole).
struct Subset {
    chunks: Vec<usize>,
    fd_params: Vec<usize>,
    nd_scale: f64,
    fd_scale: f64,
}

impl Subset {
    fn of(len: usize) -> Self {
        let all = passes(len);
        let chunks: Vec<usize> = if len <= WHOLE_UP_TO {
            (0..all).collect()
        } else {
            // First and last chunk, the others evenly between.
            (0..SAMPLED)
                .map(|i| i * (all - 1) / (SAMPLED - 1))
                .collect()
        };
        let fd_params: Vec<usize> = if len <= WHOLE_UP_TO {
            (0..len).collect()
        } else {
            chunks.iter().map(|c| c * CHUNK).collect()
        };
        Subset {
            nd_scale: all as f64 / chunks.len() as f64,
            fd_scale: len as f64 / fd_params.len() as f64,
            chunks,
            fd_params,
        }
    }
}

/// The `num_dual` and `fd` variants of a GMM or LSTM instance, computing `subset`.
fn flat_peer_variants<'a, P: Flat>(p: &'a P, subset: &'a Subset) -> Vec<Variant<'a>> {
    let len = p.flat().len();
    let mut nd = DualGradient::new(p);
    let mut nd_grad = vec![0.0; len];
    let num_dual = move || {
        let f = nd.passes(black_box(&subset.chunks), &mut nd_grad);
        f + nd_grad[0]
    };
    let mut params = p.flat();
    let mut fd_grad = vec![0.0; len];
    let fd = move || {
        for &at in &subset.fd_params {
            fd_gradient(p, black_box(&mut params), at..at + 1, &mut fd_grad);
        }
        fd_grad[subset.fd_params[0]]
    };
    vec![(NUM_DUAL, Box::new(num_dual)), (FD, Box::new(fd))]
}

/// The variants of a GMM instance, each owning its buffers.
fn gmm_variants<'a>(g: &'a GmmInput, subset: &'a Subset) -> Vec<Variant<'a>> {
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
    let mut v: Vec<Variant<'a>> = vec![
        (OBJECTIVE, Box::new(move || gmm::objective(black_box(g)))),
        (GENERATED, Box::new(vjp(false))),
        (HAND, Box::new(vjp(true))),
    ];
    v.extend(flat_peer_variants(g, subset));
    v
}

/// The variants of an LSTM instance.
fn lstm_variants<'a>(m: &'a LstmInput, subset: &'a Subset) -> Vec<Variant<'a>> {
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
    let mut v: Vec<Variant<'a>> = vec![
        (OBJECTIVE, Box::new(move || lstm::objective(black_box(m)))),
        (GENERATED, Box::new(vjp(false))),
        (HAND, Box::new(vjp(true))),
    ];
    v.extend(flat_peer_variants(m, subset));
    v
}

/// The variants of a BA instance (num-dual and finite differences always whole).
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
        (NUM_DUAL, Box::new(jacobian(peers::ba_dual_block))),
        (FD, Box::new(jacobian(peers::ba_fd_block))),
    ]
}

/// `got` against `want` at `at`: ADBench's rule at `tol`, and, because ADBench's rule is absolute
/// below 1 (LSTM gradients are below 1e-4), `|got - want| <= tol_scaled * max |want|` too.
fn agree(got: &[f64], want: &[f64], at: &[usize], tol: f64, tol_scaled: f64) -> Result<(), String> {
    let (g, w): (Vec<f64>, Vec<f64>) = at.iter().map(|&i| (got[i], want[i])).unzip();
    adbench::adbench_compare(&g, &w, tol)?;
    let scale = want.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    for (&i, (g, w)) in at.iter().zip(g.iter().zip(&w)) {
        if (g - w).abs() > tol_scaled * scale {
            return Err(format!(
                "entry {i}: {g:e} against {w:e} (largest entry {scale:e})"
            ));
        }
    }
    Ok(())
}

/// Panics unless num-dual and finite differences, on what the table times of them, agree with
/// our generated gradient `ours`: num-dual to ADBench's tolerance for exact tools, finite
/// differences to its tolerance for its Finite module.
fn check_flat_peers<P: Flat>(name: &str, p: &P, subset: &Subset, ours: &[f64]) {
    let len = ours.len();
    let mut nd = vec![0.0; len];
    DualGradient::new(p).passes(&subset.chunks, &mut nd);
    let nd_at: Vec<usize> = subset
        .chunks
        .iter()
        .flat_map(|c| c * CHUNK..((c + 1) * CHUNK).min(len))
        .collect();
    agree(&nd, ours, &nd_at, adbench::ADBENCH_TOLERANCE, 1e-10)
        .unwrap_or_else(|e| panic!("{name}: num-dual against generated gradient: {e}"));
    let mut fd = vec![0.0; len];
    let mut params = p.flat();
    for &at in &subset.fd_params {
        fd_gradient(p, &mut params, at..at + 1, &mut fd);
    }
    agree(&fd, ours, &subset.fd_params, FD_TOLERANCE, FD_TOLERANCE)
        .unwrap_or_else(|e| panic!("{name}: finite differences against generated gradient: {e}"));
}

/// Panics unless the generated and hand-written derivatives of an instance agree (ADBench's rule),
/// and num-dual and finite differences agree with them ([`check_flat_peers`]).
fn check_gmm(name: &str, g: &GmmInput, subset: &Subset) {
    peers::same_objectives(Some(g), None).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (fg, gg) = gmm::generated_gradient(g);
    let (fh, gh) = gmm::hand_gradient(g);
    assert_eq!(fg, fh, "{name}: objectives differ");
    adbench::adbench_compare(&gg, &gh, adbench::ADBENCH_TOLERANCE)
        .unwrap_or_else(|e| panic!("{name}: generated against hand-written gradient: {e}"));
    check_flat_peers(name, g, subset, &gg);
}

fn check_lstm(name: &str, m: &LstmInput, subset: &Subset) {
    peers::same_objectives(None, Some(m)).unwrap_or_else(|e| panic!("{name}: {e}"));
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
    check_flat_peers(name, m, subset, &gg);
}

fn check_ba(name: &str, b: &BaInput) {
    let (jg, jh) = (ba::generated_jacobian(b), ba::hand_jacobian(b));
    adbench::adbench_compare(&jg.vals, &jh.vals, adbench::ADBENCH_TOLERANCE)
        .unwrap_or_else(|e| panic!("{name}: generated against hand-written Jacobian: {e}"));
    let fill = |block: fn(&[f64; 11], &[f64; 3], f64, &[f64; 2]) -> ba::Block| {
        let mut j = ba::jacobian_pattern(b);
        ba::fill_jacobian(b, &mut j, block);
        j.vals
    };
    let all: Vec<usize> = (0..jg.vals.len()).collect();
    agree(
        &fill(peers::ba_dual_block),
        &jg.vals,
        &all,
        adbench::ADBENCH_TOLERANCE,
        1e-10,
    )
    .unwrap_or_else(|e| panic!("{name}: num-dual against generated Jacobian: {e}"));
    agree(
        &fill(peers::ba_fd_block),
        &jg.vals,
        &all,
        FD_TOLERANCE,
        FD_TOLERANCE,
    )
    .unwrap_or_else(|e| panic!("{name}: finite differences against generated Jacobian: {e}"));
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
        let subset = Subset::of(g.params());
        run(format!("gmm/{name}"), &mut gmm_variants(&g, &subset));
    }
    for name in ba_names {
        let b = load_ba(name);
        run(format!("ba/{name}"), &mut ba_variants(&b));
    }
    for name in lstm_names {
        let m = load_lstm(name);
        let subset = Subset::of(m.params());
        run(format!("lstm/{name}"), &mut lstm_variants(&m, &subset));
    }
}

/// The checks of the table, on the instances `cargo test --benches` runs.
fn check_small() {
    for name in SMALL_GMM {
        let g = load_gmm(name);
        check_gmm(name, &g, &Subset::of(g.params()));
    }
    for name in SMALL_BA {
        check_ba(name, &load_ba(name));
    }
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

/// [`format_time`], in seconds from one second up.
fn format_secs(seconds: Option<f64>) -> String {
    match seconds {
        Some(s) if s >= 1.0 => format!("{s:.2} s"),
        _ => format_time(seconds),
    }
}

fn format_reference(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |r| format!("{r:.2}"))
}

/// `rows` under `header`, columns padded to their widest cell, one line each.
fn table_text<const N: usize>(header: &[&str; N], rows: &[[String; N]]) -> String {
    let widths: Vec<usize> = (0..N)
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([header[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let mut line = |cells: &[String]| {
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
        out.push_str(padded.join("  ").trim_end());
        out.push('\n');
    };
    line(&header.map(String::from));
    for row in rows {
        line(row);
    }
    out
}

/// One instance's medians (seconds per call; num-dual and finite differences already scaled to a
/// whole gradient) and whether those two were scaled.
struct Measured {
    label: String,
    times: [f64; 5],
    scaled: bool,
}

/// The 1-minute load average (`/proc/loadavg`), if the system has one.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The CPU model and the number of logical CPUs listed in `/proc/cpuinfo`.
fn machine() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or("unknown CPU".to_string(), |m| m.trim().to_string());
    let cpus = info.lines().filter(|l| l.starts_with("processor")).count();
    format!("{model}, {cpus} logical CPUs")
}

/// Today's UTC date, `YYYY-MM-DD` (days since 1970 to the civil calendar, proleptic Gregorian).
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Shift to 0000-03-01 so that leap days end a year; 146097 days per 400 years.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// `text` with its spaces turned into line breaks where a line would pass `width` characters.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split(' ') {
        let len = word.chars().count();
        if line > 0 && line + 1 + len > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += len;
    }
    out
}

/// Cargo's target folder: the bench runs as `<target>/<profile>/deps/adbench-<hash>`.
fn target_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.parent()?.to_path_buf()))
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"))
}

/// Writes the medians for `benches/peers/adbench.py`: one row per instance, seconds per call.
fn write_tsv(rows: &[Measured]) -> PathBuf {
    let mut text = String::from(
        "# benches/adbench.rs --tables medians, seconds per call; num_dual and fd scaled to a whole gradient where scaled = 1\ninstance\tobjective\tgenerated\thand\tnum_dual\tfd\tscaled\n",
    );
    for r in rows {
        let t = r.times;
        let _ = writeln!(
            text,
            "{}\t{:e}\t{:e}\t{:e}\t{:e}\t{:e}\t{}",
            r.label.replace(' ', "/"),
            t[0],
            t[1],
            t[2],
            t[3],
            t[4],
            u8::from(r.scaled)
        );
    }
    let path = target_dir().join("adbench-table.tsv");
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    path
}

/// Replaces what lies between the README's table markers with `block`.
fn write_readme(block: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let start = text
        .find(README_START)
        .unwrap_or_else(|| panic!("{}: no {README_START} marker", path.display()))
        + README_START.len();
    let end = text[start..]
        .find(README_END)
        .unwrap_or_else(|| panic!("{}: no {README_END} after the start marker", path.display()))
        + start;
    let new = format!("{}\n{block}{}", &text[..start], &text[end..]);
    std::fs::write(&path, new).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    path
}

fn table(readme: bool) {
    let load_before = load_average();
    let mut measured = Vec::new();
    let mut measure = |label: String, scaled: [f64; 2], variants: &mut [Variant<'_>]| {
        eprintln!("measuring {label}");
        let m = interleaved_medians(variants, SAMPLE, ROUNDS);
        measured.push(Measured {
            label,
            times: [m[0], m[1], m[2], m[3] * scaled[0], m[4] * scaled[1]],
            scaled: scaled != [1.0, 1.0],
        });
    };
    for (name, _) in GMM {
        let g = load_gmm(name);
        let subset = Subset::of(g.params());
        check_gmm(name, &g, &subset);
        let scale = [subset.nd_scale, subset.fd_scale];
        measure(format!("gmm {name}"), scale, &mut gmm_variants(&g, &subset));
    }
    for (name, _) in BA {
        let b = load_ba(name);
        check_ba(name, &b);
        measure(format!("ba {name}"), [1.0, 1.0], &mut ba_variants(&b));
    }
    for name in LSTM {
        let m = load_lstm(name);
        let subset = Subset::of(m.params());
        check_lstm(name, &m, &subset);
        let scale = [subset.nd_scale, subset.fd_scale];
        measure(
            format!("lstm {name}"),
            scale,
            &mut lstm_variants(&m, &subset),
        );
    }
    let load_after = load_average();

    // The published ratios of each row: paper columns, then the local Manual C++ timing.
    let paper: Vec<Option<(&str, &str)>> = GMM
        .iter()
        .map(|(_, c)| c.map(|c| ("paper2018_gmm_10k_rel_draft.tsv", c)))
        .chain(
            BA.iter()
                .map(|(_, c)| c.map(|c| ("paper2018_ba_rel_draft.tsv", c))),
        )
        .chain(LSTM.iter().map(|_| None))
        .collect();
    let rows: Vec<[String; 14]> = measured
        .iter()
        .zip(&paper)
        .map(|(r, paper)| {
            let [obj, gen, hand, nd, fd] = r.times.map(Some);
            let (manual, tapenade) = match paper {
                Some((file, col)) => (
                    reference(file, "Manual", col),
                    reference(file, "Tapenade", col),
                ),
                None => (None, None),
            };
            let local = r.label.replacen(' ', "/", 1);
            let local = reference("local_manual_cpp_timings.tsv", &local, "J_over_F");
            let mark = if r.scaled { "*" } else { "" };
            [
                r.label.clone(),
                format_secs(obj),
                format_secs(gen),
                format_secs(hand),
                format!("{}{mark}", format_secs(nd)),
                format!("{}{mark}", format_secs(fd)),
                format_ratio(gen, obj),
                format_ratio(hand, obj),
                format_ratio(gen, hand),
                format_ratio(nd, obj),
                format_ratio(fd, obj),
                format_reference(manual),
                format_reference(tapenade),
                format_reference(local),
            ]
        })
        .collect();
    let text = table_text(
        &[
            "instance",
            "objective",
            "generated",
            "hand",
            "num-dual",
            "FD",
            "gen/obj",
            "hand/obj",
            "gen/hand",
            "nd/obj",
            "FD/obj",
            "paper Manual",
            "paper Tapenade",
            "Manual C++ here",
        ],
        &rows,
    );
    println!();
    println!(
        "ADBench, medians of {ROUNDS} interleaved samples of ~{} ms per variant (this run); derivative = gradient (GMM, LSTM) or sparse Jacobian values (BA)",
        SAMPLE.as_millis()
    );
    println!("num-dual: forward mode, {CHUNK} parameters per pass (BA one pass of 15 per observation); FD: central differences; * = above {WHOLE_UP_TO} parameters, {SAMPLED} passes / {SAMPLED} parameters timed and scaled to all");
    println!("published derivative/objective: paper = 2018 paper draft tables (10k GMM, ba1); Manual C++ here = ADBench's Manual module timed on an earlier day");
    print!("{text}");
    let tsv = write_tsv(&measured);
    eprintln!("medians written to {}", tsv.display());
    if readme {
        let load = |l: Option<f64>| l.map_or("-".to_string(), |l| format!("{l:.2}"));
        let intro = format!(
            "Measured {} by `cargo bench --bench adbench -- --tables --write-readme` on {} \
             (one thread), 1-minute load average {} before and {} after the measurements:",
            today(),
            machine(),
            load(load_before),
            load(load_after),
        );
        let block = format!("{}\n\n```\n{text}```\n", wrap(&intro, 100));
        let path = write_readme(&block);
        eprintln!("table written into {}", path.display());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`) criterion only checks
    // that each benchmark runs, on the small instances, and the table is skipped.
    let as_test = !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--list");
    let tables_only = args.iter().any(|a| a == "--tables");
    let readme = args.iter().any(|a| a == "--write-readme");
    assert!(
        !readme || tables_only,
        "--write-readme goes with --tables: cargo bench --bench adbench -- --tables --write-readme"
    );
    if as_test && !args.iter().any(|a| a == "--list") {
        check_small();
    }
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
        table(readme);
    }
}
