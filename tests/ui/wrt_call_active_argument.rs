use autodiff_runtime::differentiate;

#[differentiate(wrt(y))]
fn g(x: f64, y: f64) -> f64 {
    x * y.sin()
}

// `x` is active here, and `g` is differentiated only with respect to `y`.
#[differentiate]
fn f(x: f64, y: f64) -> f64 {
    g(x * 2.0, y) + g(1.0, x)
}

fn main() {}
