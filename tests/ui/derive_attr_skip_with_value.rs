use autodiff_runtime::Differentiable;

#[derive(Differentiable)]
struct Body {
    #[differentiable(skip = true)]
    a: f64,
    #[differentiable(skip(all))]
    b: f64,
}

fn main() {}
