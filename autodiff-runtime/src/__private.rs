//! The only path generated code names: takes values of the user's float types, gives the helpers
//! emitters call (zeros shaped like a value, re-exports of the rule table and `Dual`).
//! Not a public API: it may change in any release together with the macro.

pub use crate::dual::Dual;
pub use crate::rules;
pub use num_traits::Float;

/// Zero of a float type, inferred from use.
#[inline(always)]
pub fn zero<T: Float>() -> T {
    T::zero()
}

/// Zero of the same type as `_x`.
#[inline(always)]
pub fn zero_like<T: Float>(_x: &T) -> T {
    T::zero()
}

/// A vector of zeros as long as `v`.
#[inline]
pub fn zeros_like_slice<T: Float>(v: &[T]) -> Vec<T> {
    vec![T::zero(); v.len()]
}

/// An array of zeros shaped like `_a`.
#[inline(always)]
pub fn zeros_like_array<T: Float, const N: usize>(_a: &[T; N]) -> [T; N] {
    [T::zero(); N]
}

/// One of a float type, inferred from use (the seed of `_grad`).
#[inline(always)]
pub fn one<T: Float>() -> T {
    T::one()
}
