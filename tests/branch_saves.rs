//! Values saved inside `if`/`match` branches outside loops (kept in slots, not on tapes) and
//! calls inside branches (their arguments' adjoint buffers lent, also when an argument is a
//! reference passed on bare): takes functions whose reverse sweep reads such values, gives their
//! `_jvp` checked against central differences and their `_vjp` by the dot-product test.
//! `tests/branch_saves_heap.rs` checks that these reverse sweeps allocate nothing.

// The functions under test are written the way users write them, not the way clippy prefers.
#![allow(clippy::all)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

/// f64 functions `f(x: &[f64], n: usize) -> f64` with `x` of length `n`: the shared harness.
macro_rules! chk_v {
    ($f:ident, $fj:ident, $fv:ident; $n:expr) => {
        Harness::new($n)
            .primal(|p| vec![$f(p, $n)])
            .jvp(|p, t| {
                let (v, d) = $fj(p, $n, t);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![$fv(p, $n, g, c[0])])
    };
}

// ---------------------------------------------------------------------------------------------
// values saved in branches outside loops
// ---------------------------------------------------------------------------------------------

/// The finding from ADBench BA: `sin` and `cos` computed inside a branch are read by the reverse.
#[differentiate]
fn sin_cos_branch(x: f64) -> f64 {
    if x != 0.0 {
        let (s, c) = x.sin_cos();
        s * c
    } else {
        x
    }
}

#[test]
fn a_tuple_bound_in_a_branch() {
    chk!(sin_cos_branch, sin_cos_branch_jvp, sin_cos_branch_vjp; 0).random(20, -3.0, 3.0);
}

/// Overwritten locals in nested branches and a `match` (old values saved), a decision inside a
/// branch that reads a branch-local value (saved), and a `while` inside a branch (its trip
/// count saved once, its body's values on tapes).
#[differentiate]
fn nested_branches(x: f64, y: f64, k: usize) -> f64 {
    let mut s = x * y;
    if x > 0.0 {
        let a = s.exp() * y;
        s = s * a;
        if a > 1.0 {
            let b = (a * x).sin();
            s = s * b + a;
        } else {
            s = s.cos() * a;
        }
        match k {
            0 => s = s * s,
            1 => {
                let c = s.tanh();
                s = c * y;
            }
            _ => {}
        }
    } else {
        let mut n = 0;
        while s < 3.0 && n < 4 {
            s = s * 1.5 + x * x + 1.0;
            n += 1;
        }
        s = s * y;
    }
    s * x
}

#[test]
fn overwritten_locals_in_nested_branches() {
    for k in 0..3 {
        Harness::new(2)
            .primal(|p| vec![nested_branches(p[0], p[1], k)])
            .jvp(|p, t| {
                let (v, d) = nested_branches_jvp(p[0], p[1], k, t[0], t[1]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| {
                let (a, b) = g.split_at_mut(1);
                vec![nested_branches_vjp(
                    p[0], p[1], k, &mut a[0], &mut b[0], c[0],
                )]
            })
            .at(&[
                &[0.3, 0.7],
                &[0.9, -0.4],
                &[0.2, 2.1],
                &[1.3, 0.5],
                &[-0.4, 0.6],
                &[-1.1, -0.3],
            ]);
    }
}

/// A `for` loop inside a branch (bounds saved once, the body's values on tapes), a `Vec`
/// declared in a branch (its zero adjoint shaped when the branch ends) and a `Vec` written
/// in a branch after the loops that read it (kept in restore mode: the old element is saved).
#[differentiate]
fn loops_and_vecs_in_branches(x: &[f64], n: usize) -> f64 {
    let mut v = vec![0.0; n];
    for i in 0..n {
        v[i] = x[i] * x[i];
    }
    let mut s = 0.0;
    for i in 0..n {
        s = s + v[i] * v[i].sin();
    }
    for i in 0..n {
        s = s + v[i].cos() * v[i];
    }
    if x[0] > 0.0 {
        v[0] = v[0] * x[1];
        let m = if x[1] > 0.0 { n } else { n - 1 };
        let mut w = vec![0.0; m];
        for i in 0..m {
            w[i] = v[i].sin() * s;
        }
        for i in 0..m {
            s = s + w[i] * w[i];
        }
    }
    s + v[0] * v[1]
}

#[test]
fn loops_and_vecs_inside_branches() {
    chk_v!(loops_and_vecs_in_branches, loops_and_vecs_in_branches_jvp, loops_and_vecs_in_branches_vjp; 4).random(20, -1.0, 1.0);
}

/// A call writing through `&mut` inside a branch: the sequence is saved before the call.
#[differentiate]
fn squares(v: &mut [f64]) {
    for i in 0..v.len() {
        v[i] = v[i] * v[i];
    }
}

#[differentiate]
fn mut_call_in_branch(x: &[f64], n: usize) -> f64 {
    let mut v = vec![0.0; n];
    for i in 0..n {
        v[i] = x[i] + 0.5;
    }
    if x[0] > 0.0 {
        squares(&mut v);
        v[1] = v[1] * x[0];
    }
    v[0] * v[1] + v[n - 1]
}

#[test]
fn mut_call_inside_a_branch() {
    chk_v!(mut_call_in_branch, mut_call_in_branch_jvp, mut_call_in_branch_vjp; 3)
        .random(20, -1.0, 1.0);
}

/// Generic code: a slot's type is inferred from the value saved in it.
#[differentiate]
fn generic_branch<T: num_traits::Float>(x: T, y: T) -> T {
    let mut s = x * y;
    if x > y {
        let t = s.exp();
        s = t * s.sin();
    }
    s
}

#[test]
fn a_slot_in_generic_code() {
    chk!(generic_branch, generic_branch_jvp, generic_branch_vjp; 0, 1).random(20, -1.5, 1.5);
    Check32 {
        n: 2,
        primal: |p: &[f64]| vec![generic_branch(p[0] as f32, p[1] as f32) as f64],
        jvp: |p: &[f64], t: &[f64]| {
            let (v, d) = generic_branch_jvp(p[0] as f32, p[1] as f32, t[0] as f32, t[1] as f32);
            (vec![v as f64], vec![d as f64])
        },
        vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
            let (mut a, mut b) = (0.0f32, 0.0f32);
            let v = generic_branch_vjp(p[0] as f32, p[1] as f32, &mut a, &mut b, c[0] as f32);
            g[0] += a as f64;
            g[1] += b as f64;
            vec![v as f64]
        },
    }
    .random(10, -1.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// calls inside branches
// ---------------------------------------------------------------------------------------------

// Rodrigues' rotation with its branch, ADBench BA's (`rodrigues_rotate`).
#[path = "../benches/adbench_problems/rotation.rs"]
mod rotation;
use rotation::{
    rodrigues_rotate as rotate, rodrigues_rotate_jvp as rotate_jvp,
    rodrigues_rotate_vjp as rotate_vjp,
};

/// The references `r` and `y` passed on bare to a differentiated call inside a branch, and an
/// array local passed by value.
#[differentiate]
fn rotate_twice(r: &[f64; 3], y: &[f64; 3], w: f64) -> f64 {
    let mut out = w;
    if w > 0.0 {
        let z: [f64; 3] = rotate(r, y);
        let q = [z[0] * w, z[1], z[2]];
        let z2: [f64; 3] = rotate(r, &q);
        out = z2[0] + z2[1] * z2[2];
    } else {
        let z: [f64; 3] = rotate(y, r);
        out = out * z[1];
    }
    out
}

fn rotate_harness<'a>() -> Harness<'a> {
    let arr = |p: &[f64]| [p[0], p[1], p[2]];
    Harness::new(7)
        .primal(move |p| vec![rotate_twice(&arr(&p[0..3]), &arr(&p[3..6]), p[6])])
        .jvp(move |p, t| {
            let (v, d) = rotate_twice_jvp(
                &arr(&p[0..3]),
                &arr(&p[3..6]),
                p[6],
                &arr(&t[0..3]),
                &arr(&t[3..6]),
                t[6],
            );
            (vec![v], vec![d])
        })
        .vjp(move |p, c, g| {
            let (mut dr, mut dy, mut dw) = (arr(&g[0..3]), arr(&g[3..6]), g[6]);
            let v = rotate_twice_vjp(
                &arr(&p[0..3]),
                &arr(&p[3..6]),
                p[6],
                &mut dr,
                &mut dy,
                &mut dw,
                c[0],
            );
            g[0..3].copy_from_slice(&dr);
            g[3..6].copy_from_slice(&dy);
            g[6] = dw;
            vec![v]
        })
}

#[test]
fn references_passed_on_bare_inside_branches() {
    rotate_harness().random(20, -1.0, 1.0);
    // A zero rotation takes the other branch of `rotate`.
    rotate_harness().at(&[&[0.0, 0.0, 0.0, 0.3, -0.2, 0.9, 0.5]]);
}

#[differentiate]
fn dot2(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i] * b[i];
    }
    s
}

/// One sequence passed twice to one call, bare and borrowed: its buffer cannot be lent twice.
#[differentiate]
fn shared_args(x: &[f64], n: usize) -> f64 {
    let mut s = x[0];
    if s > 0.0 {
        s = dot2(x, x) * s;
    } else {
        s = dot2(&x[1..n], &x[0..n - 1]) + dot2(x, &x[..]);
    }
    s + dot2(x, x)
}

#[test]
fn a_sequence_passed_twice() {
    chk_v!(shared_args, shared_args_jvp, shared_args_vjp; 4).random(20, -1.0, 1.0);
}

/// A mutable local `Vec` and a slice argument passed on bare inside branches (the callee takes
/// `&[f64]`), with the call's result read by the reverse.
#[differentiate]
fn vec_args_in_branches(x: &[f64], n: usize) -> f64 {
    let mut v = vec![0.0; n];
    for i in 0..n {
        v[i] = x[i].sin();
    }
    let mut s = 1.0;
    if x[1] > 0.0 {
        let d = dot2(&v, x);
        s = d * d;
        v[0] = s;
    }
    match n {
        0 => {}
        _ => s = s * dot2(&v, &v),
    }
    s
}

#[test]
fn vecs_passed_to_calls_inside_branches() {
    chk_v!(vec_args_in_branches, vec_args_in_branches_jvp, vec_args_in_branches_vjp; 3)
        .random(20, -1.0, 1.0);
}

#[differentiate]
fn sum3(a: &[f64; 3]) -> f64 {
    a[0] * a[1] + a[2].sin()
}

#[differentiate]
fn by_value(a: [f64; 3]) -> f64 {
    a[0] * a[1] + a[2].sin()
}

/// An in-out array passed on to calls reading it, in a branch and outside (its adjoint is the
/// caller's `&mut [f64; 3]`, lent as such).
#[differentiate]
fn inout_array(r: &mut [f64; 3], x: f64) -> f64 {
    r[0] = r[0] * x;
    let s = sum3(r);
    let t = if x > 0.0 { sum3(r) * x } else { sum3(r) };
    r[1] = r[1] * s;
    s + t
}

#[test]
fn an_inout_array_lent_to_calls() {
    let arr = |p: &[f64]| [p[0], p[1], p[2]];
    // Outputs: the value, then the final contents of `r`.
    Harness::new(4)
        .primal(move |p| {
            let mut r = arr(p);
            let v = inout_array(&mut r, p[3]);
            vec![v, r[0], r[1], r[2]]
        })
        .jvp(move |p, t| {
            let (mut r, mut dr) = (arr(p), arr(t));
            let (v, d) = inout_array_jvp(&mut r, p[3], &mut dr, t[3]);
            (vec![v, r[0], r[1], r[2]], vec![d, dr[0], dr[1], dr[2]])
        })
        .vjp(move |p, c, g| {
            let mut r = arr(p);
            // The in-out convention: the buffer holds the seed of the final contents on entry
            // and the adjoint of the initial contents on return.
            let mut dr = [c[1], c[2], c[3]];
            let mut dx = g[3];
            let v = inout_array_vjp(&mut r, p[3], &mut dr, &mut dx, c[0]);
            for k in 0..3 {
                g[k] += dr[k];
            }
            g[3] = dx;
            vec![v, r[0], r[1], r[2]]
        })
        .random(20, -1.0, 1.0);
}

/// Arrays by value (a `mut` argument and locals) and `Vec`s by value passed on to calls, bare
/// and borrowed, in branches and outside.
#[differentiate]
fn arrays_by_value(mut a: [f64; 3], v: Vec<f64>) -> f64 {
    a[0] = a[0] * a[1];
    let b = [a[2], v[0] * v[1], 2.0];
    let mut c = [v[2]; 3];
    c[1] = a[0].sin();
    let mut s = by_value(a) + sumv(&v) + sum3(&b);
    if s > 0.0 {
        s = s * sum3(&a) + by_value(b) * sumv(&v) + by_value(c);
    } else {
        s = s * by_value(c) + sum3(&c);
    }
    s
}

#[differentiate]
fn sumv(a: &[f64]) -> f64 {
    a[0] * a[1] + a[2].sin()
}

#[test]
fn arrays_and_vecs_by_value_lent_to_calls() {
    let arr = |p: &[f64]| [p[0], p[1], p[2]];
    Harness::new(6)
        .primal(move |p| vec![arrays_by_value(arr(p), p[3..6].to_vec())])
        .jvp(move |p, t| {
            let (v, d) = arrays_by_value_jvp(arr(p), p[3..6].to_vec(), arr(t), &t[3..6]);
            (vec![v], vec![d])
        })
        .vjp(move |p, c, g| {
            let mut da = arr(g);
            let (_, dv) = g.split_at_mut(3);
            let v = arrays_by_value_vjp(arr(p), p[3..6].to_vec(), &mut da, dv, c[0]);
            g[0..3].copy_from_slice(&da);
            vec![v]
        })
        .random(30, -1.5, 1.5);
}
