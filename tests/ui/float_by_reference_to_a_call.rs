use autodiff_runtime::differentiate;

#[differentiate]
fn sq(x: &f64) -> f64 {
    *x * *x
}

#[differentiate]
fn caller(x: &f64, y: f64) -> f64 {
    sq(x) + sq(&y)
}

fn main() {}
