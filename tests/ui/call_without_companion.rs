use autodiff_runtime::differentiate;

fn g(a: f64) -> f64 {
    a * 2.0
}

#[differentiate]
fn f(x: f64) -> f64 {
    g(x) + x
}

fn main() {}
