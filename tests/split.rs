//! Split mode (`#[differentiate(split)]`): `<f>_vjp_split` runs the forward sweep once and its
//! pullback, applied to several seeds, gives what `<f>_vjp` gives for each (same value, same
//! adjoints, accumulated), whatever the forward sweep left on tapes or overwrote; against central
//! differences through the harness; in f64, f32 and generic code.

#![allow(dead_code, clippy::needless_range_loop)]

mod common;

use autodiff_runtime::{differentiate, Scalar};
use common::{to32, to64, Harness};
use num_traits::Float;

/// Loops, a branch per iteration (a tape of decisions), a local sequence overwritten in place
/// (restored by the reverse sweep), a call of another differentiated function.
#[differentiate(split)]
fn sweep(x: f64, v: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    let mut w = v.to_vec();
    for i in 0..n {
        let t = v[i] * x;
        if t > 0.0 {
            s += t.sin() * v[i];
        } else {
            s -= t * t;
        }
        w[i] *= t;
    }
    for i in 0..n {
        w[i] = w[i].exp() * x;
    }
    s * x.exp() + w[0] + helper(w[n - 1], x)
}

#[differentiate]
fn helper(a: f64, b: f64) -> f64 {
    (a * b).tanh()
}

#[test]
fn pullback_equals_vjp_for_each_seed_and_accumulates() {
    let v = [0.3, -1.2, 0.8, 2.0];
    let (value, pb) = sweep_vjp_split(0.7, &v, 4);
    for seed in [1.0, -0.5, 2.5] {
        let (mut dx, mut dv) = (0.25, [0.0, 1.0, 0.0, -1.0]);
        let (mut ex, mut ev) = (dx, dv);
        pb(&mut dx, &mut dv, seed);
        let v2 = sweep_vjp(0.7, &v, 4, &mut ex, &mut ev, seed);
        assert_eq!(value, v2);
        assert_eq!((dx, dv), (ex, ev));
    }
    // Calling it twice adds twice.
    let (mut a, mut b) = (0.0, [0.0; 4]);
    pb(&mut a, &mut b, 1.0);
    pb(&mut a, &mut b, 1.0);
    let (_, g) = sweep_grad(0.7, &v, 4);
    assert!((a - 2.0 * g.x).abs() < 1e-12);
    for k in 0..4 {
        assert!((b[k] - 2.0 * g.v[k]).abs() < 1e-12);
    }
}

#[test]
fn pullback_matches_central_differences() {
    Harness::new(4)
        .primal(|p| vec![sweep(p[0], &p[1..], 3)])
        .jvp(|p, t| {
            let (v, d) = sweep_jvp(p[0], &p[1..], 3, t[0], &t[1..]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (v, pb) = sweep_vjp_split(p[0], &p[1..], 3);
            let (gx, gv) = g.split_at_mut(1);
            pb(&mut gx[0], gv, c[0]);
            vec![v]
        })
        .random(8, -1.5, 1.5);
}

/// A `Vec` output (the seed is a slice): rows of the Jacobian from one forward sweep.
#[differentiate(split)]
fn field(p: &[f64; 3], n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let t = i as f64 / n as f64;
        out.push((p[0] * t).sin() * p[1] + p[2] * t * t);
    }
    out
}

#[test]
fn jacobian_rows_from_one_forward_sweep() {
    let p = [0.4, 1.5, -0.3];
    let (value, pb) = field_vjp_split(&p, 5);
    let (value2, j) = field_jacobian(&p, 5);
    assert_eq!(value, value2);
    for r in 0..5 {
        let mut seed = vec![0.0; 5];
        seed[r] = 1.0;
        let mut row = [0.0; 3];
        pb(&mut row, &seed);
        for c in 0..3 {
            assert!((row[c] - j[(r, c)]).abs() < 1e-14, "({r}, {c})");
        }
    }
}

/// An array output and a `wrt` subset; generic over the float type.
#[differentiate(wrt(x), split)]
fn rotate<T: Float>(x: [T; 2], angle: T) -> [T; 2] {
    let (s, c) = angle.sin_cos();
    [c * x[0] - s * x[1], s * x[0] + c * x[1]]
}

fn rotate_rows<T: Scalar>(x: [T; 2], angle: T) -> [[T; 2]; 2] {
    let (_, pb) = rotate_vjp_split(x, angle);
    let mut rows = [[T::zero(); 2]; 2];
    for r in 0..2 {
        let mut seed = [T::zero(); 2];
        seed[r] = T::one();
        pb(&mut rows[r], seed);
    }
    rows
}

#[test]
fn generic_split_in_f64_and_f32() {
    let rows = rotate_rows([1.0, 2.0], 0.3_f64);
    let (s, c) = 0.3_f64.sin_cos();
    assert!((rows[0][0] - c).abs() < 1e-15 && (rows[0][1] + s).abs() < 1e-15);
    assert!((rows[1][0] - s).abs() < 1e-15 && (rows[1][1] - c).abs() < 1e-15);
    let rows32 = rotate_rows([1.0_f32, 2.0], 0.3);
    assert!((rows32[1][1] - 0.3_f32.cos()).abs() < 1e-6);
}

#[differentiate(split)]
fn soft32(x: &[f32]) -> f32 {
    let mut m = x[0];
    for &a in x {
        m = m.max(a);
    }
    let mut z = 0.0;
    for &a in x {
        z += (a - m).exp();
    }
    z.ln() + m
}

#[test]
fn f32_pullback_matches_central_differences() {
    Harness::new(3)
        .primal(|p| vec![soft32(&to32(p)) as f64])
        .jvp(|p, t| {
            let (v, d) = soft32_jvp(&to32(p), &to32(t));
            (vec![v as f64], vec![d as f64])
        })
        .vjp(|p, c, g| {
            let x = to32(p);
            let (v, pb) = soft32_vjp_split(&x);
            let mut g32 = to32(g);
            pb(&mut g32, c[0] as f32);
            g.copy_from_slice(&to64(&g32));
            vec![v as f64]
        })
        .f32()
        .random(6, -1.0, 1.0);
}

/// The pullback outlives nothing it borrows: it can be stored and called later, after the
/// caller's other work.
#[test]
fn pullbacks_can_be_kept() {
    let data = vec![0.5, 1.5, -0.5];
    let mut pbs = Vec::new();
    for k in 0..3 {
        let (_, pb) = sweep_vjp_split(0.1 * k as f64, &data, 3);
        pbs.push(pb);
    }
    for (k, pb) in pbs.iter().enumerate() {
        let (mut dx, mut dv) = (0.0, [0.0; 3]);
        pb(&mut dx, &mut dv, 1.0);
        let (_, g) = sweep_grad(0.1 * k as f64, &data, 3);
        assert_eq!(dx, g.x);
    }
}
