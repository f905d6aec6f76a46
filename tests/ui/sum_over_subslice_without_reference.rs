use autodiff_runtime::differentiate;

#[differentiate]
fn f(v: &[f64]) -> f64 {
    v[1..].iter().sum()
}

fn main() {}
