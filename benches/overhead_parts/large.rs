//! Inputs and variants of the first three problems of `benches/overhead.rs` (extended
//! Rosenbrock, the spring chain, the two-layer network), and the list of all the large problems.

use std::hint::black_box;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::common::*;
use super::pde_ode::{HeatInputs, LvInputs};
use crate::problems::*;

pub struct RosenbrockInputs {
    pub x: Vec<f64>,
}

impl RosenbrockInputs {
    pub fn new(rng: &mut ChaCha8Rng) -> Self {
        RosenbrockInputs {
            x: uniform(rng, ROSENBROCK_N, -1.5, 1.5),
        }
    }

    pub fn variants(&self) -> Vec<Variant<'_>> {
        let x = &self.x[..];
        let n = ROSENBROCK_N;
        let mut dx = vec![0.0; n];
        #[allow(unused_mut)] // the generated variants push onto it
        let mut variants: Vec<Variant<'_>> = vec![
            (
                PRIMAL,
                Box::new(move || rosenbrock(black_box(x), black_box(n))),
            ),
            (
                HAND_VJP,
                Box::new(move || {
                    rosenbrock_adjoint(
                        black_box(x),
                        black_box(n),
                        black_box(&mut dx),
                        black_box(1.0),
                    )
                }),
            ),
        ];
        {
            let mut dx = vec![0.0; n];
            variants.push((
                GENERATED_VJP,
                Box::new(move || {
                    generated::rosenbrock_vjp(
                        black_box(x),
                        black_box(n),
                        black_box(&mut dx),
                        black_box(1.0),
                    )
                }),
            ));
            variants.push((
                GENERATED_GRAD,
                Box::new(move || {
                    black_box(generated::rosenbrock_grad(black_box(x), black_box(n))).0
                }),
            ));
        }
        let u = direction(n);
        let u2 = u.clone();
        variants.push((
            HAND_JVP,
            Box::new(move || black_box(rosenbrock_tangent(black_box(x), black_box(n), &u)).1),
        ));
        variants.push((
            GENERATED_JVP,
            Box::new(move || {
                black_box(generated::rosenbrock_jvp(black_box(x), black_box(n), &u2)).1
            }),
        ));
        variants
    }
}

pub struct SpringChainInputs {
    pub k: Vec<f64>,
    pub x0: Vec<f64>,
    pub v0: Vec<f64>,
}

impl SpringChainInputs {
    pub fn new(rng: &mut ChaCha8Rng) -> Self {
        SpringChainInputs {
            k: uniform(rng, SPRING_N, 0.5, 1.5),
            x0: uniform(rng, SPRING_N, -0.5, 0.5),
            v0: uniform(rng, SPRING_N, -0.5, 0.5),
        }
    }

    pub fn variants(&self) -> Vec<Variant<'_>> {
        let (k, x0, v0) = (&self.k[..], &self.x0[..], &self.v0[..]);
        let (c, dt, n, steps) = (SPRING_C, SPRING_DT, SPRING_N, SPRING_STEPS);
        let (mut dk, mut dx0, mut dv0) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        #[allow(unused_mut)] // the generated variants push onto it
        let mut variants: Vec<Variant<'_>> = vec![
            (
                PRIMAL,
                Box::new(move || {
                    spring_chain(
                        black_box(k),
                        black_box(x0),
                        black_box(v0),
                        c,
                        dt,
                        black_box(n),
                        steps,
                    )
                }),
            ),
            (
                HAND_VJP,
                Box::new(move || {
                    spring_chain_adjoint(
                        black_box(k),
                        black_box(x0),
                        black_box(v0),
                        c,
                        dt,
                        black_box(n),
                        steps,
                        black_box(&mut dk),
                        black_box(&mut dx0),
                        black_box(&mut dv0),
                        black_box(1.0),
                    )
                }),
            ),
        ];
        {
            let (mut dk, mut dx0, mut dv0) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            variants.push((
                GENERATED_VJP,
                Box::new(move || {
                    generated::spring_chain_vjp(
                        black_box(k),
                        black_box(x0),
                        black_box(v0),
                        c,
                        dt,
                        black_box(n),
                        steps,
                        black_box(&mut dk),
                        black_box(&mut dx0),
                        black_box(&mut dv0),
                        black_box(1.0),
                    )
                }),
            ));
            variants.push((
                GENERATED_GRAD,
                Box::new(move || {
                    let (k, x0, v0, n) = (black_box(k), black_box(x0), black_box(v0), black_box(n));
                    black_box(generated::spring_chain_grad(k, x0, v0, c, dt, n, steps)).0
                }),
            ));
        }
        let u = direction(3 * n);
        let u2 = u.clone();
        variants.push((
            HAND_JVP,
            Box::new(move || {
                let (dk, dx0, dv0) = (&u[..n], &u[n..2 * n], &u[2 * n..]);
                let (k, x0, v0, n) = (black_box(k), black_box(x0), black_box(v0), black_box(n));
                black_box(spring_chain_tangent(
                    k, x0, v0, c, dt, n, steps, dk, dx0, dv0,
                ))
                .1
            }),
        ));
        variants.push((
            GENERATED_JVP,
            Box::new(move || {
                let (dk, dx0, dv0) = (&u2[..n], &u2[n..2 * n], &u2[2 * n..]);
                let (k, x0, v0, n) = (black_box(k), black_box(x0), black_box(v0), black_box(n));
                black_box(generated::spring_chain_jvp(
                    k, x0, v0, c, dt, n, steps, dk, dx0, dv0,
                ))
                .1
            }),
        ));
        variants
    }
}

