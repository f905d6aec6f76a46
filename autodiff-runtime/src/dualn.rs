//! Forward mode over `N` directions at once: takes a value and `N` tangents, gives the value and
//! the `N` directional derivatives of every float operation applied to them. All calculus comes
//! from [`rules`], like [`Dual`]'s: each partial derivative is computed once, from the values,
//! and applied to every lane, so one pass costs one primal evaluation plus `N` multiply-adds per
//! operation. The lanes of one scalar are contiguous (`[T; N]`), which the compiler vectorises.
//!
//! [`DualN<T, N>`] is what the bodies of generated `<f>_jvpn` companions compute on; it has the
//! methods and operators of [`Dual`] (as inherent methods and `std::ops` impls), with the same
//! *strong zero* and the same conventions at non-smooth points.
//!
//! ```
//! use autodiff_runtime::DualN;
//!
//! // d/dx and d/dy of x * sin(y) at (2, 0.5), in one pass.
//! let x = DualN::new(2.0_f64, [1.0, 0.0]);
//! let y = DualN::new(0.5_f64, [0.0, 1.0]);
//! let z = x * y.sin();
//! assert_eq!(z.re, 2.0 * 0.5_f64.sin());
//! assert_eq!(z.eps, [0.5_f64.sin(), 2.0 * 0.5_f64.cos()]);
//! ```

use crate::dual::{term, Dual};
use crate::rules;
use core::cmp::Ordering;
use core::num::FpCategory;
use core::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};
use num_traits::Float;

/// A value `re` with `N` tangents `eps` (directional derivatives along `N` directions).
///
/// Comparisons look at the value only, like [`Dual`]'s. Lane `k` of any result equals what
/// [`Dual`] gives when seeded with lane `k` of every input ([`DualN::lane`]).
#[derive(Clone, Copy, Debug)]
pub struct DualN<T, const N: usize> {
    /// The value.
    pub re: T,
    /// The tangents, one per direction.
    pub eps: [T; N],
}

impl<T, const N: usize> DualN<T, N> {
    /// A value with its `N` tangents.
    #[inline(always)]
    pub const fn new(re: T, eps: [T; N]) -> Self {
        DualN { re, eps }
    }
}

impl<T: Float, const N: usize> DualN<T, N> {
    /// A constant: every tangent 0.
    #[inline(always)]
    pub fn constant(re: T) -> Self {
        DualN::new(re, [T::zero(); N])
    }

    /// Input number `k` of `N`: tangent 1 in lane `k`, 0 in the others.
    #[inline(always)]
    pub fn variable(re: T, k: usize) -> Self {
        let mut eps = [T::zero(); N];
        eps[k] = T::one();
        DualN::new(re, eps)
    }

    /// Lane `k` as a [`Dual`]: the value and the derivative along direction `k`.
    #[inline(always)]
    pub fn lane(self, k: usize) -> Dual<T> {
        Dual::new(self.re, self.eps[k])
    }
}

/// Whether `eps * p` is `term(eps, p)` for every `eps`: `p` finite and nonzero (then `eps * p`
/// is NaN only where `eps` is, which `term` keeps). One test per partial instead of one per lane
/// keeps the lanes' loop free of branches, so that it vectorises.
#[inline(always)]
fn plain<T: Float>(p: T) -> bool {
    p.is_finite() && p != T::zero()
}

/// Every lane times the partial `p` (strong zero per lane, as [`Dual`]).
#[inline(always)]
fn lanes1<T: Float, const N: usize>(a: [T; N], p: T) -> [T; N] {
    if plain(p) {
        core::array::from_fn(|k| a[k] * p)
    } else {
        core::array::from_fn(|k| term(a[k], p))
    }
}

/// `a * pa + b * pb`, lane by lane.
#[inline(always)]
fn lanes2<T: Float, const N: usize>(a: [T; N], pa: T, b: [T; N], pb: T) -> [T; N] {
    if plain(pa) && plain(pb) {
        core::array::from_fn(|k| a[k] * pa + b[k] * pb)
    } else {
        core::array::from_fn(|k| term(a[k], pa) + term(b[k], pb))
    }
}

