use autodiff_runtime::differentiate;

#[differentiate(wrt(x, q))]
fn named(x: f64, q: &mut [f64]) -> f64 {
    q[0] = x * 2.0;
    q[0] * x
}

fn main() {}
