use autodiff_runtime::differentiate;

#[differentiate]
async fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