pub struct TwoLayerInputs {
    pub w1: Vec<f64>,
    pub b1: Vec<f64>,
    pub w2: Vec<f64>,
    pub b2: Vec<f64>,
    pub xs: Vec<f64>,
    pub ys: Vec<f64>,
}

impl TwoLayerInputs {
    pub fn new(rng: &mut ChaCha8Rng) -> Self {
        let (d, h, o, batch) = (NET_D, NET_H, NET_O, NET_BATCH);
        // Weights scaled like a usual initialisation, so tanh is neither linear nor saturated.
        let s1 = 1.0 / (d as f64).sqrt();
        let s2 = 1.0 / (h as f64).sqrt();
        TwoLayerInputs {
            w1: uniform(rng, h * d, -s1, s1),
            b1: uniform(rng, h, -0.1, 0.1),
            w2: uniform(rng, o * h, -s2, s2),
            b2: uniform(rng, o, -0.1, 0.1),
            xs: uniform(rng, batch * d, -1.0, 1.0),
            ys: uniform(rng, batch * o, -1.0, 1.0),
        }
    }

    pub fn variants(&self) -> Vec<Variant<'_>> {
        let (w1, b1, w2, b2) = (&self.w1[..], &self.b1[..], &self.w2[..], &self.b2[..]);
        let (xs, ys) = (&self.xs[..], &self.ys[..]);
        let (d, h, o, batch) = (NET_D, NET_H, NET_O, NET_BATCH);
        let (mut dw1, mut db1) = (vec![0.0; h * d], vec![0.0; h]);
        let (mut dw2, mut db2) = (vec![0.0; o * h], vec![0.0; o]);
        #[allow(unused_mut)] // the generated variants push onto it
        let mut variants: Vec<Variant<'_>> = vec![
            (
                PRIMAL,
                Box::new(move || {
                    let (w1, b1, w2, b2) =
                        (black_box(w1), black_box(b1), black_box(w2), black_box(b2));
                    two_layer_loss(
                        w1,
                        b1,
                        w2,
                        b2,
                        black_box(xs),
                        black_box(ys),
                        d,
                        h,
                        o,
                        black_box(batch),
                    )
                }),
            ),
            (
                HAND_VJP,
                Box::new(move || {
                    let (w1, b1, w2, b2) =
                        (black_box(w1), black_box(b1), black_box(w2), black_box(b2));
                    two_layer_loss_adjoint(
                        w1,
                        b1,
                        w2,
                        b2,
                        black_box(xs),
                        black_box(ys),
                        d,
                        h,
                        o,
                        black_box(batch),
                        black_box(&mut dw1),
                        black_box(&mut db1),
                        black_box(&mut dw2),
                        black_box(&mut db2),
                        black_box(1.0),
                    )
                }),
            ),
        ];
        {
            let (mut dw1, mut db1) = (vec![0.0; h * d], vec![0.0; h]);
            let (mut dw2, mut db2) = (vec![0.0; o * h], vec![0.0; o]);
            variants.push((
                GENERATED_VJP,
                Box::new(move || {
                    let (w1, b1, w2, b2) =
                        (black_box(w1), black_box(b1), black_box(w2), black_box(b2));
                    generated::two_layer_loss_vjp(
                        w1,
                        b1,
                        w2,
                        b2,
                        black_box(xs),
                        black_box(ys),
                        d,
                        h,
                        o,
                        black_box(batch),
                        black_box(&mut dw1),
                        black_box(&mut db1),
                        black_box(&mut dw2),
                        black_box(&mut db2),
                        black_box(1.0),
                    )
                }),
            ));
            variants.push((
                GENERATED_GRAD,
                Box::new(move || {
                    let (w1, b1, w2, b2) =
                        (black_box(w1), black_box(b1), black_box(w2), black_box(b2));
                    let (xs, ys, batch) = (black_box(xs), black_box(ys), black_box(batch));
                    black_box(generated::two_layer_loss_grad(
                        w1, b1, w2, b2, xs, ys, d, h, o, batch,
                    ))
                    .0
                }),
            ));
        }
        // `w1`, `b1`, `w2`, `b2`'s parts of one direction vector.
        let (n1, n2, n3) = (h * d, h, o * h);
        let at = [0, n1, n1 + n2, n1 + n2 + n3, n1 + n2 + n3 + o];
        let u = direction(at[4]);
        let u2 = u.clone();
        variants.push((
            HAND_JVP,
            Box::new(move || {
                let (w1, b1, w2, b2) = (black_box(w1), black_box(b1), black_box(w2), black_box(b2));
                let (xs, ys, batch) = (black_box(xs), black_box(ys), black_box(batch));
                let (dw1, db1) = (&u[at[0]..at[1]], &u[at[1]..at[2]]);
                let (dw2, db2) = (&u[at[2]..at[3]], &u[at[3]..at[4]]);
                black_box(two_layer_loss_tangent(
                    w1, b1, w2, b2, xs, ys, d, h, o, batch, dw1, db1, dw2, db2,
                ))
                .1
            }),
        ));
        variants.push((
            GENERATED_JVP,
            Box::new(move || {
                let (w1, b1, w2, b2) = (black_box(w1), black_box(b1), black_box(w2), black_box(b2));
                let (xs, ys, batch) = (black_box(xs), black_box(ys), black_box(batch));
                let (dw1, db1) = (&u2[at[0]..at[1]], &u2[at[1]..at[2]]);
                let (dw2, db2) = (&u2[at[2]..at[3]], &u2[at[3]..at[4]]);
                black_box(generated::two_layer_loss_jvp(
                    w1, b1, w2, b2, xs, ys, d, h, o, batch, dw1, db1, dw2, db2,
                ))
                .1
            }),
        ));
        variants
    }
}

