use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    let [a, b] = [x, 2.0 * x];
    a * b
}

fn main() {}
