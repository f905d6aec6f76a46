//! Idiomatic Rust, round two (issue 15): `map` on arrays, float conversions in generic code that
//! computes in `f64`, slice patterns on calls and with names after `..`, and indices computed from
//! active values. Each in both modes (value, JVP against central differences, dot-product test
//! between JVP and VJP, accumulation), f64 and f32, generic functions instantiated with both.
#![allow(clippy::all)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;
use num_traits::{Float, FromPrimitive, ToPrimitive};

fn arr<const N: usize>(x: &[f64]) -> [f64; N] {
    x.try_into().expect("length")
}

fn arr32<const N: usize>(x: &[f64]) -> [f32; N] {
    to32(x).try_into().expect("length")
}

/// f64 functions `f(p: &[f64; N]) -> f64`.
macro_rules! chk_arr {
    ($f:expr, $fj:expr, $fv:expr; $n:literal) => {
        Harness::new($n)
            .primal(|p| vec![$f(&arr::<$n>(p))])
            .jvp(|p, t| {
                let (v, d) = $fj(&arr::<$n>(p), &arr::<$n>(t));
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| {
                let mut d = arr::<$n>(g);
                let v = $fv(&arr::<$n>(p), &mut d, c[0]);
                g.copy_from_slice(&d);
                vec![v]
            })
    };
}

/// f32 functions `f(p: &[f32; N]) -> f32`, checked by `Check32`.
macro_rules! chk32_arr {
    ($f:expr, $fj:expr, $fv:expr; $n:literal) => {
        Check32 {
            n: $n,
            primal: |p: &[f64]| vec![$f(&arr32::<$n>(p)) as f64],
            jvp: |p: &[f64], t: &[f64]| {
                let (v, d) = $fj(&arr32::<$n>(p), &arr32::<$n>(t));
                (vec![v as f64], vec![d as f64])
            },
            vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
                let mut d = arr32::<$n>(g);
                let v = $fv(&arr32::<$n>(p), &mut d, c[0] as f32);
                g.copy_from_slice(&to64(&d));
                vec![v as f64]
            },
        }
    };
}

// ---------------------------------------------------------------------------------------------
// 1. `map` on arrays
// ---------------------------------------------------------------------------------------------

/// The snippet, written exactly so.
#[differentiate]
fn map_destructured<T: Float>(param: &[T; 2]) -> T {
    let n4 = T::from(4.0).unwrap();
    let n2 = T::from(2.0).unwrap();
    let [x1, x2] = param.map(|x| n4 * x - n2);
    x1 * x2.sin() + x1.powi(2)
}

/// By value, through `*q` of a reference, a closure with statements, a `_` in the pattern.
#[differentiate]
fn map_sources(p: [f64; 3], q: &[f64; 3]) -> f64 {
    let [a, b, c] = p.map(|v| v.exp());
    let [d, _, f] = (*q).map(|v| {
        let t = v * a;
        t * t
    });
    a * d + b * f + c
}

/// `map` results used as arrays (indexed, iterated, mapped again, returned), over a closure
/// bound with `let`, a path and an array literal.
#[differentiate]
fn map_as_arrays<T: Float + std::iter::Sum>(arr: &[T; 3], s: T) -> [T; 3] {
    let y = arr.map(|v| v * v);
    let sq = |t: T| t.sin() * s;
    let z = y.map(sq);
    let w = [s, s + s].map(T::tanh);
    let total: T = y.iter().copied().sum();
    [y[0] * z[1], total + w[1], y[2] + z[0] * w[0]]
}

#[test]
fn map_destructured_by_a_slice_pattern() {
    chk_arr!(map_destructured::<f64>, map_destructured_jvp::<f64>, map_destructured_vjp::<f64>; 2)
        .random(6, -1.0, 1.0);
    chk32_arr!(map_destructured::<f32>, map_destructured_jvp::<f32>, map_destructured_vjp::<f32>; 2)
        .random(4, -1.0, 1.0);
    let (v, g) = map_destructured_grad(&[0.75, 0.5]);
    assert_eq!(v, 1.0);
    assert_eq!(g.param, [8.0, 4.0]);
}

