use autodiff_runtime::differentiate;

#[differentiate]
fn quad(x: f64) -> [f64; 4] {
    [x, x * x, x.sin(), x.exp()]
}

#[differentiate]
fn f(x: f64) -> f64 {
    let [first, .., last] = quad(x);
    first * last
}

fn main() {}
