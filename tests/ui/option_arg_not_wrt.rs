use autodiff_runtime::differentiate;

#[differentiate(wrt(x))]
fn f(x: f64, bias: Option<f64>) -> f64 {
    x * bias.unwrap_or(1.0)
}

fn main() {}
