//! Gradient checks: takes a function, a point, directions and claimed derivatives, gives central
//! finite differences, tolerance comparisons and the dot-product test of forward against reverse
//! mode.
//!
//! A typical check of a forward-mode derivative (`jvp`) and a reverse-mode one (`vjp`):
//!
//! ```
//! use autodiff_runtime::check::{check_jvp_fd, dot_product_test};
//!
//! // f(x) = (x0 x1, sin x0), with hand-written derivatives.
//! let f = |x: &[f64]| vec![x[0] * x[1], x[0].sin()];
//! let jvp = |x: &[f64], t: &[f64]| vec![x[1] * t[0] + x[0] * t[1], x[0].cos() * t[0]];
//! let vjp = |x: &[f64], c: &[f64]| vec![x[1] * c[0] + x[0].cos() * c[1], x[0] * c[0]];
//!
//! let (x, t, c) = ([0.7, -1.3], [0.3, 0.9], [1.1, -0.4]);
//! check_jvp_fd(f, &x, &t, &jvp(&x, &t), 1e-7, 1e-9).unwrap();
//! dot_product_test(&jvp(&x, &t), &c, &t, &vjp(&x, &c), 1e-12).unwrap();
//! ```

use num_traits::Float;

/// Shows a value in an error message.
fn show<T: Float>(v: T) -> String {
    match v.to_f64() {
        Some(v) => format!("{v:e}"),
        None => "(not representable as f64)".to_string(),
    }
}

/// `x + s dir`, elementwise.
fn shifted<T: Float>(x: &[T], dir: &[T], s: T) -> Vec<T> {
    x.iter().zip(dir).map(|(&xi, &di)| xi + s * di).collect()
}

/// Central difference of a vector function along `dir`: `(f(x + h dir) - f(x - h dir)) / 2h`,
/// an approximation of the Jacobian-vector product `J(x) dir` with error `O(h²)`.
///
/// ```
/// use autodiff_runtime::check::{central_difference, default_step};
///
/// let f = |x: &[f64]| vec![x[0] * x[1], x[1].exp()];
/// let d = central_difference(f, &[2.0, 0.5], &[1.0, 0.0], default_step());
/// assert!((d[0] - 0.5).abs() < 1e-9 && d[1].abs() < 1e-12);
/// ```
///
/// # Panics
///
/// If `x` and `dir` differ in length, or `f` returns vectors of different lengths at the two
/// points.
pub fn central_difference<T: Float, F: FnMut(&[T]) -> Vec<T>>(
    mut f: F,
    x: &[T],
    dir: &[T],
    h: T,
) -> Vec<T> {
    assert_eq!(
        x.len(),
        dir.len(),
        "central_difference: x and dir differ in length"
    );
    let plus = f(&shifted(x, dir, h));
    let minus = f(&shifted(x, dir, -h));
    assert_eq!(
        plus.len(),
        minus.len(),
        "central_difference: f returned vectors of different lengths"
    );
    let two_h = h + h;
    plus.iter()
        .zip(&minus)
        .map(|(&p, &m)| (p - m) / two_h)
        .collect()
}

/// Central difference of a scalar function along `dir`: `(f(x + h dir) - f(x - h dir)) / 2h`,
/// an approximation of the directional derivative `∇f(x) · dir`.
///
/// ```
/// use autodiff_runtime::check::{central_difference_scalar, default_step};
///
/// let f = |x: &[f32]| x[0] * x[0];
/// let d = central_difference_scalar(f, &[3.0], &[1.0], default_step());
/// assert!((d - 6.0).abs() < 1e-3);
/// ```
///
/// # Panics
///
/// If `x` and `dir` differ in length.
pub fn central_difference_scalar<T: Float, F: FnMut(&[T]) -> T>(
    mut f: F,
    x: &[T],
    dir: &[T],
    h: T,
) -> T {
    assert_eq!(
        x.len(),
        dir.len(),
        "central_difference_scalar: x and dir differ in length"
    );
    let plus = f(&shifted(x, dir, h));
    let minus = f(&shifted(x, dir, -h));
    (plus - minus) / (h + h)
}

