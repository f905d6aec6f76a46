use autodiff_runtime::differentiate;

#[differentiate]
fn f(v: &[f64]) -> f64 {
    v.iter()
        .filter(|a| **a > 0.0)
        .enumerate()
        .map(|(i, a)| a * i as f64)
        .sum()
}

fn main() {}
