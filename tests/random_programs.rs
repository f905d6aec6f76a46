//! Differential test of `#[differentiate]` on random programs: takes the functions that build.rs
//! generated with `tests/gen` into `$OUT_DIR/random_programs.rs`, gives one test that checks every
//! one of them (value == original function, reverse == forward by the dot-product test, forward ==
//! central finite differences, adjoints accumulate), one (`random_programs/second.rs`) that checks
//! the second order of those given `#[differentiate(hvp)]`, one (`random_programs/split.rs`) that
//! checks the pullbacks of those given `#[differentiate(split)]` against their `_vjp`, and tests of
//! the generator itself. The nalgebra programs (`na000`, ..., `gen/nalgebra.rs`) go through the
//! first test like the others (their `vjp` adapters also check `_grad` against `_vjp`).
//!
//! Reproduce or vary a run with environment variables read at build time:
//! `AD_RANDOM_SEED` (decimal or 0x hex), `AD_RANDOM_COUNT` (number of programs),
//! `AD_RANDOM_ONLY=p017,p123` (emit only those programs; the others are still drawn, so sources
//! are unchanged), `AD_RANDOM_DISABLE=while,loop` (constructs never to emit, on top of
//! `gen::DEFAULT_DISABLED`; names in `gen::Construct`), `AD_RANDOM_ENABLE=...` (take constructs
//! off `gen::DEFAULT_DISABLED`), `AD_RANDOM_PRIMAL_ONLY=1` (no `#[differentiate]`: checks only
//! that the generated primal code compiles, stays finite and is smooth enough for finite
//! differences), `AD_RANDOM_HVP` (share of programs given `#[differentiate(hvp)]`, whose
//! second order `random_programs/second.rs` checks: 0, 1 or in between), `AD_RANDOM_SPLIT`
//! (likewise for `#[differentiate(split)]`, checked by `random_programs/split.rs`),
//! `AD_RANDOM_NALGEBRA` (number of nalgebra programs `na000`, ...; with `AD_RANDOM_COUNT=0`, the
//! only programs).

#[allow(dead_code)]
#[path = "gen/mod.rs"]
mod gen;
#[path = "random_programs/second.rs"]
mod second;
#[path = "random_programs/split.rs"]
mod split;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// `f(scalars, slice, n)`, outputs flattened.
pub type Primal = fn(&[f64], &[f64], usize) -> Vec<f64>;
/// `f_jvp(scalars, slice, n, scalar tangents, slice tangent)` -> (value, tangent), flattened.
pub type Jvp = fn(&[f64], &[f64], usize, &[f64], &[f64]) -> (Vec<f64>, Vec<f64>);
/// `f_vjp(scalars, slice, n, scalar adjoints, slice adjoint, seed)` -> value, flattened; adds
/// into the adjoints.
pub type Vjp = fn(&[f64], &[f64], usize, &mut [f64], &mut [f64], &[f64]) -> Vec<f64>;

/// One generated function and the adapters that call it and its derivatives uniformly.
pub struct Case {
    pub name: &'static str,
    /// Stream of the generator that drew it; also seeds its test points.
    pub index: u64,
    pub source: &'static str,
    /// Helpers it calls, directly or not.
    pub helpers: &'static [&'static str],
    pub constructs: &'static [&'static str],
    /// Number of `f64` parameters (a `[f64; 3]` parameter counts 3).
    pub scalars: usize,
    /// Whether it takes a slice.
    pub slice: bool,
    /// Whether it is differentiated with respect to its slice (not so under a `wrt(...)` that
    /// leaves the slice out: then the test keeps the slice's tangent at 0).
    pub slice_active: bool,
    /// Number of `f64` outputs (1, 2 for `(f64, f64)` and `[f64; 2]`, 3 for `Vec<f64>`, 0 for
    /// `()`; plus 3 for the final contents of a `&mut [f64; 3]` parameter).
    pub outputs: usize,
    /// Takes a `&mut [f64]` parameter (its initial contents are the slice's values): its final
    /// contents are `n` more outputs.
    pub inout_slice: bool,
    pub primal: Primal,
    pub jvp: Option<Jvp>,
    pub vjp: Option<Vjp>,
    /// `<f>_grad`, `<f>_hvp` and `<f>_hessian` of a function with `hvp` and a float output.
    pub second: Option<second::Second>,
    /// `<f>_vjp_split` and its pullback, of a function with `split`.
    pub split: Option<split::Split>,
}

/// Output types of generated functions, flattened to and from `f64` slices.
pub trait Out: Copy {
    fn flat(self) -> Vec<f64>;
    fn unflat(c: &[f64]) -> Self;
}

