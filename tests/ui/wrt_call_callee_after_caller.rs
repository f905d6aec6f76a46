use autodiff_runtime::differentiate;

// The callee comes after its caller: when `f` is expanded, the macro does not know `g`'s
// `wrt(...)` yet and passes a tangent for every float argument.
#[differentiate]
fn f(x: f64, y: f64) -> f64 {
    g(2.0, x * y)
}

#[differentiate(wrt(y))]
fn g(x: f64, y: f64) -> f64 {
    x * y.sin()
}

fn main() {}
