use autodiff_runtime::differentiate;

#[differentiate]
fn f(v: &[f64], w: &[f64]) -> f64 {
    v.iter()
        .filter(|a| **a > 0.0)
        .zip(w.iter())
        .map(|(a, b)| a * b)
        .sum()
}

fn main() {}
