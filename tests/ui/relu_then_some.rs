use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    (x > 0.0).then_some(x).unwrap_or(0.0)
}

fn main() {}
