use autodiff_runtime::differentiate;

#[differentiate]
fn f(v: &[f64]) -> f64 {
    v.iter()
        .copied()
        .filter(|a| *a > 0.0)
        .max_by(|a, b| a.total_cmp(b))
        .unwrap()
}

fn main() {}