/// A step for central differences at inputs of magnitude about 1: `cbrt(3 ε)` with `ε` the
/// machine epsilon (about `8.7e-6` for f64, `7.1e-3` for f32), which balances the `O(h²)`
/// truncation error against the `O(ε / h)` rounding error. Scale it by the magnitude of the
/// input for large inputs (as [`check_jvp_fd`] does).
pub fn default_step<T: Float>() -> T {
    (T::epsilon() * (T::one() + T::one() + T::one())).cbrt()
}

/// The dot product `Σ a_i b_i`.
///
/// # Panics
///
/// If `a` and `b` differ in length.
pub fn dot<T: Float>(a: &[T], b: &[T]) -> T {
    assert_eq!(a.len(), b.len(), "dot: a and b differ in length");
    a.iter().zip(b).fold(T::zero(), |s, (&ai, &bi)| s + ai * bi)
}

/// Whether `|a - b| <= atol + rtol * max(|a|, |b|)`. Equal values (infinities of the same sign
/// included) are close; NaN is close to nothing.
///
/// ```
/// use autodiff_runtime::check::close;
///
/// assert!(close(1.0, 1.0 + 1e-12, 1e-10, 0.0));
/// assert!(!close(1.0, 1.1, 1e-10, 1e-3));
/// assert!(!close(f64::NAN, f64::NAN, 1.0, 1.0));
/// ```
pub fn close<T: Float>(a: T, b: T, rtol: T, atol: T) -> bool {
    if a == b {
        return true;
    }
    // Unequal infinities (or an infinity and a finite value) would pass `inf <= inf` below.
    a.is_finite() && b.is_finite() && (a - b).abs() <= atol + rtol * a.abs().max(b.abs())
}

/// [`close`] for every pair `a[i]`, `b[i]`. On failure the message names the worst index (the
/// largest error relative to its tolerance; NaN counts as worst) with both values.
///
/// ```
/// use autodiff_runtime::check::all_close;
///
/// assert!(all_close(&[1.0, 2.0], &[1.0, 2.0 + 1e-13], 1e-10, 0.0).is_ok());
/// let err = all_close(&[1.0, 2.0, 3.0], &[1.0, 2.5, 3.1], 1e-10, 0.0).unwrap_err();
/// assert!(err.contains("index 1"), "{err}");
/// ```
pub fn all_close<T: Float>(a: &[T], b: &[T], rtol: T, atol: T) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("length mismatch: {} vs {}", a.len(), b.len()));
    }
    // (index, error / tolerance) of the worst failing pair.
    let mut worst: Option<(usize, T)> = None;
    for (i, (&ai, &bi)) in a.iter().zip(b).enumerate() {
        if close(ai, bi, rtol, atol) {
            continue;
        }
        let tol = atol + rtol * ai.abs().max(bi.abs());
        let ratio = (ai - bi).abs() / tol;
        let ratio = if ratio.is_nan() { T::infinity() } else { ratio };
        if worst.is_none_or(|(_, w)| ratio > w) {
            worst = Some((i, ratio));
        }
    }
    match worst {
        None => Ok(()),
        Some((i, _)) => {
            let failing = a
                .iter()
                .zip(b)
                .filter(|&(&ai, &bi)| !close(ai, bi, rtol, atol))
                .count();
            Err(format!(
                "{failing} of {} values differ; worst at index {i}: {} vs {} (|diff| {} > atol {} + rtol {} * {})",
                a.len(),
                show(a[i]),
                show(b[i]),
                show((a[i] - b[i]).abs()),
                show(atol),
                show(rtol),
                show(a[i].abs().max(b[i].abs())),
            ))
        }
    }
}

