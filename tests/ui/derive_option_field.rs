use autodiff_runtime::Differentiable;

// A tuple struct whose second field has no tangent type.
#[derive(Differentiable)]
struct Limit(f64, Option<f64>);

fn main() {}
