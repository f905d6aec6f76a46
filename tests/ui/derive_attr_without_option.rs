use autodiff_runtime::Differentiable;

#[derive(Differentiable)]
struct Body {
    #[differentiable]
    a: f64,
    #[differentiable = "skip"]
    b: f64,
    #[differentiable()]
    c: f64,
}

fn main() {}