#[test]
fn map_by_value_and_through_a_reference() {
    Harness::new(6)
        .primal(|x| vec![map_sources(arr(&x[..3]), &arr(&x[3..]))])
        .jvp(|x, t| {
            let (v, d) = map_sources_jvp(arr(&x[..3]), &arr(&x[3..]), arr(&t[..3]), &arr(&t[3..]));
            (vec![v], vec![d])
        })
        .vjp(|x, c, g| {
            let (mut dp, mut dq) = (arr::<3>(&g[..3]), arr::<3>(&g[3..]));
            let v = map_sources_vjp(arr(&x[..3]), &arr(&x[3..]), &mut dp, &mut dq, c[0]);
            g[..3].copy_from_slice(&dp);
            g[3..].copy_from_slice(&dq);
            vec![v]
        })
        .random(6, -1.0, 1.0);
}

#[test]
fn map_results_used_as_arrays() {
    Harness::new(4)
        .primal(|x| map_as_arrays(&arr(&x[..3]), x[3]).to_vec())
        .jvp(|x, t| {
            let (v, d) = map_as_arrays_jvp(&arr(&x[..3]), x[3], &arr(&t[..3]), t[3]);
            (v.to_vec(), d.to_vec())
        })
        .vjp(|x, c, g| {
            let (mut da, mut ds) = (arr::<3>(&g[..3]), g[3]);
            let v = map_as_arrays_vjp(&arr(&x[..3]), x[3], &mut da, &mut ds, arr(c));
            g[..3].copy_from_slice(&da);
            g[3] = ds;
            v.to_vec()
        })
        .random(6, -1.0, 1.0);
    Check32 {
        n: 4,
        primal: |x: &[f64]| to64(&map_as_arrays(&arr32(&x[..3]), x[3] as f32)),
        jvp: |x: &[f64], t: &[f64]| {
            let (v, d) =
                map_as_arrays_jvp(&arr32(&x[..3]), x[3] as f32, &arr32(&t[..3]), t[3] as f32);
            (to64(&v), to64(&d))
        },
        vjp: |x: &[f64], c: &[f64], g: &mut [f64]| {
            let (mut da, mut ds) = (arr32::<3>(&g[..3]), g[3] as f32);
            let v = map_as_arrays_vjp(&arr32(&x[..3]), x[3] as f32, &mut da, &mut ds, arr32(c));
            g[..3].copy_from_slice(&to64(&da));
            g[3] = ds as f64;
            to64(&v)
        },
    }
    .random(4, -1.0, 1.0);
}

// ---------------------------------------------------------------------------------------------
// 2. Conversions: generic code computing in f64, `as f32`/`as f64`
// ---------------------------------------------------------------------------------------------

/// The snippet: a generic function computing in `f64` internally.
#[differentiate]
fn computes_in_f64<T: Float + Into<f64> + FromPrimitive>(p: &[T; 2]) -> T {
    let x1: f64 = p[0].into();
    let x2: f64 = p[1].into();
    let r = (x1 * x1 + 0.5 * x2).sin() * x2.exp();
    T::from_f64(r).unwrap()
}

/// Every spelling of a conversion of an active value: `NumCast` (`T::from`, `<T as
/// NumCast>::from`, `NumCast::from`), `FromPrimitive`, `ToPrimitive`, `Into`.
#[differentiate]
fn conversions<T: Float + Into<f64> + FromPrimitive>(a: T, b: f64) -> f64 {
    let x: f64 = a.into();
    let t: T = T::from(b * x).unwrap();
    let u: T = <T as num_traits::NumCast>::from(b).expect("finite");
    let v: T = num_traits::NumCast::from(x * 0.5).unwrap();
    let w = T::from_f64(b.sin()).unwrap() * a;
    let back = (t * u + v * w).to_f64().unwrap();
    back + x.cos() * t.into()
}

