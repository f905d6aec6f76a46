//! The gradient of a long simulation with checkpointing: a chain of 16 masses on nonlinear
//! springs with damping, stepped 200,000 times by a `&mut self` method, and the energy left at
//! the end differentiated with respect to the stiffness, the damping and the initial
//! displacements. `autodiff_runtime::checkpoint` runs the reverse sweep, calling the generated
//! `advance_vjp` once a step, on several schedules: storing every state, and binomial
//! checkpointing with budgets from 2,000 snapshots down to 20. It prints, for each, the time of
//! one gradient, the states stored at once and their bytes, and the primal steps run; every
//! schedule gives the same gradient bit for bit. It first checks that gradient against central
//! differences along one direction. Takes about 5 s (each schedule is timed three times).
//!
//! Run with `cargo run --release --example checkpointed`.

// Index loops over the masses read like the formulas.
#![allow(clippy::needless_range_loop)]

use autodiff_runtime::checkpoint::{self, Schedule, Stats};
use autodiff_runtime::{differentiate, Differentiable};
use std::time::Instant;

const MASSES: usize = 16;
const STEPS: usize = 200_000;
const DT: f64 = 0.002;

/// Masses at displacements `x` with velocities `v`, mass 0 hanging from a wall and mass `i`
/// from mass `i - 1` on springs of stiffness `k` with a cubic hardening term, damped by `c`.
#[derive(Differentiable, Clone, Debug)]
pub struct Chain {
    pub x: Vec<f64>,
    pub v: Vec<f64>,
    pub k: f64,
    pub c: f64,
}

impl Chain {
    /// One semi-implicit Euler step of length `dt`, in place.
    #[differentiate]
    pub fn advance(&mut self, dt: f64) {
        let n = self.x.len();
        for i in 0..n {
            let above = if i == 0 { 0.0 } else { self.x[i - 1] };
            let below = if i + 1 == n { self.x[i] } else { self.x[i + 1] };
            let up = self.x[i] - above;
            let down = below - self.x[i];
            let f = self.k * (down - up) + 0.5 * (down * down * down - up * up * up)
                - self.c * self.v[i];
            self.v[i] += dt * f;
        }
        for i in 0..n {
            self.x[i] += dt * self.v[i];
        }
    }

    /// Kinetic and spring energy.
    #[differentiate]
    pub fn energy(&self) -> f64 {
        let n = self.x.len();
        let mut e = 0.0;
        for i in 0..n {
            let above = if i == 0 { 0.0 } else { self.x[i - 1] };
            let s = self.x[i] - above;
            e += 0.5 * self.v[i] * self.v[i] + 0.5 * self.k * s * s + 0.125 * s * s * s * s;
        }
        e
    }
}

/// The energy after `STEPS` steps from `start`, its gradient with respect to `start` and to
/// the time step, and what the schedule ran.
fn gradient(start: &Chain, schedule: Schedule) -> (f64, ChainTangent, f64, Stats) {
    let mut ddt = 0.0;
    let (e, g, stats) = checkpoint::adjoint(
        STEPS,
        schedule,
        start.clone(),
        |_, c: &mut Chain| c.advance(DT),
        |end| end.energy_grad(),
        |_, c, dc| c.advance_vjp(DT, dc, &mut ddt),
    );
    (e, g, ddt, stats)
}

fn final_energy(start: &Chain) -> f64 {
    let mut c = start.clone();
    for _ in 0..STEPS {
        c.advance(DT);
    }
    c.energy()
}

fn main() {
    let start = Chain {
        x: (0..MASSES)
            .map(|i| 0.3 * (std::f64::consts::PI * (i as f64 + 1.0) / MASSES as f64).sin())
            .collect(),
        v: vec![0.0; MASSES],
        k: 2.0,
        c: 0.002,
    };
    let state_bytes = std::mem::size_of::<Chain>() + 2 * MASSES * std::mem::size_of::<f64>();
    println!(
        "{MASSES} masses, {STEPS} steps of {DT} (state: {state_bytes} B); energy at the end \
         differentiated through every step"
    );

    // The gradient on the default budget, checked along a direction.
    let (e, g, ddt, _) = gradient(&start, Schedule::sqrt(STEPS));
    println!(
        "energy {e:.6} (from {:.6}); d/dk {:.6}, d/dc {:.4}, d/ddt {:.4}, d/dx0[0..3] {:.5?}",
        start.energy(),
        g.k,
        g.c,
        ddt,
        &g.x[..3]
    );
    let dir: Vec<f64> = (0..MASSES + 2)
        .map(|i| ((i * 7 + 3) % 5) as f64 - 2.0)
        .collect();
    let moved = |h: f64| {
        let mut s = start.clone();
        s.k += h * dir[0];
        s.c += h * 0.01 * dir[1];
        for i in 0..MASSES {
            s.x[i] += h * dir[i + 2];
        }
        final_energy(&s)
    };
    let h = 1e-6;
    let fd = (moved(h) - moved(-h)) / (2.0 * h);
    let ad =
        g.k * dir[0] + g.c * 0.01 * dir[1] + (0..MASSES).map(|i| g.x[i] * dir[i + 2]).sum::<f64>();
    println!("along a direction: reverse mode {ad:.9}, central differences {fd:.9}");
    if (ad - fd).abs() > 1e-5 * fd.abs().max(1e-3) {
        eprintln!("gradient check failed");
        std::process::exit(1);
    }

    // Every schedule: the same gradient, at a different price.
    println!(
        "\n{:<28} {:>10} {:>14} {:>16} {:>16}",
        "schedule", "gradient", "states stored", "their bytes", "primal steps"
    );
    let (_, reference, reference_ddt, _) = gradient(&start, Schedule::StoreAll);
    for (name, schedule) in [
        ("store every state".to_string(), Schedule::StoreAll),
        (
            "binomial, 2000 snapshots".to_string(),
            Schedule::binomial(2000),
        ),
        (
            format!(
                "binomial, ⌈√n⌉ = {}",
                Schedule::sqrt(STEPS).stored_states(STEPS)
            ),
            Schedule::sqrt(STEPS),
        ),
        (
            "binomial, 100 snapshots".to_string(),
            Schedule::binomial(100),
        ),
        ("binomial, 20 snapshots".to_string(), Schedule::binomial(20)),
        (
            "binomial, within 64 kB".to_string(),
            Schedule::within(64_000, state_bytes),
        ),
    ] {
        // The best of three runs (other work on the machine only ever slows a run down).
        let mut seconds = f64::INFINITY;
        let mut result = None;
        for _ in 0..3 {
            let t0 = Instant::now();
            let r = gradient(&start, schedule);
            seconds = seconds.min(t0.elapsed().as_secs_f64());
            result = Some(r);
        }
        let (_, g, ddt, stats) = result.expect("three runs");
        assert!(
            g == reference && ddt == reference_ddt,
            "{name}: another gradient"
        );
        let bytes = stats.peak_states * state_bytes;
        println!(
            "{name:<28} {:>7.0} ms {:>14} {:>13.1} kB {:>10} = {:.2} n",
            seconds * 1e3,
            stats.peak_states,
            bytes as f64 / 1e3,
            stats.primal_steps,
            stats.primal_steps as f64 / STEPS as f64,
        );
    }
    println!(
        "(gradient: the best of three runs; each also runs {STEPS} step adjoints; bytes: the \
         stored states alone)"
    );
}
