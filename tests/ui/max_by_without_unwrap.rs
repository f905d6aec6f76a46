use autodiff_runtime::differentiate;

#[differentiate]
fn f(v: &[f64]) -> f64 {
    v.iter().copied().max_by(|a, b| a.total_cmp(b)).unwrap_or(0.0)
}

fn main() {}