/// The inputs of every large problem, drawn from one seeded stream, so every run (and every
/// binary: `overhead`, `overhead_heap`, the files for `benches/peers/overhead.py`) measures the
/// same numbers.
pub struct LargeInputs {
    pub rosenbrock: RosenbrockInputs,
    pub springs: SpringChainInputs,
    pub net: TwoLayerInputs,
    pub heat: HeatInputs,
    pub lv: LvInputs,
}

impl LargeInputs {
    pub fn new() -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(2024);
        LargeInputs {
            rosenbrock: RosenbrockInputs::new(&mut rng),
            springs: SpringChainInputs::new(&mut rng),
            net: TwoLayerInputs::new(&mut rng),
            heat: HeatInputs::new(&mut rng),
            lv: LvInputs::new(&mut rng),
        }
    }
}

/// Calls `visit` with each problem's name and variants.
pub fn for_each_problem(mut visit: impl FnMut(&'static str, &mut [Variant<'_>])) {
    let inputs = LargeInputs::new();
    visit("rosenbrock", &mut inputs.rosenbrock.variants());
    visit("spring_chain", &mut inputs.springs.variants());
    visit("two_layer_loss", &mut inputs.net.variants());
    visit("heat_2d", &mut inputs.heat.variants());
    visit("rk4_lotka_volterra", &mut inputs.lv.variants());
}
