//! Forward-mode dual numbers: takes a value and a tangent, gives the value and directional
//! derivative of every float operation applied to them, with all calculus taken from [`rules`].
//!
//! [`Dual<T>`] implements the same methods as `f64` (as inherent methods, so no trait import is
//! needed), the arithmetic operators with dual and scalar operands on either side, comparisons
//! on the value, and [`num_traits::Float`], so `Dual<Dual<f64>>` gives second derivatives.
//!
//! ```
//! use autodiff_runtime::Dual;
//!
//! // d/dx (x sin x) at x = 2.
//! let x = Dual::variable(2.0_f64);
//! let y = x * x.sin();
//! assert_eq!(y.re, 2.0 * 2.0_f64.sin());
//! assert!((y.eps - (2.0_f64.sin() + 2.0 * 2.0_f64.cos())).abs() < 1e-15);
//!
//! // Second derivative by nesting: d²/dx² x³ = 6x.
//! let x = Dual::new(Dual::variable(2.0_f64), Dual::constant(1.0));
//! let y = x.powi(3);
//! assert_eq!(y.eps.eps, 12.0);
//! ```

use crate::rules;
use core::cmp::Ordering;
use core::fmt;
use core::iter::{Product, Sum};
use core::num::FpCategory;
use core::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};
use num_traits::{Float, FloatConst, FromPrimitive, Num, NumCast, One, Signed, ToPrimitive, Zero};

/// A dual number `re + eps ε` with `ε² = 0`: a value and its tangent (directional derivative).
///
/// Seed an input with [`Dual::variable`] (tangent 1) or [`Dual::new`] (any direction), keep
/// the other inputs [`Dual::constant`], evaluate, and read the derivative off `eps`.
///
/// Comparisons (`==`, `<`, ...) and [`Zero::is_zero`] look at the value `re` only, so branches
/// in the differentiated code take the same path as they would on plain floats.
///
/// Every operator and method treats an exact zero in the chain rule as a *strong zero*: a
/// tangent times a partial derivative is zero when either factor is zero, even where the other is
/// infinite or NaN, since the derivative along a zero direction (or through a zero partial) is
/// zero. So `Dual::constant(0.0).sqrt()` has tangent 0, `x.powf(Dual::constant(2.0))` has a
/// finite tangent at negative `x`, and `x.sqrt() * 0.0` has tangent 0 at `x == 0`. Reverse mode
/// follows the same convention (`__private::scale`). (For nested duals the test looks at the
/// value of the factors only.)
#[derive(Clone, Copy, Debug, Default)]
pub struct Dual<T> {
    /// The value.
    pub re: T,
    /// The tangent: the derivative of the value along the seeded direction.
    pub eps: T,
}

impl<T> Dual<T> {
    /// A dual number with value `re` and tangent `eps`.
    #[inline(always)]
    pub const fn new(re: T, eps: T) -> Self {
        Dual { re, eps }
    }
}

impl<T: Float> Dual<T> {
    /// A constant: value `re`, tangent 0.
    #[inline(always)]
    pub fn constant(re: T) -> Self {
        Dual::new(re, T::zero())
    }

    /// The variable being differentiated against: value `re`, tangent 1.
    #[inline(always)]
    pub fn variable(re: T) -> Self {
        Dual::new(re, T::one())
    }
}

impl<T: Float> From<T> for Dual<T> {
    /// A constant (tangent 0).
    #[inline(always)]
    fn from(re: T) -> Self {
        Dual::constant(re)
    }
}

/// `eps * partial`, except that it is zero when either factor is zero, even if the other is
/// infinite or NaN (see "strong zero" on [`Dual`]).
#[inline(always)]
pub(crate) fn term<T: Float>(eps: T, partial: T) -> T {
    let t = eps * partial;
    if t.is_nan() && !regular(partial) && (eps == T::zero() || partial == T::zero()) {
        T::zero()
    } else {
        t
    }
}

