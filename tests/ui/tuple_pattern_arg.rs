use autodiff_runtime::differentiate;

#[differentiate]
fn f((x, y): (f64, f64)) -> f64 {
    x * y
}

fn main() {}
