use autodiff_runtime::differentiate;

#[derive(autodiff_runtime::Differentiable)]
struct Params {
    scale: f64,
}

#[differentiate]
fn f(x: f64, v: &[f64], p: &Params) -> f64 {
    let a = unsafe { std::ptr::read(&x) };
    let b = if let Some(b) = v.first() { *b } else { 1.0 };
    a * b * p.scale
}

fn main() {}
