use autodiff_runtime::{differentiate, Differentiable};

#[derive(Differentiable, Clone)]
pub struct Springs {
    pub k: f64,
}

// A struct argument: not yet with `hvp`.
#[differentiate(hvp)]
fn energy(s: &Springs, x: f64) -> f64 {
    s.k * x * x
}

// Both float types: the generic copy has one.
#[differentiate(hvp)]
fn mixed(x: f32, y: f64) -> f64 {
    (x as f64) * y
}

// Arrays of arrays: not yet with `hvp`.
#[differentiate(hvp)]
fn rows(p: &[[f64; 2]]) -> f64 {
    p[0][0] * p[0][1]
}

fn main() {}