/// `T::from(x).unwrap()` of an active `f64` in a generic function (rejected before issue 15).
#[differentiate]
fn generic_from_f64<T: Float>(x: f64, y: T) -> T {
    T::from(x).unwrap() * y
}

/// `as` casts and `From`/`Into`/`ToPrimitive` between f32 and f64.
#[differentiate]
fn casts32(x: f32, y: f64) -> f32 {
    let a = x as f64 * y;
    let b = (a.sin() as f32) * x;
    let c: f64 = x.into();
    b + f64::from(x).cos() as f32 + (c * y).to_f32().unwrap()
}

/// f64 arguments rounded to f32 on the way (the result is checked at f32 accuracy).
#[differentiate]
fn casts64(x: f64, y: f32) -> f64 {
    let a = (x as f32) * y;
    let b: f64 = a.into();
    b.exp() + f64::from(y) * (x.to_f32().unwrap() as f64)
}

#[test]
fn generic_code_computing_in_f64() {
    chk_arr!(computes_in_f64::<f64>, computes_in_f64_jvp::<f64>, computes_in_f64_vjp::<f64>; 2)
        .random(6, -1.0, 1.0);
    chk32_arr!(computes_in_f64::<f32>, computes_in_f64_jvp::<f32>, computes_in_f64_vjp::<f32>; 2)
        .random(4, -1.0, 1.0);
}

#[test]
fn every_spelling_of_a_conversion() {
    let (f, fj, fv) = (
        conversions::<f64>,
        conversions_jvp::<f64>,
        conversions_vjp::<f64>,
    );
    chk!(f, fj, fv; 0, 1).random(6, -1.0, 1.0);
    Check32 {
        n: 2,
        primal: |p: &[f64]| vec![conversions(p[0] as f32, p[1])],
        jvp: |p: &[f64], t: &[f64]| {
            let (v, d) = conversions_jvp(p[0] as f32, p[1], t[0] as f32, t[1]);
            (vec![v], vec![d])
        },
        vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
            let (mut da, mut db) = (g[0] as f32, g[1]);
            let v = conversions_vjp(p[0] as f32, p[1], &mut da, &mut db, c[0]);
            g[0] = da as f64;
            g[1] = db;
            vec![v]
        },
    }
    .random(4, -1.0, 1.0);
    let (f, fj, fv) = (
        generic_from_f64::<f64>,
        generic_from_f64_jvp::<f64>,
        generic_from_f64_vjp::<f64>,
    );
    chk!(f, fj, fv; 0, 1).random(4, -2.0, 2.0);
    Check32 {
        n: 2,
        primal: |p: &[f64]| vec![generic_from_f64(p[0], p[1] as f32) as f64],
        jvp: |p: &[f64], t: &[f64]| {
            let (v, d) = generic_from_f64_jvp(p[0], p[1] as f32, t[0], t[1] as f32);
            (vec![v as f64], vec![d as f64])
        },
        vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
            let (mut dx, mut dy) = (g[0], g[1] as f32);
            let v = generic_from_f64_vjp(p[0], p[1] as f32, &mut dx, &mut dy, c[0] as f32);
            g[0] = dx;
            g[1] = dy as f64;
            vec![v as f64]
        },
    }
    .random(4, -2.0, 2.0);
}

