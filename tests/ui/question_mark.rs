use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, v: &[f64]) -> f64 {
    let first = v.first().copied()?;
    first * x
}

fn main() {}