/// Whether `eps * p` is `term(eps, p)` for every `eps`: `p` finite and nonzero. Tested after the
/// product is found NaN, so it costs nothing on the common path, and a constant partial (the
/// `1` and `-1` of `+` and `-`) folds the strong zero's test away.
#[inline(always)]
fn regular<T: Float>(p: T) -> bool {
    p.is_finite() && p != T::zero()
}

/// `term(a, pa) + term(b, pb)`, tested once: the plain sum is NaN wherever one of its products
/// is (a NaN operand propagates), so where it is not NaN it equals the sum of the strong terms,
/// bit for bit; where it is NaN the terms are taken again (cold, after the partials are found
/// not both regular).
#[inline(always)]
pub(crate) fn term2<T: Float>(a: T, pa: T, b: T, pb: T) -> T {
    let t = a * pa + b * pb;
    if t.is_nan() && !(regular(pa) && regular(pb)) {
        term2_strong(a, pa, b, pb)
    } else {
        t
    }
}

#[cold]
fn term2_strong<T: Float>(a: T, pa: T, b: T, pb: T) -> T {
    term(a, pa) + term(b, pb)
}

/// Inherent methods `fn NAME(self) -> Self` for unary primitives with a rule of the same name.
macro_rules! unary_methods {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("`", stringify!($name), "` of the value; the tangent is scaled by [`rules::", stringify!($name), "`].")]
            #[inline(always)]
            pub fn $name(self) -> Self {
                let y = self.re.$name();
                Dual::new(y, term(self.eps, rules::$name(self.re, y)))
            }
        )*
    };
}

/// Inherent methods `fn NAME(self, other: Self) -> Self` for binary primitives with a rule of
/// the same name.
macro_rules! binary_methods {
    ($($name:ident($other:ident)),* $(,)?) => {
        $(
            #[doc = concat!("`", stringify!($name), "(self, ", stringify!($other), ")` of the values; the tangents are combined with [`rules::", stringify!($name), "`].")]
            #[inline(always)]
            pub fn $name(self, $other: Self) -> Self {
                let y = self.re.$name($other.re);
                let (da, db) = rules::$name(self.re, $other.re, y);
                Dual::new(y, term2(self.eps, da, $other.eps, db))
            }
        )*
    };
}

/// Inherent predicates forwarded to the value.
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

impl<T: Float> Dual<T> {
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

    /// `self` raised to the integer power `n`; the tangent is scaled by [`rules::powi`].
    #[inline(always)]
    pub fn powi(self, n: i32) -> Self {
        let y = self.re.powi(n);
        Dual::new(y, term(self.eps, rules::powi(self.re, n, y)))
    }

    /// `self * a + b` with one rounding of the value; the tangents are combined with
    /// [`rules::mul_add`].
    #[inline(always)]
    pub fn mul_add(self, a: Self, b: Self) -> Self {
        let y = self.re.mul_add(a.re, b.re);
        let (ds, da, db) = rules::mul_add(self.re, a.re, b.re, y);
        Dual::new(y, term(self.eps, ds) + term(a.eps, da) + term(b.eps, db))
    }

    /// `self` restricted to `[lo, hi]` (NaN stays NaN); the tangents are combined with
    /// [`rules::clamp`].
    ///
    /// # Panics
    ///
    /// Like `f64::clamp`, if `lo > hi` or either bound is NaN.
    #[inline(always)]
    pub fn clamp(self, lo: Self, hi: Self) -> Self {
        assert!(lo.re <= hi.re, "Dual::clamp: min > max, or either was NaN");
        let y = if self.re < lo.re {
            lo.re
        } else if self.re > hi.re {
            hi.re
        } else {
            self.re
        };
        let (dx, dlo, dhi) = rules::clamp(self.re, lo.re, hi.re, y);
        Dual::new(
            y,
            term(self.eps, dx) + term(lo.eps, dlo) + term(hi.eps, dhi),
        )
    }

