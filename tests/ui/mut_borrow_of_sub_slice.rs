use autodiff_runtime::differentiate;

#[differentiate]
fn fill(x: f64, out: &mut [f64]) {
    out[0] = x;
}

#[differentiate]
fn f(x: f64) -> f64 {
    let mut v = vec![0.0; 4];
    // A `&mut` sub-slice of a sub-slice passed on: not supported yet.
    fill(x, &mut v[1..][..2]);
    v[1] * x
}

fn main() {}
