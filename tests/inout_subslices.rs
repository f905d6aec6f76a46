//! Sub-slices borrowed `&mut v[a..b]` and passed to differentiated functions that write through
//! them (issue 9): blocks of a state updated by a helper in a loop, open and inclusive ranges,
//! local `Vec`s and arrays, a result used, an inactive buffer made active by the call. Both
//! modes against central differences and by the dot-product test.

mod common;
use autodiff_runtime::differentiate;
use common::*;

/// A plane rotation of the first two elements of `p`, in place.
#[differentiate]
fn rotate(p: &mut [f64], c: f64) {
    let a = p[0];
    p[0] = c.cos() * a - c.sin() * p[1];
    p[1] = c.sin() * a + c.cos() * p[1];
}

/// Scales every element in place and gives the sum of squares before scaling.
#[differentiate]
fn scale(v: &mut [f64], s: f64) -> f64 {
    let mut q = 0.0;
    for y in v.iter_mut() {
        q += *y * *y;
        *y *= s;
    }
    q
}

/// Rotations of consecutive blocks of an in-out state, then of an overlapping inclusive range.
#[differentiate]
fn rotate_blocks(v: &mut [f64], c: &[f64]) -> f64 {
    let n = v.len() / 2;
    let mut e = 0.0;
    for k in 0..n {
        rotate(&mut v[2 * k..2 * k + 2], c[k]);
        e += v[2 * k] * v[2 * k + 1];
    }
    rotate(&mut v[1..=2], 0.5 * c[0]);
    e
}

/// Open ranges of a local `Vec` and of a local array; a call whose result is used.
#[differentiate]
fn tails(x: &[f64], s: f64) -> Vec<f64> {
    let mut w = x.to_vec();
    scale(&mut w[1..], s);
    scale(&mut w[..2], s * s);
    let m = w.len() - 1;
    let q = scale(&mut w[..m], x[0]);
    w[0] += q;
    let mut a = [x[0], x[1], x[2]];
    rotate(&mut a[1..], s);
    w[1] += a[1] * a[2];
    w
}

/// A buffer of constants made active by the call writing into it; a range bound read from a
/// variable reassigned later (its value at the call is the one the reverse sweep uses).
#[differentiate]
fn fills_constants(x: &[f64]) -> f64 {
    let mut w = vec![1.0; 4];
    let mut lo = 1;
    scale(&mut w[lo..], x[0]);
    lo = 2;
    scale(&mut w[lo..], x[1]);
    rotate(&mut w[..lo], x[2]);
    w[0] * w[1] + w[2] * w[3]
}

#[test]
fn blocks_of_an_in_out_state_through_sub_slices() {
    let c = [0.3, -0.7, 1.1];
    Harness::new(6)
        .primal(move |p| {
            let mut v = p.to_vec();
            let e = rotate_blocks(&mut v, &c);
            v.push(e);
            v
        })
        .jvp(move |p, d| {
            let mut v = p.to_vec();
            let mut dv = d.to_vec();
            let (e, de) = rotate_blocks_jvp(&mut v, &c, &mut dv, &[0.0; 3]);
            v.push(e);
            dv.push(de);
            (v, dv)
        })
        .vjp(move |p, w, g| {
            let mut v = p.to_vec();
            let mut bv = w[..6].to_vec();
            let mut bc = [0.0; 3];
            let e = rotate_blocks_vjp(&mut v, &c, &mut bv, &mut bc, w[6]);
            for k in 0..6 {
                g[k] += bv[k];
            }
            v.push(e);
            v
        })
        .random(4, -1.0, 1.0);
}

#[test]
fn rotation_angles_through_sub_slice_calls() {
    // The gradient with respect to the angles, against central differences.
    let v0 = [0.4, -0.2, 0.9, 0.5, -1.0, 0.3];
    Harness::new(3)
        .primal(move |c| {
            let mut v = v0.to_vec();
            let e = rotate_blocks(&mut v, c);
            v.push(e);
            v
        })
        .jvp(move |c, dc| {
            let mut v = v0.to_vec();
            let mut dv = vec![0.0; 6];
            let (e, de) = rotate_blocks_jvp(&mut v, c, &mut dv, dc);
            v.push(e);
            dv.push(de);
            (v, dv)
        })
        .vjp(move |c, w, g| {
            let mut v = v0.to_vec();
            let mut bv = w[..6].to_vec();
            let e = rotate_blocks_vjp(&mut v, c, &mut bv, g, w[6]);
            v.push(e);
            v
        })
        .random(4, -2.0, 2.0);
}

#[test]
fn open_ranges_of_local_vecs_and_arrays() {
    Harness::new(5)
        .primal(|p| tails(&p[..4], p[4]))
        .jvp(|p, d| tails_jvp(&p[..4], p[4], &d[..4], d[4]))
        .vjp(|p, c, g| {
            let (gx, gs) = g.split_at_mut(4);
            tails_vjp(&p[..4], p[4], gx, &mut gs[0], c)
        })
        .random(6, -1.0, 1.0);
}

#[test]
fn constants_made_active_by_a_sub_slice_call() {
    Harness::new(3)
        .primal(|p| vec![fills_constants(p)])
        .jvp(|p, d| {
            let (v, dv) = fills_constants_jvp(p, d);
            (vec![v], vec![dv])
        })
        .vjp(|p, c, g| vec![fills_constants_vjp(p, g, c[0])])
        .random(6, -1.5, 1.5);
}

#[test]
fn sub_slice_calls_in_f32() {
    let grad = tails_grad_f32();
    assert!(grad.iter().all(|g| g.is_finite()));
}

#[differentiate]
fn rotate32(p: &mut [f32], c: f32) {
    let a = p[0];
    p[0] = c.cos() * a - c.sin() * p[1];
    p[1] = c.sin() * a + c.cos() * p[1];
}

#[differentiate]
fn blocks32(x: &[f32], c: f32) -> f32 {
    let mut v = x.to_vec();
    rotate32(&mut v[1..3], c);
    rotate32(&mut v[2..], c * c);
    v[0] * v[1] + v[2] * v[3]
}

fn tails_grad_f32() -> Vec<f64> {
    let x = [0.3f32, -0.4, 0.8, 0.1];
    let c = 0.7f32;
    Harness::new(5)
        .f32()
        .primal(|p| {
            let x = to32(&p[..4]);
            vec![blocks32(&x, p[4] as f32) as f64]
        })
        .jvp(|p, d| {
            let (x, dx) = (to32(&p[..4]), to32(&d[..4]));
            let (v, dv) = blocks32_jvp(&x, p[4] as f32, &dx, d[4] as f32);
            (vec![v as f64], vec![dv as f64])
        })
        .vjp(|p, c, g| {
            let x = to32(&p[..4]);
            let mut gx = vec![0.0f32; 4];
            let mut gc = 0.0f32;
            let v = blocks32_vjp(&x, p[4] as f32, &mut gx, &mut gc, c[0] as f32);
            for k in 0..4 {
                g[k] += gx[k] as f64;
            }
            g[4] += gc as f64;
            vec![v as f64]
        })
        .random(4, -1.0, 1.0);
    let (_, g) = blocks32_grad(&x, c);
    let mut all = to64(&g.x);
    all.push(g.c as f64);
    all
}
