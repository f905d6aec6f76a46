//! `Dual` tests: takes every method and operator of `Dual<f32>` and `Dual<f64>`, gives checks of
//! values against std, tangents against the rule table and closed forms, and of comparisons,
//! conversions, num-traits impls, sums, products and formatting.

mod common;

use autodiff_runtime::{rules, Dual};
use common::{assert_close, assert_same, c, TestFloat};
use num_traits::{Float, FloatConst, FromPrimitive, Num, NumCast, One, Signed, ToPrimitive, Zero};

type D64 = Dual<f64>;
type D32 = Dual<f32>;

// ---------------------------------------------------------------------------------------------
// Methods: value from std, tangent from the rule

/// For each unary method, at several points and two tangents: the value is std's, the tangent
/// is `eps * rule(x, y)`.
macro_rules! unary_methods {
    ($($name:ident: [$($p:expr),+ $(,)?];)+) => {
        #[test]
        fn unary_methods_use_std_values_and_rule_tangents() {
            fn run<T: TestFloat>() {
                $(
                    for p in [$($p),+] {
                        let x: T = c(p);
                        let y = Float::$name(x);
                        for t in [T::one(), c(-2.5)] {
                            let d = Dual::new(x, t).$name();
                            let what = format!("Dual::{}({x:?}) in {}", stringify!($name), T::NAME);
                            assert_same(&format!("{what}: value"), d.re, y);
                            assert_same(&format!("{what}: tangent"), d.eps, t * rules::$name(x, y));
                        }
                    }
                )+
            }
            run::<f64>();
            run::<f32>();
        }
    };
}

unary_methods! {
    sin: [-2.0, 0.0, 0.5, 3.0];
    cos: [-2.0, 0.0, 0.5, 3.0];
    tan: [-1.0, 0.0, 0.5];
    asin: [-0.5, 0.0, 0.9];
    acos: [-0.5, 0.0, 0.9];
    atan: [-3.0, 0.0, 0.5];
    sinh: [-2.0, 0.0, 0.5];
    cosh: [-2.0, 0.0, 0.5];
    tanh: [-2.0, 0.0, 0.5];
    asinh: [-3.0, 0.0, 0.5];
    acosh: [1.5, 4.0];
    atanh: [-0.5, 0.0, 0.9];
    exp: [-2.0, 0.0, 0.5];
    exp2: [-2.0, 0.0, 0.5];
    exp_m1: [-2.0, 0.0, 0.5];
    ln: [0.5, 1.0, 7.0];
    log2: [0.5, 1.0, 7.0];
    log10: [0.5, 1.0, 7.0];
    ln_1p: [-0.5, 0.0, 7.0];
    sqrt: [0.5, 1.0, 7.0];
    cbrt: [-8.0, 0.5, 7.0];
    recip: [-8.0, 0.5, 7.0];
    abs: [-8.0, 0.0, 7.0];
    signum: [-8.0, 0.0, 7.0];
    floor: [-2.5, 0.0, 7.5];
    ceil: [-2.5, 0.0, 7.5];
    round: [-2.5, 0.0, 7.5];
    trunc: [-2.5, 0.0, 7.5];
    fract: [-2.5, 0.0, 7.5];
    to_degrees: [-2.5, 0.0, 7.5];
    to_radians: [-2.5, 0.0, 7.5];
}

/// For each binary method: value from std, tangent `ta * da + tb * db` from the rule.
macro_rules! binary_methods {
    ($($name:ident: [$($p:expr),+ $(,)?];)+) => {
        #[test]
        fn binary_methods_use_std_values_and_rule_tangents() {
            fn run<T: TestFloat>() {
                $(
                    for (pa, pb) in [$($p),+] {
                        let (a, b): (T, T) = (c(pa), c(pb));
                        let y = Float::$name(a, b);
                        let (da, db) = rules::$name(a, b, y);
                        let (ta, tb): (T, T) = (c(0.75), c(-1.25));
                        let d = Dual::new(a, ta).$name(Dual::new(b, tb));
                        let what = format!("Dual::{}({a:?}, {b:?}) in {}", stringify!($name), T::NAME);
                        assert_same(&format!("{what}: value"), d.re, y);
                        assert_same(&format!("{what}: tangent"), d.eps, ta * da + tb * db);
                    }
                )+
            }
            run::<f64>();
            run::<f32>();
        }
    };
}

