use autodiff_runtime::value::{scale, zero_tangent};
use autodiff_runtime::Differentiable;

#[derive(Differentiable)]
struct Body {
    v: [f32; 3],
    m: f32,
}

fn main() {
    let b = Body { v: [1.0; 3], m: 1.0 };
    let mut t = zero_tangent(&b);
    // An f32 tangent is not scaled by an f64.
    scale(&mut t, 2.0_f64);
}
