use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, n: usize) -> f64 {
    match n {
        0 => x,
        k => x * k as f64,
    }
}

fn main() {}
