use autodiff_runtime::Differentiable;
use std::rc::Rc;

#[derive(Differentiable)]
struct Body {
    mass: f64,
    shared: Rc<[f64; 3]>,
}

fn main() {}
