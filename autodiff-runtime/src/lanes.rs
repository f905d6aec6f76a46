//! Tangents over `N` directions, by traits: takes a value generated code handles (a float,
//! [`Dual`], an array, a slice, a `Vec`, a reference to one), gives zeros of its `N`-lane tangent,
//! in which every scalar of the value becomes `[T; N]` (its lanes contiguous): `f64` has
//! `[f64; N]`, `[f64; 3]` has `[[f64; N]; 3]`, `&[f64]` and `Vec<f64>` have `Vec<[f64; N]>`.
//! These are the tangent types of the generated `<f>_jvpn` companions.
//!
//! [`LaneScalar<N>`] is the bound generated `_jvpn` companions put on a generic float type `T`
//! (next to the function's own bounds): [`Scalar`] plus `[T; N]` as the lanes of `T`, which is
//! what lets rustc see that the lanes of `Vec<T>` are `Vec<[T; N]>` in generic code. Like
//! [`Scalar`], it has a blanket impl: `f32`, `f64` and `Dual<T>` have it for every `N`.
//!
//! ```
//! use autodiff_runtime::lanes::zero_lanes;
//!
//! let t: Vec<[f64; 4]> = zero_lanes(&[1.0, 2.0, 3.0][..]);
//! assert_eq!(t, vec![[0.0; 4]; 3]);
//! let a: [[f32; 2]; 3] = zero_lanes(&[1.0_f32, 2.0, 3.0]);
//! assert_eq!(a, [[0.0; 2]; 3]);
//! ```

use crate::dual::Dual;
use crate::value::Scalar;
use num_traits::Float;

/// A value whose tangent over `N` directions the runtime knows: `Lanes` holds `[T; N]` for
/// each scalar `T` of the value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no tangent over N directions",
    label = "vector forward mode (`_jvpn`) cannot make zeros shaped like this value",
    note = "if `{Self}` is a generic float type parameter, bound it by `autodiff_runtime::LaneScalar<N>`"
)]
pub trait LaneTangent<const N: usize> {
    /// The tangent over `N` directions.
    type Lanes: Clone;

    /// Zeros shaped like the value, `N` per scalar.
    fn zero_lanes(&self) -> Self::Lanes;
}

/// A float type whose `N` tangents are `[Self; N]`: the bound of a generic float type in
/// generated `_jvpn` companions. Implemented for every [`Scalar`] with those lanes (`f32`, `f64`,
/// `Dual<T>`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a float type `_jvpn` can take",
    label = "the float type of a `#[differentiate(vector)]` function",
    note = "in generic code, bound the float type parameter by `autodiff_runtime::LaneScalar<N>` (which implies `Scalar` and `num_traits::Float`)"
)]
pub trait LaneScalar<const N: usize>: Scalar + LaneTangent<N, Lanes = [Self; N]> {}

impl<T, const N: usize> LaneScalar<N> for T where T: Scalar + LaneTangent<N, Lanes = [T; N]> {}

/// Zeros shaped like `v`, `N` per scalar (the zero tangent of `v` in vector forward mode).
#[inline(always)]
pub fn zero_lanes<V: LaneTangent<N> + ?Sized, const N: usize>(v: &V) -> V::Lanes {
    v.zero_lanes()
}

macro_rules! float_lanes {
    ($($t:ty),*) => {
        $(
            impl<const N: usize> LaneTangent<N> for $t {
                type Lanes = [$t; N];
                #[inline(always)]
                fn zero_lanes(&self) -> [$t; N] {
                    [0.0; N]
                }
            }
        )*
    };
}

float_lanes!(f32, f64);

impl<T: Float, const N: usize> LaneTangent<N> for Dual<T> {
    type Lanes = [Dual<T>; N];
    #[inline(always)]
    fn zero_lanes(&self) -> [Dual<T>; N] {
        [Dual::constant(T::zero()); N]
    }
}

impl<E: LaneTangent<N>, const N: usize, const M: usize> LaneTangent<N> for [E; M] {
    type Lanes = [E::Lanes; M];
    #[inline]
    fn zero_lanes(&self) -> [E::Lanes; M] {
        core::array::from_fn(|i| self[i].zero_lanes())
    }
}

impl<E: LaneTangent<N>, const N: usize> LaneTangent<N> for [E] {
    type Lanes = Vec<E::Lanes>;
    #[inline]
    fn zero_lanes(&self) -> Vec<E::Lanes> {
        self.iter().map(E::zero_lanes).collect()
    }
}

impl<E: LaneTangent<N>, const N: usize> LaneTangent<N> for Vec<E> {
    type Lanes = Vec<E::Lanes>;
    #[inline]
    fn zero_lanes(&self) -> Vec<E::Lanes> {
        self[..].zero_lanes()
    }
}

impl<V: LaneTangent<N> + ?Sized, const N: usize> LaneTangent<N> for &V {
    type Lanes = V::Lanes;
    #[inline(always)]
    fn zero_lanes(&self) -> V::Lanes {
        (**self).zero_lanes()
    }
}

impl<V: LaneTangent<N> + ?Sized, const N: usize> LaneTangent<N> for &mut V {
    type Lanes = V::Lanes;
    #[inline(always)]
    fn zero_lanes(&self) -> V::Lanes {
        (**self).zero_lanes()
    }
}
