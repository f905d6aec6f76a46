use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    let t = (x, 2.0 * x, 3.0 * x);
    let (a, ..) = t;
    a * x
}

fn main() {}
