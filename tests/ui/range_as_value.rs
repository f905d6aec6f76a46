use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, n: usize) -> f64 {
    let r = 0..n;
    let mut s = x;
    for _ in r {
        s = s * x;
    }
    s
}

fn main() {}
