//! Second order by forward over reverse: takes the values `<f>_hvp` and `<f>_hessian` handle
//! (floats, arrays, slices and `Vec`s of them), gives them lifted to [`Dual`] numbers and back.
//!
//! `#[differentiate(hvp)]` writes, next to the usual companions, a copy of the function that is
//! generic over its float type (`<f>_generic`) and that copy's reverse mode
//! (`<f>_generic_vjp`). `<f>_hvp` runs that reverse mode once on `Dual` numbers: each input is
//! `Dual::new(x, direction)`, the seed is `Dual::new(1, 0)`, so the adjoint buffers come back
//! holding the gradient in their real parts and the Hessian times the direction in their
//! tangent parts. The tangent is carried through the generated adjoint program (its saves,
//! restores and partials), not through a nested `Dual` evaluation of the function.
//!
//! ```
//! use autodiff_runtime::differentiate;
//!
//! #[differentiate(hvp)]
//! fn energy(x: &[f64]) -> f64 {
//!     let mut e = 0.0;
//!     for i in 1..x.len() {
//!         e += (x[i] - x[i - 1]).powi(2) * x[i];
//!     }
//!     e
//! }
//!
//! // Value, gradient and the Hessian times the direction [1, 0, 0].
//! let (value, grad, hv) = energy_hvp(&[1.0, 2.0, 4.0], &[1.0, 0.0, 0.0]);
//! assert_eq!(value, 1.0 * 2.0 + 4.0 * 4.0);
//! assert_eq!(grad.x[0], -2.0 * (2.0 - 1.0) * 2.0);
//! assert_eq!(hv.x, vec![2.0 * 2.0, -2.0 * 2.0 - 2.0 * 1.0, 0.0]);
//!
//! // The dense Hessian: one `_hvp` per column.
//! let (_, _, h) = energy_hessian(&[1.0, 2.0, 4.0]);
//! assert_eq!(h[(0, 1)], h[(1, 0)]);
//! ```

use crate::dual::Dual;
use num_traits::{Float, NumCast, ToPrimitive};

/// A value whose scalars are lifted to `Dual<T>`: `lift(x, t)` pairs each scalar of `x` with the
/// matching scalar of `t`.
pub trait Lift<T: Float> {
    /// The same value on `Dual<T>` (a slice becomes a `Vec`).
    type Lifted;
    /// Each scalar `x` paired with the tangent `t` at the same place.
    ///
    /// # Panics
    ///
    /// When a slice and its tangent differ in length.
    fn lift(&self, tangent: &Self) -> Self::Lifted;
    /// Each scalar with a zero tangent (a constant of the lifted program).
    fn lift_const(&self) -> Self::Lifted;
}

impl<T: Float> Lift<T> for T {
    type Lifted = Dual<T>;
    #[inline]
    fn lift(&self, tangent: &T) -> Dual<T> {
        Dual::new(*self, *tangent)
    }
    #[inline]
    fn lift_const(&self) -> Dual<T> {
        Dual::new(*self, T::zero())
    }
}

impl<T: Float, const N: usize> Lift<T> for [T; N] {
    type Lifted = [Dual<T>; N];
    #[inline]
    fn lift(&self, tangent: &[T; N]) -> [Dual<T>; N] {
        std::array::from_fn(|i| Dual::new(self[i], tangent[i]))
    }
    #[inline]
    fn lift_const(&self) -> [Dual<T>; N] {
        self.map(|x| Dual::new(x, T::zero()))
    }
}

impl<T: Float> Lift<T> for [T] {
    type Lifted = Vec<Dual<T>>;
    #[track_caller]
    fn lift(&self, tangent: &[T]) -> Vec<Dual<T>> {
        assert_eq!(
            self.len(),
            tangent.len(),
            "a direction of length {} for an argument of length {}",
            tangent.len(),
            self.len()
        );
        self.iter()
            .zip(tangent)
            .map(|(&x, &t)| Dual::new(x, t))
            .collect()
    }
    fn lift_const(&self) -> Vec<Dual<T>> {
        self.iter().map(|&x| Dual::new(x, T::zero())).collect()
    }
}

impl<T: Float> Lift<T> for Vec<T> {
    type Lifted = Vec<Dual<T>>;
    #[track_caller]
    fn lift(&self, tangent: &Vec<T>) -> Vec<Dual<T>> {
        self[..].lift(&tangent[..])
    }
    fn lift_const(&self) -> Vec<Dual<T>> {
        self[..].lift_const()
    }
}