/// `a * pa + b * pb + c * pc`, lane by lane.
#[inline(always)]
fn lanes3<T: Float, const N: usize>(
    a: [T; N],
    pa: T,
    b: [T; N],
    pb: T,
    c: [T; N],
    pc: T,
) -> [T; N] {
    if plain(pa) && plain(pb) && plain(pc) {
        core::array::from_fn(|k| a[k] * pa + b[k] * pb + c[k] * pc)
    } else {
        core::array::from_fn(|k| term(a[k], pa) + term(b[k], pb) + term(c[k], pc))
    }
}

/// Inherent `fn NAME(self) -> Self` for the unary primitives of the table.
macro_rules! unary_methods {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("`", stringify!($name), "` of the value; every tangent is scaled by [`rules::", stringify!($name), "`].")]
            #[inline(always)]
            pub fn $name(self) -> Self {
                let y = self.re.$name();
                DualN::new(y, lanes1(self.eps, rules::$name(self.re, y)))
            }
        )*
    };
}

/// Inherent `fn NAME(self, other: Self) -> Self` for the binary primitives of the table.
macro_rules! binary_methods {
    ($($name:ident($other:ident)),* $(,)?) => {
        $(
            #[doc = concat!("`", stringify!($name), "(self, ", stringify!($other), ")` of the values; the tangents are combined with [`rules::", stringify!($name), "`].")]
            #[inline(always)]
            pub fn $name(self, $other: Self) -> Self {
                let y = self.re.$name($other.re);
                let (da, db) = rules::$name(self.re, $other.re, y);
                DualN::new(y, lanes2(self.eps, da, $other.eps, db))
            }
        )*
    };
}

/// Inherent predicates of the value.
macro_rules! value_predicates {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("`", stringify!($name), "` of the value.")]
            #[inline(always)]
            pub fn $name(self) -> bool {
                self.re.$name()
            }
        )*
    };
}

impl<T: Float, const N: usize> DualN<T, N> {
    // The unary and binary methods of the primitive table (autodiff-macros/src/primitives.rs).
    autodiff_macros::__primitive_table!(unary_methods => unary_methods);
    autodiff_macros::__primitive_table!(binary_methods => binary_methods);

    value_predicates!(
        is_nan,
        is_infinite,
        is_finite,
        is_normal,
        is_subnormal,
        is_sign_positive,
        is_sign_negative,
    );

    /// The floating-point category of the value.
    #[inline(always)]
    pub fn classify(self) -> FpCategory {
        self.re.classify()
    }

    /// `self` raised to the integer power `n`; every tangent is scaled by [`rules::powi`].
    #[inline(always)]
    pub fn powi(self, n: i32) -> Self {
        let y = self.re.powi(n);
        DualN::new(y, lanes1(self.eps, rules::powi(self.re, n, y)))
    }

    /// `self * a + b` with one rounding of the value; the tangents are combined with
    /// [`rules::mul_add`].
    #[inline(always)]
    pub fn mul_add(self, a: Self, b: Self) -> Self {
        let y = self.re.mul_add(a.re, b.re);
        let (ds, da, db) = rules::mul_add(self.re, a.re, b.re, y);
        DualN::new(y, lanes3(self.eps, ds, a.eps, da, b.eps, db))
    }

    /// `self` restricted to `[lo, hi]`; the tangents are combined with [`rules::clamp`].
    ///
    /// # Panics
    ///
    /// Like `f64::clamp`, if `lo > hi` or either bound is NaN.
    #[inline(always)]
    pub fn clamp(self, lo: Self, hi: Self) -> Self {
        assert!(lo.re <= hi.re, "DualN::clamp: min > max, or either was NaN");
        let y = if self.re < lo.re {
            lo.re
        } else if self.re > hi.re {
            hi.re
        } else {
            self.re
        };
        let (dx, dlo, dhi) = rules::clamp(self.re, lo.re, hi.re, y);
        DualN::new(y, lanes3(self.eps, dx, lo.eps, dlo, hi.eps, dhi))
    }

