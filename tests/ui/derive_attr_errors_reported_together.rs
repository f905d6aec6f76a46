use autodiff_runtime::Differentiable;

// Every attribute mistake is reported in one build.
#[derive(Differentiable)]
#[differentiable(skip)]
struct Body {
    #[differentiable(frozen)]
    a: f64,
    #[differentiable]
    b: f64,
    #[differentiable(skip, skip)]
    c: f64,
}

fn main() {}
