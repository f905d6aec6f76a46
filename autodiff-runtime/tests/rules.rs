//! Rule-by-rule reference tests: takes every rule of `rules`, gives checks of its partials against
//! five-point finite differences of the std method in f64 and f32, of the f32 rule against the
//! f64 rule, and of each documented convention at its non-smooth point.

mod common;

use autodiff_runtime::rules;
use common::{assert_close, assert_same, c, close, fd, TestFloat};
use core::ops::{Add, Div, Mul, Neg, Rem, Sub};
use num_traits::Float;

/// (rtol, atol) of an f32 rule against the f64 rule at the same point: a few f32 roundings,
/// with an absolute floor for partials read off an f32 output `y` near cancellation.
const F32_VS_F64: (f64, f64) = (1e-5, 1e-6);

fn check_unary<T: TestFloat>(name: &str, f: fn(T) -> T, rule: fn(T, T) -> T, points: &[f64]) {
    let (rtol, atol) = T::FD_TOL;
    for &p in points {
        let x: T = c(p);
        let got = rule(x, f(x));
        let want = fd(f, x);
        let what = format!("rules::{name}({x:?}) in {} vs finite difference", T::NAME);
        assert_close(&what, got, want, rtol, atol);
    }
}

/// A unary primitive and its rule.
type UnaryRule<T> = (fn(T) -> T, fn(T, T) -> T);

fn unary_f32_vs_f64(
    name: &str,
    (f32f, rule32): UnaryRule<f32>,
    (f64f, rule64): UnaryRule<f64>,
    points: &[f64],
) {
    for &p in points {
        let x = p as f32;
        let got = rule32(x, f32f(x)) as f64;
        let want = rule64(x as f64, f64f(x as f64));
        let what = format!("rules::{name}({x:?}) in f32 vs f64");
        assert_close(&what, got, want, F32_VS_F64.0, F32_VS_F64.1);
    }
}

/// One test per unary rule: f64 and f32 against finite differences, f32 against f64.
macro_rules! unary_rules {
    ($($name:ident: [$($p:expr),+ $(,)?];)+) => {
        $(
            #[test]
            fn $name() {
                let points = [$($p),+];
                check_unary::<f64>(stringify!($name), Float::$name, rules::$name, &points);
                check_unary::<f32>(stringify!($name), Float::$name, rules::$name, &points);
                unary_f32_vs_f64(
                    stringify!($name),
                    (Float::$name, rules::$name),
                    (Float::$name, rules::$name),
                    &points,
                );
            }
        )+
    };
}

// Points stay clear of singularities and jumps by more than the f32 stencil's reach (4 ε^(1/5)
// max(1, |x|), about 0.16 max(1, |x|)).
unary_rules! {
    sin: [-2.5, -0.7, 0.0, 0.4, 1.3, 3.0, 10.0];
    cos: [-2.5, -0.7, 0.0, 0.4, 1.3, 3.0, 10.0];
    tan: [-1.0, -0.4, 0.0, 0.3, 0.9];
    asin: [-0.6, -0.3, 0.0, 0.2, 0.55];
    acos: [-0.6, -0.3, 0.0, 0.2, 0.55];
    atan: [-3.0, -0.5, 0.0, 0.8, 4.0, 30.0];
    sinh: [-2.0, -0.5, 0.0, 0.7, 3.0];
    cosh: [-2.0, -0.5, 0.0, 0.7, 3.0];
    tanh: [-2.0, -0.5, 0.0, 0.7, 3.0];
    asinh: [-20.0, -5.0, -0.9, 0.0, 0.5, 0.99, 1.0, 1.01, 1.5, 40.0];
    acosh: [1.5, 2.0, 5.0, 40.0];
    atanh: [-0.6, -0.3, 0.0, 0.2, 0.55];
    exp: [-3.0, -0.5, 0.0, 0.7, 2.5];
    exp2: [-3.0, -0.5, 0.0, 0.7, 2.5, 9.0];
    exp_m1: [-3.0, -0.5, 0.0, 0.7, 2.5];
    ln: [0.5, 1.0, 2.5, 40.0, 1000.0];
    log2: [0.5, 1.0, 2.5, 40.0, 1000.0];
    log10: [0.5, 1.0, 2.5, 40.0, 1000.0];
    ln_1p: [-0.5, 0.0, 0.3, 2.5, 40.0];
    sqrt: [0.5, 1.0, 2.0, 100.0, 1e6];
    cbrt: [-27.0, -2.0, -0.6, 0.6, 1.0, 8.0, 1e6];
    recip: [-3.0, -0.6, 0.6, 1.0, 7.0];
    abs: [-3.0, -0.6, 0.6, 1.0, 7.0];
    signum: [-3.0, -0.6, 0.6, 7.0];
    floor: [-2.5, -0.5, 0.5, 3.5];
    ceil: [-2.5, -0.5, 0.5, 3.5];
    round: [-2.0, -0.1, 0.2, 3.0];
    trunc: [-2.5, -0.5, 0.5, 3.5];
    fract: [-2.5, -0.5, 0.5, 3.5];
    to_degrees: [-2.0, 0.0, 0.5, 3.0];
    to_radians: [-200.0, 0.0, 45.0, 300.0];
}

