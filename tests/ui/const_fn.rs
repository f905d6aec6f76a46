use autodiff_runtime::differentiate;

#[differentiate]
const fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
