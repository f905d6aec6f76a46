use autodiff_runtime::differentiate;

#[differentiate]
fn f(n: usize, k: i32) -> f64 {
    (n as f64) * (k as f64)
}

fn main() {}
