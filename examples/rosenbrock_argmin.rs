//! Minimize the extended Rosenbrock function in 100 variables with argmin's L-BFGS, the gradient
//! coming from `#[differentiate]`: the generated `rosenbrock_vjp` behind argmin's `Gradient`
//! trait, the plain function behind `CostFunction`.
//!
//! Run with `cargo run --release --example rosenbrock_argmin`.

use argmin::core::{CostFunction, Error, Executor, Gradient, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use autodiff_runtime::{check, differentiate};

/// The extended Rosenbrock function (Moré, Garbow and Hillstrom's problem 21): `n / 2`
/// independent copies of the two-dimensional valley, summed. Its minimum is 0, at all ones.
#[differentiate]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut f = 0.0;
    for i in 0..x.len() / 2 {
        let a = x[2 * i];
        let b = x[2 * i + 1];
        f += 100.0 * (b - a * a).powi(2) + (1.0 - a).powi(2);
    }
    f
}

/// The problem argmin sees: parameters and gradients are `Vec<f64>` (argmin-math's `vec`
/// feature gives the vector arithmetic L-BFGS needs).
struct ExtendedRosenbrock;

impl CostFunction for ExtendedRosenbrock {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, x: &Self::Param) -> Result<Self::Output, Error> {
        Ok(rosenbrock(x))
    }
}

impl Gradient for ExtendedRosenbrock {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;

    fn gradient(&self, x: &Self::Param) -> Result<Self::Gradient, Error> {
        // Reverse mode adds `seed * gradient` into the adjoint buffer: start from zeros.
        let mut g = vec![0.0; x.len()];
        rosenbrock_vjp(x, &mut g, 1.0);
        Ok(g)
    }
}

fn main() -> Result<(), Error> {
    let n = 100;
    // The standard starting point: (-1.2, 1) repeated.
    let x0: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .collect();

    // Before optimizing, check the generated gradient at the start against central differences
    // along a few coordinate directions, and `_grad` against `_vjp`.
    let (f0, grad) = rosenbrock_grad(&x0);
    let g0 = ExtendedRosenbrock.gradient(&x0)?;
    let h = check::default_step::<f64>();
    let mut worst = 0.0f64;
    for k in [0, 1, n / 2, n - 1] {
        let mut dir = vec![0.0; n];
        dir[k] = 1.0;
        let fd = check::central_difference_scalar(|x: &[f64]| rosenbrock(x), &x0, &dir, h);
        worst = worst.max((fd - g0[k]).abs() / fd.abs().max(1.0));
    }
    println!("extended Rosenbrock, n = {n}, start (-1.2, 1, -1.2, 1, ...)");
    println!("f(x0) = {f0:.6}, |grad f(x0)| = {:.6}", norm(&g0));
    println!(
        "gradient check at x0: _grad == _vjp: {}, largest relative difference to central \
         differences over 4 coordinates: {worst:.2e}",
        grad.x == g0
    );
    if grad.x != g0 || worst > 1e-6 {
        eprintln!("gradient check failed");
        std::process::exit(1);
    }

    let linesearch = MoreThuenteLineSearch::new();
    let solver = LBFGS::new(linesearch, 7)
        .with_tolerance_grad(1e-10)?
        .with_tolerance_cost(0.0)?;
    let start = std::time::Instant::now();
    let result = Executor::new(ExtendedRosenbrock, solver)
        .configure(|state| state.param(x0.clone()).max_iters(1000).counting(true))
        .run()?;
    let elapsed = start.elapsed();

    let state = result.state();
    let best = state
        .get_best_param()
        .expect("L-BFGS keeps its best parameters");
    let distance = best
        .iter()
        .map(|&xi| (xi - 1.0) * (xi - 1.0))
        .sum::<f64>()
        .sqrt();
    let counts = state.get_func_counts();
    let count = |name: &str| counts.get(name).copied().unwrap_or(0);

    println!();
    println!("L-BFGS (history 7, More-Thuente line search):");
    println!("  stopped because   {}", state.get_termination_status());
    println!("  iterations        {}", state.get_iter());
    println!(
        "  evaluations       {} costs, {} gradients",
        count("cost_count"),
        count("gradient_count")
    );
    println!("  final cost        {:.3e}", state.get_best_cost());
    println!(
        "  |grad f| at best  {:.3e}",
        norm(&ExtendedRosenbrock.gradient(best)?)
    );
    println!("  |x - (1, ..., 1)| {distance:.3e}   (the known minimizer)");
    println!("  time              {:.1} ms", elapsed.as_secs_f64() * 1e3);
    Ok(())
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}
