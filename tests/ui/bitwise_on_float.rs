use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    x ^ 2.0
}

fn main() {}
