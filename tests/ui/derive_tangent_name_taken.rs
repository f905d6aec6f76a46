use autodiff_runtime::Differentiable;

// The derive defines `BodyTangent` next to `Body`: the name must be free.
#[derive(Differentiable)]
struct Body {
    mass: f64,
}

struct BodyTangent;

fn main() {}
