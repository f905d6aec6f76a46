use autodiff_runtime::{differentiate, stop_gradient};

#[differentiate]
fn f(x: f64, y: f64) -> f64 {
    x * stop_gradient(x, y)
}

fn main() {
    let _ = stop_gradient(1.0);
}