fn check_binary<T: TestFloat>(
    name: &str,
    f: fn(T, T) -> T,
    rule: fn(T, T, T) -> (T, T),
    points: &[(f64, f64)],
) {
    let (rtol, atol) = T::FD_TOL;
    for &(pa, pb) in points {
        let (a, b): (T, T) = (c(pa), c(pb));
        let (da, db) = rule(a, b, f(a, b));
        let (wa, wb) = (fd(|a| f(a, b), a), fd(|b| f(a, b), b));
        let what = |i| {
            format!(
                "rules::{name}({a:?}, {b:?}).{i} in {} vs finite difference",
                T::NAME
            )
        };
        assert_close(&what(0), da, wa, rtol, atol);
        assert_close(&what(1), db, wb, rtol, atol);
    }
}

/// A binary primitive and its rule.
type BinaryRule<T> = (fn(T, T) -> T, fn(T, T, T) -> (T, T));

fn binary_f32_vs_f64(
    name: &str,
    (f32f, rule32): BinaryRule<f32>,
    (f64f, rule64): BinaryRule<f64>,
    points: &[(f64, f64)],
) {
    for &(pa, pb) in points {
        let (a, b) = (pa as f32, pb as f32);
        let got = rule32(a, b, f32f(a, b));
        let want = rule64(a as f64, b as f64, f64f(a as f64, b as f64));
        let what = |i| format!("rules::{name}({a:?}, {b:?}).{i} in f32 vs f64");
        assert_close(&what(0), got.0 as f64, want.0, F32_VS_F64.0, F32_VS_F64.1);
        assert_close(&what(1), got.1 as f64, want.1, F32_VS_F64.0, F32_VS_F64.1);
    }
}

/// One test per binary rule, like `unary_rules`; `$f` is the primitive as a path.
macro_rules! binary_rules {
    ($($name:ident = $($f:ident)::+: [$($p:expr),+ $(,)?];)+) => {
        $(
            #[test]
            fn $name() {
                let points = [$($p),+];
                check_binary::<f64>(stringify!($name), $($f)::+, rules::$name, &points);
                check_binary::<f32>(stringify!($name), $($f)::+, rules::$name, &points);
                binary_f32_vs_f64(
                    stringify!($name),
                    ($($f)::+, rules::$name),
                    ($($f)::+, rules::$name),
                    &points,
                );
            }
        )+
    };
}

// atan2 avoids the negative b axis (its branch cut); max/min avoid ties; rem keeps a / b near
// k + 1/2 so the stencil never crosses a jump.
binary_rules! {
    atan2 = Float::atan2: [(0.5, 1.2), (-1.3, 0.4), (2.0, -3.0), (-0.2, -0.7), (1.0, 0.0), (-4.0, 0.1)];
    hypot = Float::hypot: [(3.0, 4.0), (-1.5, 0.2), (0.0, 2.0), (-7.0, -0.5)];
    powf = Float::powf: [(0.5, 2.3), (1.7, -1.2), (3.0, 0.5), (2.0, 3.0), (0.8, 0.0), (1.0, 4.0)];
    log = Float::log: [(2.0, 10.0), (0.3, 2.0), (5.0, 0.5), (7.0, 3.0)];
    max = Float::max: [(1.0, 2.0), (3.0, -1.0), (-0.5, -0.6)];
    min = Float::min: [(1.0, 2.0), (3.0, -1.0), (-0.5, -0.6)];
    add = Add::add: [(1.0, 2.0), (-3.5, 0.25)];
    sub = Sub::sub: [(1.0, 2.0), (-3.5, 0.25)];
    mul = Mul::mul: [(1.5, 2.0), (-3.5, 0.25), (0.0, 4.0)];
    div = Div::div: [(1.5, 2.0), (-3.5, 1.25), (0.0, -4.0), (7.0, -0.9)];
    rem = Rem::rem: [(7.35, 2.1), (-5.95, 1.7), (5.95, -1.7), (0.5, 3.0), (-12.6, -3.6)];
}

