use autodiff_runtime::Differentiable;

#[derive(Differentiable)]
struct Body {
    #[differentiable(skip, skip)]
    a: f64,
    #[differentiable(skip)]
    #[differentiable(skip)]
    b: f64,
}

fn main() {}
