use autodiff_runtime::differentiate;

#[differentiate(wrt())]
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn main() {}
