//! Regressions, continued from `regressions.rs`: functions whose reverse sweep panicked or whose
//! generated code rustc rejected, each checked in both modes (value, JVP against central
//! differences, dot-product test between JVP and VJP, accumulation).
#![allow(clippy::all, unused_variables, unused_assignments)]
#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

// ---------------------------------------------------------------------------------------------
// A local `Vec` assigned whole a value of another length: the adjoint of the value before the
// assignment is shaped like that value (the reverse sweep indexed the old elements in an adjoint
// shaped like the new value and panicked).

#[differentiate]
fn shrink(x: &[f64]) -> f64 {
    let mut w = x.to_vec();
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * w[i];
    }
    w = w[1..].to_vec();
    for i in 0..w.len() {
        s += w[i].sin() * s;
    }
    s
}

#[differentiate]
fn regrow(x: &[f64], m: usize) -> f64 {
    let mut w = x.to_vec();
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * w[i];
    }
    w = vec![0.0; m];
    for i in 0..w.len() {
        w[i] = s * (i as f64 + 0.5);
    }
    for i in 0..w.len() {
        s += w[i].sin() * 0.25;
    }
    s
}

/// Shorter by one each round, in a loop (the lengths go on a tape).
#[differentiate]
fn shrink_in_loop(x: &[f64]) -> f64 {
    let mut w = x.to_vec();
    let mut s = 0.0;
    for _ in 1..x.len() {
        for i in 0..w.len() {
            s += w[i] * w[i] * 0.5;
        }
        w = w[1..].to_vec();
        for i in 0..w.len() {
            w[i] = (w[i] * s).sin();
        }
    }
    s + w[0]
}

/// `v[a..b].to_vec()` and `.to_owned()` as values.
#[differentiate]
fn range_copies(x: &[f64], k: usize) -> f64 {
    let a = x[1..].to_vec();
    let b = x[..k].to_owned();
    a[0] * b[k - 1] + a[a.len() - 1].cos()
}

fn slice_fn(
    f: fn(&[f64]) -> f64,
    jvp: fn(&[f64], &[f64]) -> (f64, f64),
    vjp: fn(&[f64], &mut [f64], f64) -> f64,
    n: usize,
) {
    Harness::new(n)
        .primal(move |p| vec![f(p)])
        .jvp(move |p, t| {
            let (v, d) = jvp(p, t);
            (vec![v], vec![d])
        })
        .vjp(move |p, c, g| vec![vjp(p, g, c[0])])
        .random(3, -1.0, 1.0);
}

