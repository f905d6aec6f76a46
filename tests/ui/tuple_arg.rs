use autodiff_runtime::differentiate;

#[differentiate]
fn f(p: (f64, f64)) -> f64 {
    p.0 * p.1
}

fn main() {}
