//! Second order of the random programs: takes the cases that `tests/gen/second.rs` gave
//! adapters of `<f>_grad`, `<f>_hvp` and `<f>_hessian` (functions with `#[differentiate(hvp)]`
//! and a float output), gives one test that checks each of them: the value and gradient of
//! `_hvp` are `_grad`'s, `_hvp` along a random direction matches central differences of
//! `_grad` (second differences, skipped where a kink of the gradient is too close, as the
//! first-order test skips its finite differences), the Hessian is symmetric (`<w, H u> =
//! <u, H w>`), and the columns of `_hessian` are `_hvp` along the unit directions.
//!
//! The flat order is the first-order adapters': the scalar slots, then the slice when the
//! function is differentiated with respect to it.

use super::{
    abs_dot, all_finite, close, close_all, dot, fail_on, max_abs, programs, Case, FD_ATOL, FD_RTOL,
    FD_STEP, MIN_FD_FRACTION, POINTS, VALUE_RTOL,
};
use autodiff_runtime::jacobian::Jacobian;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// `f_grad(scalars, slice, n)` -> (value, gradient's scalar slots, gradient's slice).
pub type Grad = fn(&[f64], &[f64], usize) -> (f64, Vec<f64>, Vec<f64>);
/// `f_hvp(scalars, slice, n, direction's scalar slots, direction's slice)` -> (value, gradient
/// (slots, slice), Hessian times the direction (slots, slice)).
pub type Hvp =
    fn(&[f64], &[f64], usize, &[f64], &[f64]) -> (f64, Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>);
/// `f_hessian(scalars, slice, n)` -> (value, gradient (slots, slice), the Hessian's columns in
/// the flat order).
pub type Hessian = fn(&[f64], &[f64], usize) -> (f64, Vec<f64>, Vec<f64>, Vec<Vec<f64>>);

/// The second-order adapters of one case.
pub struct Second {
    pub grad: Grad,
    pub hvp: Hvp,
    pub hessian: Hessian,
}

/// The Hessian `h` of the function's own arguments as columns in the flat order of size `m`:
/// row and column `i` of `h` land at `at[i]` (several rows land at the same place when several
/// slice parameters get the same slice, and add up).
pub fn fold(h: &Jacobian<f64>, at: &[usize], m: usize) -> Vec<Vec<f64>> {
    assert_eq!(
        (h.rows(), h.cols()),
        (at.len(), at.len()),
        "Hessian of the wrong size"
    );
    let mut cols = vec![vec![0.0; m]; m];
    for (i, &a) in at.iter().enumerate() {
        for (j, &b) in at.iter().enumerate() {
            cols[b][a] += h[(i, j)];
        }
    }
    cols
}

/// Tolerance of `_hvp`'s value and gradient against `_grad`'s, and of `_hessian`'s columns
/// against `_hvp` (the same adjoint program, on `Dual` numbers or not).
const SAME_RTOL: f64 = 1e-12;
/// Relative tolerance of the symmetry test, relative to the sum of the magnitudes of its terms.
const SYM_RTOL: f64 = 1e-9;
/// Absolute floor of the symmetry test.
const SYM_ATOL: f64 = 1e-12;

/// A test point with two directions `u` and `w` (slice parts zero when the slice is inactive).
struct Point {
    n: usize,
    s: Vec<f64>,
    v: Vec<f64>,
    us: Vec<f64>,
    uv: Vec<f64>,
    ws: Vec<f64>,
    wv: Vec<f64>,
}

impl Point {
    fn draw(rng: &mut ChaCha8Rng, case: &Case) -> Point {
        let n = rng.gen_range(crate::gen::N_MIN..=crate::gen::N_MAX);
        let mut vec = |k: usize| -> Vec<f64> { (0..k).map(|_| rng.gen_range(-1.0..1.0)).collect() };
        let (s, v, us, uv, ws, wv) = (
            vec(case.scalars),
            vec(n),
            vec(case.scalars),
            vec(n),
            vec(case.scalars),
            vec(n),
        );
        let active = |t: Vec<f64>| if case.slice_active { t } else { vec![0.0; n] };
        Point {
            n,
            s,
            v,
            us,
            uv: active(uv),
            ws,
            wv: active(wv),
        }
    }

