use autodiff_runtime::differentiate;

const DAMPING: f64 = 0.5;

#[differentiate]
fn helper(x: f64, s: &[f64]) -> f64 {
    x * s[0]
}

// A constant declared outside the function: the macro cannot tell whether it is a float.
#[differentiate]
fn caller(a: f64, w: &[f64]) -> f64 {
    helper(DAMPING, w) * a
}

fn main() {}
