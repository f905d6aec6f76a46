use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    (|a: f64| a * a)(x)
}

fn main() {}
