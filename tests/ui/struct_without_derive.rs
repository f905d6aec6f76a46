use autodiff_runtime::differentiate;

// A struct argument whose float fields are read must have a tangent type: the error names the
// derive to add, at the argument's type.
struct Params {
    scale: f64,
}

#[differentiate]
fn f(x: f64, p: &Params) -> f64 {
    x * p.scale
}

fn main() {}
