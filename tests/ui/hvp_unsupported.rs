use autodiff_runtime::{differentiate, Differentiable};
use num_traits::Float;

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

// A generic function computing in `f64` too, whose `f64` argument would not take `T`'s `Dual`s.
#[differentiate(hvp)]
fn scaled<T: Float + Into<f64>>(x: T, c: f64) -> T {
    let y: f64 = x.into();
    T::from(y * c).unwrap()
}

// Generic over two float types: `_hvp`'s directions and `_hessian` have one.
#[differentiate(hvp)]
fn two<T: Float, U: Float>(x: T, y: U) -> T {
    x * T::from(y.to_f64().unwrap()).unwrap()
}

fn main() {}
