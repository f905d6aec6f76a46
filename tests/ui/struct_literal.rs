use autodiff_runtime::differentiate;

struct Point {
    x: f64,
    y: f64,
}

#[differentiate]
fn f(x: f64) -> f64 {
    let p = Point { x, y: 2.0 * x };
    let _ = p;
    x
}

fn main() {}
