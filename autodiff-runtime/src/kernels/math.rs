//! Element-wise special functions written for vectorization: takes one float, gives `exp`,
//! `expm1` (bounded arguments), `ln`, `ln_1p` (non-negative arguments), `tanh`, the logistic
//! sigmoid and the normal CDF and density, each with no branch, no call and no table, so that a
//! loop over a slice compiles to SIMD code on every path (all functions are `#[inline(always)]` and
//! generic over [`Arith`], fused on the SIMD paths).
//!
//! Methods (standard ones; the coefficients are in `coefs.rs`):
//! - `exp`: `x = n ln2 + r`, `|r| <= ln2/2`, with `ln2` split in two (Cody and Waite) so that
//!   `r` is exact up to one rounding; `e^r` by its Taylor series (degree 13 for `f64`, 7 for
//!   `f32`, truncation below 0.1 ulp); `2^n` built from the exponent bits, in two factors so that
//!   subnormal results are rounded once.
//! - `ln`: `x = 2^e m`, `m` in `[√2/2, √2)`, `ln m = 2 atanh(s)`, `s = (m-1)/(m+1)`, written as
//!   `f - (f²/2 - s (f²/2 + R))` with `f = m - 1` (the classic arrangement that keeps the
//!   leading terms exact); subnormals are scaled first.
//! - `tanh(x) = E / (E + 2)` with `E = expm1(2|x|)`, sign restored, ±1 past `TANH_ONE`.
//! - Sigmoid from `e = exp(-|x|)`: `1 / (1 + e)` or `e / (1 + e)`; its derivative `e / (1 + e)²`.
//! - Normal CDF `Φ`: Taylor series for `|x| < 1/√2`; beyond, `Φ(-|x|) = t Q(t) exp(-x²/2) / 2`,
//!   `t = 2 / (2 + |x|/√2)`, `Q` a Chebyshev interpolant, `x²` split exactly in two floats so that
//!   the exponential keeps its relative accuracy for large |x|.

use super::isa::Arith;
use super::real::Real;

/// `Σ c[k] x^k` (lowest degree first), by Horner's rule.
#[inline(always)]
pub(crate) fn horner<T: Real, A: Arith>(c: &[T], x: T) -> T {
    let (&last, rest) = c.split_last().expect("non-empty coefficients");
    rest.iter().rev().fold(last, |acc, &ck| A::madd(acc, x, ck))
}

/// `Σ c[k] T_k(s)` (Chebyshev polynomials of the first kind), by Clenshaw's recurrence.
#[inline(always)]
fn clenshaw<T: Real, A: Arith>(c: &[T], s: T) -> T {
    let two_s = s + s;
    let (mut b1, mut b2) = (T::zero(), T::zero());
    for &ck in c[1..].iter().rev() {
        let b0 = A::madd(two_s, b1, ck - b2);
        b2 = b1;
        b1 = b0;
    }
    A::madd(s, b1, c[0] - b2)
}

/// `x` if `x <= hi`, else `hi` (NaN stays NaN, unlike `min`).
#[inline(always)]
pub(crate) fn clamp_hi<T: Real>(x: T, hi: T) -> T {
    if x > hi {
        hi
    } else {
        x
    }
}

/// `2^n` for an integer-valued `n` with `n + BIAS` in `[1, 2 * BIAS]`, from the bits of
/// `n + SHIFTER` (no float-to-int conversion, which would not vectorize on every path).
#[inline(always)]
fn pow2<T: Real>(n: T) -> T {
    let bits = (n + T::SHIFTER).to_bits_();
    T::from_bits_(T::bits_add(bits, T::BIAS) << T::MANT_BITS)
}

/// `(n, r)` with `x = n ln2 + r + xl`, `n` integer-valued, `|r| <= ln2/2` (about).
#[inline(always)]
fn reduce<T: Real, A: Arith>(x: T, xl: T) -> (T, T) {
    let n = A::madd(x, T::c(std::f64::consts::LOG2_E), T::SHIFTER) - T::SHIFTER;
    // Exact: `n * LN2_HI` is exact and close to `x`.
    let r = A::madd(-n, T::LN2_HI, x);
    (n, r + A::madd(-n, T::LN2_LO, xl))
}

/// `e^r - 1` for `|r| <= ln2/2`, relative error below 1 ulp.
#[inline(always)]
fn expm1_reduced<T: Real, A: Arith>(r: T) -> T {
    A::madd(r * r, horner::<T, A>(T::EXP_TAYLOR, r), r)
}

