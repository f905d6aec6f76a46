use autodiff_runtime::differentiate;

#[differentiate]
fn pair(x: f64) -> [f64; 2] {
    [x, x * x]
}

#[differentiate]
fn f(x: f64) -> f64 {
    let a = pair(x);
    a[0] + a[1]
}

fn main() {}
