use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, v: &[f64]) -> f64 {
    let it = v.iter();
    let s: f64 = it.sum();
    s * x
}

fn main() {}