#[test]
fn casts_between_f32_and_f64() {
    Check32 {
        n: 2,
        primal: |p: &[f64]| vec![casts32(p[0] as f32, p[1]) as f64],
        jvp: |p: &[f64], t: &[f64]| {
            let (v, d) = casts32_jvp(p[0] as f32, p[1], t[0] as f32, t[1]);
            (vec![v as f64], vec![d as f64])
        },
        vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
            let (mut dx, mut dy) = (g[0] as f32, g[1]);
            let v = casts32_vjp(p[0] as f32, p[1], &mut dx, &mut dy, c[0] as f32);
            g[0] = dx as f64;
            g[1] = dy;
            vec![v as f64]
        },
    }
    .random(4, -1.0, 1.0);
    Check32 {
        n: 2,
        primal: |p: &[f64]| vec![casts64(p[0], p[1] as f32)],
        jvp: |p: &[f64], t: &[f64]| {
            let (v, d) = casts64_jvp(p[0], p[1] as f32, t[0], t[1] as f32);
            (vec![v], vec![d])
        },
        vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
            let (mut dx, mut dy) = (g[0], g[1] as f32);
            let v = casts64_vjp(p[0], p[1] as f32, &mut dx, &mut dy, c[0]);
            g[0] = dx;
            g[1] = dy as f64;
            vec![v]
        },
    }
    .random(4, -1.0, 1.0);
}

// ---------------------------------------------------------------------------------------------
// 3. Slice patterns on calls and with names after `..`
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn pair<T: Float>(x: T, y: T) -> [T; 2] {
    [x * y, x + y.sin()]
}

#[differentiate]
fn quad<T: Float>(x: T) -> [T; 4] {
    [x, x * x, x.sin(), x.exp()]
}

/// `let [a, b] = helper(x, y);` on an array-returning differentiated call; with `..` the
/// annotation gives the length.
#[differentiate]
fn call_destructured<T: Float>(x: T, y: T) -> T {
    let [a, b] = pair(x, y);
    let [p, .., q]: [T; 4] = quad(a);
    let [_, m, ..]: [T; 4] = quad(b);
    a * b + p * q + m
}

/// Names after `..`, on a slice (`let`-`else`), on `*v` and on an array by value.
#[differentiate]
fn first_and_last(v: &[f64], w: [f64; 4]) -> f64 {
    let [first, .., last] = v[..] else {
        return 0.0;
    };
    let [a, b, .., z] = w;
    let [.., y2, z2] = *v else {
        return first;
    };
    first * last + a * z + b + y2.sin() * z2
}

/// An array literal destructured.
#[differentiate]
fn literal_destructured(x: f64) -> f64 {
    let [a, b] = [x, 2.0 * x];
    a * b
}

#[test]
fn slice_pattern_on_an_array_returning_call() {
    let (f, fj, fv) = (
        call_destructured::<f64>,
        call_destructured_jvp::<f64>,
        call_destructured_vjp::<f64>,
    );
    chk!(f, fj, fv; 0, 1).random(6, -1.0, 1.0);
    let (f, fj, fv) = (
        call_destructured::<f32>,
        call_destructured_jvp::<f32>,
        call_destructured_vjp::<f32>,
    );
    chk32!(f, fj, fv; 0, 1).random(4, -1.0, 1.0);
    chk!(literal_destructured, literal_destructured_jvp, literal_destructured_vjp; 0)
        .random(3, -1.0, 1.0);
}

#[test]
fn slice_patterns_with_names_after_the_rest() {
    for n in [1usize, 2, 5] {
        Harness::new(n + 4)
            .primal(|x| vec![first_and_last(&x[..n], arr(&x[n..]))])
            .jvp(|x, t| {
                let (v, d) = first_and_last_jvp(&x[..n], arr(&x[n..]), &t[..n], arr(&t[n..]));
                (vec![v], vec![d])
            })
            .vjp(|x, c, g| {
                let (dv, dw) = g.split_at_mut(n);
                let mut dwa = arr::<4>(dw);
                let v = first_and_last_vjp(&x[..n], arr(&x[n..]), dv, &mut dwa, c[0]);
                dw.copy_from_slice(&dwa);
                vec![v]
            })
            .random(4, -1.0, 1.0);
    }
    let w = [1.0, 2.0, 3.0, 4.0];
    assert_eq!(first_and_last(&[2.0], w), 0.0);
    assert_eq!(
        first_and_last(&[2.0, 3.0], w),
        6.0 + 4.0 + 2.0 + 2.0f64.sin() * 3.0
    );
}

