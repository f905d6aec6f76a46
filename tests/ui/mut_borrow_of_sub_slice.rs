use autodiff_runtime::differentiate;

#[differentiate]
fn fill(x: f64, out: &mut [f64]) {
    out[0] = x;
}

#[differentiate]
fn f(x: f64) -> f64 {
    let mut v = vec![0.0; 4];
    // An end under an end: `1 + 2 <= 3` would need a check of its own.
    fill(x, &mut v[1..3][..2]);
    v[1] * x
}

fn main() {}
