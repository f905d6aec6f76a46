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
fn matrix_out(m: &DMatrix<f64>) -> DMatrix<f64> {
    m * 2.0
}

// Generic elements.
#[differentiate]
fn generic<T: num_traits::Float>(v: &DVector<T>) -> T {
    v[0]
}

// A method without a rule.
#[differentiate]
fn no_rule(m: &Matrix3<f64>) -> f64 {
    m.determinant()
}

// Second order.
#[differentiate(hvp)]
fn second(v: &DVector<f64>) -> f64 {
    v.dot(v)
}

fn main() {}
