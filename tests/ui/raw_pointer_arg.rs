use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, p: *const f64) -> f64 {
    let _ = p;
    x * x
}

fn main() {}