    /// `(sin, cos)` of the value; the tangents are scaled by [`rules::sin_cos`].
    #[inline(always)]
    pub fn sin_cos(self) -> (Self, Self) {
        let (s, c) = self.re.sin_cos();
        let (ds, dc) = rules::sin_cos(self.re, (s, c));
        (
            Dual::new(s, term(self.eps, ds)),
            Dual::new(c, term(self.eps, dc)),
        )
    }

    /// `self` with the sign of `sign`: `self` or `-self`, so the tangent follows the sign flip
    /// and does not depend on `sign`.
    #[inline(always)]
    pub fn copysign(self, sign: Self) -> Self {
        if self.re.is_sign_negative() == sign.re.is_sign_negative() {
            self
        } else {
            -self
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Operators

/// `Dual op Dual`, `Dual op T`, `f32 op Dual<f32>`, `f64 op Dual<f64>`, each written once with
/// the rule of the operator's name; reference and assignment forms forward to them.
macro_rules! binary_operator {
    ($Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident) => {
        impl<T: Float> $Op for Dual<T> {
            type Output = Dual<T>;
            #[inline(always)]
            // The chain rule multiplies tangents by partials in every operator.
            #[allow(clippy::suspicious_arithmetic_impl)]
            fn $op(self, rhs: Dual<T>) -> Dual<T> {
                let y = $Op::$op(self.re, rhs.re);
                let (da, db) = rules::$op(self.re, rhs.re, y);
                Dual::new(y, term2(self.eps, da, rhs.eps, db))
            }
        }

        impl<T: Float> $Op<T> for Dual<T> {
            type Output = Dual<T>;
            #[inline(always)]
            // The chain rule multiplies tangents by partials in every operator.
            #[allow(clippy::suspicious_arithmetic_impl)]
            fn $op(self, rhs: T) -> Dual<T> {
                let y = $Op::$op(self.re, rhs);
                let (da, _) = rules::$op(self.re, rhs, y);
                Dual::new(y, term(self.eps, da))
            }
        }

        impl<T: Float> $Op<&Dual<T>> for Dual<T> {
            type Output = Dual<T>;
            #[inline(always)]
            fn $op(self, rhs: &Dual<T>) -> Dual<T> {
                $Op::$op(self, *rhs)
            }
        }

        impl<T: Float> $Op<Dual<T>> for &Dual<T> {
            type Output = Dual<T>;
            #[inline(always)]
            fn $op(self, rhs: Dual<T>) -> Dual<T> {
                $Op::$op(*self, rhs)
            }
        }

        impl<T: Float> $Op<&Dual<T>> for &Dual<T> {
            type Output = Dual<T>;
            #[inline(always)]
            fn $op(self, rhs: &Dual<T>) -> Dual<T> {
                $Op::$op(*self, *rhs)
            }
        }

        impl<T: Float> $Op<T> for &Dual<T> {
            type Output = Dual<T>;
            #[inline(always)]
            fn $op(self, rhs: T) -> Dual<T> {
                $Op::$op(*self, rhs)
            }
        }

        impl<T: Float> $OpAssign for Dual<T> {
            #[inline(always)]
            fn $op_assign(&mut self, rhs: Dual<T>) {
                *self = $Op::$op(*self, rhs);
            }
        }

        impl<T: Float> $OpAssign<&Dual<T>> for Dual<T> {
            #[inline(always)]
            fn $op_assign(&mut self, rhs: &Dual<T>) {
                *self = $Op::$op(*self, *rhs);
            }
        }

        impl<T: Float> $OpAssign<T> for Dual<T> {
            #[inline(always)]
            fn $op_assign(&mut self, rhs: T) {
                *self = $Op::$op(*self, rhs);
            }
        }

        binary_operator!(@scalar_left $Op, $op, f32);
        binary_operator!(@scalar_left $Op, $op, f64);
    };
    (@scalar_left $Op:ident, $op:ident, $t:ty) => {
        impl $Op<Dual<$t>> for $t {
            type Output = Dual<$t>;
            #[inline(always)]
            // The chain rule multiplies tangents by partials in every operator.
            #[allow(clippy::suspicious_arithmetic_impl)]
            fn $op(self, rhs: Dual<$t>) -> Dual<$t> {
                let y = $Op::$op(self, rhs.re);
                let (_, db) = rules::$op(self, rhs.re, y);
                Dual::new(y, term(rhs.eps, db))
            }
        }

        impl $Op<&Dual<$t>> for $t {
            type Output = Dual<$t>;
            #[inline(always)]
            fn $op(self, rhs: &Dual<$t>) -> Dual<$t> {
                $Op::$op(self, *rhs)
            }
        }
    };
}

// `binary_operator!(Add, add, AddAssign, add_assign);` for every binary operator of the table.
autodiff_macros::__primitive_table!(binary_operators => binary_operator);

impl<T: Float> Neg for Dual<T> {
    type Output = Dual<T>;
    #[inline(always)]
    fn neg(self) -> Dual<T> {
        let y = -self.re;
        Dual::new(y, self.eps * rules::neg(self.re, y))
    }
}

impl<T: Float> Neg for &Dual<T> {
    type Output = Dual<T>;
    #[inline(always)]
    fn neg(self) -> Dual<T> {
        -*self
    }
}

// Every method and operator of the primitive table (autodiff-macros/src/primitives.rs) exists on
// `Dual<T>` with the arguments its entry gives, also those written by hand above (`powi`,
// `mul_add`, `clamp`, `sin_cos`, predicates, `neg`): otherwise a compile error on this line.
autodiff_macros::__primitive_table!(check_dual);

// ---------------------------------------------------------------------------------------------
// Comparisons: on the value only

impl<T: PartialEq> PartialEq for Dual<T> {
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        self.re == other.re
    }
}

impl<T: PartialOrd> PartialOrd for Dual<T> {
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.re.partial_cmp(&other.re)
    }
}

impl<T: Float> PartialEq<T> for Dual<T> {
    #[inline(always)]
    fn eq(&self, other: &T) -> bool {
        self.re == *other
    }
}

impl<T: Float> PartialOrd<T> for Dual<T> {
    #[inline(always)]
    fn partial_cmp(&self, other: &T) -> Option<Ordering> {
        self.re.partial_cmp(other)
    }
}

/// `f32 == Dual<f32>`, `f64 < Dual<f64>`, ...: scalar on the left, compared with the value.
macro_rules! scalar_left_comparisons {
    ($($t:ty),*) => {
        $(
            impl PartialEq<Dual<$t>> for $t {
                #[inline(always)]
                fn eq(&self, other: &Dual<$t>) -> bool {
                    *self == other.re
                }
            }

            impl PartialOrd<Dual<$t>> for $t {
                #[inline(always)]
                fn partial_cmp(&self, other: &Dual<$t>) -> Option<Ordering> {
                    self.partial_cmp(&other.re)
                }
            }
        )*
    };
}

scalar_left_comparisons!(f32, f64);

// ---------------------------------------------------------------------------------------------
// Sums, products, formatting

impl<T: Float> Sum for Dual<T> {
    /// The sum; the empty sum is `-0` like std's float sums.
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Dual::new(T::neg_zero(), T::neg_zero()), Add::add)
    }
}

