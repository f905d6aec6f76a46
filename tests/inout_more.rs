//! More of issue 9: sub-slices borrowed `&mut v[a..b]` and passed to differentiated functions
//! that write through them (blocks of a state updated by a helper in a loop, open and inclusive
//! ranges, local `Vec`s and arrays, a result used, an inactive buffer made active by the call);
//! tuples of arrays as outputs, returned and destructured by callers. Both modes against
//! central differences and by the dot-product test.

// The functions are written as people write them (index loops, `&Vec` arguments).
#![allow(
    clippy::needless_range_loop,
    clippy::ptr_arg,
    clippy::useless_vec,
    clippy::redundant_slicing
)]

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

/// Position and velocity after a step of a 2-d particle in a field: a tuple of arrays.
#[differentiate]
fn step2(x: &[f64; 2], v: &[f64; 2], h: f64) -> ([f64; 2], [f64; 2]) {
    let mut x1 = [0.0; 2];
    let mut v1 = [0.0; 2];
    for i in 0..2 {
        v1[i] = v[i] - h * x[i].sin();
        x1[i] = x[i] + h * v1[i];
    }
    (x1, v1)
}

/// A float and an array in one tuple, the tuple built in two branches.
#[differentiate]
fn energy_and_force(x: &[f64; 3], k: f64) -> (f64, [f64; 3]) {
    let e = 0.5 * k * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    if e > 10.0 {
        return (e, [0.0; 3]);
    }
    (e, [-k * x[0], -k * x[1], -k * x[2]])
}

/// Callers destructuring tuples of arrays (typed: the macro cannot see the callee's output
/// type), ignoring a component, and reading a typed local's fields.
#[differentiate]
fn steps_and_energy(x: &[f64; 2], v: &[f64; 2], h: f64) -> f64 {
    let (x1, v1): ([f64; 2], [f64; 2]) = step2(x, v, h);
    let (x2, _): ([f64; 2], [f64; 2]) = step2(&x1, &v1, h);
    let (_, v3): ([f64; 2], [f64; 2]) = step2(&x2, &v1, 0.5 * h);
    let p: (f64, [f64; 3]) = energy_and_force(&[x2[0], v3[1], x1[1]], h);
    let (e, f) = p;
    p.0 + f[2] * v3[0] + e
}

#[test]
fn tuple_of_arrays_output() {
    Harness::new(5)
        .primal(|p| {
            let (a, b) = step2(&[p[0], p[1]], &[p[2], p[3]], p[4]);
            vec![a[0], a[1], b[0], b[1]]
        })
        .jvp(|p, d| {
            let ((a, b), (da, db)) = step2_jvp(
                &[p[0], p[1]],
                &[p[2], p[3]],
                p[4],
                &[d[0], d[1]],
                &[d[2], d[3]],
                d[4],
            );
            (
                vec![a[0], a[1], b[0], b[1]],
                vec![da[0], da[1], db[0], db[1]],
            )
        })
        .vjp(|p, c, g| {
            let (mut gx, mut gv, mut gh) = ([0.0; 2], [0.0; 2], 0.0);
            let seed = ([c[0], c[1]], [c[2], c[3]]);
            let (a, b) = step2_vjp(
                &[p[0], p[1]],
                &[p[2], p[3]],
                p[4],
                &mut gx,
                &mut gv,
                &mut gh,
                seed,
            );
            for k in 0..2 {
                g[k] += gx[k];
                g[2 + k] += gv[k];
            }
            g[4] += gh;
            vec![a[0], a[1], b[0], b[1]]
        })
        .random(5, -1.0, 1.0);
}

