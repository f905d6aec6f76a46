//! Struct values given by differentiated calls.
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use autodiff_runtime::{differentiate, Differentiable};
use common::Harness;

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct State {
    pub x: f64,
    pub v: f64,
}

#[differentiate]
fn step(s: &State, dt: f64) -> State {
    let v = s.v - dt * s.x.sin();
    State { x: s.x + dt * v, v }
}

#[differentiate]
fn reads(s: &State, dt: f64) -> f64 {
    let s2: State = step(s, dt);
    s2.x * s2.v + s2.x
}

#[differentiate]
fn reads_unannotated(s: &State, dt: f64) -> f64 {
    let s2 = step(s, dt);
    let s3 = step(&s2, dt);
    s3.x * s2.v
}

#[differentiate]
fn looped(s0: &State, dt: f64, n: usize) -> f64 {
    let mut s = s0.clone();
    for _ in 0..n {
        s = step(&s, dt);
    }
    s.x * s.x + s.v
}

fn st(p: &[f64]) -> State {
    State { x: p[0], v: p[1] }
}
fn stt(p: &[f64]) -> StateTangent {
    StateTangent { x: p[0], v: p[1] }
}

#[test]
fn field_reads() {
    Harness::new(3)
        .primal(|p| vec![reads(&st(p), p[2])])
        .jvp(|p, t| {
            let (y, dy) = reads_jvp(&st(p), p[2], &stt(t), t[2]);
            (vec![y], vec![dy])
        })
        .vjp(|p, c, g| {
            let mut ds = stt(&[0.0, 0.0]);
            let mut ddt = 0.0;
            let y = reads_vjp(&st(p), p[2], &mut ds, &mut ddt, c[0]);
            g[0] += ds.x;
            g[1] += ds.v;
            g[2] += ddt;
            vec![y]
        })
        .random(8, -1.5, 1.5);
}