    fn describe(&self) -> String {
        format!(
            "n = {}\n  scalars   = {:?}\n  slice     = {:?}\n  direction = {:?} / {:?}\n  \
             other     = {:?} / {:?}",
            self.n, self.s, self.v, self.us, self.uv, self.ws, self.wv
        )
    }
}

/// What checking one function found.
#[derive(Default)]
struct Outcome {
    fd_checked: bool,
    fd_skipped_points: usize,
    hessian_checked: bool,
    /// Largest symmetry defect as a fraction of its tolerance.
    worst_symmetry: f64,
    failures: Vec<String>,
}

fn cat(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().chain(b).copied().collect()
}

/// Central difference of the gradient along `(ts, tv)` with step `h`, flattened.
fn gradient_difference(sec: &Second, p: &Point, ts: &[f64], tv: &[f64], h: f64) -> Vec<f64> {
    let shift = |x: &[f64], t: &[f64], sign: f64| -> Vec<f64> {
        x.iter().zip(t).map(|(x, t)| x + sign * h * t).collect()
    };
    let (_, ps, pv) = (sec.grad)(&shift(&p.s, ts, 1.0), &shift(&p.v, tv, 1.0), p.n);
    let (_, ms, mv) = (sec.grad)(&shift(&p.s, ts, -1.0), &shift(&p.v, tv, -1.0), p.n);
    cat(&ps, &pv)
        .iter()
        .zip(cat(&ms, &mv))
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect()
}

/// Checks one function's second order at up to `POINTS` points: agreement with `_grad` and
/// symmetry at every point tried, second differences at the first point where those with steps
/// `h` and `h / 2` agree, and `_hessian` at the first point.
fn check_case(case: &Case, sec: &Second, seed: u64) -> Outcome {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Streams of their own: the first-order test's points do not change.
    rng.set_stream(
        case.index
            + if case.name.starts_with('h') {
                2 << 32
            } else {
                3 << 32
            },
    );
    let mut out = Outcome::default();
    for point in 0..POINTS {
        let p = Point::draw(&mut rng, case);
        let fail = |out: &mut Outcome, what: String| {
            out.failures
                .push(format!("second order: {what}\n  at {}", p.describe()))
        };
        let (y, gs, gv) = (sec.grad)(&p.s, &p.v, p.n);
        let g = cat(&gs, &gv);
        let gscale = 1.0 + max_abs(&g);
        let (yu, gus, guv, hus, huv) = (sec.hvp)(&p.s, &p.v, p.n, &p.us, &p.uv);
        let (yw, gws, gwv, hws, hwv) = (sec.hvp)(&p.s, &p.v, p.n, &p.ws, &p.wv);
        for (yh, gh) in [(yu, cat(&gus, &guv)), (yw, cat(&gws, &gwv))] {
            if !close(yh, y, VALUE_RTOL, VALUE_RTOL)
                || !close_all(&gh, &g, SAME_RTOL, SAME_RTOL * gscale)
            {
                fail(
                    &mut out,
                    format!(
                        "{}_hvp gave value {yh:e} and gradient {gh:?}, {}_grad {y:e} and {g:?}",
                        case.name, case.name
                    ),
                );
                return out;
            }
        }
        let (hu, hw) = (cat(&hus, &huv), cat(&hws, &hwv));
        if !all_finite(&hu) || !all_finite(&hw) {
            fail(
                &mut out,
                format!("Hessian times a direction not finite: {hu:?}, {hw:?}"),
            );
            return out;
        }
        let (u, w) = (cat(&p.us, &p.uv), cat(&p.ws, &p.wv));
        let (lhs, rhs) = (dot(&w, &hu), dot(&u, &hw));
        let scale = abs_dot(&w, &hu) + abs_dot(&u, &hw);
        let (defect, tol) = ((lhs - rhs).abs(), SYM_RTOL * scale + SYM_ATOL);
        out.worst_symmetry = out.worst_symmetry.max(defect / tol);
        if defect > tol {
            fail(
                &mut out,
                format!(
                    "symmetry: <w, H u> = {lhs:e} but <u, H w> = {rhs:e} (difference {defect:e}, \
                     scale {scale:e})\n  H u = {hu:?}\n  H w = {hw:?}"
                ),
            );
        }
        if point == 0 {
            check_hessian(case, sec, &p, (y, &g), &mut out);
        }
        if out.fd_checked {
            continue;
        }
        let fd = gradient_difference(sec, &p, &p.us, &p.uv, FD_STEP);
        let fd_half = gradient_difference(sec, &p, &p.us, &p.uv, FD_STEP / 2.0);
        let atol = FD_ATOL * gscale;
        if !all_finite(&fd) || !close_all(&fd, &fd_half, FD_RTOL, atol) {
            out.fd_skipped_points += 1;
            continue;
        }
        out.fd_checked = true;
        if !close_all(&hu, &fd, FD_RTOL, atol) {
            fail(
                &mut out,
                format!(
                    "second differences: Hessian times the direction {hu:?}, central difference \
                     of the gradient {fd:?} (step {FD_STEP:e}; with half the step {fd_half:?})"
                ),
            );
        }
    }
    out
}

