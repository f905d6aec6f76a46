//! The pendulum the struct tests share (included by `#[path]` from tests/struct_calls.rs,
//! tests/struct_outputs.rs and tests/structs_whole.rs, not through `common`, so that other test
//! binaries do not compile it): takes a state `State { x, v }` and a step size, gives its
//! semi-implicit Euler step `step` (a struct output built by a literal), the builders of a state
//! and of its tangent from flat inputs, and the harness checks of functions `f(&State, dt)` giving
//! a float (`check_state_fn!`) or a state (`check_state_out!`), in both modes.
#![allow(dead_code, unused_macros)]

use autodiff_runtime::{differentiate, Differentiable};

#[derive(Differentiable, Clone, Copy, Debug, PartialEq)]
pub struct State {
    pub x: f64,
    pub v: f64,
}

/// A pendulum's semi-implicit Euler step.
#[differentiate]
pub fn step(s: &State, dt: f64) -> State {
    let v = s.v - dt * s.x.sin();
    State { x: s.x + dt * v, v }
}

/// The state of flat inputs `p[0]`, `p[1]`.
pub fn st(p: &[f64]) -> State {
    State { x: p[0], v: p[1] }
}

/// The tangent of flat inputs `p[0]`, `p[1]`.
pub fn stt(p: &[f64]) -> StateTangent {
    StateTangent { x: p[0], v: p[1] }
}

/// Checks `f(s, dt) -> f64` (`s` from inputs 0, 1; `dt` input 2) in both modes at `8` random
/// points in `[lo, hi]`.
macro_rules! check_state_fn {
    ($f:ident, $jvp:ident, $vjp:ident, $lo:expr, $hi:expr) => {{
        use crate::pendulum::{st, stt};
        crate::common::Harness::new(3)
            .primal(|p| vec![$f(&st(p), p[2])])
            .jvp(|p, t| {
                let (y, dy) = $jvp(&st(p), p[2], &stt(t), t[2]);
                (vec![y], vec![dy])
            })
            .vjp(|p, c, g| {
                let mut ds = stt(&[0.0, 0.0]);
                let mut ddt = 0.0;
                let y = $vjp(&st(p), p[2], &mut ds, &mut ddt, c[0]);
                g[0] += ds.x;
                g[1] += ds.v;
                g[2] += ddt;
                vec![y]
            })
            .random(8, $lo, $hi)
    }};
}

/// Checks `f(s, dt) -> State` (`s` from inputs 0, 1; `dt` input 2) in both modes at `8` random
/// points in `[lo, hi]`.
macro_rules! check_state_out {
    ($f:ident, $jvp:ident, $vjp:ident, $lo:expr, $hi:expr) => {{
        use crate::pendulum::{st, stt};
        crate::common::Harness::new(3)
            .primal(|p| {
                let y = $f(&st(p), p[2]);
                vec![y.x, y.v]
            })
            .jvp(|p, t| {
                let (y, dy) = $jvp(&st(p), p[2], &stt(t), t[2]);
                (vec![y.x, y.v], vec![dy.x, dy.v])
            })
            .vjp(|p, c, g| {
                let mut ds = stt(&[0.0, 0.0]);
                let mut ddt = 0.0;
                let y = $vjp(&st(p), p[2], &mut ds, &mut ddt, stt(c));
                g[0] += ds.x;
                g[1] += ds.v;
                g[2] += ddt;
                vec![y.x, y.v]
            })
            .random(8, $lo, $hi)
    }};
}
