use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, n: usize) -> f64 {
    let mut s = x;
    let mut k = n;
    while let Some(j) = k.checked_sub(1) {
        s = s * x;
        k = j;
    }
    s
}

fn main() {}