#[test]
fn float_and_array_tuple_output_with_early_return() {
    let flat = |(e, f): (f64, [f64; 3])| vec![e, f[0], f[1], f[2]];
    Harness::new(4)
        .primal(move |p| flat(energy_and_force(&[p[0], p[1], p[2]], p[3])))
        .jvp(move |p, d| {
            let (v, t) = energy_and_force_jvp(&[p[0], p[1], p[2]], p[3], &[d[0], d[1], d[2]], d[3]);
            (flat(v), flat(t))
        })
        .vjp(move |p, c, g| {
            let (mut gx, mut gk) = ([0.0; 3], 0.0);
            let seed = (c[0], [c[1], c[2], c[3]]);
            let v = energy_and_force_vjp(&[p[0], p[1], p[2]], p[3], &mut gx, &mut gk, seed);
            for k in 0..3 {
                g[k] += gx[k];
            }
            g[3] += gk;
            flat(v)
        })
        // Both branches: energies below and above 10.
        .at(&[
            &[0.5, -0.3, 0.8, 2.0],
            &[2.0, 1.5, -2.5, 3.0],
            &[-0.1, 0.2, 0.3, 0.7],
        ]);
}

#[test]
fn callers_destructure_tuples_of_arrays() {
    Harness::new(5)
        .primal(|p| vec![steps_and_energy(&[p[0], p[1]], &[p[2], p[3]], p[4])])
        .jvp(|p, d| {
            let (v, t) = steps_and_energy_jvp(
                &[p[0], p[1]],
                &[p[2], p[3]],
                p[4],
                &[d[0], d[1]],
                &[d[2], d[3]],
                d[4],
            );
            (vec![v], vec![t])
        })
        .vjp(|p, c, g| {
            let (mut gx, mut gv, mut gh) = ([0.0; 2], [0.0; 2], 0.0);
            let v = steps_and_energy_vjp(
                &[p[0], p[1]],
                &[p[2], p[3]],
                p[4],
                &mut gx,
                &mut gv,
                &mut gh,
                c[0],
            );
            for k in 0..2 {
                g[k] += gx[k];
                g[2 + k] += gv[k];
            }
            g[4] += gh;
            vec![v]
        })
        .random(5, -1.0, 1.0);
}

/// A generic tuple-of-arrays output, used in f32.
#[differentiate]
fn polar_parts<T: num_traits::Float>(z: &[T; 2]) -> ([T; 2], [T; 1]) {
    let r = (z[0] * z[0] + z[1] * z[1]).sqrt();
    ([z[0] / r, z[1] / r], [r])
}

#[test]
fn generic_tuple_of_arrays_output_in_f32() {
    Harness::new(2)
        .f32()
        .primal(|p| {
            let (u, r) = polar_parts(&[p[0] as f32, p[1] as f32]);
            vec![u[0] as f64, u[1] as f64, r[0] as f64]
        })
        .jvp(|p, d| {
            let z = [p[0] as f32, p[1] as f32];
            let dz = [d[0] as f32, d[1] as f32];
            let ((u, r), (du, dr)) = polar_parts_jvp(&z, &dz);
            (
                vec![u[0] as f64, u[1] as f64, r[0] as f64],
                vec![du[0] as f64, du[1] as f64, dr[0] as f64],
            )
        })
        .vjp(|p, c, g| {
            let z = [p[0] as f32, p[1] as f32];
            let mut gz = [0.0f32; 2];
            let seed = ([c[0] as f32, c[1] as f32], [c[2] as f32]);
            let (u, r) = polar_parts_vjp(&z, &mut gz, seed);
            g[0] += gz[0] as f64;
            g[1] += gz[1] as f64;
            vec![u[0] as f64, u[1] as f64, r[0] as f64]
        })
        .random(4, 0.5, 1.5);
}

/// Adds `w * x^2` into an accumulator through `&mut`.
#[differentiate]
fn add_sq(t: &mut f64, x: f64, w: f64) {
    *t += w * x * x;
}

/// One damped step of a scalar state in place, giving the energy before it.
#[differentiate]
fn damp(s: &mut f64, k: f64) -> f64 {
    let e = 0.5 * *s * *s;
    *s *= (-k).exp();
    e
}

