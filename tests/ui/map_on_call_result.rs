use autodiff_runtime::differentiate;

#[differentiate]
fn pair(x: f64) -> [f64; 2] {
    [x, x * x]
}

#[differentiate]
fn f(x: f64) -> f64 {
    let [a, b] = pair(x).map(|v| v.sin());
    a * b
}

fn main() {}
