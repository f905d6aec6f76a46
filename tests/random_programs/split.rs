//! Split mode of the random programs: takes the cases that `tests/gen/split.rs` gave an adapter
//! of `<f>_vjp_split` (functions with `#[differentiate(split)]`), gives one test that checks
//! each of them: the value is the function's, and the pullback of one forward sweep, called
//! with seeds `c1`, `c2` and `c1` again (fresh zero buffers each time), gives what `<f>_vjp`
//! gives for each seed, to rounding (the same adjoint program, cut in two).

use super::{close, fail_on, max_abs, programs, Case, POINTS, VALUE_RTOL};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// `f_vjp_split(scalars, slice, n)` with its pullback applied to each seed of `cs` in turn ->
/// (value, and per seed the adjoints (scalar slots, slice) it added into zero buffers),
/// flattened like the first-order adapters.
pub type Split = fn(&[f64], &[f64], usize, &[&[f64]]) -> (Vec<f64>, Vec<(Vec<f64>, Vec<f64>)>);

/// Tolerance of the pullback's adjoints against `_vjp`'s, relative to the larger of the two
/// and, as a floor, to the largest adjoint of that call.
const SAME_RTOL: f64 = 1e-12;

/// Checks one function's pullback at `POINTS` points.
fn check_case(case: &Case, split: Split, seed: u64) -> Vec<String> {
    let vjp = case
        .vjp
        .expect("a function with split mode has a vjp adapter");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Streams of their own: the first- and second-order tests' points do not change.
    rng.set_stream(
        case.index
            + if case.name.starts_with('h') {
                4 << 32
            } else {
                5 << 32
            },
    );
    let mut failures = Vec::new();
    for _ in 0..POINTS {
        let n = rng.gen_range(crate::gen::N_MIN..=crate::gen::N_MAX);
        let mut vec = |k: usize| -> Vec<f64> { (0..k).map(|_| rng.gen_range(-1.0..1.0)).collect() };
        let (s, v) = (vec(case.scalars), vec(n));
        let (c1, c2) = (vec(case.outputs), vec(case.outputs));
        let at = format!(
            "\n  at n = {n}\n  scalars = {s:?}\n  slice   = {v:?}\n  seeds   = {c1:?}, {c2:?}"
        );
        let y = (case.primal)(&s, &v, n);
        let (ys, adj) = split(&s, &v, n, &[&c1, &c2, &c1]);
        if ys.len() != y.len()
            || !ys
                .iter()
                .zip(&y)
                .all(|(a, b)| close(*a, *b, VALUE_RTOL, VALUE_RTOL))
        {
            failures.push(format!(
                "split: {}_vjp_split returned the value {ys:?}, the function {y:?}{at}",
                case.name
            ));
            return failures;
        }
        for (k, (c, (gs, gv))) in [&c1, &c2, &c1].into_iter().zip(&adj).enumerate() {
            let (mut es, mut ev) = (vec![0.0; case.scalars], vec![0.0; n]);
            vjp(&s, &v, n, &mut es, &mut ev, c);
            let scale = max_abs(&es).max(max_abs(&ev));
            let same = |a: &[f64], b: &[f64]| {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| close(*x, *y, SAME_RTOL, SAME_RTOL * scale))
            };
            if !same(gs, &es) || !same(gv, &ev) {
                failures.push(format!(
                    "split: call {} of the pullback (seed {c:?}) added {gs:?} / {gv:?}, \
                     {}_vjp {es:?} / {ev:?}{at}",
                    k + 1,
                    case.name
                ));
                return failures;
            }
        }
    }
    failures
}

fn run_case(case: &Case, split: Split, seed: u64) -> Vec<String> {
    match catch_unwind(AssertUnwindSafe(|| check_case(case, split, seed))) {
        Ok(f) => f,
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "non-string panic".to_string());
            vec![format!("split: panicked: {msg}")]
        }
    }
}

#[test]
fn random_programs_pullbacks_of_split_mode_equal_vjp_seed_by_seed() {
    let cases = programs::cases();
    let seed = programs::SEED;
    let sources: HashMap<&str, &str> = cases.iter().map(|c| (c.name, c.source)).collect();
    let checked: Vec<(&Case, Split)> = cases
        .iter()
        .filter_map(|c| c.split.map(|s| (c, s)))
        .collect();
    let mut failed = Vec::new();
    for &(case, split) in &checked {
        let f = run_case(case, split, seed);
        if !f.is_empty() {
            failed.push((case, f));
        }
    }
    println!(
        "random programs, split mode: seed {seed:#x}, split share {}, {} of {} functions checked",
        programs::SPLIT,
        checked.len(),
        cases.len()
    );
    fail_on(
        &failed,
        &sources,
        checked.len(),
        &format!("failed their split-mode checks (seed {seed:#x})"),
    );
    assert!(
        programs::SPLIT == 0.0 || programs::PRIMAL_ONLY || !checked.is_empty(),
        "no function got a split-mode adapter"
    );
}

#[test]
fn generator_gives_split_to_the_share_of_programs_asked_for_and_only_where_supported() {
    use crate::gen::split::has_split;
    let with = |split: f64| {
        crate::gen::generate(&crate::gen::Config {
            programs: 120,
            split,
            ..crate::gen::Config::default()
        })
    };
    let count = |g: &crate::gen::Generated| {
        g.functions
            .iter()
            .filter(|f| f.name.starts_with('p') && has_split(&f.source))
            .count()
    };
    let (none, half, all) = (with(0.0), with(0.5), with(1.0));
    assert_eq!(count(&none), 0);
    assert!(none.functions.iter().all(|f| !has_split(&f.source)));
    assert!(
        0 < count(&half) && count(&half) < count(&all),
        "{} {}",
        count(&half),
        count(&all)
    );
    // What split mode refuses never gets it: `&mut` arguments, `()` outputs, structs, arrays
    // of arrays (read off the signature line).
    for f in all.functions.iter().filter(|f| has_split(&f.source)) {
        let sig = f.source.lines().nth(1).unwrap_or("");
        let bad = sig.contains("&mut")
            || !sig.contains("->")
            || sig.contains("[[")
            || sig.contains("self")
            || sig.contains("st: ");
        assert!(!bad, "{} has split: {sig}", f.name);
    }
    // Sources differ only in their attributes.
    for (a, b) in none.functions.iter().zip(&all.functions) {
        let body = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
        assert_eq!(body(&a.source), body(&b.source), "{}", a.name);
    }
}

#[test]
fn generator_reads_the_split_share_from_the_environment() {
    let read = |v: &str| {
        crate::gen::Config::from_env(|n| (n == "AD_RANDOM_SPLIT").then(|| v.to_string()))
            .map(|c| c.split)
    };
    assert_eq!(read("0"), Ok(0.0));
    assert_eq!(read("off"), Ok(0.0));
    assert_eq!(read("1"), Ok(1.0));
    assert_eq!(read("0.25"), Ok(0.25));
    assert!(read("2").is_err());
    assert!(read("most").is_err());
}
