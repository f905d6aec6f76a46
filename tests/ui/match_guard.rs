use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, n: usize) -> f64 {
    match n {
        0 if x > 1.0 => x,
        _ => 2.0 * x,
    }
}

fn main() {}