impl<'a, T: Float> Sum<&'a Dual<T>> for Dual<T> {
    /// The sum; the empty sum is `-0` like std's float sums.
    fn sum<I: Iterator<Item = &'a Dual<T>>>(iter: I) -> Self {
        iter.copied().sum()
    }
}

impl<T: Float> Product for Dual<T> {
    /// The product; the empty product is the constant 1.
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Dual::one(), Mul::mul)
    }
}

impl<'a, T: Float> Product<&'a Dual<T>> for Dual<T> {
    /// The product; the empty product is the constant 1.
    fn product<I: Iterator<Item = &'a Dual<T>>>(iter: I) -> Self {
        iter.copied().product()
    }
}

impl<T: Float + fmt::Display> fmt::Display for Dual<T> {
    /// `re + epsε` (`re - |eps|ε` for a negative tangent); a precision applies to both parts, and
    /// nested duals are parenthesised: `(1 + 2ε) + (3 + 4ε)ε`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (sign, mag) = if self.eps.is_sign_negative() {
            ('-', -self.eps)
        } else {
            ('+', self.eps)
        };
        let show = |v: T| {
            let s = match f.precision() {
                Some(p) => format!("{v:.p$}"),
                None => format!("{v}"),
            };
            if s.contains('ε') {
                format!("({s})")
            } else {
                s
            }
        };
        write!(f, "{} {} {}ε", show(self.re), sign, show(mag))
    }
}

