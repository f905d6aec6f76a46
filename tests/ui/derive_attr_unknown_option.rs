use autodiff_runtime::Differentiable;

#[derive(Differentiable)]
struct Body {
    mass: f64,
    #[differentiable(constant)]
    id: u32,
}

fn main() {
    // The struct is still derived: no error here.
    let _ = autodiff_runtime::value::zero_tangent(&Body { mass: 1.0, id: 0 });
}