binary_methods! {
    atan2: [(0.5, 1.2), (-1.0, -2.0)];
    hypot: [(3.0, 4.0), (-1.0, 0.5)];
    powf: [(0.5, 2.5), (3.0, -1.0)];
    log: [(8.0, 2.0), (0.3, 10.0)];
    max: [(1.0, 2.0), (2.0, 1.0), (1.0, 1.0)];
    min: [(1.0, 2.0), (2.0, 1.0), (1.0, 1.0)];
}

#[test]
fn powi_mul_add_clamp_sin_cos() {
    fn run<T: TestFloat>() {
        let x: T = c(1.7);
        let t: T = c(0.5);
        for n in [-2, 0, 1, 3] {
            let d = Dual::new(x, t).powi(n);
            assert_same("powi value", d.re, x.powi(n));
            assert_same("powi tangent", d.eps, t * rules::powi(x, n, x.powi(n)));
        }

        let (a, b, cc): (T, T, T) = (c(1.5), c(-2.0), c(0.25));
        let d = Dual::new(a, c(1.0)).mul_add(Dual::new(b, c(2.0)), Dual::new(cc, c(3.0)));
        assert_same("mul_add value", d.re, a.mul_add(b, cc));
        // (b, a, 1) . (1, 2, 3) = -2 + 3 + 3
        assert_same("mul_add tangent", d.eps, c(4.0));

        let (lo, hi) = (Dual::new(c(-1.0), c(10.0)), Dual::new(c(2.0), c(100.0)));
        let inside = Dual::new(c(0.5), T::one()).clamp(lo, hi);
        assert_eq!((inside.re, inside.eps), (c(0.5), T::one()));
        let below = Dual::new(c(-3.0), T::one()).clamp(lo, hi);
        assert_eq!((below.re, below.eps), (c(-1.0), c(10.0)));
        let above = Dual::new(c(3.0), T::one()).clamp(lo, hi);
        assert_eq!((above.re, above.eps), (c(2.0), c(100.0)));
        let on_edge = Dual::new(c(2.0), T::one()).clamp(lo, hi);
        assert_eq!((on_edge.re, on_edge.eps), (c(2.0), T::one()));
        let nan = Dual::new(T::nan(), T::one()).clamp(lo, hi);
        assert!(nan.re.is_nan());

        let (s, co) = Dual::new(x, t).sin_cos();
        let (ys, yc) = x.sin_cos();
        assert_eq!((s.re, co.re), (ys, yc));
        assert_eq!((s.eps, co.eps), (t * yc, t * -ys));
        assert_eq!(s, Dual::new(x, t).sin());
        assert_eq!(s.eps, Dual::new(x, t).sin().eps);
        assert_eq!(co.eps, Dual::new(x, t).cos().eps);
    }
    run::<f64>();
    run::<f32>();
}

#[test]
#[should_panic(expected = "min > max")]
fn clamp_with_crossed_bounds_panics_like_std() {
    let _ = D64::variable(0.0).clamp(D64::constant(1.0), D64::constant(-1.0));
}

#[test]
fn copysign_flips_the_tangent_with_the_value() {
    let x = D64::new(2.0, 3.0);
    let neg = x.copysign(D64::new(-1.0, 100.0));
    assert_eq!((neg.re, neg.eps), (-2.0, -3.0));
    let pos = x.copysign(D64::new(5.0, 100.0));
    assert_eq!((pos.re, pos.eps), (2.0, 3.0));
    let from_neg_zero = D64::new(-2.0, 3.0).copysign(D64::constant(-0.0));
    assert_eq!((from_neg_zero.re, from_neg_zero.eps), (-2.0, 3.0));
    let f32_case = D32::new(-2.0, 3.0).copysign(D32::constant(0.0));
    assert_eq!((f32_case.re, f32_case.eps), (2.0, -3.0));
}

