//! Idiomatic Rust: iterator chains, closures and generic num-traits code, in both modes.
// The functions under test are written the way users write them (index loops, casts, edge
// cases such as empty ranges), not the way clippy prefers.
#![allow(clippy::all)]
mod common;
use autodiff_runtime::differentiate;
use common::*;
use num_traits::{Float, FromPrimitive};

macro_rules! scalar_slice_check {
    ($f:ident, $jvp:ident, $vjp:ident, $n:expr, $lo:expr, $hi:expr) => {{
        Harness::new($n)
            .primal(|p| vec![$f(p)])
            .jvp(|p, t| {
                let (v, d) = $jvp(p, t);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![$vjp(p, g, c[0])])
            .random(6, $lo, $hi);
    }};
}

#[differentiate]
fn rosenbrock(param: &[f64]) -> f64 {
    param
        .iter()
        .zip(param.iter().skip(1))
        .map(|(&a, &b)| (1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2))
        .sum()
}

#[test]
fn rosenbrock_zip_skip() {
    scalar_slice_check!(rosenbrock, rosenbrock_jvp, rosenbrock_vjp, 5, -1.5, 1.5);
}

#[differentiate]
fn rastrigin(x: &[f64]) -> f64 {
    let a = 10.0;
    a * x.len() as f64
        + x.iter()
            .map(|&xi| xi * xi - a * (2.0 * std::f64::consts::PI * xi).cos())
            .sum::<f64>()
}

#[test]
fn rastrigin_map_sum() {
    scalar_slice_check!(rastrigin, rastrigin_jvp, rastrigin_vjp, 4, -2.0, 2.0);
}

#[differentiate]
fn norm_fold(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |acc, &v| acc + v * v).sqrt()
}

#[test]
fn norm_with_fold() {
    scalar_slice_check!(norm_fold, norm_fold_jvp, norm_fold_vjp, 4, 0.2, 2.0);
}

#[differentiate]
fn softmax(x: &[f64]) -> Vec<f64> {
    let m = x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let e: Vec<f64> = x.iter().map(|&v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|&v| v / s).collect()
}

#[test]
fn softmax_map_collect() {
    Harness::new(4)
        .primal(|p| softmax(p))
        .jvp(|p, t| softmax_jvp(p, t))
        .vjp(|p, c, g| softmax_vjp(p, g, c))
        .at(&[&[0.1, 0.5, -0.3, 1.2], &[2.0, -1.0, 0.0, 0.7]]);
}

#[differentiate]
fn windows_chunks(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2) {
        s += (w[1] - w[0]).powi(2);
    }
    let c: f64 = x.chunks(2).map(|c| c[0] * c[c.len() - 1]).sum();
    s + c
}

#[test]
fn windows_and_chunks() {
    scalar_slice_check!(
        windows_chunks,
        windows_chunks_jvp,
        windows_chunks_vjp,
        5,
        -1.0,
        1.0
    );
}

#[differentiate]
fn adaptors(x: &[f64]) -> f64 {
    let a: f64 = x
        .iter()
        .enumerate()
        .map(|(i, &v)| (i as f64 + 1.0) * v)
        .sum();
    let b: f64 = x.iter().rev().step_by(2).map(|v| v.sin()).sum();
    let c: f64 = x
        .iter()
        .take(2)
        .chain(x.iter().skip(3))
        .map(|&v| v * v)
        .product();
    let d = x
        .iter()
        .filter(|&&v| v > 0.0)
        .map(|&v| v.exp())
        .sum::<f64>();
    let n = x.iter().filter(|v| **v > 0.0).count() as f64;
    let m = x
        .iter()
        .copied()
        .max_by(|p, q| p.partial_cmp(q).unwrap())
        .unwrap();
    let lo = x.iter().cloned().min_by(|p, q| p.total_cmp(q)).unwrap();
    let big = x.iter().any(|&v| v > 0.9);
    let all_pos = x.iter().all(|&v| v > -0.95);
    let mut acc = 0.0;
    (0..x.len()).for_each(|i| acc += x[i] * 0.5);
    let r = x.iter().copied().reduce(|p, q| p * 0.5 + q).unwrap();
    let zipped: f64 = (0..x.len())
        .zip(x.iter())
        .map(|(i, v)| v * (i as f64))
        .sum();
    a + b
        + c
        + d
        + n
        + m * lo
        + acc
        + r
        + zipped
        + if big { 1.0 } else { 0.0 }
        + if all_pos { 2.0 } else { 0.0 }
}

