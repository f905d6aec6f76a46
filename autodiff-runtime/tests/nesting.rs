//! Nested-dual tests: takes `Dual<Dual<T>>` (and one level deeper), gives checks of second and
//! third derivatives against closed forms and against finite differences of the rules.

mod common;

use autodiff_runtime::{rules, Dual};
use common::{assert_close, c, fd, TestFloat};
use num_traits::Float;

type DD<T> = Dual<Dual<T>>;

/// `x` seeded for a second derivative along x: `(x + ε₁) + ε₂`, both directions the same.
fn seed2<T: Float>(x: T) -> DD<T> {
    Dual::new(Dual::variable(x), Dual::constant(T::one()))
}

/// A constant at both levels.
fn konst2<T: Float>(x: T) -> DD<T> {
    Dual::constant(Dual::constant(x))
}

/// `(f, f', f', f'')` read off a second-order result.
fn parts<T: Copy>(y: DD<T>) -> (T, T, T, T) {
    (y.re.re, y.re.eps, y.eps.re, y.eps.eps)
}

#[test]
fn second_derivative_of_sin_times_exp() {
    fn run<T: TestFloat>(rtol: f64) {
        for p in [-1.3, 0.0, 0.4, 2.0] {
            let x0: T = c(p);
            let x = seed2(x0);
            let (f, d1, d1b, d2) = parts(x.sin() * x.exp());
            // f = eˣ sin x, f' = eˣ (sin x + cos x), f'' = 2 eˣ cos x.
            let (s, co, e) = (x0.sin(), x0.cos(), x0.exp());
            assert_close("f", f, s * e, rtol, 0.0);
            assert_close("f'", d1, e * (s + co), rtol, 1e-7);
            assert_eq!(d1, d1b, "both first-order parts agree");
            assert_close("f''", d2, c::<T>(2.0) * e * co, rtol, 1e-7);
        }
    }
    run::<f64>(1e-14);
    run::<f32>(1e-5);
}

#[test]
fn second_derivatives_of_powf() {
    fn run<T: TestFloat>(rtol: f64) {
        for (px, pp) in [(1.7, 2.5), (0.6, -1.5), (3.0, 0.5), (2.0, 3.0), (1.7, 0.0)] {
            let (x0, p0): (T, T) = (c(px), c(pp));
            let (lx, xp) = (x0.ln(), x0.powf(p0));
            // d²/dx² x^p = p (p - 1) x^(p-2)
            let y = seed2(x0).powf(konst2(p0));
            let want = p0 * (p0 - T::one()) * x0.powf(p0 - c(2.0));
            assert_close("d²/dx² x^p", y.eps.eps, want, rtol, 0.0);
            // d²/dp² x^p = x^p ln² x
            let y = konst2(x0).powf(seed2(p0));
            assert_close("d²/dp² x^p", y.eps.eps, xp * lx * lx, rtol, 0.0);
            // d²/dx dp x^p = x^(p-1) (1 + p ln x): x along the inner direction, p along the outer.
            let x = Dual::new(Dual::variable(x0), Dual::constant(T::zero()));
            let p = Dual::new(Dual::constant(p0), Dual::constant(T::one()));
            let y = x.powf(p);
            let want = x0.powf(p0 - T::one()) * (T::one() + p0 * lx);
            assert_close("d²/dx dp x^p", y.eps.eps, want, rtol, 0.0);
            assert_close(
                "d/dx x^p (inner)",
                y.re.eps,
                p0 * x0.powf(p0 - T::one()),
                rtol,
                0.0,
            );
            assert_close("d/dp x^p (outer)", y.eps.re, xp * lx, rtol, 0.0);
        }
    }
    run::<f64>(1e-13);
    run::<f32>(2e-5);
}