/// The dot-product test of a forward-mode against a reverse-mode derivative: checks
/// `<J t, c> == <t, Jᵀ c>` given `jt = J t` (output space), a cotangent `c` (output space), the
/// tangent `t` (input space) and `jtc = Jᵀ c` (input space).
///
/// The two sides must agree within `rtol` times the magnitude of the terms,
/// `max(Σ |jt_i c_i|, Σ |t_i jtc_i|)`, so cancellation in the sums does not make the test
/// fail spuriously or pass vacuously.
///
/// ```
/// use autodiff_runtime::check::dot_product_test;
///
/// // J = [[1, 2], [3, 4]].
/// let (t, c) = ([1.0, -1.0], [0.5, 2.0]);
/// let jt = [1.0 * t[0] + 2.0 * t[1], 3.0 * t[0] + 4.0 * t[1]];
/// let jtc = [1.0 * c[0] + 3.0 * c[1], 2.0 * c[0] + 4.0 * c[1]];
/// assert!(dot_product_test(&jt, &c, &t, &jtc, 1e-14).is_ok());
/// // A wrong transpose (J itself instead of Jᵀ) fails.
/// let wrong = [1.0 * c[0] + 2.0 * c[1], 3.0 * c[0] + 4.0 * c[1]];
/// assert!(dot_product_test(&jt, &c, &t, &wrong, 1e-14).is_err());
/// ```
pub fn dot_product_test<T: Float>(
    jt: &[T],
    c: &[T],
    t: &[T],
    jtc: &[T],
    rtol: T,
) -> Result<(), String> {
    if jt.len() != c.len() {
        return Err(format!(
            "output-space length mismatch: J t has {} entries, c has {}",
            jt.len(),
            c.len()
        ));
    }
    if t.len() != jtc.len() {
        return Err(format!(
            "input-space length mismatch: t has {} entries, J^T c has {}",
            t.len(),
            jtc.len()
        ));
    }
    let lhs = dot(jt, c);
    let rhs = dot(t, jtc);
    let abs_dot = |a: &[T], b: &[T]| {
        a.iter()
            .zip(b)
            .fold(T::zero(), |s, (&ai, &bi)| s + (ai * bi).abs())
    };
    let scale = abs_dot(jt, c).max(abs_dot(t, jtc));
    if lhs == rhs || (lhs - rhs).abs() <= rtol * scale {
        Ok(())
    } else {
        Err(format!(
            "dot-product test failed: <J t, c> = {} but <t, J^T c> = {} (|diff| {} > rtol {} * scale {})",
            show(lhs),
            show(rhs),
            show((lhs - rhs).abs()),
            show(rtol),
            show(scale),
        ))
    }
}

/// Checks a claimed Jacobian-vector product `jvp = J(x) dir` against a central difference of
/// `f` along `dir`, with [`all_close`]`(jvp, fd, rtol, atol)`.
///
/// The step is [`default_step`] scaled by `max(1, max |x_i|) / max |dir_i|`, so the points
/// `x ± h dir` move by about `default_step` relative to `x`. The tolerances must allow for the
/// finite difference's own error: about `1e-7` relative is realistic in f64, `1e-2` in f32.
///
/// # Panics
///
/// If `x` and `dir` differ in length.
pub fn check_jvp_fd<T: Float, F: FnMut(&[T]) -> Vec<T>>(
    f: F,
    x: &[T],
    dir: &[T],
    jvp: &[T],
    rtol: T,
    atol: T,
) -> Result<(), String> {
    let max_abs = |v: &[T]| v.iter().fold(T::zero(), |m, &vi| m.max(vi.abs()));
    let dir_scale = max_abs(dir);
    let h = if dir_scale > T::zero() {
        default_step::<T>() * max_abs(x).max(T::one()) / dir_scale
    } else {
        default_step()
    };
    let fd = central_difference(f, x, dir, h);
    all_close(jvp, &fd, rtol, atol).map_err(|e| format!("jvp vs central difference: {e}"))
}