#[test]
fn every_adaptor() {
    Harness::new(5)
        .primal(|p| vec![adaptors(p)])
        .jvp(|p, t| {
            let (v, d) = adaptors_jvp(p, t);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![adaptors_vjp(p, g, c[0])])
        .at(&[&[0.3, -0.2, 0.8, 0.55, -0.7], &[-0.4, 0.25, 0.1, 0.95, 0.6]]);
}

#[differentiate]
fn local_closures(x: f64, y: f64) -> f64 {
    let sq = |a: f64| a * a;
    let scale = 3.0;
    let f = |a: f64, b: f64| {
        let t = a * b;
        t.sin() * scale
    };
    sq(x) + sq(y) + f(x, y)
}

#[test]
fn local_closures_inlined() {
    Harness::new(2)
        .primal(|p| vec![local_closures(p[0], p[1])])
        .jvp(|p, t| {
            let (v, d) = local_closures_jvp(p[0], p[1], t[0], t[1]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            vec![local_closures_vjp(p[0], p[1], &mut a[0], &mut b[0], c[0])]
        })
        .random(5, -2.0, 2.0);
}

#[differentiate]
fn generic_rosenbrock<T: Float + FromPrimitive + std::iter::Sum>(param: &[T]) -> T {
    let hundred = T::from_f64(100.0).unwrap();
    param
        .iter()
        .zip(param.iter().skip(1))
        .map(|(&a, &b)| (T::one() - a).powi(2) + hundred * (b - a * a).powi(2))
        .sum()
}

#[differentiate]
fn generic_misc<T: Float + FromPrimitive>(x: &[T; 2], s: T) -> T {
    let [x1, x2] = *x;
    let half = T::from(0.5).unwrap();
    let k = T::from_usize(3).unwrap();
    let e = T::epsilon();
    let m = T::max(x1, x2) + Float::sqrt(x1 * x1 + x2 * x2 + e);
    let z = T::zero() + T::one();
    m * half * k + s * z + x1.atan2(x2)
}

#[test]
fn generic_functions_f64_and_f32() {
    Harness::new(4)
        .primal(|p| vec![generic_rosenbrock(p)])
        .jvp(|p, t| {
            let (v, d) = generic_rosenbrock_jvp(p, t);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![generic_rosenbrock_vjp(p, g, c[0])])
        .random(4, -1.0, 1.0);
    Harness::new(4)
        .f32()
        .primal(|p| vec![generic_rosenbrock(&to32(p)) as f64])
        .jvp(|p, t| {
            let (v, d) = generic_rosenbrock_jvp(&to32(p), &to32(t));
            (vec![v as f64], vec![d as f64])
        })
        .vjp(|p, c, g| {
            let mut g32 = to32(g);
            let v = generic_rosenbrock_vjp(&to32(p), &mut g32, c[0] as f32);
            g.copy_from_slice(&to64(&g32));
            vec![v as f64]
        })
        .random(3, -1.0, 1.0);
    Harness::new(3)
        .primal(|p| vec![generic_misc(&[p[0], p[1]], p[2])])
        .jvp(|p, t| {
            let (v, d) = generic_misc_jvp(&[p[0], p[1]], p[2], &[t[0], t[1]], t[2]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let mut a = [0.0; 2];
            let mut s = 0.0;
            let v = generic_misc_vjp(&[p[0], p[1]], p[2], &mut a, &mut s, c[0]);
            g[0] += a[0];
            g[1] += a[1];
            g[2] += s;
            vec![v]
        })
        .at(&[&[0.3, 0.7, 1.1], &[1.2, -0.4, 0.2]]);
}
