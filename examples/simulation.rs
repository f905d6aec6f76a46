//! Fit the stiffness and the initial displacements of a chain of masses and springs to an
//! observed final state, by gradient descent through a 1,000-step simulation written as a method
//! on a `State` struct (`spring_chain` is the same fit written with slices).
//!
//! The simulation `State::advance(&mut self, steps)` changes the state in place, so its reverse
//! mode follows the in-out convention: `advance_vjp` takes the adjoint of the *final* state in its
//! `StateTangent` buffer and leaves there the adjoint of the *initial* state, stiffness included.
//! One gradient is one primal run (to get the final state and the misfit's adjoint) and one
//! `advance_vjp`. Shows a progress bar, then saves the loss curve as a PNG and prints where.
//!
//! Run with `cargo run --release --example simulation`.

// Index loops over the masses read like the formulas.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff_runtime::{differentiate, Differentiable};

/// Time step and number of steps of the simulation.
const DT: f64 = 0.005;
const STEPS: usize = 1000;

/// A chain of unit masses at displacements `x` from rest with velocities `v`: mass 0 hangs from
/// a wall, mass `i` from mass `i - 1`, on springs of stiffness `k` with a cubic hardening term.
#[derive(Differentiable, Clone, Debug)]
pub struct State {
    pub x: Vec<f64>,
    pub v: Vec<f64>,
    pub k: f64,
}

impl State {
    /// `steps` semi-implicit Euler steps, in place, with a little damping.
    #[differentiate]
    pub fn advance(&mut self, steps: usize) {
        let n = self.x.len();
        for _ in 0..steps {
            let mut f = vec![0.0; n];
            for i in 0..n {
                f[i] = -0.05 * self.v[i];
            }
            for i in 0..n {
                // The spring above mass i.
                let above = if i == 0 { 0.0 } else { self.x[i - 1] };
                let s = self.x[i] - above;
                let t = self.k * s + 0.5 * s * s * s;
                f[i] -= t;
                if i > 0 {
                    f[i - 1] += t;
                }
            }
            for i in 0..n {
                self.v[i] += DT * f[i];
                self.x[i] += DT * self.v[i];
            }
        }
    }

    /// The misfit of this (final) state to the observation, per mass.
    #[differentiate]
    pub fn misfit(&self, obs_x: &[f64], obs_v: &[f64]) -> f64 {
        let n = self.x.len();
        let mut sum = 0.0;
        for i in 0..n {
            sum += (self.x[i] - obs_x[i]).powi(2) + (self.v[i] - obs_v[i]).powi(2);
        }
        sum / n as f64
    }
}

/// The misfit after the simulation from `start`, and its gradient with respect to the start
/// (positions, velocities and stiffness).
fn misfit_and_gradient(start: &State, obs: &State) -> (f64, StateTangent) {
    // Forward: the final state, then the misfit's adjoint with respect to it.
    let mut end = start.clone();
    end.advance(STEPS);
    let (loss, d_end) = end.misfit_grad(&obs.x, &obs.v);
    // Reverse through the simulation: the buffer goes in holding the final state's adjoint and
    // comes out holding the initial state's.
    let mut adjoint = d_end.0;
    let mut replay = start.clone();
    replay.advance_vjp(STEPS, &mut adjoint);
    (loss, adjoint)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n = 8;
    // The truth the observation comes from.
    let x0_true: Vec<f64> = (0..n)
        .map(|i| 0.4 * (std::f64::consts::PI * (i as f64 + 1.0) / (n as f64 + 1.0)).sin())
        .collect();
    let truth = State {
        x: x0_true.clone(),
        v: vec![0.0; n],
        k: 2.0,
    };
    let mut obs = truth.clone();
    obs.advance(STEPS);

    // The guess to start from: stiffness off by 15 %, the chain at rest.
    let mut guess = State {
        x: vec![0.0; n],
        v: vec![0.0; n],
        k: 1.7,
    };
    println!(
        "{n} masses, {STEPS} steps of {DT}: fit the stiffness (true {}, start {}) and the \
         initial displacements (start 0) to the observed final positions and velocities",
        truth.k, guess.k
    );

    // Check the gradient at the start against central differences along one direction (the
    // velocities stay at rest: only `k` and `x` are fitted).
    let (m0, g) = misfit_and_gradient(&guess, &obs);
    let dir: Vec<f64> = (0..=n).map(|i| ((i * 7 + 3) % 5) as f64 - 2.0).collect();
    let moved = |h: f64| {
        let mut s = guess.clone();
        s.k += h * dir[0];
        for i in 0..n {
            s.x[i] += h * dir[i + 1];
        }
        s.advance(STEPS);
        s.misfit(&obs.x, &obs.v)
    };
    let h = 1e-6;
    let fd = (moved(h) - moved(-h)) / (2.0 * h);
    let ad = g.k * dir[0] + (0..n).map(|i| g.x[i] * dir[i + 1]).sum::<f64>();
    println!(
        "initial misfit {m0:.6}; gradient along a direction: reverse mode {ad:.10}, central \
         differences {fd:.10}"
    );
    if (ad - fd).abs() > 1e-6 * fd.abs().max(1e-3) {
        eprintln!("gradient check failed");
        std::process::exit(1);
    }

    // Gradient descent with momentum over (k, x), the step halved whenever the misfit grows.
    let iterations = 1500;
    let start = std::time::Instant::now();
    let mut theta: Vec<f64> = std::iter::once(guess.k)
        .chain(guess.x.iter().copied())
        .collect();
    let losses = common::heavy_ball(&mut theta, iterations, 0.05, "k", |p| {
        let mut s = guess.clone();
        s.k = p[0];
        s.x.copy_from_slice(&p[1..]);
        let (loss, g) = misfit_and_gradient(&s, &obs);
        (loss, std::iter::once(g.k).chain(g.x).collect())
    })?;
    guess.k = theta[0];
    guess.x.copy_from_slice(&theta[1..]);
    let elapsed = start.elapsed();
    let mut end = guess.clone();
    end.advance(STEPS);
    let final_misfit = end.misfit(&obs.x, &obs.v);
    let x0_err = guess
        .x
        .iter()
        .zip(&x0_true)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!(
        "iteration {iterations:>5}: misfit {final_misfit:.3e}  ({:.2} s, {:.0} µs an iteration)",
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e6 / iterations as f64
    );
    println!(
        "stiffness: fitted {:.6}, true {} (error {:.1e})",
        guess.k,
        truth.k,
        (guess.k - truth.k).abs()
    );
    println!("initial displacements: largest error {x0_err:.1e}");

    let png = common::output_dir().join("simulation_loss.png");
    common::loss_curve(
        &png,
        "State::advance: misfit to the observed final state",
        "gradient descent iteration",
        "misfit",
        &losses,
    )?;
    println!("wrote {}", png.display());
    Ok(())
}
