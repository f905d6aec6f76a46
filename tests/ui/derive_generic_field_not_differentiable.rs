use autodiff_runtime::value::zero_tangent;
use autodiff_runtime::Differentiable;

#[derive(Differentiable)]
struct Wrap<T> {
    inner: T,
    w: f64,
}

fn main() {
    // The derive is fine; using it with a type argument that has no tangent is not.
    let w = Wrap { inner: Some(1.0), w: 2.0 };
    let _ = zero_tangent(&w);
}
