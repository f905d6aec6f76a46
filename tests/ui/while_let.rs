use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, v: &[f64]) -> f64 {
    let mut s = x;
    let mut it = v.iter();
    while let Some(a) = it.next() {
        s = s * a;
    }
    s
}

fn main() {}
