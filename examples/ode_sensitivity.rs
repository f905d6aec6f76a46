//! Sensitivities of an ODE solution: the Lotka-Volterra predator-prey system integrated by
//! Runge-Kutta 4 with a fixed step, written as ordinary `#[differentiate]` functions (a
//! right-hand side filling a buffer, an in-place step, a time-stepping loop). It prints
//!
//! 1. the Jacobian of the final state with respect to the four rates, the initial state and the
//!    final time (`final_state_jacobian`, one reverse sweep per output), next to central finite
//!    differences;
//! 2. the gradient of a least-squares misfit to observations along the whole trajectory with
//!    respect to the rates and the initial state (`misfit_grad`, one reverse sweep), next to
//!    central finite differences;
//! 3. the gradient of the final predator count after 200,000 steps with the time loop marked
//!    `#[checkpoint]` (the reverse sweep keeps ⌈√n⌉ = 448 states instead of one per step), equal
//!    bit for bit to the same loop without the attribute.
//!
//! Run with `cargo run --release --example ode_sensitivity`.

// Index loops over the two components read like the formulas.
#![allow(clippy::needless_range_loop)]

use autodiff_runtime::{check, differentiate};

/// Lotka-Volterra: prey `y[0]` grow at rate `alpha` and are eaten at rate `beta`; predators
/// `y[1]` grow at rate `delta` per prey eaten and die at rate `gamma`.
#[differentiate]
fn lotka_volterra(y: &[f64; 2], p: &[f64; 4], dy: &mut [f64; 2]) {
    let [alpha, beta, delta, gamma] = *p;
    dy[0] = alpha * y[0] - beta * y[0] * y[1];
    dy[1] = delta * y[0] * y[1] - gamma * y[1];
}