/// `e^(x + xl) = p * s1 * s2` (`xl` a small correction of `x`, zero for a plain `exp`), with `p`
/// near 1 and `s1`, `s2` powers of two: a factor multiplied into `p` before the two scalings is
/// rounded once, also when the result is subnormal.
#[inline(always)]
pub(crate) fn exp_parts<T: Real, A: Arith>(x: T, xl: T) -> (T, T, T) {
    let x = if x > T::EXP_HI {
        T::EXP_HI
    } else if x < T::EXP_LO {
        T::EXP_LO
    } else {
        x
    };
    let (n, r) = reduce::<T, A>(x, xl);
    let p = T::one() + expm1_reduced::<T, A>(r);
    let half = (A::madd(n, T::c(0.5), T::SHIFTER)) - T::SHIFTER;
    (p, pow2(half), pow2(n - half))
}

/// `e^(x + xl)`, see [`exp_parts`].
#[inline(always)]
pub(crate) fn exp2parts<T: Real, A: Arith>(x: T, xl: T) -> T {
    let (p, s1, s2) = exp_parts::<T, A>(x, xl);
    p * s1 * s2
}

/// `e^x`: within 1 ulp; +inf above `EXP_HI`, +0 below `EXP_LO`, NaN for NaN.
#[inline(always)]
pub(crate) fn exp<T: Real, A: Arith>(x: T) -> T {
    exp2parts::<T, A>(x, T::zero())
}

/// `e^x - 1` for `x <= 60` (larger arguments would overflow `2^n` in one factor).
#[inline(always)]
pub(crate) fn expm1_bounded<T: Real, A: Arith>(x: T) -> T {
    let x = if x < T::c(-60.0) { T::c(-60.0) } else { x };
    let (n, r) = reduce::<T, A>(x, T::zero());
    let s = pow2(n);
    // 2^n (e^r - 1) + (2^n - 1): exact for n = 0, no cancellation otherwise.
    A::madd(s, expm1_reduced::<T, A>(r), s - T::one())
}

/// `ln x`: within 1 ulp for positive `x` (subnormals included); `-inf` at ±0, `+inf` at `+inf`,
/// NaN for negative `x` and NaN.
#[inline(always)]
pub(crate) fn ln<T: Real, A: Arith>(x: T) -> T {
    let sub = x < T::min_positive_value();
    let xs = if sub { x * T::SUB_SCALE } else { x };
    let bits = xs.to_bits_();
    // The exponent field as a float, unbiased, without a float-to-int conversion.
    let mut e = T::from_bits_(T::INT_BITS | (bits >> T::MANT_BITS)) - T::EXP_FIELD_OFFSET;
    if sub {
        e = e - T::SUB_SHIFT;
    }
    let mut m = T::from_bits_((bits & T::MANT_MASK) | T::ONE_BITS);
    if m > T::c(std::f64::consts::SQRT_2) {
        m = m * T::c(0.5);
        e = e + T::one();
    }
    let y = ln_core::<T, A>(m - T::one(), e);
    if x.is_nan() || x < T::zero() {
        T::nan()
    } else if x == T::zero() {
        T::neg_infinity()
    } else if x == T::infinity() {
        x
    } else {
        y
    }
}

/// `e ln2 + ln(1 + f)` for `1 + f` in `[√2/2, √2)` and an integer-valued `e`, with one division.
#[inline(always)]
fn ln_core<T: Real, A: Arith>(f: T, e: T) -> T {
    let s = f / (T::c(2.0) + f);
    let z = s * s;
    let r = z * horner::<T, A>(T::LOG_SERIES, z);
    let hfsq = T::c(0.5) * f * f;
    let tail = A::madd(s, hfsq + r, e * T::LN2_LO);
    A::madd(e, T::LN2_HI, f - (hfsq - tail))
}

/// `ln(1 + u)` for `u` in `[0, 1]` (NaN for NaN): `1 + u = 2^e (1 + f)` with `f` computed exactly
/// from `u` (`u`, or `(u - 1) / 2` past √2 - 1), so no correction of the rounding of `1 + u` is
/// needed and tiny `u` give `u`.
#[inline(always)]
pub(crate) fn ln_1p_unit<T: Real, A: Arith>(u: T) -> T {
    let big = u > T::c(std::f64::consts::SQRT_2 - 1.0);
    let f = if big { (u - T::one()) * T::c(0.5) } else { u };
    let e = if big { T::one() } else { T::zero() };
    ln_core::<T, A>(f, e)
}

/// `tanh x` (see the module documentation).
#[inline(always)]
pub(crate) fn tanh<T: Real, A: Arith>(x: T) -> T {
    let a = x.abs();
    let e = expm1_bounded::<T, A>(T::c(2.0) * clamp_hi(a, T::TANH_ONE));
    let t = e / (e + T::c(2.0));
    let t = if a > T::TANH_ONE { T::one() } else { t };
    t.copysign(x)
}