// ---------------------------------------------------------------------------------------------
// 4. Indices computed from active values
// ---------------------------------------------------------------------------------------------

/// `x.floor().to_usize().unwrap()`: an index, inactive, as `x as usize` is.
#[differentiate]
fn index_from_active<T: Float>(x: T, v: &[T]) -> T {
    let k = x.floor().to_usize().unwrap();
    let j = (x * T::from(2.0).unwrap()).to_usize().expect("in range");
    let i: usize = num_traits::NumCast::from(x.ceil()).unwrap();
    v[k] * x + v[j].sin() + v[i]
}

#[test]
fn index_computed_from_an_active_value() {
    let points: [&[f64]; 4] = [
        &[0.3, 0.5, -1.0, 1.5, 0.25],
        &[0.7, 0.5, -1.0, 1.5, 0.25],
        &[1.3, -0.5, 1.0, 0.5, 2.0],
        &[1.6, 0.2, 0.4, -0.6, 0.8],
    ];
    chk_xv!(index_from_active, index_from_active_jvp, index_from_active_vjp; 4).at(&points);
    chk32_xv!(index_from_active, index_from_active_jvp, index_from_active_vjp; 4).at(&points);
}

// ---------------------------------------------------------------------------------------------
// The constructs combined: inside loops, over views, chained, as loop sequences
// ---------------------------------------------------------------------------------------------

/// `map` of a literal, of a `map`, of a local array after a write; as a `for` sequence and a
/// chain source; integer results as indices; array calls destructured inside a loop.
#[differentiate]
fn combined(x: f64, y: f64, p: &[f64; 3]) -> f64 {
    let [a, b] = [x, y].map(|v| v * 2.0);
    let idx = p.map(|v| (v.abs() * 2.0) as usize);
    let z = p.map(|v| v * 2.0).map(|w| w.sin());
    let mut s = 0.0;
    for v in p.map(|q| q * x) {
        s += v;
    }
    let t: f64 = p.map(|q| q * y).iter().sum();
    for _ in 0..2 {
        let [c, d] = pair(s, a);
        s += c * d * 0.1;
    }
    let mut arr = [x, y, 1.0];
    arr[2] = x * y;
    let m = arr.map(|q| q.exp());
    a * b + z[idx[0].min(2)] + s + t + m[2]
}

/// Generic code mapping to `f64` and back, with an index from an active value.
#[differentiate]
fn generic_maps<T: Float + Into<f64> + FromPrimitive>(p: &[T; 3]) -> T {
    let q = p.map(|x| x.into());
    let r: [f64; 3] = p.map(|x| x.into());
    let w = p.map(|x| x.to_f64().unwrap());
    let s: f64 = q[0] * r[1] + w[2].sin();
    let k = p[0].abs().to_usize().unwrap().min(2);
    T::from_f64(s).unwrap() + p[k] * T::from(s * 0.5).unwrap()
}

/// Slice patterns with names after `..` on `chunks` and `windows` items.
#[differentiate]
fn patterns_on_views(v: &[f64]) -> f64 {
    let mut acc = 0.0;
    for c in v.chunks(3) {
        let [a, .., b] = c[..] else {
            continue;
        };
        acc += a * b;
    }
    for w in v.windows(2) {
        let [p, q] = w[..] else {
            return acc;
        };
        acc += (p - q).sin();
    }
    acc
}

/// Copies and lengths of arrays that are not variables.
#[differentiate]
fn map_then_copy(p: [f64; 3], x: f64) -> f64 {
    let v = p.map(|t| t * x).to_vec();
    let n = [x, x * x].len() as f64;
    v[0] * v[2] + n * x + p.map(f64::sin).to_vec().iter().sum::<f64>()
}

