use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, n: usize) -> f64 {
    let mut s = x;
    while s < if n > 2 { 10.0 } else { 100.0 } {
        s = s * 2.0;
    }
    s
}

fn main() {}
