use autodiff_runtime::differentiate;

#[differentiate(wrt(x))]
fn f(x: f64, g: &dyn Fn(f64) -> f64) -> f64 {
    g(x) * x
}

fn main() {}