/// `_hessian`'s value and gradient are `_grad`'s, its columns `_hvp` along the unit directions.
fn check_hessian(case: &Case, sec: &Second, p: &Point, (y, g): (f64, &[f64]), out: &mut Outcome) {
    let (yh, hs, hv, cols) = (sec.hessian)(&p.s, &p.v, p.n);
    let gh = cat(&hs, &hv);
    let gscale = 1.0 + max_abs(g);
    let mut fails = Vec::new();
    if !close(yh, y, VALUE_RTOL, VALUE_RTOL) || !close_all(&gh, g, SAME_RTOL, SAME_RTOL * gscale) {
        fails.push(format!(
            "{}_hessian gave value {yh:e} and gradient {gh:?}, {}_grad {y:e} and {g:?}",
            case.name, case.name
        ));
    }
    let m = case.scalars + if case.slice_active { p.n } else { 0 };
    if cols.len() != m {
        fails.push(format!(
            "{}_hessian has {} columns, not {m}",
            case.name,
            cols.len()
        ));
    }
    for (j, col) in cols.iter().enumerate().take(m) {
        let mut es = vec![0.0; case.scalars];
        let mut ev = vec![0.0; p.n];
        if j < case.scalars {
            es[j] = 1.0;
        } else {
            ev[j - case.scalars] = 1.0;
        }
        let (_, _, _, hs, hv) = (sec.hvp)(&p.s, &p.v, p.n, &es, &ev);
        let hj = cat(&hs, &hv);
        let hscale = 1.0 + max_abs(&hj);
        if !close_all(col, &hj[..m], SAME_RTOL, SAME_RTOL * hscale) {
            fails.push(format!(
                "column {j} of {}_hessian is {col:?}, {}_hvp along it {:?}",
                case.name,
                case.name,
                &hj[..m]
            ));
        }
    }
    out.hessian_checked = true;
    for f in fails {
        out.failures
            .push(format!("second order: {f}\n  at {}", p.describe()));
    }
}

fn run_case(case: &Case, sec: &Second, seed: u64) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| check_case(case, sec, seed))) {
        Ok(o) => o,
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "non-string panic".to_string());
            Outcome {
                failures: vec![format!("second order: panicked: {msg}")],
                ..Outcome::default()
            }
        }
    }
}