/// Floats borrowed `&mut` by calls: a local accumulator in a loop, a constant made active by the
/// call, an in-out float argument passed on bare and as `&mut *s`, a call whose result is used.
#[differentiate]
fn float_borrows(x: &[f64], k: f64, s: &mut f64) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        add_sq(&mut total, x[i], k);
        if total > 2.0 {
            damp(&mut total, 0.1);
        }
    }
    let mut c = 1.0;
    add_sq(&mut c, *s, 0.5);
    let e = damp(s, k);
    damp(&mut *s, 0.5 * k);
    total * c + e
}

#[test]
fn floats_borrowed_mutably_by_calls() {
    Harness::new(5)
        .primal(|p| {
            let mut s = p[4];
            let v = float_borrows(&p[..3], p[3], &mut s);
            vec![v, s]
        })
        .jvp(|p, d| {
            let (mut s, mut ds) = (p[4], d[4]);
            let (v, dv) = float_borrows_jvp(&p[..3], p[3], &mut s, &d[..3], d[3], &mut ds);
            (vec![v, s], vec![dv, ds])
        })
        .vjp(|p, c, g| {
            let mut s = p[4];
            let mut bs = c[1];
            let (gx, rest) = g.split_at_mut(3);
            let v = float_borrows_vjp(&p[..3], p[3], &mut s, gx, &mut rest[0], &mut bs, c[0]);
            rest[1] += bs;
            vec![v, s]
        })
        // Totals below and above the damping threshold.
        .at(&[
            &[0.3, -0.2, 0.5, 0.7, 0.4],
            &[1.2, -0.9, 1.1, 1.3, -0.6],
            &[0.8, 1.5, -1.4, 0.9, 1.1],
        ]);
}

#[differentiate]
fn add_sq32(t: &mut f32, x: f32) {
    *t += x * x;
}

#[differentiate]
fn float_borrows32(x: &[f32]) -> f32 {
    let mut total = 0.0f32;
    for i in 0..x.len() {
        add_sq32(&mut total, x[i]);
        total = total.sin();
    }
    total
}

#[test]
fn floats_borrowed_mutably_by_calls_in_f32() {
    Harness::new(3)
        .f32()
        .primal(|p| vec![float_borrows32(&to32(p)) as f64])
        .jvp(|p, d| {
            let (v, dv) = float_borrows32_jvp(&to32(p), &to32(d));
            (vec![v as f64], vec![dv as f64])
        })
        .vjp(|p, c, g| {
            let mut gx = vec![0.0f32; 3];
            let v = float_borrows32_vjp(&to32(p), &mut gx, c[0] as f32);
            for k in 0..3 {
                g[k] += gx[k] as f64;
            }
            vec![v as f64]
        })
        .random(4, -1.0, 1.0);
}

#[differentiate]
fn sum_sq(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for y in v {
        s += y * y;
    }
    s
}

/// Nested sub-slices, read (`&x[a..][..b]`, `&x[a..][b..c]`, `&x[..b][c..]`, three levels) and
/// written (`&mut w[k..][..2]` in a loop, `&mut w[1..=2][1..]`).
#[differentiate]
fn nested_slices(x: &[f64], s: f64) -> f64 {
    let n = x.len();
    let mut e = sum_sq(&x[1..][..2]) + sum_sq(&x[1..][1..3]) * s;
    e += sum_sq(&x[..n - 1][2..]) + sum_sq(&x[1..][1..][..=1]);
    let mut w = x.to_vec();
    for k in 0..n - 1 {
        rotate(&mut w[k..][..2], s * (k as f64));
    }
    scale(&mut w[1..=2][1..], s);
    e + w[0] * w[1] + w[2] * w[n - 1]
}

