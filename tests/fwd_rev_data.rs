// The functions under test are written the way users write them (index loops, casts, edge
// cases such as empty ranges), not the way clippy prefers.
#![allow(clippy::all)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

use num_traits::Float;

// ---------------------------------------------------------------------------------------------
// Slice, array and &Vec inputs
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn slice_in(x: f64, v: &[f64]) -> f64 {
    let n = v.len();
    let mut s = 0.0;
    for i in 0..n {
        s += v[i] * v[(i + 1) % n] * x;
    }
    s + v[0] * v[n - 1] + (n as f64) * x
}

#[test]
fn slice_input() {
    chk_xv!(slice_in, slice_in_jvp, slice_in_vjp; 4).random(6, -2.0, 2.0);
    chk_xv!(slice_in, slice_in_jvp, slice_in_vjp; 1).random(3, -2.0, 2.0);
}

#[differentiate]
fn array_in(a: [f64; 3], x: f64) -> f64 {
    let mut s = x;
    for i in 0..3 {
        s = s * a[i] + a[(i + 1) % 3].sin();
    }
    s + a[0] * a[2]
}

#[test]
fn array_by_value_input() {
    Harness::new(4)
        .primal(|p| vec![array_in([p[0], p[1], p[2]], p[3])])
        .jvp(|p, t| {
            let (v, d) = array_in_jvp([p[0], p[1], p[2]], p[3], [t[0], t[1], t[2]], t[3]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let mut da = [g[0], g[1], g[2]];
            let mut dx = g[3];
            let v = array_in_vjp([p[0], p[1], p[2]], p[3], &mut da, &mut dx, c[0]);
            g[..3].copy_from_slice(&da);
            g[3] = dx;
            vec![v]
        })
        .random(6, -1.5, 1.5);
}

#[differentiate]
fn array_ref_in(a: &[f64; 3], b: &[f64; 2]) -> f64 {
    a[0] * b[1] + a[1].exp() * b[0] + a[2] * a[2] * b[0] * b[1] + (a.len() as f64) * a[1]
}

#[test]
fn array_reference_input() {
    Harness::new(5)
        .primal(|p| vec![array_ref_in(&[p[0], p[1], p[2]], &[p[3], p[4]])])
        .jvp(|p, t| {
            let (v, d) = array_ref_in_jvp(
                &[p[0], p[1], p[2]],
                &[p[3], p[4]],
                &[t[0], t[1], t[2]],
                &[t[3], t[4]],
            );
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let mut da = [g[0], g[1], g[2]];
            let mut db = [g[3], g[4]];
            let v = array_ref_in_vjp(&[p[0], p[1], p[2]], &[p[3], p[4]], &mut da, &mut db, c[0]);
            g[..3].copy_from_slice(&da);
            g[3..].copy_from_slice(&db);
            vec![v]
        })
        .random(6, -1.5, 1.5);
}

#[differentiate]
fn vec_ref_in(v: &Vec<f64>, x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += (v[i] * x).sin();
    }
    for &e in v.iter() {
        s += e * e;
    }
    s
}

