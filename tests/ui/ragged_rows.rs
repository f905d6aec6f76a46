use autodiff_runtime::differentiate;

#[differentiate]
fn f(m: &mut [Vec<f64>], v: &[f64], x: f64) -> f64 {
    // A row grown, a method of a row that gives a reference.
    m[0].push(x);
    let a = m[0].first();
    // A sub-slice of a row.
    let s: f64 = m[2][1..].iter().sum();
    s * x
}

// Rows of rows deeper than two, slices of slices.

#[differentiate]
fn g(m: &[Vec<Vec<f64>>], x: f64) -> f64 {
    m[0][0][0] * x
}

#[differentiate]
fn h(m: &[&[f64]], x: f64) -> f64 {
    m[0][0] * x
}

fn main() {}
