//! The main example: annotate a function, get its derivatives in both modes, and check them
//! against central finite differences.
//!
//! Run with `cargo run --example quickstart`.

use autodiff_runtime::{check, differentiate};

/// A damped oscillator's energy after `steps` explicit steps, as a function of the stiffness `k`
/// and the initial position `x0` (the integer `steps` passes through untouched).
#[differentiate]
fn energy(k: f64, x0: f64, steps: usize) -> f64 {
    let dt = 0.01;
    let mut x = x0;
    let mut v = 0.0;
    for _ in 0..steps {
        let force = -k * x - 0.1 * v - 0.5 * x.powi(3);
        v += dt * force;
        x += dt * v;
    }
    0.5 * v * v + 0.5 * k * x * x
}

fn main() {
    let (k, x0, steps) = (2.0, 0.7, 300);

    // Forward mode: the value and the derivative along a direction (here d/dk).
    let (value, de_dk) = energy_jvp(k, x0, steps, 1.0, 0.0);

    // Reverse mode: the whole gradient in one sweep.
    let (value_rev, grad) = energy_grad(k, x0, steps);

    // Check both against central finite differences.
    let h = check::default_step::<f64>();
    let fd_k = check::central_difference_scalar(
        |p: &[f64]| energy(p[0], p[1], steps),
        &[k, x0],
        &[1.0, 0.0],
        h,
    );
    let fd_x0 = check::central_difference_scalar(
        |p: &[f64]| energy(p[0], p[1], steps),
        &[k, x0],
        &[0.0, 1.0],
        h,
    );

    println!("energy(k = {k}, x0 = {x0})       = {value:.12}");
    println!("forward mode  dE/dk          = {de_dk:.12}");
    println!(
        "reverse mode  dE/dk, dE/dx0  = {:.12}, {:.12}",
        grad.k, grad.x0
    );
    println!("finite diff.  dE/dk, dE/dx0  = {fd_k:.12}, {fd_x0:.12}");
    let ok = value == value_rev
        && check::close(de_dk, fd_k, 1e-6, 1e-9)
        && check::close(grad.k, fd_k, 1e-6, 1e-9)
        && check::close(grad.x0, fd_x0, 1e-6, 1e-9);
    println!(
        "check: {}",
        if ok {
            "derivatives agree with finite differences"
        } else {
            "MISMATCH"
        }
    );
    if !ok {
        std::process::exit(1);
    }
}