#[test]
fn neg() {
    fn run<T: TestFloat>() {
        let (rtol, atol) = T::FD_TOL;
        for p in [-2.0, 0.0, 3.5] {
            let x: T = c(p);
            assert_close("rules::neg", rules::neg(x, -x), fd(Neg::neg, x), rtol, atol);
            assert_same("rules::neg", rules::neg(x, -x), -T::one());
        }
    }
    run::<f64>();
    run::<f32>();
}

#[test]
fn sin_cos() {
    fn run<T: TestFloat>() {
        let (rtol, atol) = T::FD_TOL;
        for p in [-2.5, -0.7, 0.0, 0.4, 1.3, 3.0] {
            let x: T = c(p);
            let (ds, dc) = rules::sin_cos(x, x.sin_cos());
            assert_close("rules::sin_cos.0", ds, fd(T::sin, x), rtol, atol);
            assert_close("rules::sin_cos.1", dc, fd(T::cos, x), rtol, atol);
            assert_same("rules::sin_cos.0 vs rules::sin", ds, rules::sin(x, x.sin()));
            assert_same("rules::sin_cos.1 vs rules::cos", dc, rules::cos(x, x.cos()));
        }
    }
    run::<f64>();
    run::<f32>();
}

#[test]
fn powi() {
    fn run<T: TestFloat>() {
        let (rtol, atol) = T::FD_TOL;
        for n in [-3, -1, 0, 1, 2, 3, 7] {
            for p in [-1.3, -0.6, 0.6, 2.0] {
                let x: T = c(p);
                let got = rules::powi(x, n, x.powi(n));
                let want = fd(|x: T| x.powi(n), x);
                let what = format!("rules::powi({x:?}, {n}) in {}", T::NAME);
                assert_close(&what, got, want, rtol, atol);
                // Closed form n x^(n-1).
                let closed = c::<T>(n as f64) * x.powf(c((n - 1) as f64));
                assert_close(&what, got, closed, 1e-5, 0.0);
            }
        }
    }
    run::<f64>();
    run::<f32>();
}

#[test]
fn powi_extreme_exponent_uses_the_output() {
    // n - 1 does not exist for n = i32::MIN; d/dx x^n = n x^(n-1) = n y / x.
    let n = i32::MIN;
    assert_eq!(rules::powi(1.0f64, n, 1.0), -2147483648.0);
    assert_eq!(rules::powi(-1.0f64, n, 1.0), 2147483648.0);
    assert_eq!(rules::powi(1.0f32, n, 1.0), -2147483648.0);
}

fn check_ternary<T: TestFloat>(
    name: &str,
    f: fn(T, T, T) -> T,
    rule: fn(T, T, T, T) -> (T, T, T),
    points: &[(f64, f64, f64)],
) {
    let (rtol, atol) = T::FD_TOL;
    for &(pa, pb, pc) in points {
        let (a, b, cc): (T, T, T) = (c(pa), c(pb), c(pc));
        let got = rule(a, b, cc, f(a, b, cc));
        let want = (
            fd(|a| f(a, b, cc), a),
            fd(|b| f(a, b, cc), b),
            fd(|cc| f(a, b, cc), cc),
        );
        let what = |i| format!("rules::{name}({a:?}, {b:?}, {cc:?}).{i} in {}", T::NAME);
        assert_close(&what(0), got.0, want.0, rtol, atol);
        assert_close(&what(1), got.1, want.1, rtol, atol);
        assert_close(&what(2), got.2, want.2, rtol, atol);
    }
}