/// One classical Runge-Kutta 4 step of size `h`, in place.
#[differentiate]
fn rk4_step(y: &mut [f64; 2], p: &[f64; 4], h: f64) {
    let y0 = *y;
    let mut k1 = [0.0; 2];
    let mut k2 = [0.0; 2];
    let mut k3 = [0.0; 2];
    let mut k4 = [0.0; 2];
    let mut t = [0.0; 2];
    lotka_volterra(&y0, p, &mut k1);
    for i in 0..2 {
        t[i] = y0[i] + 0.5 * h * k1[i];
    }
    lotka_volterra(&t, p, &mut k2);
    for i in 0..2 {
        t[i] = y0[i] + 0.5 * h * k2[i];
    }
    lotka_volterra(&t, p, &mut k3);
    for i in 0..2 {
        t[i] = y0[i] + h * k3[i];
    }
    lotka_volterra(&t, p, &mut k4);
    for i in 0..2 {
        y[i] = y0[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
}

/// The state at time `t_end` after `steps` equal steps from `y0` at time 0.
#[differentiate]
fn final_state(p: &[f64; 4], y0: &[f64; 2], t_end: f64, steps: usize) -> [f64; 2] {
    let h = t_end / steps as f64;
    let mut y = *y0;
    for _ in 0..steps {
        rk4_step(&mut y, p, h);
    }
    y
}

/// Mean squared difference between the trajectory (after each step of size `h`) and the
/// observations `obs[s]` of the state after step `s + 1`.
#[differentiate(wrt(p, y0))]
fn misfit(p: &[f64; 4], y0: &[f64; 2], h: f64, obs: &[[f64; 2]]) -> f64 {
    let mut y = [y0[0], y0[1]];
    let mut sum = 0.0;
    for s in 0..obs.len() {
        rk4_step(&mut y, p, h);
        for i in 0..2 {
            let r = y[i] - obs[s][i];
            sum += r * r;
        }
    }
    sum / obs.len() as f64
}

/// The final predator count after `steps` steps of size `h`, the time loop checkpointed: the
/// reverse sweep stores ⌈√steps⌉ states and recomputes the others from the nearest one. (Only its
/// gradient is called.)
#[allow(dead_code)]
#[differentiate(wrt(p, y0))]
fn final_predators_ck(p: &[f64; 4], y0: &[f64; 2], h: f64, steps: usize) -> f64 {
    let mut y = *y0;
    #[checkpoint]
    for _ in 0..steps {
        rk4_step(&mut y, p, h);
    }
    y[1]
}

/// The same without the attribute: the reverse sweep keeps the state before every step.
#[allow(dead_code)]
#[differentiate(wrt(p, y0))]
fn final_predators(p: &[f64; 4], y0: &[f64; 2], h: f64, steps: usize) -> f64 {
    let mut y = *y0;
    for _ in 0..steps {
        rk4_step(&mut y, p, h);
    }
    y[1]
}

const NAMES: [&str; 7] = ["alpha", "beta", "delta", "gamma", "prey0", "pred0", "t_end"];

fn main() {
    let p = [1.1, 0.4, 0.1, 0.4];
    let y0 = [10.0, 5.0];
    let (t_end, steps) = (20.0, 2000);

    // 1. Jacobian of the final state with respect to (p, y0, t_end).
    let start = std::time::Instant::now();
    let (y_end, jac) = final_state_jacobian(&p, &y0, t_end, steps);
    let t_jac = start.elapsed();
    let start = std::time::Instant::now();
    let y_primal = final_state(&p, &y0, t_end, steps);
    let t_primal = start.elapsed();
    assert_eq!(y_end, y_primal);

    // Central differences, one input at a time, with a step relative to the input's size.
    let inputs: Vec<f64> = p.iter().chain(&y0).copied().chain([t_end]).collect();
    let eval =
        |v: &[f64]| final_state(&[v[0], v[1], v[2], v[3]], &[v[4], v[5]], v[6], steps).to_vec();
    println!(
        "Lotka-Volterra, RK4 with {steps} steps to t = {t_end}: prey, predators = \
         {:.6}, {:.6}",
        y_end[0], y_end[1]
    );
    println!(
        "Jacobian of the final state in {:.2} ms (the solve alone: {:.3} ms)",
        t_jac.as_secs_f64() * 1e3,
        t_primal.as_secs_f64() * 1e3
    );
    println!();
    println!(
        "{:>8} | {:>15} {:>15} | {:>15} {:>15}",
        "input", "d prey / d in", "central diff.", "d pred / d in", "central diff."
    );
    let mut worst = 0.0f64;
    for (k, name) in NAMES.iter().enumerate() {
        let mut dir = vec![0.0; inputs.len()];
        dir[k] = 1.0;
        let h = check::default_step::<f64>() * inputs[k].abs().max(1.0);
        let fd = check::central_difference(eval, &inputs, &dir, h);
        for i in 0..2 {
            worst = worst.max(rel_diff(jac[(i, k)], fd[i]));
        }
        println!(
            "{name:>8} | {:>15.8} {:>15.8} | {:>15.8} {:>15.8}",
            jac[(0, k)],
            fd[0],
            jac[(1, k)],
            fd[1]
        );
    }
    // The derivative with respect to the final time is the right-hand side at the final state
    // (up to the integrator's error, since the step size changes with t_end).
    let mut f_end = [0.0; 2];
    lotka_volterra(&y_end, &p, &mut f_end);
    println!(
        "{:>8} | {:>15.8} {:>15} | {:>15.8} {:>15}",
        "f(y(T))", f_end[0], "", f_end[1], ""
    );
    println!("largest relative difference to central differences: {worst:.2e}");

    // 2. The gradient of a misfit to noisy observations of a trajectory with other rates.
    let h = t_end / steps as f64;
    let p_true = [1.0, 0.5, 0.12, 0.45];
    let mut y = y0;
    let mut obs = Vec::with_capacity(steps);
    for s in 0..steps {
        rk4_step(&mut y, &p_true, h);
        // A deterministic wobble in place of measurement noise.
        let wobble = 0.05 * (0.37 * s as f64).sin();
        obs.push([y[0] * (1.0 + wobble), y[1] * (1.0 - wobble)]);
    }
    let start = std::time::Instant::now();
    let (value, grad) = misfit_grad(&p, &y0, h, &obs);
    let t_grad = start.elapsed();
    println!();
    println!(
        "misfit to {steps} observations: {value:.6}, gradient in {:.2} ms",
        t_grad.as_secs_f64() * 1e3
    );
    println!(
        "{:>8} | {:>15} {:>15}",
        "input", "d misfit / d in", "central diff."
    );
    let params: Vec<f64> = p.iter().chain(&y0).copied().collect();
    let gradient: Vec<f64> = grad.p.iter().chain(&grad.y0).copied().collect();
    let eval = |v: &[f64]| misfit(&[v[0], v[1], v[2], v[3]], &[v[4], v[5]], h, &obs);
    let mut worst_misfit = 0.0f64;
    for k in 0..params.len() {
        let mut dir = vec![0.0; params.len()];
        dir[k] = 1.0;
        let step = check::default_step::<f64>() * params[k].abs().max(1.0);
        let fd = check::central_difference_scalar(eval, &params, &dir, step);
        worst_misfit = worst_misfit.max(rel_diff(gradient[k], fd));
        println!("{:>8} | {:>15.8} {:>15.8}", NAMES[k], gradient[k], fd);
    }
    println!("largest relative difference to central differences: {worst_misfit:.2e}");

    // 3. A long integration with a checkpointed time loop.
    let long = 200_000;
    let h_long = 0.0005;
    let start = std::time::Instant::now();
    let (v_ck, g_ck) = final_predators_ck_grad(&p, &y0, h_long, long);
    let t_ck = start.elapsed();
    let start = std::time::Instant::now();
    let (v_plain, g_plain) = final_predators_grad(&p, &y0, h_long, long);
    let t_plain = start.elapsed();
    let same = v_ck == v_plain && g_ck.p == g_plain.p && g_ck.y0 == g_plain.y0;
    println!();
    println!(
        "predators after {long} steps of {h_long}: {v_ck:.6}; gradient with a #[checkpoint] \
         loop in {:.1} ms (448 states kept), without in {:.1} ms ({long} states kept)",
        t_ck.as_secs_f64() * 1e3,
        t_plain.as_secs_f64() * 1e3
    );
    println!(
        "d pred / d (alpha, beta, delta, gamma, prey0, pred0) = {:.6?} {:.6?}: {}",
        g_ck.p,
        g_ck.y0,
        if same {
            "the same bits as without checkpointing"
        } else {
            "DIFFERENT from the plain loop"
        }
    );

    let ok = worst < 1e-5 && worst_misfit < 1e-5 && same;
    println!(
        "check: {}",
        if ok {
            "sensitivities agree with finite differences"
        } else {
            "MISMATCH"
        }
    );
    if !ok {
        std::process::exit(1);
    }
}

/// `|a - b|` relative to the larger magnitude (absolute below 1).
fn rel_diff(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(1.0)
}
