//! Inputs and variants of the heat-equation and Runge-Kutta problems of `benches/overhead.rs`:
//! takes the seeded random stream, gives each problem's primal, hand-written and generated adjoint,
//! generated gradient, hand-written and generated tangent, as the other problems have them.

use std::hint::black_box;

use rand_chacha::ChaCha8Rng;

use super::common::*;
use crate::problems::*;

pub struct HeatInputs {
    pub u0: Vec<f64>,
    pub target: Vec<f64>,
}

impl HeatInputs {
    pub fn new(rng: &mut ChaCha8Rng) -> Self {
        let nn = HEAT_N * HEAT_N;
        HeatInputs {
            u0: uniform(rng, nn, 0.0, 1.0),
            target: uniform(rng, nn, 0.0, 1.0),
        }
    }

    pub fn variants(&self) -> Vec<Variant<'_>> {
        let (u0, target) = (&self.u0[..], &self.target[..]);
        let (alpha, n, steps) = (HEAT_ALPHA, HEAT_N, HEAT_STEPS);
        let (mut du0, mut dalpha) = (vec![0.0; n * n], 0.0);
        let (mut gu0, mut galpha) = (vec![0.0; n * n], 0.0);
        let u = direction(n * n + 1);
        let (tu0, talpha) = (u[..n * n].to_vec(), u[n * n]);
        let tu0b = tu0.clone();
        vec![
            (
                PRIMAL,
                Box::new(move || {
                    heat(black_box(u0), alpha, black_box(target), black_box(n), steps)
                }),
            ),
            (
                HAND_VJP,
                Box::new(move || {
                    let (u0, target, n) = (black_box(u0), black_box(target), black_box(n));
                    heat_adjoint(
                        u0,
                        alpha,
                        target,
                        n,
                        steps,
                        &mut du0,
                        &mut dalpha,
                        black_box(1.0),
                    )
                }),
            ),
            (
                GENERATED_VJP,
                Box::new(move || {
                    let (u0, target, n) = (black_box(u0), black_box(target), black_box(n));
                    generated::heat_vjp(
                        u0,
                        alpha,
                        target,
                        n,
                        steps,
                        &mut gu0,
                        &mut galpha,
                        black_box(1.0),
                    )
                }),
            ),
            (
                GENERATED_GRAD,
                Box::new(move || {
                    let (u0, target, n) = (black_box(u0), black_box(target), black_box(n));
                    black_box(generated::heat_grad(u0, alpha, target, n, steps)).0
                }),
            ),
            (
                HAND_JVP,
                Box::new(move || {
                    let (u0, target, n) = (black_box(u0), black_box(target), black_box(n));
                    black_box(heat_tangent(u0, alpha, target, n, steps, &tu0, talpha)).1
                }),
            ),
            (
                GENERATED_JVP,
                Box::new(move || {
                    let (u0, target, n) = (black_box(u0), black_box(target), black_box(n));
                    black_box(generated::heat_jvp(
                        u0, alpha, target, n, steps, &tu0b, talpha,
                    ))
                    .1
                }),
            ),
        ]
    }
}

pub struct LvInputs {
    pub p: [f64; 4],
    pub y0: [f64; 2],
    pub obs: Vec<f64>,
}

impl LvInputs {
    pub fn new(rng: &mut ChaCha8Rng) -> Self {
        let scale = uniform(rng, 4, 0.9, 1.1);
        let y0 = uniform(rng, 2, 0.8, 1.2);
        LvInputs {
            p: std::array::from_fn(|i| LV_RATES[i] * scale[i]),
            y0: [y0[0], y0[1]],
            obs: uniform(rng, 2 * LV_STEPS, 0.3, 2.0),
        }
    }

    pub fn variants(&self) -> Vec<Variant<'_>> {
        let (p, y0, obs) = (&self.p, &self.y0, &self.obs[..]);
        let (h, steps) = (LV_H, LV_STEPS);
        let (mut dp, mut dy0) = ([0.0; 4], [0.0; 2]);
        let (mut gp, mut gy0) = ([0.0; 4], [0.0; 2]);
        let u = direction(6);
        let (tp, ty0) = ([u[0], u[1], u[2], u[3]], [u[4], u[5]]);
        vec![
            (
                PRIMAL,
                Box::new(move || lv_fit(black_box(p), black_box(y0), black_box(obs), h, steps)),
            ),
            (
                HAND_VJP,
                Box::new(move || {
                    let (p, y0, obs) = (black_box(p), black_box(y0), black_box(obs));
                    lv_fit_adjoint(
                        p,
                        y0,
                        obs,
                        h,
                        steps,
                        black_box(&mut dp),
                        &mut dy0,
                        black_box(1.0),
                    )
                }),
            ),
            (
                GENERATED_VJP,
                Box::new(move || {
                    let (p, y0, obs) = (black_box(p), black_box(y0), black_box(obs));
                    generated::lv_fit_vjp(
                        p,
                        y0,
                        obs,
                        h,
                        steps,
                        black_box(&mut gp),
                        &mut gy0,
                        black_box(1.0),
                    )
                }),
            ),
            (
                GENERATED_GRAD,
                Box::new(move || {
                    let (p, y0, obs) = (black_box(p), black_box(y0), black_box(obs));
                    black_box(generated::lv_fit_grad(p, y0, obs, h, steps)).0
                }),
            ),
            (
                HAND_JVP,
                Box::new(move || {
                    let (p, y0, obs) = (black_box(p), black_box(y0), black_box(obs));
                    black_box(lv_fit_tangent(p, y0, obs, h, steps, &tp, &ty0)).1
                }),
            ),
            (
                GENERATED_JVP,
                Box::new(move || {
                    let (p, y0, obs) = (black_box(p), black_box(y0), black_box(obs));
                    black_box(generated::lv_fit_jvp(p, y0, obs, h, steps, &tp, &ty0)).1
                }),
            ),
        ]
    }
}