#[test]
fn mul_add() {
    let points = [(1.5, -2.0, 0.5), (0.0, 3.0, -1.0), (-0.7, -0.3, 4.0)];
    check_ternary::<f64>("mul_add", Float::mul_add, rules::mul_add, &points);
    check_ternary::<f32>("mul_add", Float::mul_add, rules::mul_add, &points);
}

#[test]
fn clamp() {
    // Inside, below and above the interval, away from its ends.
    let points = [
        (0.5, -1.0, 2.0),
        (-3.0, -1.0, 2.0),
        (5.0, -1.0, 2.0),
        (-0.5, -4.0, 7.0),
    ];
    check_ternary::<f64>("clamp", Float::clamp, rules::clamp, &points);
    check_ternary::<f32>("clamp", Float::clamp, rules::clamp, &points);
}

// ---------------------------------------------------------------------------------------------
// Documented conventions, at the non-smooth points themselves

#[test]
fn abs_at_zero_is_zero() {
    fn run<T: TestFloat>() {
        assert_same("abs'(0)", rules::abs(T::zero(), T::zero()), T::zero());
        assert_same("abs'(-0)", rules::abs(T::neg_zero(), T::zero()), T::zero());
        assert_same("abs'(-2)", rules::abs(c::<T>(-2.0), c(2.0)), -T::one());
        assert_same(
            "abs'(tiny)",
            rules::abs(T::min_positive_value(), T::min_positive_value()),
            T::one(),
        );
    }
    run::<f64>();
    run::<f32>();
}

#[test]
fn step_functions_have_zero_derivative_at_their_jumps() {
    fn run<T: TestFloat>() {
        for p in [0.0, 1.0, -2.0, 0.5, -1.5] {
            let x: T = c(p);
            assert_same("signum'", rules::signum(x, x.signum()), T::zero());
            assert_same("floor'", rules::floor(x, x.floor()), T::zero());
            assert_same("ceil'", rules::ceil(x, x.ceil()), T::zero());
            assert_same("round'", rules::round(x, x.round()), T::zero());
            assert_same("trunc'", rules::trunc(x, x.trunc()), T::zero());
            assert_same("fract'", rules::fract(x, x.fract()), T::one());
        }
    }
    run::<f64>();
    run::<f32>();
}

#[test]
fn max_and_min_pick_the_first_argument_on_ties() {
    fn run<T: TestFloat>() {
        let (one, zero) = (T::one(), T::zero());
        let x: T = c(1.5);
        assert_eq!(rules::max(x, x, x), (one, zero));
        assert_eq!(rules::min(x, x, x), (one, zero));
        assert_eq!(rules::max(T::zero(), T::neg_zero(), T::zero()), (one, zero));
        assert_eq!(rules::min(T::neg_zero(), T::zero(), T::zero()), (one, zero));
        // Strict cases.
        assert_eq!(rules::max(c::<T>(2.0), x, c(2.0)), (one, zero));
        assert_eq!(rules::max(c::<T>(1.0), x, x), (zero, one));
        assert_eq!(rules::min(c::<T>(1.0), x, c(1.0)), (one, zero));
        assert_eq!(rules::min(c::<T>(2.0), x, x), (zero, one));
        // With a NaN std returns the other argument; the partial follows it.
        let nan = T::nan();
        assert_eq!(rules::max(nan, x, x.max(nan)), (zero, one));
        assert_eq!(rules::max(x, nan, x.max(nan)), (one, zero));
        assert_eq!(rules::min(nan, x, x.min(nan)), (zero, one));
        assert_eq!(rules::min(x, nan, x.min(nan)), (one, zero));
    }
    run::<f64>();
    run::<f32>();
}

#[test]
fn clamp_on_the_boundary_passes_x_through() {
    fn run<T: TestFloat>() {
        let (o, z) = (T::one(), T::zero());
        let (lo, hi): (T, T) = (c(-1.0), c(2.0));
        assert_eq!(rules::clamp(lo, lo, hi, lo), (o, z, z));
        assert_eq!(rules::clamp(hi, lo, hi, hi), (o, z, z));
        assert_eq!(rules::clamp(c::<T>(0.0), lo, hi, c(0.0)), (o, z, z));
        assert_eq!(rules::clamp(c::<T>(-1.5), lo, hi, lo), (z, o, z));
        assert_eq!(rules::clamp(c::<T>(2.5), lo, hi, hi), (z, z, o));
        // Degenerate interval: x == lo == hi passes through.
        assert_eq!(rules::clamp(hi, hi, hi, hi), (o, z, z));
    }
    run::<f64>();
    run::<f32>();
}

