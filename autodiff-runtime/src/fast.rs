//! The fast path of a forward-mode statement: takes the operations of [`Dual`] without the
//! *strong zero*, gives the same value and, wherever the result's tangent is not NaN, the same
//! tangent bit for bit. Generated `_jvp` code evaluates a statement's expression on [`Fast`]
//! numbers first and keeps the result unless its tangent is NaN ([`Fast::ok`]); only then is the
//! expression evaluated again on [`Dual`], with the strong zero (after [`strong_path`], which
//! marks that path cold).
//!
//! Why the result is the same: a `Dual` operation's tangent is a sum of terms `eps * partial`,
//! each of which the strong zero replaces by zero only where the plain product is NaN (`0 * inf`,
//! `0 * NaN`); `Fast` takes the plain products. A NaN term makes every tangent computed from it
//! NaN (a tangent only goes through products with partials, sums and sign changes, which keep a
//! NaN), so a result whose tangent is not NaN had no NaN term, and every term was the one `Dual`
//! takes, in the same order. Values are computed by the same code on both. For nested duals
//! (`Fast<Dual<f64>>`) `is_nan` looks at the value of the tangent only, as `Dual`'s own test does.
//!
//! Not public API: generated code reaches it through `__private`.

use crate::dual::Dual;
use crate::rules;
use core::ops::{Add, Div, Mul, Neg, Rem, Sub};
use num_traits::Float;

/// A value and its tangent, with `Dual`'s operations without the strong zero's tests.
#[derive(Clone, Copy, Debug)]
pub struct Fast<T> {
    /// The value.
    pub re: T,
    /// The tangent.
    pub eps: T,
}

impl<T> Fast<T> {
    /// A value `re` with tangent `eps`.
    #[inline(always)]
    pub const fn new(re: T, eps: T) -> Self {
        Fast { re, eps }
    }
}

impl<T: Float> Fast<T> {
    /// A constant: value `re`, tangent 0.
    #[inline(always)]
    pub fn constant(re: T) -> Self {
        Fast::new(re, T::zero())
    }
}

impl<T: Float> Fast<T> {
    /// Whether this fast result is the strong one: its tangent is not NaN (see the module docs).
    #[inline(always)]
    pub fn ok(self) -> bool {
        !self.eps.is_nan()
    }

    /// The same value and tangent as a [`Dual`].
    #[inline(always)]
    pub fn dual(self) -> Dual<T> {
        Dual::new(self.re, self.eps)
    }
}

/// Called first on the path that evaluates an expression again on [`Dual`] (a fast result's
/// tangent was NaN): marks that path cold, so the fast path is laid out straight.
#[inline(always)]
pub fn strong_path() {
    core::hint::cold_path();
}

/// Runs the second, strong evaluation of a whole `_jvp` body (its fast run's output tangent
/// was NaN) out of line: the body's `Dual` copy stays out of the function that holds the fast
/// copy, which is then small enough for rustc to inline into its callers.
#[cold]
#[inline(never)]
pub fn strong_run<R>(f: impl FnOnce() -> R) -> R {
    f()
}

macro_rules! unary_methods {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("`", stringify!($name), "`, tangent by [`rules::", stringify!($name), "`] (plain product).")]
            #[inline(always)]
            pub fn $name(self) -> Self {
                let y = self.re.$name();
                Fast::new(y, self.eps * rules::$name(self.re, y))
            }
        )*
    };
}

macro_rules! binary_methods {
    ($($name:ident($other:ident)),* $(,)?) => {
        $(
            #[doc = concat!("`", stringify!($name), "`, tangents by [`rules::", stringify!($name), "`] (plain products).")]
            #[inline(always)]
            pub fn $name(self, $other: Self) -> Self {
                let y = self.re.$name($other.re);
                let (da, db) = rules::$name(self.re, $other.re, y);
                Fast::new(y, self.eps * da + $other.eps * db)
            }
        )*
    };
}

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

