//! Fit the stiffness and the initial displacements of a chain of masses and springs to an
//! observed final state, by gradient descent through a 1,000-step simulation. The simulation is
//! written with slices (`simulation` is the same fit with a `State` struct and its methods).
//! Shows a progress bar, then saves the loss curve as a PNG and prints where.
//!
//! Run with `cargo run --release --example spring_chain`.

// Index loops over the masses read like the formulas.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff_runtime::{check, differentiate};

/// Time step and number of steps of the simulation.
const DT: f64 = 0.005;
const STEPS: usize = 1000;

/// Forces on unit masses at displacements `x` from rest with velocities `v`: mass 0 hangs from a
/// wall, mass `i` from mass `i - 1`; springs of stiffness `k` with a cubic hardening term, and a
/// little damping.
#[differentiate]
fn forces(x: &[f64], v: &[f64], k: f64, f: &mut [f64]) {
    let n = x.len();
    for i in 0..n {
        f[i] = -0.05 * v[i];
    }
    for i in 0..n {
        // The spring above mass i.
        let above = if i == 0 { 0.0 } else { x[i - 1] };
        let s = x[i] - above;
        let t = k * s + 0.5 * s * s * s;
        f[i] -= t;
        if i > 0 {
            f[i - 1] += t;
        }
    }
}

/// `steps` semi-implicit Euler steps of the chain, in place.
#[differentiate]
fn simulate(x: &mut [f64], v: &mut [f64], k: f64, steps: usize) {
    let mut f = vec![0.0; x.len()];
    for _ in 0..steps {
        forces(x, v, k, &mut f);
        for i in 0..x.len() {
            v[i] += DT * f[i];
            x[i] += DT * v[i];
        }
    }
}

/// Squared distance between the state after `steps` steps from rest at displacements `x0`
/// and the observed final positions and velocities, per mass.
#[differentiate(wrt(k, x0))]
fn misfit(k: f64, x0: &[f64], obs_x: &[f64], obs_v: &[f64], steps: usize) -> f64 {
    let n = x0.len();
    let mut x = x0.to_vec();
    let mut v = vec![0.0; n];
    simulate(&mut x, &mut v, k, steps);
    let mut sum = 0.0;
    for i in 0..n {
        sum += (x[i] - obs_x[i]).powi(2) + (v[i] - obs_v[i]).powi(2);
    }
    sum / n as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n = 8;
    // The truth the observation comes from.
    let k_true = 2.0;
    let x0_true: Vec<f64> = (0..n)
        .map(|i| 0.4 * (std::f64::consts::PI * (i as f64 + 1.0) / (n as f64 + 1.0)).sin())
        .collect();
    let (mut obs_x, mut obs_v) = (x0_true.clone(), vec![0.0; n]);
    simulate(&mut obs_x, &mut obs_v, k_true, STEPS);

    // The guess to start from: stiffness off by 15 %, the chain at rest.
    let mut k = 1.7;
    let mut x0 = vec![0.0; n];
    println!(
        "{n} masses, {STEPS} steps of {DT}: fit the stiffness (true {k_true}, start {k}) and the \
         initial displacements (start 0) to the observed final positions and velocities"
    );

    // Check the generated gradient at the start against central differences.
    let (m0, g) = misfit_grad(k, &x0, &obs_x, &obs_v, STEPS);
    let theta: Vec<f64> = std::iter::once(k).chain(x0.iter().copied()).collect();
    let grad: Vec<f64> = std::iter::once(g.k).chain(g.x0.iter().copied()).collect();
    let eval = |p: &[f64]| misfit(p[0], &p[1..], &obs_x, &obs_v, STEPS);
    let dir: Vec<f64> = (0..theta.len())
        .map(|i| ((i * 7 + 3) % 5) as f64 - 2.0)
        .collect();
    let fd = check::central_difference_scalar(eval, &theta, &dir, check::default_step());
    let ad = check::dot(&grad, &dir);
    println!(
        "initial misfit {m0:.6}; gradient along a direction: reverse mode {ad:.10}, central \
         differences {fd:.10}"
    );
    if !check::close(ad, fd, 1e-6, 1e-9) {
        eprintln!("gradient check failed");
        std::process::exit(1);
    }

    // Gradient descent with momentum over (k, x0), the step halved whenever the misfit grows.
    let iterations = 1500;
    let start = std::time::Instant::now();
    let mut theta: Vec<f64> = std::iter::once(k).chain(x0.iter().copied()).collect();
    let mut dx0 = vec![0.0; n];
    let losses = common::heavy_ball(&mut theta, iterations, 0.05, "k", |p| {
        // Reverse mode adds into the adjoints: start each gradient from zero.
        let mut dk = 0.0;
        dx0.fill(0.0);
        let loss = misfit_vjp(p[0], &p[1..], &obs_x, &obs_v, STEPS, &mut dk, &mut dx0, 1.0);
        (
            loss,
            std::iter::once(dk).chain(dx0.iter().copied()).collect(),
        )
    })?;
    k = theta[0];
    x0.copy_from_slice(&theta[1..]);
    let elapsed = start.elapsed();
    let final_misfit = misfit(k, &x0, &obs_x, &obs_v, STEPS);
    let x0_err = x0
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
        "stiffness: fitted {k:.6}, true {k_true} (error {:.1e})",
        (k - k_true).abs()
    );
    println!("initial displacements: largest error {x0_err:.1e}");
    println!(
        "  fitted {}",
        x0.iter().map(|a| format!(" {a:7.4}")).collect::<String>()
    );
    println!(
        "  true   {}",
        x0_true
            .iter()
            .map(|a| format!(" {a:7.4}"))
            .collect::<String>()
    );

    let png = common::output_dir().join("spring_chain_loss.png");
    common::loss_curve(
        &png,
        "spring chain: misfit to the observed final state",
        "gradient descent iteration",
        "misfit",
        &losses,
    )?;
    println!("wrote {}", png.display());
    Ok(())
}