#[test]
fn hypot_at_origin_is_zero() {
    fn run<T: TestFloat>() {
        let z = T::zero();
        assert_eq!(rules::hypot(z, z, z), (z, z));
        assert_eq!(rules::hypot(T::neg_zero(), z, z), (z, z));
    }
    run::<f64>();
    run::<f32>();
}

#[test]
fn atan2_at_origin_is_nan_and_rescales_elsewhere() {
    let (da, db) = rules::atan2(0.0f64, 0.0, 0.0);
    assert!(da.is_nan() && db.is_nan());
    let (da, db) = rules::atan2(0.0f32, 0.0, 0.0);
    assert!(da.is_nan() && db.is_nan());
    // a² + b² overflows: partials b / r², -a / r² with r² = 1e401.
    let (da, db) = rules::atan2(1e200f64, 3e200, 0.0);
    assert_close("atan2 overflow da", da, 3e-201, 1e-14, 0.0);
    assert_close("atan2 overflow db", db, -1e-201, 1e-14, 0.0);
    // a² + b² underflows: r² = 5e-400.
    let (da, db) = rules::atan2(1e-200f64, -2e-200, 0.0);
    assert_close("atan2 underflow da", da, -4e199, 1e-14, 0.0);
    assert_close("atan2 underflow db", db, -2e199, 1e-14, 0.0);
    // Same in f32 (r² = 1e41 and 5e-40).
    let (da, db) = rules::atan2(1e20f32, 3e20, 0.0);
    assert_close("atan2 f32 overflow da", da, 3e-21, 1e-6, 0.0);
    assert_close("atan2 f32 overflow db", db, -1e-21, 1e-6, 0.0);
    let (da, db) = rules::atan2(1e-20f32, -2e-20, 0.0);
    assert_close("atan2 f32 underflow da", da, -4e19, 1e-6, 0.0);
    assert_close("atan2 f32 underflow db", db, -2e19, 1e-6, 0.0);
}

#[test]
fn powf_conventions() {
    fn run<T: TestFloat>() {
        let z = T::zero();
        let pw = |x: T, p: T| rules::powf(x, p, x.powf(p));
        // At x == 0: d/dp = 0, d/dx = p 0^(p-1).
        assert_eq!(pw(z, c(2.0)), (z, z));
        assert_eq!(pw(z, c(1.0)), (T::one(), z));
        assert_eq!(pw(z, c(0.5)), (T::infinity(), z));
        assert_eq!(pw(z, c(-1.0)), (T::neg_infinity(), z));
        // p == 0: constant in x, also at x == 0.
        assert_eq!(pw(z, z), (z, z));
        assert_eq!(pw(c(3.0), z).0, z);
        // x < 0 with an integer exponent: d/dx exact, d/dp NaN.
        let (dx, dp) = pw(c(-1.5), c(3.0));
        assert_close("powf(-1.5, 3) dx", dx, c(6.75), 1e-6, 0.0);
        assert!(dp.is_nan());
        // Tiny output (y / x would lose it): falls back to p x^(p-1).
        let x: T = T::min_positive_value().sqrt() * c(0.5);
        let (dx, _) = pw(x, c(2.0));
        assert_close("powf(tiny, 2) dx", dx, x + x, 1e-6, 0.0);
    }
    run::<f64>();
    run::<f32>();
}

#[test]
fn powi_conventions() {
    fn run<T: TestFloat>() {
        let z = T::zero();
        assert_same("powi(0, 0)'", rules::powi(z, 0, T::one()), z);
        assert_same("powi(0, 1)'", rules::powi(z, 1, z), T::one());
        assert_same("powi(0, 2)'", rules::powi(z, 2, z), z);
        assert_same(
            "powi(0, -1)'",
            rules::powi(z, -1, T::infinity()),
            T::neg_infinity(),
        );
    }
    run::<f64>();
    run::<f32>();
}