impl Out for f64 {
    fn flat(self) -> Vec<f64> {
        vec![self]
    }
    fn unflat(c: &[f64]) -> f64 {
        c[0]
    }
}

impl Out for (f64, f64) {
    fn flat(self) -> Vec<f64> {
        vec![self.0, self.1]
    }
    fn unflat(c: &[f64]) -> (f64, f64) {
        (c[0], c[1])
    }
}

impl Out for ([f64; 2], f64) {
    fn flat(self) -> Vec<f64> {
        vec![self.0[0], self.0[1], self.1]
    }
    fn unflat(c: &[f64]) -> ([f64; 2], f64) {
        ([c[0], c[1]], c[2])
    }
}

impl Out for [f64; 2] {
    fn flat(self) -> Vec<f64> {
        self.to_vec()
    }
    fn unflat(c: &[f64]) -> [f64; 2] {
        [c[0], c[1]]
    }
}

#[allow(
    unused,
    unreachable_code,
    clippy::all,
    clippy::pedantic,
    clippy::nursery,
    clippy::restriction
)]
mod programs {
    use super::{Case, Out};
    use autodiff_runtime::differentiate;

    /// Writes through the split parts and chunks the programs lend it (`split_rot(lo, t);`,
    /// construct `split_part_call`); leaves both ends in [-1, 1]. With `hvp` for the programs
    /// that have it.
    #[differentiate(hvp)]
    pub fn split_rot(p: &mut [f64], c: f64) {
        let a = p[0];
        let m = p.len() - 1;
        p[0] = (c * a + 0.5 * p[m]).tanh();
        p[m] = (a * p[m] + c).sin();
    }

    include!(concat!(env!("OUT_DIR"), "/random_programs.rs"));
}

/// Central-difference step (inputs and directions lie in [-1, 1]).
const FD_STEP: f64 = 1e-6;
/// Relative tolerance of forward mode against central differences.
const FD_RTOL: f64 = 1e-5;
/// Absolute floor of that tolerance, per unit of output magnitude (the rounding error of a
/// central difference is about `1e-16 * |f| / FD_STEP`).
const FD_ATOL: f64 = 1e-7;
/// Relative tolerance of the dot-product test, relative to the sum of the magnitudes of its terms.
const DOT_RTOL: f64 = 1e-6;
/// Absolute floor of the dot-product test.
const DOT_ATOL: f64 = 1e-12;
/// Tolerance of the derivative functions' values against the original function.
const VALUE_RTOL: f64 = 1e-12;
/// Tolerance of the accumulation check (`vjp` adds into non-zero adjoints).
const ACC_RTOL: f64 = 1e-12;
/// Points tried per function until one is smooth enough for finite differences.
const POINTS: usize = 3;
/// Fraction of functions that must get a finite-difference check.
const MIN_FD_FRACTION: f64 = 0.9;
/// Failures printed with their full source.
const MAX_DETAILED: usize = 12;

/// A test point: inputs, tangent direction, cotangent and initial adjoints.
struct Point {
    n: usize,
    s: Vec<f64>,
    v: Vec<f64>,
    ts: Vec<f64>,
    tv: Vec<f64>,
    c: Vec<f64>,
    gs0: Vec<f64>,
    gv0: Vec<f64>,
}

impl Point {
    fn draw(rng: &mut ChaCha8Rng, case: &Case) -> Point {
        let n = rng.gen_range(gen::N_MIN..=gen::N_MAX);
        let mut vec = |k: usize| -> Vec<f64> { (0..k).map(|_| rng.gen_range(-1.0..1.0)).collect() };
        let active = |t: Vec<f64>| -> Vec<f64> {
            if case.slice_active {
                t
            } else {
                vec![0.0; t.len()]
            }
        };
        Point {
            n,
            s: vec(case.scalars),
            v: vec(n),
            ts: vec(case.scalars),
            tv: active(vec(n)),
            c: vec(case.outputs + if case.inout_slice { n } else { 0 }),
            gs0: vec(case.scalars),
            gv0: vec(n),
        }
    }

    fn describe(&self) -> String {
        format!(
            "n = {}\n  scalars   = {:?}\n  slice     = {:?}\n  tangent   = {:?} / {:?}\n  cotangent = {:?}",
            self.n, self.s, self.v, self.ts, self.tv, self.c
        )
    }
}

/// What checking one function found.
#[derive(Default)]
struct Outcome {
    fd_checked: bool,
    fd_skipped_points: usize,
    failures: Vec<String>,
    max_abs_value: f64,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn abs_dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x * y).abs()).sum()
}

