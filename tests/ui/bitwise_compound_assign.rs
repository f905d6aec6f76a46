use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, n: u32) -> f64 {
    let mut k = n;
    k <<= 1;
    x * k as f64
}

fn main() {}
