use autodiff_runtime::differentiate;

#[differentiate]
fn f(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for a in v.iter().peekable() {
        s += a;
    }
    s
}

fn main() {}