    /// `(sin, cos)` of the value; the tangents are scaled by [`rules::sin_cos`].
    #[inline(always)]
    pub fn sin_cos(self) -> (Self, Self) {
        let (s, c) = self.re.sin_cos();
        let (ds, dc) = rules::sin_cos(self.re, (s, c));
        (
            DualN::new(s, lanes1(self.eps, ds)),
            DualN::new(c, lanes1(self.eps, dc)),
        )
    }

    /// `self` with the sign of `sign`: `self` or `-self` (see [`Dual::copysign`]).
    #[inline(always)]
    pub fn copysign(self, sign: Self) -> Self {
        if self.re.is_sign_negative() == sign.re.is_sign_negative() {
            self
        } else {
            -self
        }
    }
}

/// `DualN op DualN`, `DualN op T`, `f32 op DualN<f32, N>`, `f64 op DualN<f64, N>` and the
/// assignment forms, each with the rule of the operator's name.
macro_rules! binary_operator {
    ($Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident) => {
        impl<T: Float, const N: usize> $Op for DualN<T, N> {
            type Output = DualN<T, N>;
            #[inline(always)]
            // The chain rule multiplies tangents by partials in every operator.
            #[allow(clippy::suspicious_arithmetic_impl)]
            fn $op(self, rhs: DualN<T, N>) -> DualN<T, N> {
                let y = $Op::$op(self.re, rhs.re);
                let (da, db) = rules::$op(self.re, rhs.re, y);
                DualN::new(y, lanes2(self.eps, da, rhs.eps, db))
            }
        }

        impl<T: Float, const N: usize> $Op<T> for DualN<T, N> {
            type Output = DualN<T, N>;
            #[inline(always)]
            #[allow(clippy::suspicious_arithmetic_impl)]
            fn $op(self, rhs: T) -> DualN<T, N> {
                let y = $Op::$op(self.re, rhs);
                let (da, _) = rules::$op(self.re, rhs, y);
                DualN::new(y, lanes1(self.eps, da))
            }
        }

        impl<T: Float, const N: usize> $OpAssign for DualN<T, N> {
            #[inline(always)]
            fn $op_assign(&mut self, rhs: DualN<T, N>) {
                *self = $Op::$op(*self, rhs);
            }
        }

        impl<T: Float, const N: usize> $OpAssign<T> for DualN<T, N> {
            #[inline(always)]
            fn $op_assign(&mut self, rhs: T) {
                *self = $Op::$op(*self, rhs);
            }
        }

        binary_operator!(@scalar_left $Op, $op, f32);
        binary_operator!(@scalar_left $Op, $op, f64);
    };
    (@scalar_left $Op:ident, $op:ident, $t:ty) => {
        impl<const N: usize> $Op<DualN<$t, N>> for $t {
            type Output = DualN<$t, N>;
            #[inline(always)]
            #[allow(clippy::suspicious_arithmetic_impl)]
            fn $op(self, rhs: DualN<$t, N>) -> DualN<$t, N> {
                let y = $Op::$op(self, rhs.re);
                let (_, db) = rules::$op(self, rhs.re, y);
                DualN::new(y, lanes1(rhs.eps, db))
            }
        }
    };
}

// `binary_operator!(Add, add, AddAssign, add_assign);` for every binary operator of the table.
autodiff_macros::__primitive_table!(binary_operators => binary_operator);

impl<T: Float, const N: usize> Neg for DualN<T, N> {
    type Output = DualN<T, N>;
    #[inline(always)]
    fn neg(self) -> DualN<T, N> {
        let y = -self.re;
        DualN::new(y, lanes1(self.eps, rules::neg(self.re, y)))
    }
}

/// The type the table's check below is instantiated at (four lanes stand for any number).
type DualN4<T> = DualN<T, 4>;

// Every method and operator of the primitive table exists on `DualN<T, N>` with the arguments its
// entry gives, as on `Dual<T>`: otherwise a compile error on this line.
autodiff_macros::__primitive_table!(check_dual => DualN4);

impl<T: PartialEq, const N: usize> PartialEq for DualN<T, N> {
    /// Equal values (the tangents are ignored).
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        self.re == other.re
    }
}

impl<T: PartialOrd, const N: usize> PartialOrd for DualN<T, N> {
    /// The order of the values.
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.re.partial_cmp(&other.re)
    }
}