#[test]
fn singular_points_give_the_one_sided_limit() {
    fn run<T: TestFloat>() {
        let (z, inf) = (T::zero(), T::infinity());
        assert_same("sqrt'(0)", rules::sqrt(z, z), inf);
        assert_same("cbrt'(0)", rules::cbrt(z, z), inf);
        assert_same("ln'(0)", rules::ln(z, -inf), inf);
        assert_same("asin'(1)", rules::asin(T::one(), T::one().asin()), inf);
        assert_same("acos'(1)", rules::acos(T::one(), z), -inf);
        assert_same("atanh'(-1)", rules::atanh(-T::one(), -inf), inf);
        assert_same("acosh'(1)", rules::acosh(T::one(), z), inf);
    }
    run::<f64>();
    run::<f32>();
}

#[test]
fn rem_partials_follow_the_exact_quotient() {
    // a / b rounds up to 20.0 in f64, but the true quotient truncates to 19:
    // a % b = a - 19 b (close to b itself), so d/db = -19.
    let (a, b) = (11.94526621805696f64, 0.597263310902848f64);
    assert_eq!(a / b, 20.0);
    let y = a % b;
    assert!(y > 0.5 * b, "remainder {y} should be close to b");
    assert_eq!(rules::rem(a, b, y), (1.0, -19.0));
    // At a jump (a an exact multiple of b) the quotient is the exact one.
    assert_eq!(rules::rem(6.0f64, 2.0, 0.0), (1.0, -3.0));
    assert_eq!(rules::rem(-6.0f32, 2.0, -0.0), (1.0, 3.0));
    // An infinite divisor leaves a unchanged.
    let (da, db) = rules::rem(3.0f64, f64::INFINITY, 3.0);
    assert_eq!((da, db), (1.0, 0.0));
}

#[test]
fn exp_family_and_tanh_use_the_output_accurately() {
    // tanh near saturation: (1 - y)(1 + y) keeps the tiny derivative, 1 - y² would not.
    let x = 8.0f64;
    let want = 1.0 / x.cosh().powi(2);
    assert_close("tanh'(8)", rules::tanh(x, x.tanh()), want, 1e-8, 0.0);
    // asinh for large |x| does not overflow: 1 / sqrt(x² + 1) ≈ 1 / |x|.
    assert_close(
        "asinh'(1e200)",
        rules::asinh(1e200f64, 0.0),
        1e-200,
        1e-14,
        0.0,
    );
    assert_close(
        "asinh'(-1e30) f32",
        rules::asinh(-1e30f32, 0.0),
        1e-30,
        1e-6,
        0.0,
    );
    // acosh for large x likewise.
    assert_close(
        "acosh'(1e200)",
        rules::acosh(1e200f64, 0.0),
        1e-200,
        1e-14,
        0.0,
    );
    // exp2 and log2 use ln 2, log10 uses ln 10, with the constants of the type.
    assert_same(
        "exp2'(0) f32",
        rules::exp2(0.0f32, 1.0),
        core::f32::consts::LN_2,
    );
    assert_same(
        "log10'(1) f64",
        rules::log10(1.0f64, 0.0),
        1.0 / core::f64::consts::LN_10,
    );
    // to_degrees / to_radians scale by std's own factors.
    assert_same(
        "to_degrees'",
        rules::to_degrees(0.3f64, 0.0),
        1f64.to_degrees(),
    );
    assert_same(
        "to_radians' f32",
        rules::to_radians(0.3f32, 0.0),
        1f32.to_radians(),
    );
}

#[test]
fn rules_read_the_output_not_recompute_it() {
    // Rules documented to use y must use the y they are given.
    assert_eq!(rules::exp(100.0f64, 2.0), 2.0);
    assert_eq!(rules::exp_m1(100.0f64, 2.0), 3.0);
    assert_eq!(rules::tan(100.0f64, 2.0), 5.0);
    assert_eq!(rules::tanh(100.0f64, 0.5), 0.75);
    assert_eq!(rules::sqrt(100.0f64, 2.0), 0.25);
    assert_eq!(rules::cbrt(100.0f64, 2.0), 1.0 / 12.0);
    assert_eq!(rules::recip(100.0f64, 2.0), -4.0);
    assert_eq!(rules::sin_cos(100.0f64, (0.25, 0.5)), (0.5, -0.25));
    assert!(close(
        rules::exp2(100.0f64, 2.0),
        2.0 * core::f64::consts::LN_2,
        1e-16,
        0.0
    ));
}
