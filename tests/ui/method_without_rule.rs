use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    x.rem_euclid(1.0) * x
}

fn main() {}