fn max_abs(a: &[f64]) -> f64 {
    a.iter().fold(0.0, |m, x| m.max(x.abs()))
}

fn all_finite(a: &[f64]) -> bool {
    a.iter().all(|x| x.is_finite())
}

/// Whether two values agree within `rtol` relative to the larger of them and `atol`.
fn close(a: f64, b: f64, rtol: f64, atol: f64) -> bool {
    (a - b).abs() <= rtol * a.abs().max(b.abs()) + atol
}

fn close_all(a: &[f64], b: &[f64], rtol: f64, atol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| close(*x, *y, rtol, atol))
}

/// Central difference of the function along the point's tangent with step `h`.
fn central_difference(case: &Case, p: &Point, h: f64) -> Vec<f64> {
    let shift = |x: &[f64], t: &[f64], sign: f64| -> Vec<f64> {
        x.iter().zip(t).map(|(x, t)| x + sign * h * t).collect()
    };
    let plus = (case.primal)(&shift(&p.s, &p.ts, 1.0), &shift(&p.v, &p.tv, 1.0), p.n);
    let minus = (case.primal)(&shift(&p.s, &p.ts, -1.0), &shift(&p.v, &p.tv, -1.0), p.n);
    plus.iter()
        .zip(&minus)
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect()
}

/// Checks one function at up to `POINTS` points: value and dot-product tests at every point
/// tried, the finite-difference test at the first point where central differences with steps
/// `h` and `h / 2` agree (elsewhere a branch or break condition is too close to the point).
fn check_case(case: &Case, seed: u64) -> Outcome {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(
        case.index
            + if case.name.starts_with('h') {
                0
            } else {
                1 << 32
            },
    );
    let mut out = Outcome::default();
    for _ in 0..POINTS {
        let p = Point::draw(&mut rng, case);
        let fail = |out: &mut Outcome, what: String| {
            out.failures.push(format!("{what}\n  at {}", p.describe()))
        };
        let y = (case.primal)(&p.s, &p.v, p.n);
        out.max_abs_value = out.max_abs_value.max(max_abs(&y));
        if !all_finite(&y) {
            fail(
                &mut out,
                format!("generator bug: original function is not finite: {y:?}"),
            );
            return out;
        }
        let yscale = 1.0 + max_abs(&y);

        let mut tangent = None;
        if let Some(jvp) = case.jvp {
            let (yj, t) = jvp(&p.s, &p.v, p.n, &p.ts, &p.tv);
            if !close_all(&yj, &y, VALUE_RTOL, VALUE_RTOL) {
                fail(
                    &mut out,
                    format!(
                        "value: {}_jvp returned {yj:?}, the function {y:?}",
                        case.name
                    ),
                );
            }
            if !all_finite(&t) {
                fail(&mut out, format!("tangent not finite: {t:?}"));
            }
            tangent = Some(t);
        }

        if let Some(vjp) = case.vjp {
            let mut gs = vec![0.0; case.scalars];
            let mut gv = vec![0.0; p.n];
            let yr = vjp(&p.s, &p.v, p.n, &mut gs, &mut gv, &p.c);
            if !close_all(&yr, &y, VALUE_RTOL, VALUE_RTOL) {
                fail(
                    &mut out,
                    format!(
                        "value: {}_vjp returned {yr:?}, the function {y:?}",
                        case.name
                    ),
                );
            }
            if !all_finite(&gs) || !all_finite(&gv) {
                fail(&mut out, format!("adjoint not finite: {gs:?} / {gv:?}"));
            }
            if let Some(t) = &tangent {
                let lhs = dot(t, &p.c);
                let rhs = dot(&p.ts, &gs) + dot(&p.tv, &gv);
                let scale = abs_dot(t, &p.c) + abs_dot(&p.ts, &gs) + abs_dot(&p.tv, &gv);
                if (lhs - rhs).abs() > DOT_RTOL * scale + DOT_ATOL {
                    fail(
                        &mut out,
                        format!(
                            "dot product: <J t, c> = {lhs:e} but <t, J^T c> = {rhs:e} \
                             (difference {:e}, scale {scale:e})\n  J t = {t:?}\n  J^T c = {gs:?} / {gv:?}",
                            (lhs - rhs).abs()
                        ),
                    );
                }
            }
            // The adjoints are added to what the buffers hold.
            let mut acc_s = p.gs0.clone();
            let mut acc_v = p.gv0.clone();
            vjp(&p.s, &p.v, p.n, &mut acc_s, &mut acc_v, &p.c);
            let want_s: Vec<f64> = p.gs0.iter().zip(&gs).map(|(a, b)| a + b).collect();
            let want_v: Vec<f64> = p.gv0.iter().zip(&gv).map(|(a, b)| a + b).collect();
            if !close_all(&acc_s, &want_s, ACC_RTOL, ACC_RTOL)
                || !close_all(&acc_v, &want_v, ACC_RTOL, ACC_RTOL)
            {
                fail(
                    &mut out,
                    format!(
                        "accumulation: {}_vjp into non-zero adjoints {:?} / {:?} gave {acc_s:?} / \
                         {acc_v:?}, expected their sum with {gs:?} / {gv:?}",
                        case.name, p.gs0, p.gv0
                    ),
                );
            }
        }

        if out.fd_checked {
            continue;
        }
        let fd = central_difference(case, &p, FD_STEP);
        let fd_half = central_difference(case, &p, FD_STEP / 2.0);
        let atol = FD_ATOL * yscale;
        if !all_finite(&fd) || !close_all(&fd, &fd_half, FD_RTOL, atol) {
            out.fd_skipped_points += 1;
            continue;
        }
        out.fd_checked = true;
        if let Some(t) = &tangent {
            if !close_all(t, &fd, FD_RTOL, atol) {
                fail(
                    &mut out,
                    format!(
                        "finite differences: forward tangent {t:?}, central difference {fd:?} \
                         (step {FD_STEP:e}; with half the step {fd_half:?})"
                    ),
                );
            }
        }
    }
    out
}

