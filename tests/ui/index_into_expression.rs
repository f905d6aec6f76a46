use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, i: usize) -> f64 {
    [x, 2.0 * x][i]
}

fn main() {}
