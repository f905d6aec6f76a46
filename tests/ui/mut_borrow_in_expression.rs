use autodiff_runtime::differentiate;

#[differentiate]
fn fill(x: f64, out: &mut [f64]) -> f64 {
    out[0] = x;
    x
}

#[differentiate]
fn f(x: f64) -> f64 {
    let mut v = vec![0.0; 2];
    // The call writes into `v` in the middle of an expression: bind its result first.
    fill(x, &mut v) * 2.0 + v[0]
}

fn main() {}