#[test]
fn predicates_look_at_the_value() {
    let nan = D64::new(f64::NAN, 0.0);
    let inf = D64::new(f64::INFINITY, f64::NAN);
    let one = D64::new(1.0, f64::NAN);
    assert!(nan.is_nan() && !one.is_nan());
    assert!(inf.is_infinite() && !inf.is_finite() && one.is_finite());
    assert!(one.is_normal() && !D64::constant(0.0).is_normal());
    assert!(D64::constant(1e-310).is_subnormal());
    assert!(D64::constant(-0.0).is_sign_negative() && one.is_sign_positive());
    assert_eq!(D32::constant(0.0).classify(), core::num::FpCategory::Zero);
}

// ---------------------------------------------------------------------------------------------
// Strong zero

#[test]
fn zero_tangents_stay_zero_at_singular_points() {
    fn run<T: TestFloat>() {
        let z = T::zero();
        // Infinite partial, zero tangent: tangent 0, not NaN.
        assert_same("sqrt(const 0)", Dual::constant(z).sqrt().eps, z);
        assert_same("cbrt(const 0)", Dual::constant(z).cbrt().eps, z);
        assert_same("ln(const 0)", Dual::constant(z).ln().eps, z);
        assert_same("asin(const 1)", Dual::constant(T::one()).asin().eps, z);
        // A seeded tangent still sees the infinite partial.
        assert_same("sqrt(var 0)", Dual::variable(z).sqrt().eps, T::infinity());
        // powf with a constant exponent at a negative base: d/dp is NaN but p is constant.
        let y = Dual::variable(c::<T>(-2.0)).powf(Dual::constant(c(2.0)));
        assert_same("(-2)^2 value", y.re, c(4.0));
        assert_same("(-2)^2 tangent", y.eps, c(-4.0));
        // ... and the exponent's own tangent is NaN there.
        let y = Dual::constant(c::<T>(-2.0)).powf(Dual::variable(c(2.0)));
        assert!(y.eps.is_nan());
        // powf with a constant zero base and a seeded exponent: d/dx is inf, x is constant.
        let y = Dual::constant(z).powf(Dual::variable(c(0.5)));
        assert_same("0^p tangent", y.eps, z);
        // A NaN tangent is not hidden.
        assert!(Dual::new(T::one(), T::nan()).sin().eps.is_nan());
        assert!(Dual::new(z, T::nan()).sqrt().eps.is_nan());
    }
    run::<f64>();
    run::<f32>();
}

// ---------------------------------------------------------------------------------------------
// Operators

#[test]
fn operators_between_duals_follow_the_rules() {
    fn run<T: TestFloat>() {
        let (a, ta, b, tb): (T, T, T, T) = (c(7.5), c(0.5), c(-2.0), c(3.0));
        let (x, y) = (Dual::new(a, ta), Dual::new(b, tb));
        let s = x + y;
        assert_eq!((s.re, s.eps), (a + b, ta + tb));
        let d = x - y;
        assert_eq!((d.re, d.eps), (a - b, ta - tb));
        let p = x * y;
        assert_eq!((p.re, p.eps), (a * b, ta * b + tb * a));
        let q = x / y;
        assert_same("div value", q.re, a / b);
        assert_close("div tangent", q.eps, (ta * b - a * tb) / (b * b), 1e-6, 0.0);
        let r = x % y;
        assert_same("rem value", r.re, a % b);
        // 7.5 % -2 = 1.5 = 7.5 - (-3)(-2): partials (1, 3).
        assert_same("rem tangent", r.eps, ta + c::<T>(3.0) * tb);
        let n = -x;
        assert_eq!((n.re, n.eps), (-a, -ta));
        let n = -&x;
        assert_eq!((n.re, n.eps), (-a, -ta));
    }
    run::<f64>();
    run::<f32>();
}