/// The former ui case `slice_pattern_after_rest`, now accepted.
#[differentiate]
fn rest_by_value(v: [f64; 3]) -> f64 {
    let [first, .., last] = v;
    first * last
}

#[test]
fn constructs_combined() {
    let points: [&[f64]; 3] = [
        &[0.3, -0.7, 0.2, 0.9, -0.4],
        &[-0.6, 0.4, 0.8, -0.1, 0.5],
        &[0.9, 0.2, -0.3, 0.6, 0.7],
    ];
    Harness::new(5)
        .primal(|x| vec![combined(x[0], x[1], &arr(&x[2..]))])
        .jvp(|x, t| {
            let (v, d) = combined_jvp(x[0], x[1], &arr(&x[2..]), t[0], t[1], &arr(&t[2..]));
            (vec![v], vec![d])
        })
        .vjp(|x, c, g| {
            let (mut dx, mut dy, mut dp) = (g[0], g[1], arr::<3>(&g[2..]));
            let v = combined_vjp(x[0], x[1], &arr(&x[2..]), &mut dx, &mut dy, &mut dp, c[0]);
            g[0] = dx;
            g[1] = dy;
            g[2..].copy_from_slice(&dp);
            vec![v]
        })
        .at(&points);
    let points: [&[f64]; 3] = [&[0.3, -0.7, 0.2], &[-1.6, 0.4, 0.8], &[2.4, 0.2, -0.3]];
    chk_arr!(generic_maps::<f64>, generic_maps_jvp::<f64>, generic_maps_vjp::<f64>; 3).at(&points);
    chk32_arr!(generic_maps::<f32>, generic_maps_jvp::<f32>, generic_maps_vjp::<f32>; 3)
        .at(&points);
    for n in [1usize, 2, 3, 5, 7] {
        Harness::new(n)
            .primal(|x| vec![patterns_on_views(x)])
            .jvp(|x, t| {
                let (v, d) = patterns_on_views_jvp(x, t);
                (vec![v], vec![d])
            })
            .vjp(|x, c, g| vec![patterns_on_views_vjp(x, g, c[0])])
            .random(3, -1.0, 1.0);
    }
    let f = |v: &[f64; 3]| rest_by_value(*v);
    let fj = |v: &[f64; 3], d: &[f64; 3]| rest_by_value_jvp(*v, *d);
    let fv = |v: &[f64; 3], d: &mut [f64; 3], s| rest_by_value_vjp(*v, d, s);
    chk_arr!(f, fj, fv; 3).random(3, -1.0, 1.0);
    let f = |v: &[f64; 4]| map_then_copy(arr(&v[..3]), v[3]);
    let fj = |v: &[f64; 4], d: &[f64; 4]| map_then_copy_jvp(arr(&v[..3]), v[3], arr(&d[..3]), d[3]);
    let fv = |v: &[f64; 4], d: &mut [f64; 4], s| {
        let (mut dp, mut dx) = (arr::<3>(&d[..3]), d[3]);
        let r = map_then_copy_vjp(arr(&v[..3]), v[3], &mut dp, &mut dx, s);
        d[..3].copy_from_slice(&dp);
        d[3] = dx;
        r
    };
    chk_arr!(f, fj, fv; 4).random(3, -1.0, 1.0);
}

/// `std::mem::swap` of two floats (a recurrence written with a swap).
#[differentiate]
fn swapped_recurrence(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    for _ in 0..4 {
        b = a * 0.5 + b.sin();
        std::mem::swap(&mut a, &mut b);
    }
    a * b
}

#[test]
fn mem_swap_of_floats() {
    chk!(swapped_recurrence, swapped_recurrence_jvp, swapped_recurrence_vjp; 0, 1)
        .random(6, -2.0, 2.0);
}