#[test]
fn nested_sub_slices_read_and_written() {
    Harness::new(6)
        .primal(|p| vec![nested_slices(&p[..5], p[5])])
        .jvp(|p, d| {
            let (v, t) = nested_slices_jvp(&p[..5], p[5], &d[..5], d[5]);
            (vec![v], vec![t])
        })
        .vjp(|p, c, g| {
            let (gx, gs) = g.split_at_mut(5);
            vec![nested_slices_vjp(&p[..5], p[5], gx, &mut gs[0], c[0])]
        })
        .random(5, -1.0, 1.0);
}

/// A tuple-of-arrays result destructured from a call that writes through `&mut` (found by the
/// random programs, seed 10003: reported as a `&mut` borrow outside a call statement).
#[differentiate]
fn split_step(p: f64, u: &[f64], io: &mut [f64]) -> ([f64; 2], f64) {
    io[0] = (p * io[1] + u[0]).tanh();
    io[1] *= p;
    ([io[0] * u[1], p * p], io[0] + io[1])
}

#[differentiate]
fn destructures_a_writing_call(a: f64, v: &[f64], io: &mut [f64]) -> f64 {
    let (w, _): ([f64; 2], f64) = split_step(a, v, io);
    let (_, t): ([f64; 2], f64) = split_step(w[1], v, &mut *io);
    let (w2, t2): ([f64; 2], f64) = split_step(t, &v[..], &mut io[..]);
    w[0] * t + w2[0] + t2
}

#[test]
fn tuple_results_of_calls_writing_through_mut() {
    Harness::new(5)
        .primal(|p| {
            let mut io = p[3..5].to_vec();
            let v = destructures_a_writing_call(p[0], &p[1..3], &mut io);
            vec![v, io[0], io[1]]
        })
        .jvp(|p, d| {
            let (mut io, mut dio) = (p[3..5].to_vec(), d[3..5].to_vec());
            let (v, dv) =
                destructures_a_writing_call_jvp(p[0], &p[1..3], &mut io, d[0], &d[1..3], &mut dio);
            (vec![v, io[0], io[1]], vec![dv, dio[0], dio[1]])
        })
        .vjp(|p, c, g| {
            let (mut io, mut bio) = (p[3..5].to_vec(), c[1..3].to_vec());
            let (ga, rest) = g.split_at_mut(1);
            let (gv, gio) = rest.split_at_mut(2);
            let v = destructures_a_writing_call_vjp(
                p[0],
                &p[1..3],
                &mut io,
                &mut ga[0],
                gv,
                &mut bio,
                c[0],
            );
            gio[0] += bio[0];
            gio[1] += bio[1];
            vec![v, io[0], io[1]]
        })
        .random(5, -1.0, 1.0);
}

/// Parts of `split_at_mut` and chunks of `chunks_mut` lent to calls: bare, `&mut part`,
/// `&mut *part`, an open range of a part, read-only ranges of a part.
#[differentiate]
fn lends_parts(x: &[f64], s: f64) -> f64 {
    let mut w = x.to_vec();
    let (a, b) = w.split_at_mut(2);
    scale(a, s);
    scale(&mut b[1..], s * s);
    rotate(&mut *b, 0.5 * s);
    let e = sum_sq(&a[1..]) + sum_sq(&b[..]);
    for c in w.chunks_mut(2) {
        rotate(c, s);
    }
    for c in w.chunks_exact_mut(3) {
        scale(&mut c[1..], 0.5);
    }
    e + w[0] * w[3] + w[1] - w[2] * w[w.len() - 1]
}

#[test]
fn split_parts_and_chunks_lent_to_calls() {
    Harness::new(7)
        .primal(|p| vec![lends_parts(&p[..6], p[6])])
        .jvp(|p, d| {
            let (v, t) = lends_parts_jvp(&p[..6], p[6], &d[..6], d[6]);
            (vec![v], vec![t])
        })
        .vjp(|p, c, g| {
            let (gx, gs) = g.split_at_mut(6);
            vec![lends_parts_vjp(&p[..6], p[6], gx, &mut gs[0], c[0])]
        })
        .random(5, -1.0, 1.0);
}
