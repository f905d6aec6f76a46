use autodiff_runtime::differentiate;

#[differentiate]
fn f(v: &[f64]) -> f64 {
    let sq = |a: f64| a * a;
    v.iter().copied().map(sq).sum()
}

fn main() {}
