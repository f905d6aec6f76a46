use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    let mut t = (x, 1.0);
    t.1 = 2.0 * x;
    t.0 * t.1
}

fn main() {}