/// A lifted value split into its real parts and its tangent parts.
pub trait Unlift<T: Float> {
    /// The value on `T` (a slice's parts are `Vec`s).
    type Parts;
    /// `(real parts, tangent parts)`.
    fn unlift(&self) -> (Self::Parts, Self::Parts);
}

impl<T: Float> Unlift<T> for Dual<T> {
    type Parts = T;
    #[inline]
    fn unlift(&self) -> (T, T) {
        (self.re, self.eps)
    }
}

impl<T: Float, const N: usize> Unlift<T> for [Dual<T>; N] {
    type Parts = [T; N];
    #[inline]
    fn unlift(&self) -> ([T; N], [T; N]) {
        (self.map(|d| d.re), self.map(|d| d.eps))
    }
}

impl<T: Float> Unlift<T> for [Dual<T>] {
    type Parts = Vec<T>;
    fn unlift(&self) -> (Vec<T>, Vec<T>) {
        (
            self.iter().map(|d| d.re).collect(),
            self.iter().map(|d| d.eps).collect(),
        )
    }
}

impl<T: Float> Unlift<T> for Vec<Dual<T>> {
    type Parts = Vec<T>;
    fn unlift(&self) -> (Vec<T>, Vec<T>) {
        self[..].unlift()
    }
}

/// `x` paired with the direction `t`, scalar by scalar.
#[inline]
#[track_caller]
pub fn lift<T: Float, V: Lift<T> + ?Sized>(x: &V, t: &V) -> V::Lifted {
    x.lift(t)
}

/// `x` with a zero direction: an argument the function is not differentiated by.
#[inline]
pub fn lift_const<T: Float, V: Lift<T> + ?Sized>(x: &V) -> V::Lifted {
    x.lift_const()
}

/// `(real parts, tangent parts)` of a lifted value.
#[inline]
pub fn unlift<T: Float, V: Unlift<T> + ?Sized>(v: &V) -> (V::Parts, V::Parts) {
    v.unlift()
}

/// A constant of the generic copy (a literal, `f64::consts::PI`, a value computed without
/// derivative) in its float type `S`.
///
/// # Panics
///
/// When `S` cannot represent `c` (never for `f32`, `f64` and `Dual` of them).
#[inline(always)]
#[track_caller]
pub fn constant<S: NumCast, C: ToPrimitive>(c: C) -> S {
    match S::from(c) {
        Some(s) => s,
        None => panic!("a constant the float type cannot represent"),
    }
}

/// A constant array of the generic copy (a `const` of floats) in its float type `S`.
///
/// # Panics
///
/// When `S` cannot represent an element (never for `f32`, `f64` and `Dual` of them).
#[inline]
#[track_caller]
pub fn constant_array<S: NumCast, C: ToPrimitive + Copy, const N: usize>(c: [C; N]) -> [S; N] {
    c.map(constant)
}

/// The real value of a float of the generic copy, as `f64`: what a cast `x as usize` reads.
#[inline(always)]
pub fn real_f64<S: Float>(x: S) -> f64 {
    x.to_f64().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lift_pairs_scalars_and_unlift_splits_them() {
        let d = lift(&[1.0_f64, 2.0][..], &[3.0, 4.0][..]);
        assert_eq!(unlift(&d), (vec![1.0, 2.0], vec![3.0, 4.0]));
        let a = lift(&[1.0_f32, 2.0], &[0.5, 0.25]);
        assert_eq!(unlift(&a), ([1.0, 2.0], [0.5, 0.25]));
        let x = lift(&2.0_f64, &-1.0);
        assert_eq!((x.re, x.eps), (2.0, -1.0));
        let c = lift_const(&vec![5.0_f64]);
        assert_eq!(unlift(&c), (vec![5.0], vec![0.0]));
        let k: Dual<f64> = constant(2.5);
        let ks: [Dual<f32>; 2] = constant_array([1.0_f64, 2.0]);
        assert_eq!((ks[1].re, ks[1].eps), (2.0, 0.0));
        assert_eq!((k.re, k.eps), (2.5, 0.0));
        assert_eq!(real_f64(Dual::new(3.5_f32, 1.0)), 3.5);
    }

    #[test]
    #[should_panic(expected = "a direction of length 1 for an argument of length 2")]
    fn a_direction_of_another_length_is_refused() {
        let _ = lift(&[1.0_f64, 2.0][..], &[3.0][..]);
    }
}