// ---------------------------------------------------------------------------------------------
// num-traits

impl<T: Float> Zero for Dual<T> {
    /// The constant 0.
    #[inline(always)]
    fn zero() -> Self {
        Dual::constant(T::zero())
    }

    /// Whether the value is zero (the tangent is ignored, like in `==`).
    #[inline(always)]
    fn is_zero(&self) -> bool {
        self.re.is_zero()
    }
}

impl<T: Float> One for Dual<T> {
    /// The constant 1.
    #[inline(always)]
    fn one() -> Self {
        Dual::constant(T::one())
    }
}

impl<T: Float> Num for Dual<T> {
    type FromStrRadixErr = T::FromStrRadixErr;

    /// Parses the value; the result is a constant.
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        T::from_str_radix(s, radix).map(Dual::constant)
    }
}

/// `ToPrimitive` conversions of the value.
macro_rules! to_primitive {
    ($($name:ident -> $t:ty),* $(,)?) => {
        $(
            #[inline(always)]
            fn $name(&self) -> Option<$t> {
                self.re.$name()
            }
        )*
    };
}

impl<T: Float> ToPrimitive for Dual<T> {
    to_primitive!(
        to_isize -> isize, to_i8 -> i8, to_i16 -> i16, to_i32 -> i32, to_i64 -> i64,
        to_i128 -> i128, to_usize -> usize, to_u8 -> u8, to_u16 -> u16, to_u32 -> u32,
        to_u64 -> u64, to_u128 -> u128, to_f32 -> f32, to_f64 -> f64,
    );
}

impl<T: Float> NumCast for Dual<T> {
    /// A constant with the converted value.
    #[inline(always)]
    fn from<N: ToPrimitive>(n: N) -> Option<Self> {
        <T as NumCast>::from(n).map(Dual::constant)
    }
}

/// `FromPrimitive` conversions giving constants.
macro_rules! from_primitive {
    ($($name:ident($t:ty)),* $(,)?) => {
        $(
            #[inline(always)]
            fn $name(n: $t) -> Option<Self> {
                <T as NumCast>::from(n).map(Dual::constant)
            }
        )*
    };
}

impl<T: Float> FromPrimitive for Dual<T> {
    from_primitive!(
        from_isize(isize),
        from_i8(i8),
        from_i16(i16),
        from_i32(i32),
        from_i64(i64),
        from_i128(i128),
        from_usize(usize),
        from_u8(u8),
        from_u16(u16),
        from_u32(u32),
        from_u64(u64),
        from_u128(u128),
        from_f32(f32),
        from_f64(f64),
    );
}

impl<T: Float> Signed for Dual<T> {
    #[inline(always)]
    fn abs(&self) -> Self {
        Dual::abs(*self)
    }

    #[inline(always)]
    fn abs_sub(&self, other: &Self) -> Self {
        Float::abs_sub(*self, *other)
    }

    #[inline(always)]
    fn signum(&self) -> Self {
        Dual::signum(*self)
    }

    #[inline(always)]
    fn is_positive(&self) -> bool {
        self.re.is_sign_positive()
    }

    #[inline(always)]
    fn is_negative(&self) -> bool {
        self.re.is_sign_negative()
    }
}