#[test]
fn second_derivatives_of_atan2() {
    fn run<T: TestFloat>(rtol: f64) {
        for (pa, pb) in [(0.5, 1.2), (-1.3, 0.4), (2.0, -3.0)] {
            let (a0, b0): (T, T) = (c(pa), c(pb));
            let r2 = a0 * a0 + b0 * b0;
            let r4 = r2 * r2;
            let two: T = c(2.0);
            // ∂²/∂a² = -2ab / r⁴, ∂²/∂b² = 2ab / r⁴, ∂²/∂a∂b = (a² - b²) / r⁴.
            let y = seed2(a0).atan2(konst2(b0));
            assert_close("d²/da² atan2", y.eps.eps, -two * a0 * b0 / r4, rtol, 0.0);
            let y = konst2(a0).atan2(seed2(b0));
            assert_close("d²/db² atan2", y.eps.eps, two * a0 * b0 / r4, rtol, 0.0);
            let a = Dual::new(Dual::variable(a0), Dual::constant(T::zero()));
            let b = Dual::new(Dual::constant(b0), Dual::constant(T::one()));
            let y = a.atan2(b);
            assert_close(
                "d²/da db atan2",
                y.eps.eps,
                (a0 * a0 - b0 * b0) / r4,
                rtol,
                0.0,
            );
            assert_close("d/da atan2", y.re.eps, b0 / r2, rtol, 0.0);
            assert_close("d/db atan2", y.eps.re, -a0 / r2, rtol, 0.0);
        }
    }
    run::<f64>(1e-14);
    run::<f32>(1e-5);
}

/// For each unary method: the nested second derivative equals a finite difference of the rule
/// (the first derivative), so the rules are themselves correctly differentiable expressions,
/// branches included.
macro_rules! second_derivatives_match_rules {
    ($($name:ident: [$($p:expr),+ $(,)?];)+) => {
        #[test]
        fn second_derivative_of_every_unary_method_matches_the_differentiated_rule() {
            $(
                for p in [$($p),+] {
                    let x0: f64 = p;
                    let y = seed2(x0).$name();
                    let rule = |x: f64| rules::$name(x, x.$name());
                    let what = format!("{}''({x0})", stringify!($name));
                    assert_close(&what, y.eps.eps, fd(rule, x0), 1e-7, 1e-9);
                    assert_eq!(y.re.eps, rule(x0), "{}'({x0}) inner", stringify!($name));
                    assert_eq!(y.eps.re, rule(x0), "{}'({x0}) outer", stringify!($name));
                }
            )+
        }
    };
}

second_derivatives_match_rules! {
    sin: [-2.0, 0.5, 3.0];
    cos: [-2.0, 0.5, 3.0];
    tan: [-1.0, 0.5];
    asin: [-0.5, 0.0, 0.6];
    acos: [-0.5, 0.0, 0.6];
    atan: [-3.0, 0.0, 0.5];
    sinh: [-2.0, 0.0, 0.5];
    cosh: [-2.0, 0.0, 0.5];
    tanh: [-2.0, 0.0, 0.5];
    asinh: [-3.0, -0.5, 0.0, 0.5, 2.0];
    acosh: [1.5, 4.0];
    atanh: [-0.5, 0.0, 0.6];
    exp: [-2.0, 0.0, 0.5];
    exp2: [-2.0, 0.0, 0.5];
    exp_m1: [-2.0, 0.0, 0.5];
    ln: [0.5, 1.0, 7.0];
    log2: [0.5, 1.0, 7.0];
    log10: [0.5, 1.0, 7.0];
    ln_1p: [-0.5, 0.0, 7.0];
    sqrt: [0.5, 1.0, 7.0];
    cbrt: [-8.0, 0.7, 7.0];
    recip: [-8.0, 0.7, 7.0];
    abs: [-8.0, 7.0];
    signum: [-8.0, 7.0];
    floor: [-2.5, 7.5];
    ceil: [-2.5, 7.5];
    round: [-2.2, 7.2];
    trunc: [-2.5, 7.5];
    fract: [-2.5, 7.5];
    to_degrees: [-2.5, 7.5];
    to_radians: [-2.5, 7.5];
}