/// `eps * p` with the strong zero, as every operator applies it to each operand's tangent.
fn strong(eps: f64, p: f64) -> f64 {
    let t = eps * p;
    if t.is_nan() && (eps == 0.0 || p == 0.0) {
        0.0
    } else {
        t
    }
}

/// The binary operators and methods test their two terms once, on the sum (`term2`): their
/// tangent is the sum of the two strong terms bit for bit, signs of zero and NaN included, at
/// every combination of zeros, infinities, NaN and ordinary values.
#[test]
fn binary_tangents_are_the_sum_of_strong_terms_bit_for_bit() {
    type Value = fn(f64, f64) -> f64;
    type Rule = fn(f64, f64, f64) -> (f64, f64);
    type Op = fn(D64, D64) -> D64;
    type Case = (&'static str, Value, Rule, Op);
    let cases: [Case; 7] = [
        ("+", |a, b| a + b, rules::add, |x, y| x + y),
        ("-", |a, b| a - b, rules::sub, |x, y| x - y),
        ("*", |a, b| a * b, rules::mul, |x, y| x * y),
        ("/", |a, b| a / b, rules::div, |x, y| x / y),
        ("atan2", f64::atan2, rules::atan2, D64::atan2),
        ("powf", f64::powf, rules::powf, D64::powf),
        ("hypot", f64::hypot, rules::hypot, D64::hypot),
    ];
    let specials = [
        0.0,
        -0.0,
        1.5,
        -2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    for (name, f, rule, op) in cases {
        for a in specials {
            for b in specials {
                let y = f(a, b);
                let (da, db) = rule(a, b, y);
                for ta in specials {
                    for tb in specials {
                        let got = op(D64::new(a, ta), D64::new(b, tb)).eps;
                        let want = strong(ta, da) + strong(tb, db);
                        assert!(
                            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                            "{name} at ({a}, {ta}), ({b}, {tb}): {got:?}, want {want:?}"
                        );
                    }
                }
            }
        }
    }
}

/// The product generated reverse sweeps scale adjoints with where no factor can be infinite
/// (`Scale::plain_product`): `Dual`'s `*` without its tests, so the same bits wherever the
/// factors are finite (a finite product is never NaN, so the strong zero never acts).
#[test]
fn plain_product_is_the_product_where_the_factors_are_finite() {
    use autodiff_runtime::Scale;
    let values = [0.0, -0.0, 1.5, -2.0, 1e300, -3e-310];
    for a in values {
        for ta in values {
            for b in values {
                for tb in values {
                    let (x, y) = (D64::new(a, ta), D64::new(b, tb));
                    let (p, q) = (x.plain_product(y), x * y);
                    let same =
                        |u: f64, v: f64| u.to_bits() == v.to_bits() || u.is_nan() && v.is_nan();
                    assert!(
                        same(p.re, q.re) && same(p.eps, q.eps),
                        "({a}, {ta}) * ({b}, {tb}): {p:?}, want {q:?}"
                    );
                }
            }
        }
    }
    assert_eq!(2.5_f64.plain_product(-4.0), -10.0);
}

/// Every form of an operator (owned, references, assignment) gives the same dual.
macro_rules! forms_agree {
    ($x:expr, $y:expr, $s:expr, $($op:tt $op_assign:tt),+) => {{
        let (x, y, s) = ($x, $y, $s);
        $(
            let want = x $op y;
            let forms = [
                &x $op y,
                x $op &y,
                &x $op &y,
                { let mut z = x; z $op_assign y; z },
                { let mut z = x; z $op_assign &y; z },
            ];
            for got in forms {
                assert_eq!((got.re, got.eps), (want.re, want.eps), "forms of {}", stringify!($op));
            }
            let want = x $op s;
            let forms = [&x $op s, { let mut z = x; z $op_assign s; z }];
            for got in forms {
                assert_eq!((got.re, got.eps), (want.re, want.eps), "scalar forms of {}", stringify!($op));
            }
        )+
    }};
}

#[test]
fn reference_and_assignment_forms_agree() {
    forms_agree!(D64::new(1.5, 2.0), D64::new(-0.25, 4.0), 3.0, + +=, - -=, * *=, / /=, % %=);
    forms_agree!(D32::new(1.5, 2.0), D32::new(-0.25, 4.0), 3.0, + +=, - -=, * *=, / /=, % %=);
}

#[test]
fn operators_with_a_scalar_on_the_right() {
    fn run<T: TestFloat>() {
        let (a, ta, s): (T, T, T) = (c(7.5), c(0.5), c(-2.0));
        let x = Dual::new(a, ta);
        let r = x + s;
        assert_eq!((r.re, r.eps), (a + s, ta));
        let r = x - s;
        assert_eq!((r.re, r.eps), (a - s, ta));
        let r = x * s;
        assert_eq!((r.re, r.eps), (a * s, ta * s));
        let r = x / s;
        assert_eq!((r.re, r.eps), (a / s, ta * s.recip()));
        let r = x % s;
        assert_eq!((r.re, r.eps), (a % s, ta));
        // The scalar is a constant: same as a constant dual.
        let k = Dual::constant(s);
        for (got, want) in [
            (x + s, x + k),
            (x - s, x - k),
            (x * s, x * k),
            (x / s, x / k),
            (x % s, x % k),
        ] {
            assert_eq!((got.re, got.eps), (want.re, want.eps));
        }
    }
    run::<f64>();
    run::<f32>();
}

/// `scalar op dual` equals `constant(scalar) op dual`, for f32 and f64, owned and by reference.
macro_rules! scalar_left {
    ($t:ty) => {{
        let s: $t = 7.5;
        let x = Dual::<$t>::new(-2.0, 3.0);
        let k = Dual::<$t>::constant(s);
        let cases = [
            (s + x, k + x),
            (s - x, k - x),
            (s * x, k * x),
            (s / x, k / x),
            (s % x, k % x),
            (s + &x, k + x),
            (s - &x, k - x),
            (s * &x, k * x),
            (s / &x, k / x),
            (s % &x, k % x),
        ];
        for (i, (got, want)) in cases.into_iter().enumerate() {
            assert_eq!(
                (got.re, got.eps),
                (want.re, want.eps),
                "case {i} in {}",
                stringify!($t)
            );
        }
        // Closed forms: d(s - x) = -dx, d(s / x) = -s dx / x², d(s % x) = -trunc(s / x) dx.
        assert_eq!((s - x).eps, -3.0);
        assert_eq!((s / x).eps, -7.5 * 3.0 / 4.0);
        assert_eq!((s % x).eps, 3.0 * 3.0);
    }};
}

#[test]
fn operators_with_a_scalar_on_the_left() {
    scalar_left!(f64);
    scalar_left!(f32);
}

// ---------------------------------------------------------------------------------------------
// Comparisons

#[test]
fn comparisons_look_at_the_value_only() {
    let a = D64::new(1.0, 5.0);
    let b = D64::new(1.0, -3.0);
    let c2 = D64::new(2.0, 0.0);
    assert!(a == b);
    assert!(a < c2);
    assert!(c2 > a);
    assert!(a <= b);
    assert!(a >= b);
    assert_eq!(a.partial_cmp(&c2), Some(core::cmp::Ordering::Less));
    // Dual vs scalar, both sides.
    assert!(a == 1.0);
    assert!(1.0 == a);
    assert!(a < 1.5);
    assert!(0.5 < a);
    assert!(a > 0.5);
    assert!(1.5 > a);
    assert!(a <= 1.0);
    assert!(1.0 >= a);
    let a32 = D32::new(1.0, 5.0);
    assert!(a32 == 1.0f32);
    assert!(1.0f32 == a32);
    assert!(a32 < 2.0f32);
    assert!(2.0f32 > a32);
    // NaN compares false, like floats.
    let nan = D64::constant(f64::NAN);
    assert!(nan != nan);
    assert!(nan != 1.0);
    let (lt, ge) = (nan < a, nan >= a);
    assert!(!lt);
    assert!(!ge);
    assert_eq!(nan.partial_cmp(&a), None);
}

// ---------------------------------------------------------------------------------------------
// num-traits and conversions

/// Generic code written against `Float`, differentiated by passing a `Dual`.
fn generic<T: Float>(x: T) -> T {
    let two = T::from(2.0).unwrap();
    x.sin() * x.exp() + x.powi(3) / two + x.hypot(two) - T::one()
}

#[test]
fn dual_is_a_float_for_generic_code() {
    let x0 = 0.8f64;
    let d = generic(D64::variable(x0));
    assert_eq!(d.re, generic(x0));
    let want = x0.exp() * (x0.sin() + x0.cos()) + 1.5 * x0 * x0 + x0 / x0.hypot(2.0);
    assert_close("generic derivative", d.eps, want, 1e-14, 0.0);
    let d = generic(D32::variable(0.8));
    assert_close("generic derivative f32", d.eps as f64, want, 1e-6, 0.0);
}

#[test]
fn float_trait_methods_carry_derivatives() {
    let x = D64::variable(0.7);
    // Called through the trait, the same as the inherent methods.
    assert_eq!(Float::sin(x).eps, x.sin().eps);
    assert_eq!(
        Float::powf(x, D64::constant(2.5)).eps,
        x.powf(D64::constant(2.5)).eps
    );
    assert_eq!(
        Float::clamp(x, D64::constant(0.0), D64::constant(1.0)).eps,
        1.0
    );
    assert_eq!(Float::mul_add(x, x, x).eps, 2.0 * 0.7 + 1.0);
    assert_eq!(Float::sin_cos(x).1.eps, -(0.7f64.sin()));
    assert_eq!(Float::to_degrees(x).eps, 1f64.to_degrees());
    assert_eq!(Float::fract(D64::variable(2.5)).eps, 1.0);
    // abs_sub: (x - y) where x > y, else 0.
    let y = D64::new(0.2, 5.0);
    let r = Float::abs_sub(x, y);
    assert_eq!((r.re, r.eps), (0.7 - 0.2, 1.0 - 5.0));
    let r = Float::abs_sub(y, x);
    assert_eq!((r.re, r.eps), (0.0, 0.0));
    // Constants and predicates.
    assert_eq!(<D64 as Float>::epsilon().re, f64::EPSILON);
    assert_eq!(<D64 as Float>::max_value().re, f64::MAX);
    assert_eq!(<D64 as Float>::min_positive_value().re, f64::MIN_POSITIVE);
    assert!(<D64 as Float>::nan().is_nan());
    assert!(<D64 as Float>::neg_zero().re.is_sign_negative());
    assert_eq!(<D32 as Float>::infinity().eps, 0.0);
    assert_eq!(
        Float::integer_decode(D64::new(1.5, 9.0)),
        Float::integer_decode(1.5f64)
    );
    assert_eq!(<D64 as FloatConst>::PI().re, core::f64::consts::PI);
    assert_eq!(<D32 as FloatConst>::TAU().re, core::f32::consts::TAU);
    assert_eq!(<D64 as FloatConst>::LOG2_10().eps, 0.0);
}

#[test]
fn num_traits_conversions_give_constants() {
    assert_eq!(D64::zero().re, 0.0);
    assert!(
        D64::new(0.0, 5.0).is_zero(),
        "is_zero looks at the value like =="
    );
    assert!(D64::one().is_one() && D64::one().eps == 0.0);
    let parsed = D64::from_str_radix("2.5", 10).unwrap();
    assert_eq!((parsed.re, parsed.eps), (2.5, 0.0));
    assert!(D32::from_str_radix("nope", 10).is_err());
    let cast: D32 = NumCast::from(3i32).unwrap();
    assert_eq!((cast.re, cast.eps), (3.0, 0.0));
    let cast: D64 = NumCast::from(0.1f32).unwrap();
    assert_eq!(cast.re, 0.1f32 as f64);
    let from: D64 = FromPrimitive::from_u64(7).unwrap();
    assert_eq!((from.re, from.eps), (7.0, 0.0));
    let from: D32 = FromPrimitive::from_f64(0.5).unwrap();
    assert_eq!(from.re, 0.5);
    assert_eq!(D64::new(2.7, 1.0).to_i32(), Some(2));
    assert_eq!(D64::new(2.7, 1.0).to_f64(), Some(2.7));
    assert_eq!(D32::new(-2.5, 1.0).to_f32(), Some(-2.5));
    assert_eq!(D64::new(-1.0, 1.0).to_u8(), None);
    let from: D64 = 4.0.into();
    assert_eq!((from.re, from.eps), (4.0, 0.0));
    assert_eq!(D64::variable(3.0), D64::new(3.0, 1.0));
    assert_eq!(D64::variable(3.0).eps, 1.0);
    let def = D64::default();
    assert_eq!((def.re, def.eps), (0.0, 0.0));
}

#[test]
fn signed_matches_float() {
    let x = D64::new(-2.0, 3.0);
    let a = Signed::abs(&x);
    assert_eq!((a.re, a.eps), (2.0, -3.0));
    assert_eq!(Signed::signum(&x).eps, 0.0);
    assert!(x.is_negative() && !x.is_positive());
    let s = Signed::abs_sub(&D64::new(3.0, 1.0), &x);
    assert_eq!((s.re, s.eps), (5.0, -2.0));
}

// ---------------------------------------------------------------------------------------------
// Sums, products, formatting

#[test]
fn sums_and_products() {
    let v = [D64::new(1.0, 2.0), D64::new(3.0, -1.0), D64::new(-0.5, 4.0)];
    let s: D64 = v.iter().sum();
    assert_eq!((s.re, s.eps), (3.5, 5.0));
    let s: D64 = v.into_iter().sum();
    assert_eq!((s.re, s.eps), (3.5, 5.0));
    // Product rule: d(abc) = a'bc + ab'c + abc'.
    let p: D64 = v.iter().product();
    let (a, da, b, db, c, dc) = (1.0, 2.0, 3.0, -1.0, -0.5, 4.0);
    let want = da * b * c + a * db * c + a * b * dc;
    assert_eq!((p.re, p.eps), (-1.5, want));
    let p: D64 = v.into_iter().product();
    assert_eq!(p.eps, want);
    // Empty sum and product.
    let e: D32 = core::iter::empty::<D32>().sum();
    assert!(e.re == 0.0 && e.eps == 0.0);
    assert_eq!(
        e.re.is_sign_negative(),
        core::iter::empty::<f32>().sum::<f32>().is_sign_negative()
    );
    let e: D32 = core::iter::empty::<D32>().product();
    assert_eq!((e.re, e.eps), (1.0, 0.0));
}

#[test]
fn display() {
    assert_eq!(D64::new(1.5, 2.0).to_string(), "1.5 + 2ε");
    assert_eq!(D64::new(1.5, -2.0).to_string(), "1.5 - 2ε");
    assert_eq!(format!("{:.2}", D32::new(1.0, 0.25)), "1.00 + 0.25ε");
    let nested = Dual::new(D64::new(1.0, 2.0), D64::new(3.0, -4.0));
    assert_eq!(nested.to_string(), "(1 + 2ε) + (3 - 4ε)ε");
    let negative = Dual::new(D64::new(1.0, 2.0), D64::new(-3.0, 4.0));
    assert_eq!(negative.to_string(), "(1 + 2ε) - (3 - 4ε)ε");
}
