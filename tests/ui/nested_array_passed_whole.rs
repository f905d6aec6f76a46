use autodiff_runtime::differentiate;

#[differentiate]
fn total(m: &[[f64; 3]; 2]) -> f64 {
    m[0][0] + m[1][2]
}

#[differentiate]
fn f(m: [[f64; 3]; 2], x: f64) -> f64 {
    // An array of arrays of a fixed number of rows, passed whole (slices of rows can be).
    total(&m) * x
}

fn main() {}