#[test]
fn random_programs_hessian_vector_products_agree_with_second_differences() {
    let cases = programs::cases();
    let seed = programs::SEED;
    let sources: HashMap<&str, &str> = cases.iter().map(|c| (c.name, c.source)).collect();
    let checked: Vec<(&Case, &Second)> = cases
        .iter()
        .filter_map(|c| c.second.as_ref().map(|s| (c, s)))
        .collect();
    let (mut fd_checked, mut skipped, mut hessians) = (0, 0, 0);
    let mut worst: f64 = 0.0;
    let mut failed = Vec::new();
    for &(case, sec) in &checked {
        let o = run_case(case, sec, seed);
        fd_checked += usize::from(o.fd_checked);
        hessians += usize::from(o.hessian_checked);
        skipped += o.fd_skipped_points;
        worst = worst.max(o.worst_symmetry);
        if !o.failures.is_empty() {
            failed.push((case, o.failures));
        }
    }
    println!(
        "random programs, second order: seed {seed:#x}, hvp share {}, {} of {} functions checked; \
         second differences checked {fd_checked} (points skipped as non-smooth: {skipped}); \
         Hessians checked {hessians}; largest symmetry defect {worst:.1e} of its tolerance",
        programs::HVP,
        checked.len(),
        cases.len()
    );
    fail_on(
        &failed,
        &sources,
        checked.len(),
        &format!("failed their second-order checks (seed {seed:#x})"),
    );
    assert!(
        programs::HVP == 0.0 || programs::PRIMAL_ONLY || !checked.is_empty(),
        "no function got second-order adapters"
    );
    assert!(
        fd_checked as f64 >= MIN_FD_FRACTION * checked.len() as f64,
        "only {fd_checked} of {} functions got a second-difference check",
        checked.len()
    );
}

/// Whether a generated function's source has `hvp` in its attribute.
fn has_hvp(source: &str) -> bool {
    source
        .lines()
        .next()
        .is_some_and(|a| a.starts_with("#[differentiate") && a.contains("hvp"))
}

#[test]
fn generator_gives_hvp_to_the_share_of_programs_asked_for_and_only_where_supported() {
    let with = |hvp: f64| {
        crate::gen::generate(&crate::gen::Config {
            programs: 120,
            hvp,
            ..crate::gen::Config::default()
        })
    };
    let count = |g: &crate::gen::Generated| {
        g.functions
            .iter()
            .filter(|f| f.name.starts_with('p') && has_hvp(&f.source))
            .count()
    };
    let (none, half, all) = (with(0.0), with(0.5), with(1.0));
    assert_eq!(count(&none), 0);
    assert!(none.functions.iter().all(|f| !has_hvp(&f.source)));
    assert!(
        0 < count(&half) && count(&half) < count(&all),
        "{} {}",
        count(&half),
        count(&all)
    );
    for f in all.functions.iter().filter(|f| has_hvp(&f.source)) {
        let bad: Vec<_> = f
            .constructs
            .iter()
            .filter(|c| crate::gen::second::UNSUPPORTED.contains(c))
            .collect();
        assert!(bad.is_empty(), "{} has hvp and {bad:?}", f.name);
    }
    // Sources differ only in their attributes.
    for (a, b) in none.functions.iter().zip(&all.functions) {
        let body = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
        assert_eq!(body(&a.source), body(&b.source), "{}", a.name);
    }
}

#[test]
fn generator_reads_the_hvp_share_from_the_environment() {
    let read = |v: &str| {
        crate::gen::Config::from_env(|n| (n == "AD_RANDOM_HVP").then(|| v.to_string()))
            .map(|c| c.hvp)
    };
    assert_eq!(read("0"), Ok(0.0));
    assert_eq!(read("off"), Ok(0.0));
    assert_eq!(read("1"), Ok(1.0));
    assert_eq!(read("0.25"), Ok(0.25));
    assert!(read("2").is_err());
    assert!(read("most").is_err());
}
