use autodiff_runtime::Differentiable;

#[derive(Differentiable)]
#[differentiable(skip)]
struct Body {
    mass: f64,
}

fn main() {}
