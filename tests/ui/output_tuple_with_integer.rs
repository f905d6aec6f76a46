use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> (f64, usize) {
    (x * x, 1)
}

fn main() {}
