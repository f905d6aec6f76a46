use autodiff_runtime::differentiate;

#[differentiate]
fn f(v: &[f64]) -> f64 {
    v.iter()
        .copied()
        .max_by(|a, b| a.abs().total_cmp(&b.abs()))
        .unwrap()
}

fn main() {}
