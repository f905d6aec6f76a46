//! Benchmark functions written the way numeric Rust is usually written (generic over
//! `num_traits::Float`, iterator chains, constants from `T::from_*`), in both modes and both
//! float types.
// The functions under test are written the way users write them (index loops, casts, edge
// cases such as empty ranges), not the way clippy prefers.
#![allow(clippy::all)]
mod common;
use autodiff_runtime::differentiate;
use common::*;
use num_traits::{Float, FromPrimitive};
use std::iter::Sum;

#[differentiate]
fn sphere<T: Float + Sum>(x: &[T]) -> T {
    x.iter().map(|&xi| xi * xi).sum()
}

#[differentiate]
fn ackley<T: Float + FromPrimitive + Sum>(x: &[T]) -> T {
    let a = T::from_f64(20.0).unwrap();
    let b = T::from_f64(0.2).unwrap();
    let c = T::from_f64(2.0 * std::f64::consts::PI).unwrap();
    let n = T::from_usize(x.len()).unwrap();
    let sum_sq: T = x.iter().map(|&v| v * v).sum();
    let sum_cos: T = x.iter().map(|&v| (c * v).cos()).sum();
    -a * (-b * (sum_sq / n).sqrt()).exp() - (sum_cos / n).exp() + a + T::one().exp()
}

#[differentiate]
fn styblinski_tang(x: &[f64]) -> f64 {
    x.iter()
        .map(|&v| v.powi(4) - 16.0 * v * v + 5.0 * v)
        .sum::<f64>()
        / 2.0
}

#[differentiate]
fn griewank(x: &[f64]) -> f64 {
    let s: f64 = x.iter().map(|v| v * v).sum::<f64>() / 4000.0;
    let p: f64 = x
        .iter()
        .enumerate()
        .map(|(i, &v)| (v / ((i + 1) as f64).sqrt()).cos())
        .product();
    s - p + 1.0
}

#[differentiate]
fn levy(x: &[f64]) -> f64 {
    let w: Vec<f64> = x.iter().map(|&v| 1.0 + (v - 1.0) / 4.0).collect();
    let pi = std::f64::consts::PI;
    let first = (pi * w[0]).sin().powi(2);
    let middle: f64 = w[..w.len() - 1]
        .iter()
        .map(|&wi| (wi - 1.0).powi(2) * (1.0 + 10.0 * (pi * wi + 1.0).sin().powi(2)))
        .sum();
    let last = w[w.len() - 1];
    first + middle + (last - 1.0).powi(2) * (1.0 + (2.0 * pi * last).sin().powi(2))
}

#[differentiate]
fn max_abs_and_fold(x: &[f64]) -> f64 {
    let m = x
        .iter()
        .fold(f64::NEG_INFINITY, |a, &b| f64::max(a, b.abs()));
    let big = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let [x0, x1, ..] = x[..] else {
        return 0.0;
    };
    m * big + x0 * x1
}

#[differentiate]
fn log_sum_exp<T: Float + Sum>(x: &[T]) -> T {
    let m = x.iter().copied().fold(T::neg_infinity(), T::max);
    m + x.iter().map(|&v| (v - m).exp()).sum::<T>().ln()
}

fn check_slice(
    n: usize,
    f: fn(&[f64]) -> f64,
    jvp: fn(&[f64], &[f64]) -> (f64, f64),
    vjp: fn(&[f64], &mut [f64], f64) -> f64,
    lo: f64,
    hi: f64,
) {
    Harness::new(n)
        .primal(|p| vec![f(p)])
        .jvp(|p, t| {
            let (v, d) = jvp(p, t);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![vjp(p, g, c[0])])
        .random(5, lo, hi);
}

fn check_slice32(
    n: usize,
    f: fn(&[f32]) -> f32,
    jvp: fn(&[f32], &[f32]) -> (f32, f32),
    vjp: fn(&[f32], &mut [f32], f32) -> f32,
    lo: f64,
    hi: f64,
) {
    Harness::new(n)
        .f32()
        .primal(|p| vec![f(&to32(p)) as f64])
        .jvp(|p, t| {
            let (v, d) = jvp(&to32(p), &to32(t));
            (vec![v as f64], vec![d as f64])
        })
        .vjp(|p, c, g| {
            let mut g32 = to32(g);
            let v = vjp(&to32(p), &mut g32, c[0] as f32);
            g.copy_from_slice(&to64(&g32));
            vec![v as f64]
        })
        .random(3, lo, hi);
}

#[test]
fn generic_benchmark_functions_f64_and_f32() {
    check_slice(4, sphere, sphere_jvp, sphere_vjp, -2.0, 2.0);
    check_slice32(4, sphere, sphere_jvp, sphere_vjp, -2.0, 2.0);
    check_slice(3, ackley, ackley_jvp, ackley_vjp, 0.2, 1.5);
    check_slice32(3, ackley, ackley_jvp, ackley_vjp, 0.2, 1.5);
    check_slice(4, log_sum_exp, log_sum_exp_jvp, log_sum_exp_vjp, -2.0, 2.0);
    check_slice32(4, log_sum_exp, log_sum_exp_jvp, log_sum_exp_vjp, -2.0, 2.0);
}

#[test]
fn benchmark_functions_with_chains() {
    check_slice(
        5,
        styblinski_tang,
        styblinski_tang_jvp,
        styblinski_tang_vjp,
        -3.0,
        3.0,
    );
    check_slice(5, griewank, griewank_jvp, griewank_vjp, -3.0, 3.0);
    check_slice(4, levy, levy_jvp, levy_vjp, -3.0, 3.0);
    check_slice(
        4,
        max_abs_and_fold,
        max_abs_and_fold_jvp,
        max_abs_and_fold_vjp,
        -2.0,
        2.0,
    );
}
