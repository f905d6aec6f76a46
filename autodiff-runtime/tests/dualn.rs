//! `DualN` tests: takes every method and operator of the primitive table on `DualN<f32, 4>` and
//! `DualN<f64, 4>` (the lists come from the table itself), gives checks that lane `k` of each
//! result equals exactly (`==`, or both NaN) what `Dual` gives when seeded with lane `k` of
//! every operand (zero, infinite and NaN lanes and partials included, so the strong zero is
//! exercised), and checks of the constructors and of the zero tangents over `N` lanes.

use autodiff_runtime::lanes::zero_lanes;
use autodiff_runtime::{Dual, DualN};
use num_traits::Float;

const POINTS: [f64; 6] = [-0.7, 0.0, 0.4, 1.0, 1.3, 2.5];
const LANES: [f64; 4] = [1.0, -2.5, 0.0, 0.75];
const OTHER: [f64; 4] = [0.0, 0.5, 2.0, -1.0];

/// Equal, or both NaN.
fn same<T: Float>(a: T, b: T) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// Lane `k` of `n` against `d`.
fn check<T: Float + std::fmt::Debug>(what: &str, n: DualN<T, 4>, d: impl Fn(usize) -> Dual<T>) {
    for k in 0..4 {
        let d = d(k);
        assert!(same(n.re, d.re), "{what}: value {:?} vs {:?}", n.re, d.re);
        assert!(
            same(n.eps[k], d.eps),
            "{what}: lane {k} {:?} vs {:?}",
            n.eps[k],
            d.eps
        );
    }
}

fn lanes<T: Float>(l: [f64; 4]) -> [T; 4] {
    l.map(|v| T::from(v).unwrap())
}

fn points<T: Float>() -> impl Iterator<Item = (T, T)> {
    POINTS.into_iter().flat_map(|a| {
        POINTS
            .into_iter()
            .map(move |b| (T::from(a).unwrap(), T::from(b).unwrap()))
    })
}

macro_rules! unary {
    ($($name:ident),* $(,)?) => {
        fn unary_methods<T: Float + std::fmt::Debug>() {
            let l: [T; 4] = lanes(LANES);
            for (x, _) in points::<T>() {
                $(
                    check(
                        &format!("{}({x:?})", stringify!($name)),
                        DualN::new(x, l).$name(),
                        |k| Dual::new(x, l[k]).$name(),
                    );
                )*
            }
        }
    };
}
autodiff_macros::__primitive_table!(unary_methods => unary);

macro_rules! binary {
    ($($name:ident($other:ident)),* $(,)?) => {
        fn binary_methods<T: Float + std::fmt::Debug>() {
            let (l, m): ([T; 4], [T; 4]) = (lanes(LANES), lanes(OTHER));
            for (x, y) in points::<T>() {
                $(
                    check(
                        &format!("{}({x:?}, {y:?})", stringify!($name)),
                        DualN::new(x, l).$name(DualN::new(y, m)),
                        |k| Dual::new(x, l[k]).$name(Dual::new(y, m[k])),
                    );
                )*
            }
        }
    };
}
autodiff_macros::__primitive_table!(binary_methods => binary);

macro_rules! operators {
    ($Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident) => {
        fn $op<T: Float + std::fmt::Debug>() {
            use std::ops::{$Op, $OpAssign};
            let (l, m): ([T; 4], [T; 4]) = (lanes(LANES), lanes(OTHER));
            for (x, y) in points::<T>() {
                let (a, b) = (DualN::new(x, l), DualN::new(y, m));
                let what = format!("{}({x:?}, {y:?})", stringify!($op));
                check(&what, $Op::$op(a, b), |k| {
                    $Op::$op(Dual::new(x, l[k]), Dual::new(y, m[k]))
                });
                check(&what, $Op::$op(a, y), |k| $Op::$op(Dual::new(x, l[k]), y));
                let mut c = a;
                $OpAssign::$op_assign(&mut c, b);
                check(&what, c, |k| {
                    $Op::$op(Dual::new(x, l[k]), Dual::new(y, m[k]))
                });
            }
            // A float on the left.
            let (x, y) = (0.5_f64, DualN::new(2.0_f64, [1.0, 0.0, -1.0, 3.0]));
            check("scalar on the left", $Op::$op(x, y), |k| {
                $Op::$op(x, y.lane(k))
            });
        }
        $op::<f32>();
        $op::<f64>();
    };
}