fn run_case(case: &Case, seed: u64) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| check_case(case, seed))) {
        Ok(o) => o,
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "non-string panic".to_string());
            Outcome {
                failures: vec![format!("panicked: {msg}")],
                ..Outcome::default()
            }
        }
    }
}

/// Prints the reports of the failed functions (the first `MAX_DETAILED` in detail) and panics
/// naming them, if any failed: `n of total random functions <what>: names`.
fn fail_on(
    failed: &[(&Case, Vec<String>)],
    sources: &HashMap<&str, &str>,
    total: usize,
    what: &str,
) {
    if failed.is_empty() {
        return;
    }
    let mut msg = String::new();
    for (k, (case, failures)) in failed.iter().enumerate() {
        msg.push_str(&report(case, failures, sources, k < MAX_DETAILED));
        msg.push('\n');
    }
    eprintln!("{msg}");
    let names: Vec<&str> = failed.iter().map(|(c, _)| c.name).collect();
    panic!(
        "{} of {total} random functions {what}: {}",
        failed.len(),
        names.join(" ")
    );
}

fn report(
    case: &Case,
    failures: &[String],
    sources: &HashMap<&str, &str>,
    detailed: bool,
) -> String {
    let mut s = format!(
        "---- {} (seed {:#x}; reproduce with AD_RANDOM_SEED={:#x} AD_RANDOM_ONLY={}) ----\n",
        case.name,
        programs::SEED,
        programs::SEED,
        case.name
    );
    for f in failures {
        s.push_str(&format!("  {f}\n"));
    }
    if detailed {
        s.push_str(&format!("  constructs: {}\n", case.constructs.join(", ")));
        s.push_str("source:\n");
        for h in case.helpers {
            if let Some(src) = sources.get(h) {
                s.push_str(src);
            }
        }
        s.push_str(case.source);
    }
    s
}

#[test]
fn random_programs_agree_with_finite_differences_and_each_other() {
    let cases = programs::cases();
    let seed = programs::SEED;
    let missing: Vec<&str> = programs::CONSTRUCTS
        .iter()
        .filter(|(_, enabled, n)| *enabled && *n == 0)
        .map(|(name, _, _)| *name)
        .collect();
    let sources: HashMap<&str, &str> = cases.iter().map(|c| (c.name, c.source)).collect();

    let mut fd_checked = 0;
    let mut skipped_points = 0;
    let mut failed = Vec::new();
    let mut max_value: f64 = 0.0;
    for case in &cases {
        let o = run_case(case, seed);
        fd_checked += usize::from(o.fd_checked);
        skipped_points += o.fd_skipped_points;
        max_value = max_value.max(o.max_abs_value);
        if !o.failures.is_empty() {
            failed.push((case, o.failures));
        }
    }
    let helpers = cases.iter().filter(|c| c.name.starts_with('h')).count();
    println!(
        "random programs: seed {seed:#x}, {} functions ({} programs, {helpers} helpers){}; \
         finite differences checked {fd_checked}/{} (points skipped as non-smooth: {skipped_points}); \
         largest |value| {max_value:.3e}",
        cases.len(),
        cases.len() - helpers,
        if programs::PRIMAL_ONLY { ", PRIMAL ONLY" } else { "" },
        cases.len(),
    );
    fail_on(
        &failed,
        &sources,
        cases.len(),
        &format!("failed (seed {seed:#x})"),
    );
    assert!(
        missing.is_empty() || !programs::FULL_RUN,
        "enabled constructs never generated (seed {seed:#x}; raise AD_RANDOM_COUNT or disable \
         them with AD_RANDOM_DISABLE): {}",
        missing.join(",")
    );
    assert!(
        fd_checked as f64 >= MIN_FD_FRACTION * cases.len() as f64,
        "only {fd_checked} of {} functions got a finite-difference check",
        cases.len()
    );
}

