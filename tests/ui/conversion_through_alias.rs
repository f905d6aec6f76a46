use autodiff_runtime::differentiate;

type Real = f64;

#[differentiate]
fn f(x: f64) -> f64 {
    Real::from(x) * x
}

fn main() {}