impl<T: Float> Fast<T> {
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

    /// `self` raised to the integer power `n`.
    #[inline(always)]
    pub fn powi(self, n: i32) -> Self {
        let y = self.re.powi(n);
        Fast::new(y, self.eps * rules::powi(self.re, n, y))
    }

    /// `self * a + b` with one rounding of the value.
    #[inline(always)]
    pub fn mul_add(self, a: Self, b: Self) -> Self {
        let y = self.re.mul_add(a.re, b.re);
        let (ds, da, db) = rules::mul_add(self.re, a.re, b.re, y);
        Fast::new(y, self.eps * ds + a.eps * da + b.eps * db)
    }

    /// `self` restricted to `[lo, hi]`, as [`Dual::clamp`].
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
        Fast::new(y, self.eps * dx + lo.eps * dlo + hi.eps * dhi)
    }

    /// `(sin, cos)` of the value.
    #[inline(always)]
    pub fn sin_cos(self) -> (Self, Self) {
        let (s, c) = self.re.sin_cos();
        let (ds, dc) = rules::sin_cos(self.re, (s, c));
        (Fast::new(s, self.eps * ds), Fast::new(c, self.eps * dc))
    }

    /// `self` with the sign of `sign`, as [`Dual::copysign`].
    #[inline(always)]
    pub fn copysign(self, sign: Self) -> Self {
        if self.re.is_sign_negative() == sign.re.is_sign_negative() {
            self
        } else {
            -self
        }
    }
}

/// `Fast op Fast` and `Fast op T`, with the rule of the operator's name.
macro_rules! binary_operator {
    ($Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident) => {
        impl<T: Float> $Op for Fast<T> {
            type Output = Fast<T>;
            #[inline(always)]
            #[allow(clippy::suspicious_arithmetic_impl)]
            fn $op(self, rhs: Fast<T>) -> Fast<T> {
                let y = $Op::$op(self.re, rhs.re);
                let (da, db) = rules::$op(self.re, rhs.re, y);
                Fast::new(y, self.eps * da + rhs.eps * db)
            }
        }

        impl<T: Float> $Op<T> for Fast<T> {
            type Output = Fast<T>;
            #[inline(always)]
            #[allow(clippy::suspicious_arithmetic_impl)]
            fn $op(self, rhs: T) -> Fast<T> {
                let y = $Op::$op(self.re, rhs);
                let (da, _) = rules::$op(self.re, rhs, y);
                Fast::new(y, self.eps * da)
            }
        }
    };
}

autodiff_macros::__primitive_table!(binary_operators => binary_operator);

impl<T: Float> Neg for Fast<T> {
    type Output = Fast<T>;
    #[inline(always)]
    fn neg(self) -> Fast<T> {
        let y = -self.re;
        Fast::new(y, self.eps * rules::neg(self.re, y))
    }
}

/// The tangent of a whole `_jvp` output (a float, a `Vec` or array of them, a tuple of those):
/// whether any of its scalars is NaN. Generated code runs a function's whole body on [`Fast`]
/// first and keeps its result when no output tangent is NaN ([`whole_ok`]).
pub trait TangentNan {
    /// Whether some scalar of this tangent is NaN.
    fn has_nan(&self) -> bool;
}

macro_rules! float_nan {
    ($($t:ty),*) => {
        $(
            impl TangentNan for $t {
                #[inline(always)]
                fn has_nan(&self) -> bool {
                    self.is_nan()
                }
            }
        )*
    };
}
float_nan!(f32, f64);

impl<T: TangentNan> TangentNan for [T] {
    #[inline]
    fn has_nan(&self) -> bool {
        // Summing the answers keeps the loop free of early exits, so it vectorises.
        self.iter().fold(false, |a, x| a | x.has_nan())
    }
}

impl<T: TangentNan, const N: usize> TangentNan for [T; N] {
    #[inline]
    fn has_nan(&self) -> bool {
        self[..].has_nan()
    }
}