/// `1 - tanh²(x) = 4 e / (1 + e)²` with `e = exp(-2|x|)` (accurate in the tails too).
#[inline(always)]
pub(crate) fn tanh_deriv<T: Real, A: Arith>(x: T) -> T {
    let e = exp::<T, A>(T::c(-2.0) * x.abs());
    let r = T::one() / (T::one() + e);
    T::c(4.0) * e * r * r
}

/// `m σ(x)` for the logistic sigmoid, from `e = exp(-|x|)` (no overflow) and one division: `m / (1
/// + e)` for `x >= 0`, `m e / (1 + e)` below, where `m` is multiplied in before the final
/// power-of-two scaling of `e`, so that `x σ(x)` keeps its accuracy where the result is subnormal.
#[inline(always)]
pub(crate) fn sigmoid_scaled<T: Real, A: Arith>(x: T, m: T) -> T {
    let (p, s1, s2) = exp_parts::<T, A>(-x.abs(), T::zero());
    let d = T::one() + p * s1 * s2;
    // One division for both signs: the numerator is chosen first.
    let pos = x >= T::zero();
    let q = if pos { m } else { m * p } / d;
    if pos {
        q
    } else if x < T::EXP_LO {
        // e^x underflows, and so does m σ(x) for the multipliers used (see `EXP_LO`); m = ±inf
        // gives ±0, the limit.
        T::zero() * m.signum()
    } else {
        q * s1 * s2
    }
}

/// `σ(x)`.
#[inline(always)]
pub(crate) fn sigmoid<T: Real, A: Arith>(x: T) -> T {
    sigmoid_scaled::<T, A>(x, T::one())
}

/// `(σ(x), σ'(x))` with one division, for derivatives: `σ' = e / (1 + e)²`, accurate in both
/// tails (no `σ (1 - σ)` cancellation); `σ` here is rounded twice (within 1 ulp more than
/// [`sigmoid`]).
#[inline(always)]
pub(crate) fn sigmoid_deriv<T: Real, A: Arith>(x: T) -> (T, T) {
    let e = exp::<T, A>(-x.abs());
    let r = T::one() / (T::one() + e);
    let s = if x >= T::zero() { r } else { e * r };
    (s, e * r * r)
}

/// `x²` as `hi + lo` exactly (fused: `lo = fma(x, x, -hi)`; unfused: Dekker's product).
#[inline(always)]
fn square2<T: Real, A: Arith>(x: T) -> (T, T) {
    let hi = x * x;
    if A::FUSED {
        (hi, A::madd(x, x, -hi))
    } else {
        let c = T::SPLITTER * x;
        let xh = c - (c - x);
        let xl = x - xh;
        (hi, ((xh * xh - hi) + T::c(2.0) * xh * xl) + xl * xl)
    }
}

/// `(Φ(x), φ(x), m Φ(x))`: the standard normal CDF and density (see the module documentation);
/// `m` is multiplied in before the final scaling of the left tail, as in [`sigmoid_scaled`].
#[inline(always)]
pub(crate) fn normal_cdf_pdf<T: Real, A: Arith>(x: T, m: T) -> (T, T, T) {
    let a = clamp_hi(x.abs(), T::PHI_ZERO);
    let (hi, lo) = square2::<T, A>(a);
    let (p, s1, s2) = exp_parts::<T, A>(T::c(-0.5) * hi, T::c(-0.5) * lo);
    let g = p * s1 * s2;
    let pdf = g * T::c(1.0 / (2.0 * std::f64::consts::PI).sqrt());
    // Tail: Φ(-a) = t Q(t) exp(-a²/2) / 2.
    // t = 2 / (2 + a/√2), with one rounding fewer.
    let t = T::c(2.0 * std::f64::consts::SQRT_2) / (T::c(2.0 * std::f64::consts::SQRT_2) + a);
    let s = A::madd(t, T::ERFC_T_SCALE, -T::ERFC_T_SHIFT);
    let tq = T::c(0.5) * t * clenshaw::<T, A>(T::ERFC_CHEB, s);
    let q = tq * g;
    let (tail, m_tail) = if x < -T::PHI_ZERO {
        // Φ(x) underflows, and so does m Φ(x) for any finite m (±0 for m = ±inf, the limit).
        (T::zero(), T::zero() * m.signum())
    } else if x < T::zero() {
        (q, (m * tq * p) * s1 * s2)
    } else {
        (T::one() - q, m * (T::one() - q))
    };
    // Centre: 1/2 + x Σ c_n x^(2n).
    let centre = A::madd(x, horner::<T, A>(T::PHI_TAYLOR, x * x), T::c(0.5));
    if a < T::c(std::f64::consts::FRAC_1_SQRT_2) {
        (centre, pdf, m * centre)
    } else {
        (tail, pdf, m_tail)
    }
}
