//! Shared test helpers: takes float functions and points, gives accurate finite differences and
//! comparisons with readable failure messages.
#![allow(dead_code)]

use num_traits::Float;
use std::fmt::Debug;

/// A float type under test, with the tolerances its finite differences can meet.
pub trait TestFloat: Float + Debug + 'static {
    const NAME: &'static str;
    /// (rtol, atol) for a rule against a five-point central difference in this type.
    const FD_TOL: (f64, f64);
}

impl TestFloat for f64 {
    const NAME: &'static str = "f64";
    const FD_TOL: (f64, f64) = (1e-8, 1e-10);
}

impl TestFloat for f32 {
    const NAME: &'static str = "f32";
    const FD_TOL: (f64, f64) = (1e-3, 1e-4);
}

/// `v` as `T`.
pub fn c<T: Float>(v: f64) -> T {
    T::from(v).unwrap()
}

/// Five-point central difference `(8 (f(x+h) - f(x-h)) - (f(x+2h) - f(x-2h))) / 12h`, error
/// `O(h⁴)`, with `h = ε^(1/5) max(1, |x|)` rounded so that `x ± h` are exact.
pub fn fd<T: Float>(f: impl Fn(T) -> T, x: T) -> T {
    let h0 = T::epsilon().powf(c(0.2)) * x.abs().max(T::one());
    let h = (x + h0) - x;
    let h2 = h + h;
    (c::<T>(8.0) * (f(x + h) - f(x - h)) - (f(x + h2) - f(x - h2))) / (c::<T>(12.0) * h)
}

/// Whether `|got - want| <= atol + rtol max(|got|, |want|)` (equal infinities are close).
pub fn close<T: Float>(got: T, want: T, rtol: f64, atol: f64) -> bool {
    got == want || (got - want).abs() <= c::<T>(atol) + c::<T>(rtol) * got.abs().max(want.abs())
}

/// Asserts [`close`], naming what was compared.
#[track_caller]
pub fn assert_close<T: Float + Debug>(what: &str, got: T, want: T, rtol: f64, atol: f64) {
    assert!(
        close(got, want, rtol, atol),
        "{what}: got {got:?}, want {want:?} (rtol {rtol:e}, atol {atol:e})"
    );
}

/// Asserts that two floats are the same value (NaNs of any payload count as equal, `0 == -0`).
#[track_caller]
pub fn assert_same<T: Float + Debug>(what: &str, got: T, want: T) {
    assert!(
        got == want || (got.is_nan() && want.is_nan()),
        "{what}: got {got:?}, want {want:?}"
    );
}