#[test]
fn second_derivatives_of_binary_methods_match_the_differentiated_rules() {
    type Method = fn(DD<f64>, DD<f64>) -> DD<f64>;
    type Prim = fn(f64, f64) -> f64;
    type Rule = fn(f64, f64, f64) -> (f64, f64);
    type Case = (&'static str, Method, Prim, Rule, (f64, f64));
    let cases: [Case; 6] = [
        ("hypot", Dual::hypot, f64::hypot, rules::hypot, (1.5, -2.0)),
        ("log", Dual::log, f64::log, rules::log, (5.0, 3.0)),
        ("powf", Dual::powf, f64::powf, rules::powf, (0.7, 2.5)),
        ("atan2", Dual::atan2, f64::atan2, rules::atan2, (0.7, -2.5)),
        ("div", |a, b| a / b, |a, b| a / b, rules::div, (0.7, -2.5)),
        ("rem", |a, b| a % b, |a, b| a % b, rules::rem, (7.35, 2.1)),
    ];
    for (name, method, prim, rule, (a0, b0)) in cases {
        // ∂²/∂a² from the nested dual vs the finite difference of the rule's first partial.
        let y = method(seed2(a0), konst2(b0));
        let want = fd(|a| rule(a, b0, prim(a, b0)).0, a0);
        assert_close(&format!("{name} d²/da²"), y.eps.eps, want, 1e-7, 1e-9);
        let y = method(konst2(a0), seed2(b0));
        let want = fd(|b| rule(a0, b, prim(a0, b)).1, b0);
        assert_close(&format!("{name} d²/db²"), y.eps.eps, want, 1e-7, 1e-9);
    }
}

#[test]
fn hessian_vector_product_by_nesting() {
    // f(x, y) = x² y + sin(x y); H v with v = (0.3, -0.7) at (1.1, 0.4):
    // seed the inner level with v, the outer with e_i, read (H v)_i off eps.eps.
    let f = |x: DD<f64>, y: DD<f64>| x * x * y + (x * y).sin();
    let (x0, y0, v) = (1.1f64, 0.4f64, [0.3f64, -0.7f64]);
    let s = (x0 * y0).sin();
    let co = (x0 * y0).cos();
    let h = [
        [2.0 * y0 - y0 * y0 * s, 2.0 * x0 + co - x0 * y0 * s],
        [2.0 * x0 + co - x0 * y0 * s, -x0 * x0 * s],
    ];
    for (i, row) in h.iter().enumerate() {
        let e = |j: usize| if i == j { 1.0 } else { 0.0 };
        let x = Dual::new(Dual::new(x0, v[0]), Dual::new(e(0), 0.0));
        let y = Dual::new(Dual::new(y0, v[1]), Dual::new(e(1), 0.0));
        let hv = f(x, y).eps.eps;
        let want = row[0] * v[0] + row[1] * v[1];
        assert_close(&format!("(H v)[{i}]"), hv, want, 1e-14, 1e-15);
    }
}

#[test]
fn third_derivative_by_triple_nesting() {
    // d³/dx³ (x⁵ + exp(sin x)) at x = 0.3.
    let x0 = 0.3f64;
    let one = Dual::<Dual<f64>>::constant(Dual::constant(1.0));
    let inner = seed2(x0);
    let x = Dual::new(inner, one);
    let y = x.powi(5) + x.sin().exp();
    // (e^{sin x})''' = e^{sin x} (cos³x - 3 sin x cos x - cos x)
    let (s, co) = x0.sin_cos();
    let want = 60.0 * x0 * x0 + s.exp() * (co.powi(3) - 3.0 * s * co - co);
    assert_close("f'''", y.eps.eps.eps, want, 1e-14, 0.0);
    assert_close("f", y.re.re.re, x0.powi(5) + s.exp(), 1e-15, 0.0);
}

#[test]
fn nested_duals_mix_with_inner_scalars_and_generic_code() {
    // Dual<Dual<f64>> op Dual<f64>: the inner dual is the scalar type T.
    let x = seed2(2.0f64);
    let k = Dual::constant(3.0);
    let y = (x * k + k) / k - k;
    // y = x + 1 - 3: derivatives 1 and 0.
    assert_eq!((y.re.re, y.re.eps, y.eps.eps), (0.0, 1.0, 0.0));
    // Generic Float code.
    fn cube_plus_recip<T: Float>(x: T) -> T {
        x.powi(3) + x.recip()
    }
    let (f, _, _, d2) = parts(cube_plus_recip(seed2(1.5f32)));
    assert_close("f", f, 1.5f32.powi(3) + 1.0 / 1.5, 1e-6, 0.0);
    assert_close("f''", d2, 6.0 * 1.5 + 2.0 / 1.5f32.powi(3), 1e-6, 0.0);
    // Constants stay constant through singular points at both levels.
    let z = konst2(0.0f64).sqrt();
    assert_eq!((z.re.eps, z.eps.re, z.eps.eps), (0.0, 0.0, 0.0));
}