#[test]
fn vec_reference_input() {
    Harness::new(4)
        .primal(|p| vec![vec_ref_in(&p[..3].to_vec(), p[3])])
        .jvp(|p, t| {
            let (v, d) = vec_ref_in_jvp(&p[..3].to_vec(), p[3], &t[..3], t[3]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(3);
            vec![vec_ref_in_vjp(&p[..3].to_vec(), p[3], a, &mut b[0], c[0])]
        })
        .random(6, -1.5, 1.5);
}

#[differentiate]
fn array_in32(a: [f32; 3], v: &[f32]) -> f32 {
    let mut s = 0.0;
    for i in 0..3 {
        s = s * a[i] + v[i] * a[(i + 2) % 3];
    }
    s
}

#[test]
fn array_and_slice_input_f32() {
    Check32 {
        n: 6,
        primal: |p: &[f64]| {
            vec![array_in32([p[0] as f32, p[1] as f32, p[2] as f32], &to32(&p[3..])) as f64]
        },
        jvp: |p: &[f64], t: &[f64]| {
            let a = [p[0] as f32, p[1] as f32, p[2] as f32];
            let da = [t[0] as f32, t[1] as f32, t[2] as f32];
            let (v, d) = array_in32_jvp(a, &to32(&p[3..]), da, &to32(&t[3..]));
            (vec![v as f64], vec![d as f64])
        },
        vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
            let a = [p[0] as f32, p[1] as f32, p[2] as f32];
            let mut da = [g[0] as f32, g[1] as f32, g[2] as f32];
            let mut dv = to32(&g[3..]);
            let v = array_in32_vjp(a, &to32(&p[3..]), &mut da, &mut dv, c[0] as f32);
            g[..3].copy_from_slice(&to64(&da));
            g[3..].copy_from_slice(&to64(&dv));
            vec![v as f64]
        },
    }
    .random(5, -1.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Local Vecs and arrays
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn local_vecs(x: f64, v: &[f64]) -> f64 {
    let n = v.len();
    let mut a = vec![0.0; n];
    for i in 0..n {
        a[i] = v[i] * x;
    }
    let b = vec![x; n]; // broadcast of an active value
    let mut c = v.to_vec();
    c[0] = c[0] * c[1];
    let mut d = Vec::with_capacity(n);
    for i in 0..n {
        d.push(a[i] + b[i] * c[i]);
    }
    d.push(x * x);
    let mut s = 0.0;
    for i in 0..d.len() {
        s += d[i] * (i as f64 + 1.0);
    }
    s + (c.len() as f64) * c[n - 1]
}

#[test]
fn local_vec_constructors() {
    chk_xv!(local_vecs, local_vecs_jvp, local_vecs_vjp; 3).random(6, -1.5, 1.5);
}

#[differentiate]
fn index_writes(x: f64, v: &[f64]) -> f64 {
    let n = v.len();
    let mut w = v.to_vec();
    for i in 0..n {
        w[i] += x * (i as f64);
        w[i] *= v[i];
        w[i] -= 0.5 * x;
        w[i] /= 1.0 + x * x;
    }
    for i in 1..n {
        w[i] = w[i] * w[i - 1] + w[i]; // reads the old value of the target
    }
    w[n - 1] = w[0]; // overwrites an element that depends on x
    for i in 0..n {
        w[n - 1 - i] += w[i] * 0.1; // reversed index
    }
    let mut s = 0.0;
    for e in &w {
        s += e * e;
    }
    s
}

#[test]
fn index_reads_and_writes() {
    chk_xv!(index_writes, index_writes_jvp, index_writes_vjp; 4).random(6, -1.2, 1.2);
}

#[differentiate]
fn time_step(u0: &[f64], k: f64, steps: usize) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut tmp = vec![0.0; n];
    for _ in 0..steps {
        for i in 1..n - 1 {
            tmp[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        tmp[0] = u[0];
        tmp[n - 1] = u[n - 1];
        for i in 0..n {
            u[i] = tmp[i];
        }
        // In-place nonlinear update: the new value depends on the old one.
        for i in 0..n {
            u[i] = u[i] - 0.1 * k * u[i].sin() * u[i];
        }
    }
    let mut s = 0.0;
    for i in 0..n {
        s += u[i] * u[i];
    }
    s
}

#[test]
fn time_stepping_state_vec() {
    Harness::new(6)
        .primal(|p| vec![time_step(&p[..5], p[5], 8)])
        .jvp(|p, t| {
            let (v, d) = time_step_jvp(&p[..5], p[5], 8, &t[..5], t[5]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(5);
            vec![time_step_vjp(&p[..5], p[5], 8, a, &mut b[0], c[0])]
        })
        .random(5, 0.05, 0.4);
}

#[differentiate]
fn time_step32(u0: &[f32], k: f32, steps: usize) -> f32 {
    let n = u0.len();
    let mut u = u0.to_vec();
    for _ in 0..steps {
        let old = u.clone();
        for i in 1..n - 1 {
            u[i] = old[i] + k * (old[i - 1] - 2.0 * old[i] + old[i + 1]);
        }
        u[0] = u[0] * (1.0 - k);
    }
    let mut s = 0.0;
    for e in &u {
        s += e * e;
    }
    s
}

#[test]
fn time_stepping_f32() {
    Check32 {
        n: 5,
        primal: |p: &[f64]| vec![time_step32(&to32(&p[..4]), p[4] as f32, 6) as f64],
        jvp: |p: &[f64], t: &[f64]| {
            let (v, d) =
                time_step32_jvp(&to32(&p[..4]), p[4] as f32, 6, &to32(&t[..4]), t[4] as f32);
            (vec![v as f64], vec![d as f64])
        },
        vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
            let mut du = to32(&g[..4]);
            let mut dk = g[4] as f32;
            let v = time_step32_vjp(
                &to32(&p[..4]),
                p[4] as f32,
                6,
                &mut du,
                &mut dk,
                c[0] as f32,
            );
            g[..4].copy_from_slice(&to64(&du));
            g[4] = dk as f64;
            vec![v as f64]
        },
    }
    .random(5, 0.05, 0.4);
}

#[differentiate]
fn local_arrays(x: f64, y: f64) -> f64 {
    let mut a = [0.0; 3];
    a[0] = x;
    a[1] = x * y;
    a[2] = y.sin();
    let b = [x, y, x + y];
    let mut s = 0.0;
    for i in 0..3 {
        a[i] *= b[i];
        s += a[i];
    }
    s + a.len() as f64
}

#[test]
fn local_array_reads_writes() {
    chk!(local_arrays, local_arrays_jvp, local_arrays_vjp; 0, 1).random(6, -1.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Array, tuple and Vec outputs
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn rotate(p: [f64; 2], th: f64) -> [f64; 2] {
    let (s, c) = th.sin_cos();
    [c * p[0] - s * p[1], s * p[0] + c * p[1]]
}

#[test]
fn array_output() {
    Harness::new(3)
        .primal(|p| rotate([p[0], p[1]], p[2]).to_vec())
        .jvp(|p, t| {
            let (v, d) = rotate_jvp([p[0], p[1]], p[2], [t[0], t[1]], t[2]);
            (v.to_vec(), d.to_vec())
        })
        .vjp(|p, c, g| {
            let mut dp = [g[0], g[1]];
            let mut dth = g[2];
            let v = rotate_vjp([p[0], p[1]], p[2], &mut dp, &mut dth, [c[0], c[1]]);
            g[0] = dp[0];
            g[1] = dp[1];
            g[2] = dth;
            v.to_vec()
        })
        .random(6, -2.0, 2.0);
}

#[differentiate]
fn local_array_out(v: &[f64]) -> [f64; 3] {
    let mut out = [0.0; 3];
    for i in 0..3 {
        out[i] = v[i] * v[(i + 1) % 3];
    }
    out[2] += v[0].exp();
    out
}

#[test]
fn array_output_from_local() {
    Harness::new(3)
        .primal(|p| local_array_out(p).to_vec())
        .jvp(|p, t| {
            let (v, d) = local_array_out_jvp(p, t);
            (v.to_vec(), d.to_vec())
        })
        .vjp(|p, c, g| local_array_out_vjp(p, g, [c[0], c[1], c[2]]).to_vec())
        .random(6, -1.5, 1.5);
}

#[differentiate]
fn stats(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mut m = 0.0;
    for &e in v {
        m += e;
    }
    m /= n;
    let mut var = 0.0;
    for &e in v {
        var += (e - m) * (e - m);
    }
    (m, var / n)
}

#[test]
fn tuple_output() {
    Harness::new(4)
        .primal(|p| {
            let (a, b) = stats(p);
            vec![a, b]
        })
        .jvp(|p, t| {
            let ((a, b), (da, db)) = stats_jvp(p, t);
            (vec![a, b], vec![da, db])
        })
        .vjp(|p, c, g| {
            let (a, b) = stats_vjp(p, g, (c[0], c[1]));
            vec![a, b]
        })
        .random(6, -2.0, 2.0);
}

#[differentiate]
fn scaled(v: &[f64], a: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(v.len());
    for i in 0..v.len() {
        out.push(v[i] * a + v[i].sin());
    }
    out
}

#[test]
fn vec_output() {
    Harness::new(4)
        .primal(|p| scaled(&p[..3], p[3]))
        .jvp(|p, t| scaled_jvp(&p[..3], p[3], &t[..3], t[3]))
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(3);
            scaled_vjp(&p[..3], p[3], a, &mut b[0], c)
        })
        .random(6, -2.0, 2.0);
}

#[differentiate]
fn vec_out_filled(x: f64, n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n];
    out[0] = x;
    for i in 1..n {
        out[i] = out[i - 1] * x + 1.0;
    }
    out
}

#[test]
fn vec_output_from_zeros() {
    Harness::new(1)
        .primal(|p| vec_out_filled(p[0], 4))
        .jvp(|p, t| vec_out_filled_jvp(p[0], 4, t[0]))
        .vjp(|p, c, g| vec_out_filled_vjp(p[0], 4, &mut g[0], c))
        .random(6, -1.5, 1.5);
}

#[differentiate]
fn vec_out32(v: &[f32], a: f32) -> Vec<f32> {
    let mut out = v.to_vec();
    for i in 0..out.len() {
        out[i] = out[i] * a + a;
    }
    out
}

#[test]
fn vec_output_f32() {
    Check32 {
        n: 4,
        primal: |p: &[f64]| to64(&vec_out32(&to32(&p[..3]), p[3] as f32)),
        jvp: |p: &[f64], t: &[f64]| {
            let (v, d) = vec_out32_jvp(&to32(&p[..3]), p[3] as f32, &to32(&t[..3]), t[3] as f32);
            (to64(&v), to64(&d))
        },
        vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
            let mut dv = to32(&g[..3]);
            let mut da = g[3] as f32;
            let v = vec_out32_vjp(&to32(&p[..3]), p[3] as f32, &mut dv, &mut da, &to32(c));
            g[..3].copy_from_slice(&to64(&dv));
            g[3] = da as f64;
            to64(&v)
        },
    }
    .random(5, -1.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// wrt(...) subsets
// ---------------------------------------------------------------------------------------------

#[differentiate(wrt(x, v))]
fn wrt_xv(x: f64, y: f64, v: &[f64]) -> f64 {
    let mut s = x * y;
    for &e in v {
        s += e * x + y.sin() * e * e;
    }
    s
}

#[differentiate(wrt(y))]
fn wrt_y(x: f64, y: f64, v: &[f64]) -> f64 {
    let mut s = x * y;
    for &e in v {
        s += e * x + y.sin() * e * e;
    }
    s
}

#[differentiate(wrt(v))]
fn wrt_v(x: f64, y: f64, v: &[f64]) -> f64 {
    let mut s = x * y;
    for &e in v {
        s += e * x + y.sin() * e * e;
    }
    s
}

#[test]
fn wrt_subsets() {
    const Y: f64 = 0.7;
    const X: f64 = -1.3;
    const V: [f64; 3] = [0.4, -0.9, 1.2];
    // wrt(x, v): y fixed.
    Harness::new(4)
        .primal(|p| vec![wrt_xv(p[0], Y, &p[1..])])
        .jvp(|p, t| {
            let (v, d) = wrt_xv_jvp(p[0], Y, &p[1..], t[0], &t[1..]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            vec![wrt_xv_vjp(p[0], Y, &p[1..], &mut a[0], b, c[0])]
        })
        .random(5, -1.5, 1.5);
    // wrt(y): x, v fixed.
    Harness::new(1)
        .primal(|p| vec![wrt_y(X, p[0], &V)])
        .jvp(|p, t| {
            let (v, d) = wrt_y_jvp(X, p[0], &V, t[0]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![wrt_y_vjp(X, p[0], &V, &mut g[0], c[0])])
        .random(5, -1.5, 1.5);
    // wrt(v): x, y fixed.
    Harness::new(3)
        .primal(|p| vec![wrt_v(X, Y, p)])
        .jvp(|p, t| {
            let (v, d) = wrt_v_jvp(X, Y, p, t);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![wrt_v_vjp(X, Y, p, g, c[0])])
        .random(5, -1.5, 1.5);
    // The gradient struct only has the selected fields.
    let (val, g) = wrt_y_grad(X, Y, &V);
    assert_eq!(val, wrt_y(X, Y, &V));
    let mut dy = 0.0;
    wrt_y_vjp(X, Y, &V, &mut dy, 1.0);
    assert_eq!(g, WrtYGrad { y: dy });
}

#[differentiate(wrt(y))]
fn wrt32(x: f32, y: f32) -> f32 {
    x * y.exp() + x.sin()
}

#[test]
fn wrt_subset_f32() {
    Check32 {
        n: 1,
        primal: |p: &[f64]| vec![wrt32(0.3, p[0] as f32) as f64],
        jvp: |p: &[f64], t: &[f64]| {
            let (v, d) = wrt32_jvp(0.3, p[0] as f32, t[0] as f32);
            (vec![v as f64], vec![d as f64])
        },
        vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
            let mut dy = g[0] as f32;
            let v = wrt32_vjp(0.3, p[0] as f32, &mut dy, c[0] as f32);
            g[0] = dy as f64;
            vec![v as f64]
        },
    }
    .random(5, -1.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Generic functions over num_traits::Float
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn generic<T: Float>(x: T, v: &[T]) -> T {
    let two = T::from(2.0).unwrap();
    let mut s = T::zero();
    for (i, &e) in v.iter().enumerate() {
        let w = T::from(i).unwrap();
        s = s + e * x * two + w * e.sin();
    }
    if s > T::one() {
        s = s.sqrt();
    }
    s * x.exp() + T::one() + x.powi(2) + x.max(T::zero())
}

#[test]
fn generic_f64() {
    chk_xv!(generic, generic_jvp, generic_vjp; 3).random(6, 0.1, 1.5);
    chk_xv!(generic, generic_jvp, generic_vjp; 3).at(&[&[-0.5, 0.1, 0.2, -0.3]]);
}

#[test]
fn generic_f32() {
    chk32_xv!(generic, generic_jvp, generic_vjp; 3).random(6, 0.1, 1.5);
}

#[differentiate]
fn generic_where<T>(x: T, y: T) -> (T, T)
where
    T: Float,
{
    let h = T::from(0.5).unwrap();
    (x * y * h, (x - y).tanh() + T::one())
}

#[test]
fn generic_where_clause_tuple_output() {
    Harness::new(2)
        .primal(|p| {
            let (a, b) = generic_where(p[0], p[1]);
            vec![a, b]
        })
        .jvp(|p, t| {
            let ((a, b), (da, db)) = generic_where_jvp(p[0], p[1], t[0], t[1]);
            (vec![a, b], vec![da, db])
        })
        .vjp(|p, c, g| {
            let (ga, gb) = g.split_at_mut(1);
            let (a, b) = generic_where_vjp(p[0], p[1], &mut ga[0], &mut gb[0], (c[0], c[1]));
            vec![a, b]
        })
        .random(6, -1.5, 1.5);
    Check32 {
        n: 2,
        primal: |p: &[f64]| {
            let (a, b) = generic_where(p[0] as f32, p[1] as f32);
            vec![a as f64, b as f64]
        },
        jvp: |p: &[f64], t: &[f64]| {
            let ((a, b), (da, db)) =
                generic_where_jvp(p[0] as f32, p[1] as f32, t[0] as f32, t[1] as f32);
            (to64(&[a, b]), to64(&[da, db]))
        },
        vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
            let mut gx = g[0] as f32;
            let mut gy = g[1] as f32;
            let (a, b) = generic_where_vjp(
                p[0] as f32,
                p[1] as f32,
                &mut gx,
                &mut gy,
                (c[0] as f32, c[1] as f32),
            );
            g[0] = gx as f64;
            g[1] = gy as f64;
            to64(&[a, b])
        },
    }
    .random(5, -1.5, 1.5);
}

#[differentiate]
fn generic_vec<T: Float>(v: &[T], k: T) -> Vec<T> {
    let mut out = vec![T::zero(); v.len()];
    for i in 0..v.len() {
        out[i] = v[i] * k + T::one();
    }
    out
}

#[test]
fn generic_vec_output() {
    Harness::new(4)
        .primal(|p| generic_vec(&p[..3], p[3]))
        .jvp(|p, t| generic_vec_jvp(&p[..3], p[3], &t[..3], t[3]))
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(3);
            generic_vec_vjp(&p[..3], p[3], a, &mut b[0], c)
        })
        .random(5, -1.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Calls to other differentiated functions
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[differentiate]
fn poly(x: f64, c: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for _ in 0..n {
        s = s * x + c;
    }
    s
}

#[differentiate]
fn pair(x: f64, y: f64) -> (f64, f64) {
    (x * y, x - y)
}

#[differentiate]
fn calls(x: f64, v: &[f64]) -> f64 {
    let w = vec![x; v.len()];
    let a = dot(v, &w); // slice argument passed through, local Vec by reference
    let b = dot(&v[1..3], &w[0..2]); // sub-slices
    let c = dot(&w[..2], &v[2..]); // open-ended ranges
    let d = poly(x, v[0], 3) + poly(2.0, x, 2); // inactive usize, constant float argument
    let (p, q) = pair(a, b); // tuple output
    let e = dot(v, v) + dot(&v[0..2], v); // the same slice twice, a slice and its sub-slice
    let f = poly(poly(x, 0.5, 2), x, 2); // nested call
    a + b + c + d + p * q + e + f
}

#[test]
fn calls_to_differentiated_functions() {
    chk_xv!(calls, calls_jvp, calls_vjp; 4).random(6, -1.2, 1.2);
}

#[differentiate]
fn two_views(x: f64, v: &[f64]) -> f64 {
    let w = v.to_vec();
    dot(&v[1..3], &v[0..2]) * x + dot(&w[2..4], &w[0..2]) + dot(&v[0..2], &v[0..2])
}

#[test]
fn call_with_two_sub_slices_of_one_slice() {
    chk_xv!(two_views, two_views_jvp, two_views_vjp; 4).random(6, -1.2, 1.2);
}

#[differentiate]
fn gen_helper<T: Float>(x: T, y: T) -> T {
    x * y.cos()
}

#[differentiate]
fn gen_caller<T: Float>(x: T, v: &[T]) -> T {
    let mut s = T::zero();
    for &e in v {
        s = s + gen_helper(e, x);
    }
    s * gen_helper(x, x)
}

#[test]
fn generic_calls_generic() {
    chk_xv!(gen_caller, gen_caller_jvp, gen_caller_vjp; 3).random(5, -1.5, 1.5);
    chk32_xv!(gen_caller, gen_caller_jvp, gen_caller_vjp; 3).random(5, -1.5, 1.5);
}

#[differentiate]
fn dot32(a: &[f32], b: &[f32]) -> f32 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[differentiate]
fn calls32(x: f32, v: &[f32]) -> f32 {
    let w = vec![x; 2];
    dot32(&v[1..3], &w) + dot32(v, v) * x
}

#[test]
fn calls_with_sub_slices_f32() {
    chk32_xv!(calls32, calls32_jvp, calls32_vjp; 3).random(5, -1.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Hand-written rules
// ---------------------------------------------------------------------------------------------

/// softplus(x) = ln(1 + e^x), with hand-written derivatives (not #[differentiate]).
fn softplus(x: f64) -> f64 {
    if x > 30.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn softplus_jvp(x: f64, dx: f64) -> (f64, f64) {
    (softplus(x), sigmoid(x) * dx)
}

fn softplus_vjp(x: f64, dx: &mut f64, seed: f64) -> f64 {
    *dx += seed * sigmoid(x);
    softplus(x)
}

/// A slice-valued custom rule: sum of squares.
fn my_sumsq(v: &[f64]) -> f64 {
    v.iter().map(|e| e * e).sum()
}

fn my_sumsq_jvp(v: &[f64], dv: &[f64]) -> (f64, f64) {
    (
        my_sumsq(v),
        v.iter().zip(dv).map(|(a, b)| 2.0 * a * b).sum(),
    )
}

fn my_sumsq_vjp(v: &[f64], dv: &mut [f64], seed: f64) -> f64 {
    for (d, e) in dv.iter_mut().zip(v) {
        *d += 2.0 * seed * e;
    }
    my_sumsq(v)
}

#[differentiate]
fn uses_custom(x: f64, v: &[f64]) -> f64 {
    let a = softplus(x * v[0]);
    let b = my_sumsq(v) * softplus(-x);
    let w = vec![x, x * x];
    a + b + my_sumsq(&w) + my_sumsq(&v[1..])
}

#[test]
fn custom_rules() {
    chk_xv!(uses_custom, uses_custom_jvp, uses_custom_vjp; 3).random(6, -2.0, 2.0);
}

fn my_sq32(x: f32) -> f32 {
    x * x
}

fn my_sq32_jvp(x: f32, dx: f32) -> (f32, f32) {
    (x * x, 2.0 * x * dx)
}

fn my_sq32_vjp(x: f32, dx: &mut f32, seed: f32) -> f32 {
    *dx += 2.0 * x * seed;
    x * x
}

#[differentiate]
fn uses_custom32(x: f32, y: f32) -> f32 {
    my_sq32(x * y) + my_sq32(x).sin()
}

#[test]
fn custom_rules_f32() {
    chk32!(uses_custom32, uses_custom32_jvp, uses_custom32_vjp; 0, 1).random(5, -1.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Macros in bodies
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn with_macros(x: f64, v: &[f64]) -> f64 {
    assert!(v.len() >= 2, "need two values, got {}", v.len());
    debug_assert!(x.is_finite());
    assert_eq!(v.len(), 3);
    println!("with_macros: x = {x}, v[0] = {}", v[0]);
    let mut s = x * v[0];
    for i in 1..v.len() {
        debug_assert!(i < v.len());
        s += v[i] * s;
        eprintln!("step {i}: {s}");
    }
    assert!(s.is_finite(), "s = {}", s);
    s
}

#[test]
fn assert_and_print_macros() {
    chk_xv!(with_macros, with_macros_jvp, with_macros_vjp; 3).random(5, -1.5, 1.5);
}

#[differentiate]
fn with_macros32(x: f32, y: f32) -> f32 {
    assert!(x.is_finite() && y.is_finite());
    debug_assert!(y > -10.0, "y = {}", y);
    println!("x = {}", x);
    x * y.sin()
}

#[test]
fn assert_and_print_macros_f32() {
    chk32!(with_macros32, with_macros32_jvp, with_macros32_vjp; 0, 1).random(4, -1.5, 1.5);
}

#[test]
#[should_panic(expected = "need two values")]
fn assert_fires_in_generated_companions() {
    let mut dx = 0.0;
    let mut dv = [0.0];
    with_macros_vjp(1.0, &[1.0], &mut dx, &mut dv, 1.0);
}

// ---------------------------------------------------------------------------------------------
// More data forms
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn array_pattern(a: [f64; 3], x: f64) -> f64 {
    let [p, q, r] = a;
    p * q + r * x
}

#[test]
fn array_destructuring_pattern() {
    Harness::new(4)
        .primal(|p| vec![array_pattern([p[0], p[1], p[2]], p[3])])
        .jvp(|p, t| {
            let (v, d) = array_pattern_jvp([p[0], p[1], p[2]], p[3], [t[0], t[1], t[2]], t[3]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let mut da = [g[0], g[1], g[2]];
            let mut dx = g[3];
            let v = array_pattern_vjp([p[0], p[1], p[2]], p[3], &mut da, &mut dx, c[0]);
            g[..3].copy_from_slice(&da);
            g[3] = dx;
            vec![v]
        })
        .random(5, -1.5, 1.5);
}

#[differentiate]
fn array_copy(x: f64, y: f64) -> [f64; 2] {
    let a = [x, y];
    let mut b = a; // a copy: writing b leaves a alone
    b[0] *= y;
    [b[0] + a[0], b[1] * a[1]]
}

#[test]
fn local_array_copy_and_output() {
    Harness::new(2)
        .primal(|p| array_copy(p[0], p[1]).to_vec())
        .jvp(|p, t| {
            let (v, d) = array_copy_jvp(p[0], p[1], t[0], t[1]);
            (v.to_vec(), d.to_vec())
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            array_copy_vjp(p[0], p[1], &mut a[0], &mut b[0], [c[0], c[1]]).to_vec()
        })
        .random(5, -1.5, 1.5);
}

#[differentiate]
fn index_exprs(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() / 2 {
        s += v[2 * i] * v[2 * i + 1];
    }
    s + v[v.len() - 1] * v[v.len() / 2]
}

#[test]
fn computed_indices() {
    Harness::new(6)
        .primal(|p| vec![index_exprs(p)])
        .jvp(|p, t| {
            let (v, d) = index_exprs_jvp(p, t);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![index_exprs_vjp(p, g, c[0])])
        .random(5, -1.5, 1.5);
}

#[differentiate]
fn gather(v: &[f64], idx: &[usize]) -> f64 {
    let mut s = 0.0;
    for k in 0..idx.len() {
        s += v[idx[k]] * (k as f64 + 1.0);
    }
    let mut w = vec![0.0; v.len()];
    for k in 0..idx.len() {
        w[idx[k]] += v[k]; // scatter, with repeated indices
    }
    s + w[0] * w[1] + w[2] * v[0]
}

#[test]
fn indirect_indexing() {
    let idx = [2usize, 0, 2, 1];
    Harness::new(4)
        .primal(|p| vec![gather(p, &idx)])
        .jvp(|p, t| {
            let (v, d) = gather_jvp(p, &idx, t);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![gather_vjp(p, &idx, g, c[0])])
        .random(5, -1.5, 1.5);
}

#[differentiate]
fn vec_reassign(x: f64, v: &[f64]) -> f64 {
    let w = v.to_vec();
    let mut u = vec![0.0; v.len()];
    u[0] = x;
    let keep = u[0] * x;
    u = w.clone(); // whole-Vec reassignment
    u[1] *= x;
    u[0] + u[1] + keep
}

#[test]
fn whole_vec_reassignment() {
    chk_xv!(vec_reassign, vec_reassign_jvp, vec_reassign_vjp; 3).random(5, -1.5, 1.5);
}

#[differentiate]
fn tuple_early(x: f64, y: f64) -> (f64, f64) {
    if x > 0.0 {
        return (x * y, 1.0);
    }
    (x * x, x + y)
}

#[test]
fn tuple_output_with_early_return() {
    Harness::new(2)
        .primal(|p| {
            let (a, b) = tuple_early(p[0], p[1]);
            vec![a, b]
        })
        .jvp(|p, t| {
            let ((a, b), (da, db)) = tuple_early_jvp(p[0], p[1], t[0], t[1]);
            (vec![a, b], vec![da, db])
        })
        .vjp(|p, c, g| {
            let (ga, gb) = g.split_at_mut(1);
            let (a, b) = tuple_early_vjp(p[0], p[1], &mut ga[0], &mut gb[0], (c[0], c[1]));
            vec![a, b]
        })
        .at(&[&[0.5, 1.0], &[1.5, -0.7], &[-0.5, 1.0], &[-2.0, 0.3]]);
}

#[differentiate]
fn vec_early(x: f64, n: usize) -> Vec<f64> {
    let mut o = vec![0.0; n];
    for i in 0..n {
        o[i] = x * (i as f64) + x * x;
        if o[i] > 2.0 {
            return o;
        }
    }
    o
}

#[test]
fn vec_output_with_early_return() {
    Harness::new(1)
        .primal(|p| vec_early(p[0], 5))
        .jvp(|p, t| vec_early_jvp(p[0], 5, t[0]))
        .vjp(|p, c, g| vec_early_vjp(p[0], 5, &mut g[0], c))
        .at(&[&[0.3], &[0.9], &[-0.4], &[1.3]]);
}

#[differentiate]
fn gen_arr<T: Float>(a: [T; 3], x: T) -> T {
    a[0] * x + a[1] * a[2] + x.sin()
}

#[test]
fn generic_array_argument() {
    Harness::new(4)
        .primal(|p| vec![gen_arr([p[0], p[1], p[2]], p[3])])
        .jvp(|p, t| {
            let (v, d) = gen_arr_jvp([p[0], p[1], p[2]], p[3], [t[0], t[1], t[2]], t[3]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let mut da = [g[0], g[1], g[2]];
            let mut dx = g[3];
            let v = gen_arr_vjp([p[0], p[1], p[2]], p[3], &mut da, &mut dx, c[0]);
            g[..3].copy_from_slice(&da);
            g[3] = dx;
            vec![v]
        })
        .random(5, -1.5, 1.5);
    let (val, g) = gen_arr_grad([1.0f32, 2.0, 3.0], 0.5);
    assert_eq!(val, gen_arr([1.0f32, 2.0, 3.0], 0.5));
    assert_eq!(g.a, [0.5, 3.0, 2.0]);
    assert_eq!(g.x, 1.0 + 0.5f32.cos());
}

#[differentiate]
fn reductions(v: &[f64]) -> f64 {
    let mut best = v[0];
    for &e in v {
        if e > best {
            best = e;
        }
    }
    let mut m = f64::NEG_INFINITY;
    for i in 0..v.len() {
        m = m.max(v[i]);
    }
    let mut s = 0.0;
    for &e in v {
        s += (e - m).exp();
    }
    best + m + s.ln() // argmax value, max, logsumexp - max
}

#[test]
fn max_and_logsumexp_reductions() {
    Harness::new(4)
        .primal(|p| vec![reductions(p)])
        .jvp(|p, t| {
            let (v, d) = reductions_jvp(p, t);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![reductions_vjp(p, g, c[0])])
        .random(6, -2.0, 2.0);
}

#[differentiate]
fn calls_into_elements(x: f64, v: &[f64]) -> f64 {
    let mut w = v.to_vec();
    for i in 0..w.len() {
        w[i] = poly(w[i], x, 2); // result written into the argument's own element
    }
    let mut s = 0.0;
    for i in 0..v.len() - 1 {
        s += dot(&v[i..i + 2], &w[i..i + 2]); // loop-dependent sub-slices
    }
    s + w[0] * w[1]
}

#[test]
fn calls_in_loops_with_element_targets_and_moving_windows() {
    chk_xv!(calls_into_elements, calls_into_elements_jvp, calls_into_elements_vjp; 4)
        .random(5, -1.2, 1.2);
}

#[differentiate]
fn arr_fn(a: [f64; 2]) -> f64 {
    a[0] * a[1].sin()
}

#[differentiate]
fn calls_with_arrays(x: f64, y: f64) -> f64 {
    let a = [x, y];
    arr_fn(a) + arr_fn([x * 2.0, 1.0])
}

#[test]
fn calls_with_array_arguments() {
    chk!(calls_with_arrays, calls_with_arrays_jvp, calls_with_arrays_vjp; 0, 1)
        .random(5, -1.5, 1.5);
}

#[differentiate]
fn arr_out_fn(x: f64) -> [f64; 2] {
    [x, x * x]
}

#[differentiate]
fn vec_out_fn(v: &[f64], a: f64) -> Vec<f64> {
    let mut o = v.to_vec();
    for i in 0..o.len() {
        o[i] *= a;
    }
    o
}

#[test]
fn callee_outputs_standalone() {
    // The callees of the ignored tests below, on their own.
    Harness::new(1)
        .primal(|p| arr_out_fn(p[0]).to_vec())
        .jvp(|p, t| {
            let (v, d) = arr_out_fn_jvp(p[0], t[0]);
            (v.to_vec(), d.to_vec())
        })
        .vjp(|p, c, g| arr_out_fn_vjp(p[0], &mut g[0], [c[0], c[1]]).to_vec())
        .random(4, -1.5, 1.5);
    Harness::new(3)
        .primal(|p| vec_out_fn(&p[..2], p[2]))
        .jvp(|p, t| vec_out_fn_jvp(&p[..2], p[2], &t[..2], t[2]))
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(2);
            vec_out_fn_vjp(&p[..2], p[2], a, &mut b[0], c)
        })
        .random(4, -1.5, 1.5);
}

#[differentiate(wrt(y))]
fn wrt_callee(x: f64, y: f64) -> f64 {
    x * y.sin()
}

#[test]
fn wrt_callee_standalone() {
    Harness::new(1)
        .primal(|p| vec![wrt_callee(0.8, p[0])])
        .jvp(|p, t| {
            let (v, d) = wrt_callee_jvp(0.8, p[0], t[0]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![wrt_callee_vjp(0.8, p[0], &mut g[0], c[0])])
        .random(4, -1.5, 1.5);
}

// A call's result bound to one local is taken to be a float unless the `let` gives its type
// (the macro cannot see the callee's signature; tests/ui/call_result_used_as_sequence.rs).

#[differentiate]
fn call_arr_out(x: f64) -> f64 {
    let a: [f64; 2] = arr_out_fn(x);
    a[0] + a[1]
}

#[differentiate]
fn call_vec_out(x: f64, v: &[f64]) -> f64 {
    let o: Vec<f64> = vec_out_fn(v, x);
    o[0] * o[1]
}

#[differentiate]
fn call_tuple_local(x: f64, y: f64) -> f64 {
    let t: (f64, f64) = pair(x, y);
    t.0 * t.1
}

#[test]
fn call_with_array_output_bound_to_local() {
    chk!(call_arr_out, call_arr_out_jvp, call_arr_out_vjp; 0).random(5, -1.5, 1.5);
}

#[test]
fn call_with_vec_output_bound_to_local() {
    chk_xv!(call_vec_out, call_vec_out_jvp, call_vec_out_vjp; 2).random(5, -1.5, 1.5);
}

#[test]
fn call_with_tuple_output_bound_to_local() {
    chk!(call_tuple_local, call_tuple_local_jvp, call_tuple_local_vjp; 0, 1).random(5, -1.5, 1.5);
}

/// A caller of a `wrt(y)` function (which comes first in the file): `x`, outside the callee's
/// `wrt`, gets a constant; `y` the caller's active value (more in tests/wrt_calls.rs).
#[differentiate]
pub fn call_wrt(x: f64, y: f64) -> f64 {
    wrt_callee(0.5, x * y) + x
}

#[test]
fn call_to_wrt_subset_function() {
    chk!(call_wrt, call_wrt_jvp, call_wrt_vjp; 0, 1).random(5, -1.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Views, accumulation into outputs, calls on overwritten values
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn views(x: f64, v: &[f64]) -> f64 {
    let w = &v[1..3];
    let u = v;
    let z = &w[1..];
    w[0] * w[1] * x + u[0] + z[0] * x
}

#[test]
fn slice_view_locals() {
    chk_xv!(views, views_jvp, views_vjp; 4).random(5, -1.5, 1.5);
}

#[differentiate]
fn matvec(a: &[f64], x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let m = a.len() / n;
    let mut y = vec![0.0; m];
    for i in 0..m {
        for j in 0..n {
            y[i] += a[i * n + j] * x[j];
        }
    }
    y
}

#[test]
fn matvec_accumulate_into_vec_output() {
    Harness::new(9)
        .primal(|p| matvec(&p[..6], &p[6..]))
        .jvp(|p, t| matvec_jvp(&p[..6], &p[6..], &t[..6], &t[6..]))
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(6);
            matvec_vjp(&p[..6], &p[6..], a, b, c)
        })
        .random(4, -1.5, 1.5);
}

#[differentiate]
fn call_overwrite(x: f64, v: &[f64]) -> f64 {
    let mut s = x;
    for i in 0..v.len() {
        s = poly(s, v[i], 3);
        s = softplus(s) - 0.5;
        if poly(s, x, 2) > 0.0 {
            s = s * 0.5;
        }
    }
    s
}

#[test]
fn calls_and_custom_rules_on_overwritten_values() {
    chk_xv!(call_overwrite, call_overwrite_jvp, call_overwrite_vjp; 3).random(6, -1.0, 1.0);
}

#[differentiate]
fn state_while(x: f64, v: &[f64]) -> f64 {
    let n = v.len();
    let mut u = v.to_vec();
    let mut t = 0.0;
    while t < 1.0 {
        let old = u.clone();
        for i in 0..n {
            u[i] = old[i] + 0.1 * old[(i + 1) % n] * x;
        }
        t += 0.25;
    }
    let mut k = 0;
    loop {
        u[k % n] *= 0.9 + 0.01 * x;
        k += 1;
        if k >= 5 {
            break;
        }
    }
    u[0] + u[n - 1] * u[1]
}

#[test]
fn state_vec_updated_in_while_and_loop() {
    chk_xv!(state_while, state_while_jvp, state_while_vjp; 3).random(5, -1.0, 1.0);
}

#[differentiate]
fn cond_assign_elem(x: f64, v: &[f64]) -> f64 {
    let mut w = v.to_vec();
    for i in 0..w.len() {
        if w[i] > 0.0 {
            w[i] = w[i].sqrt() * x;
        } else {
            w[i] = -w[i] * x * x;
        }
        if i > 0 && w[i] > w[i - 1] {
            w[i - 1] = w[i] + w[i - 1];
        }
    }
    let mut s = 0.0;
    for &e in &w {
        s += e;
    }
    s
}

#[test]
fn conditional_element_writes() {
    chk_xv!(cond_assign_elem, cond_assign_elem_jvp, cond_assign_elem_vjp; 4).random(6, -1.0, 1.0);
}

#[differentiate]
fn same_var_both_args(x: f64, v: &[f64]) -> f64 {
    let mut w = v.to_vec();
    for i in 0..w.len() {
        w[i] = w[i] * w[i] + x * w[i];
    }
    poly(x, x, 3) + w[0] * w[0] + (x * x + 1.0).powf(x) + x.atan2(x + 3.0) + x.max(x) + x.hypot(x)
}

#[test]
fn one_variable_in_several_argument_slots() {
    chk_xv!(same_var_both_args, same_var_both_args_jvp, same_var_both_args_vjp; 2)
        .at(&[&[0.5, 0.3, 0.9], &[-1.2, 1.0, -0.4]]);
}