/// `FloatConst` constants as duals with tangent 0.
macro_rules! float_consts {
    ($($name:ident),* $(,)?) => {
        $(
            #[inline(always)]
            fn $name() -> Self {
                Dual::constant(T::$name())
            }
        )*
    };
}

impl<T: Float + FloatConst> FloatConst for Dual<T> {
    float_consts!(
        E,
        FRAC_1_PI,
        FRAC_1_SQRT_2,
        FRAC_2_PI,
        FRAC_2_SQRT_PI,
        FRAC_PI_2,
        FRAC_PI_3,
        FRAC_PI_4,
        FRAC_PI_6,
        FRAC_PI_8,
        LN_10,
        LN_2,
        LOG10_E,
        LOG2_E,
        PI,
        SQRT_2,
        TAU,
        LOG10_2,
        LOG2_10,
    );
}

/// `Float` methods that are constants of `T`, as duals with tangent 0.
macro_rules! float_constants {
    ($($name:ident),* $(,)?) => {
        $(
            #[inline(always)]
            fn $name() -> Self {
                Dual::constant(T::$name())
            }
        )*
    };
}

/// `Float` methods `fn NAME(self) -> bool` forwarded to the value.
macro_rules! float_predicates {
    ($($name:ident),* $(,)?) => {
        $(
            #[inline(always)]
            fn $name(self) -> bool {
                self.re.$name()
            }
        )*
    };
}

/// `Float` methods forwarded to the inherent method of the same name.
macro_rules! float_unary {
    ($($name:ident),* $(,)?) => {
        $(
            #[inline(always)]
            fn $name(self) -> Self {
                Dual::$name(self)
            }
        )*
    };
}

/// `Float` methods with one more `Self` argument forwarded to the inherent method.
macro_rules! float_binary {
    ($($name:ident),* $(,)?) => {
        $(
            #[inline(always)]
            fn $name(self, other: Self) -> Self {
                Dual::$name(self, other)
            }
        )*
    };
}

/// Every method of `Float`: derivative-carrying ones call the inherent methods (and so the rule
/// table), predicates and `integer_decode` look at the value, constants have tangent 0.
impl<T: Float> Float for Dual<T> {
    float_constants!(
        nan,
        infinity,
        neg_infinity,
        neg_zero,
        min_value,
        min_positive_value,
        epsilon,
        max_value,
    );

    float_predicates!(
        is_nan,
        is_infinite,
        is_finite,
        is_normal,
        is_subnormal,
        is_sign_positive,
        is_sign_negative,
    );

    float_unary!(
        floor, ceil, round, trunc, fract, abs, signum, recip, sqrt, exp, exp2, ln, log2, log10,
        to_degrees, to_radians, cbrt, sin, cos, tan, asin, acos, atan, exp_m1, ln_1p, sinh, cosh,
        tanh, asinh, acosh, atanh,
    );

    float_binary!(powf, log, max, min, hypot, atan2, copysign);

    #[inline(always)]
    fn classify(self) -> FpCategory {
        self.re.classify()
    }

    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        Dual::mul_add(self, a, b)
    }

    #[inline(always)]
    fn powi(self, n: i32) -> Self {
        Dual::powi(self, n)
    }

    #[inline(always)]
    fn clamp(self, min: Self, max: Self) -> Self {
        Dual::clamp(self, min, max)
    }

    /// `max(self - other, 0)` with `+0` when `self <= other`, like `f64::abs_sub`; the tangent
    /// comes from the subtraction or is zero.
    #[inline(always)]
    fn abs_sub(self, other: Self) -> Self {
        if self.re <= other.re {
            Self::zero()
        } else {
            self - other
        }
    }

    #[inline(always)]
    fn sin_cos(self) -> (Self, Self) {
        Dual::sin_cos(self)
    }

    #[inline(always)]
    fn integer_decode(self) -> (u64, i16, i8) {
        self.re.integer_decode()
    }
}