#[test]
fn methods_agree_with_dual_lane_by_lane() {
    unary_methods::<f64>();
    unary_methods::<f32>();
    binary_methods::<f64>();
    binary_methods::<f32>();
}

#[test]
fn operators_agree_with_dual_lane_by_lane() {
    autodiff_macros::__primitive_table!(binary_operators => operators);
}

#[test]
fn other_methods_agree_with_dual_lane_by_lane() {
    let (l, m, o): ([f64; 4], [f64; 4], [f64; 4]) = (LANES, OTHER, [2.0, 0.0, -0.5, 1.0]);
    for (x, y) in points::<f64>() {
        let (a, b, c) = (DualN::new(x, l), DualN::new(y, m), DualN::new(0.3, o));
        let d = |k: usize| (Dual::new(x, l[k]), Dual::new(y, m[k]), Dual::new(0.3, o[k]));
        check("neg", -a, |k| -d(k).0);
        check("powi", a.powi(3), |k| d(k).0.powi(3));
        check("powi -2", a.powi(-2), |k| d(k).0.powi(-2));
        check("mul_add", a.mul_add(b, c), |k| {
            d(k).0.mul_add(d(k).1, d(k).2)
        });
        check("sin_cos.0", a.sin_cos().0, |k| d(k).0.sin_cos().0);
        check("sin_cos.1", a.sin_cos().1, |k| d(k).0.sin_cos().1);
        check("copysign", a.copysign(b), |k| d(k).0.copysign(d(k).1));
        if x <= y {
            check("clamp", c.clamp(a, b), |k| d(k).2.clamp(d(k).0, d(k).1));
        }
        assert_eq!(a.is_sign_negative(), x.is_sign_negative());
        assert_eq!(a < b, x < y);
        assert_eq!(a == b, x == y);
    }
}

/// Infinite and NaN tangent lanes through zero, infinite and ordinary partials: the strong zero
/// lane by lane, as `Dual` has it.
#[test]
fn special_lanes_agree_with_dual() {
    let l = [f64::INFINITY, 1.0, f64::NAN, -0.0];
    for x in [0.0, -0.0, 2.0, f64::INFINITY] {
        for y in [0.0, 1.5, f64::NAN] {
            let (a, b) = (DualN::new(x, l), DualN::new(y, [1.0, f64::NAN, 0.0, 2.0]));
            let m = [1.0, f64::NAN, 0.0, 2.0];
            check("a * y", a * y, |k| Dual::new(x, l[k]) * y);
            check("a * b", a * b, |k| Dual::new(x, l[k]) * Dual::new(y, m[k]));
            check("sqrt", a.sqrt(), |k| Dual::new(x, l[k]).sqrt());
            check("max", a.max(b), |k| {
                Dual::new(x, l[k]).max(Dual::new(y, m[k]))
            });
            check("mul_add", a.mul_add(b, a), |k| {
                let d = Dual::new(x, l[k]);
                d.mul_add(Dual::new(y, m[k]), d)
            });
        }
    }
}

#[test]
fn constructors_and_zero_lanes() {
    let v = DualN::<f64, 3>::variable(2.0, 1);
    assert_eq!((v.re, v.eps), (2.0, [0.0, 1.0, 0.0]));
    let c = DualN::<f32, 2>::constant(1.5);
    assert_eq!((c.re, c.eps), (1.5, [0.0, 0.0]));
    assert_eq!(DualN::new(1.0, [2.0, 3.0]).lane(1), Dual::new(1.0, 3.0));

    let s: [f64; 5] = zero_lanes(&1.0_f64);
    assert_eq!(s, [0.0; 5]);
    let v: Vec<[f32; 2]> = zero_lanes(&vec![1.0_f32; 3]);
    assert_eq!(v, vec![[0.0; 2]; 3]);
    let a: [[f64; 4]; 2] = zero_lanes(&&[1.0, 2.0]);
    assert_eq!(a, [[0.0; 4]; 2]);
    let d: [Dual<f64>; 2] = zero_lanes(&Dual::new(1.0, 1.0));
    assert_eq!((d[0].re, d[0].eps), (0.0, 0.0));
    let e: Vec<[f64; 3]> = zero_lanes::<[f64], 3>(&[]);
    assert!(e.is_empty());
}