impl<T: TangentNan> TangentNan for Vec<T> {
    #[inline]
    fn has_nan(&self) -> bool {
        self[..].has_nan()
    }
}

macro_rules! tuple_nan {
    ($(($($t:ident $i:tt),*)),*) => {
        $(
            impl<$($t: TangentNan),*> TangentNan for ($($t,)*) {
                #[inline]
                fn has_nan(&self) -> bool {
                    false $(|| self.$i.has_nan())*
                }
            }
        )*
    };
}
tuple_nan!(
    (A 0),
    (A 0, B 1),
    (A 0, B 1, C 2),
    (A 0, B 1, C 2, D 3),
    (A 0, B 1, C 2, D 3, E 4),
    (A 0, B 1, C 2, D 3, E 4, F 5),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
);

/// Whether the result `(value, tangent)` of a `_jvp` body run on [`Fast`] is the strong one: no
/// scalar of its tangent is NaN. A strong zero only replaces a term that is NaN in plain
/// arithmetic, and a NaN term reaches every tangent computed from it (the module docs), so an
/// output tangent without NaN had none on its way; one with NaN is computed again on [`Dual`].
#[inline(always)]
pub fn whole_ok<V, T: TangentNan>(r: &(V, T)) -> bool {
    !r.1.has_nan()
}

// Every method and operator of the primitive table exists on `Fast<T>` too.
autodiff_macros::__primitive_table!(check_dual => Fast);

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path gives `Dual`'s bits where its tangent is not NaN, and is not `ok` where the
    /// strong result where it is (`sqrt` at 0 times a zero tangent).
    #[test]
    fn fast_matches_dual() {
        let (x, dx, y, dy) = (1.7_f64, -0.3, 0.4, 2.5);
        let f = |a: Fast<f64>, b: Fast<f64>| (a * b + a.sin() * 3.0 - b / a).powi(3).exp();
        let d = |a: Dual<f64>, b: Dual<f64>| (a * b + a.sin() * 3.0 - b / a).powi(3).exp();
        let fast = f(Fast::new(x, dx), Fast::new(y, dy));
        let strong = d(Dual::new(x, dx), Dual::new(y, dy));
        assert_eq!(fast.re.to_bits(), strong.re.to_bits());
        assert_eq!(fast.eps.to_bits(), strong.eps.to_bits());

        assert!(fast.ok());
        assert_eq!(fast.dual().eps.to_bits(), strong.eps.to_bits());

        // `sqrt` at 0 times a zero tangent: NaN on the fast path, 0 on `Dual`.
        let z = Fast::new(0.0_f64, 0.0).sqrt() * 2.0;
        assert!(!z.ok());
        let r = Dual::new(0.0_f64, 0.0).sqrt() * 2.0;
        assert_eq!((r.re, r.eps), (0.0, 0.0));
    }

    /// `whole_ok` looks at every scalar of the output's tangent, not at its value.
    #[test]
    fn whole_ok_sees_every_tangent() {
        let nan = f64::NAN;
        assert!(whole_ok(&(nan, 1.0_f64)));
        assert!(!whole_ok(&(1.0, nan)));
        assert!(whole_ok(&(vec![1.0], vec![0.0_f64, 2.0, -1.0])));
        assert!(!whole_ok(&(vec![1.0], vec![0.0_f64, 2.0, nan, 3.0])));
        assert!(!whole_ok(&([1.0; 3], [0.0_f32, 0.0, f32::NAN])));
        assert!(whole_ok(&((1.0, vec![2.0]), (0.0_f64, vec![1.0_f64]))));
        assert!(!whole_ok(&((1.0, vec![2.0]), (0.0_f64, vec![nan]))));
        assert!(!whole_ok(&((1.0, 2.0, 3.0), (0.0_f64, 0.0_f64, nan))));
        assert!(whole_ok(&(vec![[1.0; 2]], vec![[0.5_f64; 2]])));
    }
}