#[test]
fn vec_assigned_a_shorter_or_longer_vec() {
    slice_fn(shrink, shrink_jvp, shrink_vjp, 4);
    slice_fn(shrink_in_loop, shrink_in_loop_jvp, shrink_in_loop_vjp, 4);
    for m in [0usize, 2, 4, 7] {
        Harness::new(4)
            .primal(|p| vec![regrow(p, m)])
            .jvp(|p, t| {
                let (v, d) = regrow_jvp(p, m, t);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![regrow_vjp(p, m, g, c[0])])
            .random(3, -1.0, 1.0);
    }
    for k in [1usize, 3] {
        Harness::new(4)
            .primal(|p| vec![range_copies(p, k)])
            .jvp(|p, t| {
                let (v, d) = range_copies_jvp(p, k, t);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![range_copies_vjp(p, k, g, c[0])])
            .random(3, -1.0, 1.0);
    }
}

// ---------------------------------------------------------------------------------------------
// A `Vec` taken by value and moved into a mutable variable, or written: its tangent was the
// caller's `&[f64]` (E0594, E0308 in `_jvp`).

#[differentiate]
fn rebind_vec(w: Vec<f64>) -> f64 {
    let mut w = w;
    w[0] = w[0] * w[1];
    w[0] + w[1].sin()
}

#[differentiate]
fn mut_vec_param(mut w: Vec<f64>) -> f64 {
    w[0] = w[0] * w[1];
    w[0] + w[1].sin()
}

#[differentiate]
fn assign_vec_param(w: Vec<f64>, x: f64) -> f64 {
    let mut v = vec![x; 2];
    v[1] = v[0] * x;
    let s = v[1];
    v = w;
    v[0] = v[0] * x;
    v[0] + v[1] * s
}

#[differentiate]
fn rebind_vec_in_tuple(w: Vec<f64>, x: f64) -> f64 {
    let (mut v, y) = (w, x);
    v[0] = v[0] * y;
    v[0] + v[1]
}

fn vec_fn(
    f: fn(Vec<f64>) -> f64,
    jvp: fn(Vec<f64>, &[f64]) -> (f64, f64),
    vjp: fn(Vec<f64>, &mut [f64], f64) -> f64,
) {
    Harness::new(2)
        .primal(move |p| vec![f(p.to_vec())])
        .jvp(move |p, t| {
            let (v, d) = jvp(p.to_vec(), t);
            (vec![v], vec![d])
        })
        .vjp(move |p, c, g| vec![vjp(p.to_vec(), g, c[0])])
        .random(3, -1.0, 1.0);
}

type VecScalar = fn(Vec<f64>, f64) -> f64;
type VecScalarJvp = fn(Vec<f64>, f64, &[f64], f64) -> (f64, f64);
type VecScalarVjp = fn(Vec<f64>, f64, &mut [f64], &mut f64, f64) -> f64;

fn vec_scalar_fn(f: VecScalar, jvp: VecScalarJvp, vjp: VecScalarVjp) {
    Harness::new(3)
        .primal(move |p| vec![f(p[..2].to_vec(), p[2])])
        .jvp(move |p, t| {
            let (v, d) = jvp(p[..2].to_vec(), p[2], &t[..2], t[2]);
            (vec![v], vec![d])
        })
        .vjp(move |p, c, g| {
            let (gw, gx) = g.split_at_mut(2);
            vec![vjp(p[..2].to_vec(), p[2], gw, &mut gx[0], c[0])]
        })
        .random(3, -1.0, 1.0);
}

#[test]
fn vec_argument_moved_into_a_mutable_variable() {
    vec_fn(rebind_vec, rebind_vec_jvp, rebind_vec_vjp);
    vec_fn(mut_vec_param, mut_vec_param_jvp, mut_vec_param_vjp);
    vec_scalar_fn(assign_vec_param, assign_vec_param_jvp, assign_vec_param_vjp);
    vec_scalar_fn(
        rebind_vec_in_tuple,
        rebind_vec_in_tuple_jvp,
        rebind_vec_in_tuple_vjp,
    );
}

// ---------------------------------------------------------------------------------------------
// Conversions whose target rustc infers, in generic code: generated code binds the converted
// value to a `let` of its own, where rustc had nothing left to infer it from (E0282 on
// `x / 2.0f32.into()`). A user function named `convert` stays a call of that function when its
// argument is not a constant (it is not nalgebra's).

#[differentiate]
fn into_inline<T: num_traits::Float + From<f32> + Into<f64>>(x: T, p: &[T]) -> T {
    let x1: f64 = p[0].into();
    let c: f64 = 2.0f32.into();
    let r = x1 * c;
    x / 2.0f32.into() + x * x + <T as num_traits::NumCast>::from(r).unwrap()
}

/// Inches to centimetres.
#[differentiate]
fn convert(x: f64) -> f64 {
    x * 2.54
}

#[differentiate]
fn uses_convert(x: f64) -> f64 {
    convert(x) * convert(0.5)
}

#[test]
fn conversions_with_inferred_targets_in_generic_code() {
    let (v, g) = into_inline_grad(1.0f64, &[3.0]);
    assert_eq!(v, into_inline(1.0f64, &[3.0]));
    assert_eq!(v, 0.5 + 1.0 + 6.0);
    assert_eq!((g.x, g.p[0]), (2.5, 2.0));
    let (v32, g32) = into_inline_grad(1.0f32, &[3.0]);
    assert_eq!((v32, g32.x, g32.p[0]), (7.5, 2.5, 2.0));
    let (v, g) = uses_convert_grad(2.0);
    assert_eq!(v, uses_convert(2.0));
    assert!((v - 5.08 * 1.27).abs() < 1e-12);
    assert!((g.x - 2.54 * 1.27).abs() < 1e-12);
}

/// A differentiated function named like the seed parameter of `_vjp`.
#[differentiate]
fn seed(x: f64, v: f64) -> f64 {
    x * v + x.sin()
}

const DX: f64 = 0.5;

/// A function named like the tangent of `x`.
fn dx(x: f64) -> f64 {
    3.0 * x
}

/// Calls `seed` and `dx`: the generated `seed` and `dx` parameters must not shadow them
/// (rustc rejected the generated code: "expected function, found `f64`"). (A constant `dx` at
/// module level is another matter: it would turn every `dx` parameter of the module into a
/// constant pattern, in the user's own code too.)
#[differentiate]
fn calls_seed(x: f64, v: f64) -> f64 {
    let a = seed(x, v);
    a * a + dx(1.0) * x + DX
}

#[test]
fn generated_parameters_do_not_shadow_what_the_body_names() {
    let f = |x: f64, v: f64| {
        let a = x * v + x.sin();
        a * a + 3.0 * x + 0.5
    };
    let (x, v) = (0.7, -1.3);
    let (val, g) = calls_seed_grad(x, v);
    assert_eq!(val, calls_seed(x, v));
    assert!((val - f(x, v)).abs() < 1e-12);
    let a = x * v + x.sin();
    assert!((g.x - (2.0 * a * (v + x.cos()) + 3.0)).abs() < 1e-12);
    assert!((g.v - 2.0 * a * x).abs() < 1e-12);
    let (val2, t) = calls_seed_jvp(x, v, 1.0, 0.0);
    assert_eq!(val2, val);
    assert!((t - g.x).abs() < 1e-12);
    let (mut bx, mut bv) = (0.0, 0.0);
    calls_seed_vjp(x, v, &mut bx, &mut bv, 2.0);
    assert!((bx - 2.0 * g.x).abs() < 1e-12 && (bv - 2.0 * g.v).abs() < 1e-12);
}

#[differentiate]
fn times(a: f64, b: f64) -> f64 {
    a * b.sin()
}

/// `(*io)`, the value of a `&mut f64` argument in parentheses, passed to a differentiated call:
/// it was lent by reference like `io` itself (rustc: expected `f64`, found `&f64`; random
/// programs seed 74002).
#[allow(unused_parens)]
#[differentiate]
fn deref_in_parens(x: f64, io: &mut f64) -> f64 {
    let a = times(x, (*io));
    *io = a * x;
    a + (*io)
}

#[test]
fn the_value_of_a_mut_float_in_parentheses_passed_on() {
    let run = |x: f64, i: f64| {
        let mut i = i;
        let v = deref_in_parens(x, &mut i);
        (v, i)
    };
    let (x, i0, h) = (0.4, -0.8, 1e-6);
    // d(value)/dx and d(io after)/dx by central differences.
    let ((v1, i1), (v2, i2)) = (run(x + h, i0), run(x - h, i0));
    let (fv, fi) = ((v1 - v2) / (2.0 * h), (i1 - i2) / (2.0 * h));
    let mut i = i0;
    let mut di = 0.0;
    let (v, dv) = deref_in_parens_jvp(x, &mut i, 1.0, &mut di);
    assert_eq!((v, i), run(x, i0));
    assert!((dv - fv).abs() < 1e-7 && (di - fi).abs() < 1e-7);
    // Reverse, seeded on the value and on `io` after: their x-derivatives summed.
    let mut i = i0;
    let (mut bx, mut bi) = (0.0, 1.0);
    deref_in_parens_vjp(x, &mut i, &mut bx, &mut bi, 1.0);
    assert!((bx - (fv + fi)).abs() < 1e-7);
}

#[differentiate]
fn squares_owned(w: Vec<f64>) -> f64 {
    w.iter().map(|v| v * v.sin()).sum()
}

/// An owned `Vec` passed bare to a differentiated function taking `Vec<f64>`: it was moved into
/// the call and read again by the companions (E0382), and its tangent passed as a `Vec` where the
/// callee takes `&[f64]` (E0308). A saved copy used twice in the reverse sweep was moved twice.
#[differentiate]
fn passes_owned(x: &[f64], y: f64) -> f64 {
    let mut w = x.to_vec();
    let mut acc = squares_owned(w.clone()) * y;
    for i in 0..w.len() {
        acc += y * squares_owned(w.clone());
        w[i] *= y;
        acc += squares_owned(w);
        w = x.to_vec();
    }
    acc + squares_owned(w)
}

#[differentiate]
fn passes_owned_param(w: Vec<f64>, y: f64) -> f64 {
    y * squares_owned(w.clone()) + squares_owned(w)
}

#[test]
fn owned_vecs_passed_by_value() {
    Harness::new(4)
        .primal(|p| vec![passes_owned(&p[..3], p[3])])
        .jvp(|p, t| {
            let (v, d) = passes_owned_jvp(&p[..3], p[3], &t[..3], t[3]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (gx, gy) = g.split_at_mut(3);
            vec![passes_owned_vjp(&p[..3], p[3], gx, &mut gy[0], c[0])]
        })
        .random(6, -1.5, 1.5);
    Harness::new(3)
        .primal(|p| vec![passes_owned_param(p[..2].to_vec(), p[2])])
        .jvp(|p, t| {
            let (v, d) = passes_owned_param_jvp(p[..2].to_vec(), p[2], &t[..2], t[2]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (gw, gy) = g.split_at_mut(2);
            vec![passes_owned_param_vjp(
                p[..2].to_vec(),
                p[2],
                gw,
                &mut gy[0],
                c[0],
            )]
        })
        .random(6, -1.5, 1.5);
}

/// A method of a generic `impl<T: Float>`: `T` is the impl's, which the macro cannot see from
/// the method; `float(T)` names it (it was read as a struct type).
struct Scaled<T> {
    k: T,
}

impl<T: num_traits::Float> Scaled<T> {
    #[differentiate(wrt(y), float(T))]
    fn energy(&self, y: T, v: &[T]) -> T {
        let mut e = y * y * self.k;
        for i in 0..v.len() {
            e = e + (v[i] * y).sin();
        }
        e
    }
}

#[test]
fn float_parameters_of_an_impl() {
    let s = Scaled { k: 1.5 };
    let v = [0.3, -0.7];
    let f = |y: f64| s.energy(y, &v);
    let (y, h) = (0.8, 1e-6);
    let fd = (f(y + h) - f(y - h)) / (2.0 * h);
    let (val, d) = s.energy_jvp(y, &v, 1.0);
    assert_eq!(val, f(y));
    assert!((d - fd).abs() < 1e-7, "{d} vs {fd}");
    let mut by = 0.0;
    let val = s.energy_vjp(y, &v, &mut by, 2.0);
    assert_eq!(val, f(y));
    assert!((by - 2.0 * fd).abs() < 1e-7);
    let s32 = Scaled { k: 1.5f32 };
    let (_, d32) = s32.energy_jvp(0.8f32, &[0.3f32, -0.7], 1.0);
    assert!((d32 as f64 - fd).abs() < 1e-3);
}
