use autodiff_runtime::differentiate;

pub struct Plain {
    pub x: f64,
}

// A struct output must derive `Differentiable`: its tangent is the companions' tangent and seed.
#[differentiate]
fn f(x: f64) -> Plain {
    Plain { x: 2.0 * x }
}

fn main() {}
