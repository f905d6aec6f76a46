use autodiff_runtime::differentiate;
use nalgebra::{DMatrix, DVector, Matrix3};

// A nalgebra value passed to another differentiated function.
#[differentiate]
fn inner(v: &DVector<f64>) -> f64 {
    v.sum()
}

#[differentiate]
fn passes(v: &DVector<f64>) -> f64 {
    inner(v) * 2.0
}

// A `DMatrix` output: its dimensions are not known outside the body.
#[differentiate]
fn matrix_out(m: &DMatrix<f64>, v: &[f64]) -> DMatrix<f64> {
    // Dimensions computed in the body.
    let mut n = 1;
    while n * n < v.len() {
        n += 1;
    }
    DMatrix::from_fn(n, n, |i, j| v[(i + j) % v.len()] * m[(0, 0)])
}

#[differentiate]
fn matrix_out_two_shapes(a: &DMatrix<f64>, b: &DMatrix<f64>, s: f64) -> DMatrix<f64> {
    if s > 0.0 {
        return a * s;
    }
    b * s
}

#[differentiate]
fn matrix_out_not_a_value(a: &DMatrix<f64>, s: f64) -> DMatrix<f64> {
    if s > 0.0 { a * s } else { a * 2.0 }
}

// A method without a rule.
#[differentiate]
fn no_rule(m: &Matrix3<f64>) -> f64 {
    m.try_inverse().unwrap()[(0, 0)]
}

// Second order.
#[differentiate(hvp)]
fn second(v: &DVector<f64>) -> f64 {
    v.dot(v)
}

fn main() {}
