use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, v: &[f64]) -> f64 {
    if let Some(a) = v.first() {
        a * x
    } else {
        x
    }
}

fn main() {}