#[test]
fn generator_is_deterministic() {
    let cfg = gen::Config {
        programs: 30,
        ..gen::Config::default()
    };
    let a = gen::generate(&cfg);
    let b = gen::generate(&cfg);
    assert_eq!(a.source, b.source);
    let other = gen::generate(&gen::Config {
        seed: cfg.seed + 1,
        ..cfg.clone()
    });
    assert_ne!(a.source, other.source);
}

#[test]
fn generator_only_keeps_sources_unchanged() {
    let all = gen::generate(&gen::Config {
        programs: 20,
        ..gen::Config::default()
    });
    let one = gen::generate(&gen::Config {
        programs: 20,
        only: Some(vec!["p013".into()]),
        ..gen::Config::default()
    });
    let find = |g: &gen::Generated| {
        g.functions
            .iter()
            .find(|f| f.name == "p013")
            .map(|f| f.source.clone())
    };
    assert_eq!(find(&all), find(&one));
    assert_eq!(
        one.functions
            .iter()
            .filter(|f| f.name.starts_with('p'))
            .count(),
        1
    );
}

#[test]
fn generator_covers_every_enabled_construct_by_default() {
    let cfg = gen::Config::default();
    let g = gen::generate(&cfg);
    let missing: Vec<&str> = g
        .counts
        .iter()
        .filter(|(c, n)| *n == 0 && cfg.enabled(*c))
        .map(|(c, _)| c.name())
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

#[test]
fn generator_covers_every_construct_when_all_are_enabled() {
    // Also the ones `gen::DEFAULT_DISABLED` keeps off by default (issue 7's idioms).
    let cfg = gen::Config {
        disabled: Vec::new(),
        ..gen::Config::default()
    };
    let g = gen::generate(&cfg);
    let missing: Vec<&str> = g
        .counts
        .iter()
        .filter(|(_, n)| *n == 0)
        .map(|(c, _)| c.name())
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

#[test]
fn generator_respects_disabled_constructs() {
    for &c in gen::Construct::ALL {
        let g = gen::generate(&gen::Config {
            programs: 40,
            disabled: vec![c],
            ..gen::Config::default()
        });
        let n = g.counts.iter().find(|(x, _)| *x == c).map(|(_, n)| *n);
        assert_eq!(n, Some(0), "{} was disabled but generated", c.name());
    }
}

#[test]
fn generator_reads_its_settings_from_the_environment() {
    let env = |name: &str| -> Option<String> {
        match name {
            "AD_RANDOM_SEED" => Some("0x2a".into()),
            "AD_RANDOM_COUNT" => Some("7".into()),
            "AD_RANDOM_DISABLE" => Some("while, loop".into()),
            _ => None,
        }
    };
    let cfg = gen::Config::from_env(env).expect("valid settings");
    assert_eq!(cfg.seed, 42);
    assert_eq!(cfg.programs, 7);
    let mut want = gen::DEFAULT_DISABLED.to_vec();
    want.extend([gen::Construct::While, gen::Construct::Loop]);
    assert_eq!(cfg.disabled, want);
    // `AD_RANDOM_ENABLE` takes a construct off the default-disabled list.
    if let Some(&c) = gen::DEFAULT_DISABLED.first() {
        assert!(!gen::Config::default().enabled(c));
        let cfg = gen::Config::from_env(|n| (n == "AD_RANDOM_ENABLE").then(|| c.name().into()))
            .expect("valid settings");
        assert!(cfg.enabled(c));
    }
    assert!(gen::Config::from_env(|n| (n == "AD_RANDOM_DISABLE").then(|| "whlie".into())).is_err());
    assert!(gen::Config::from_env(|n| (n == "AD_RANDOM_SEED").then(|| "x".into())).is_err());
}
