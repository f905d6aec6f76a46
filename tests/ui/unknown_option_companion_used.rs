use autodiff_runtime::differentiate;

#[differentiate(with_respect_to(x))]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {
    let (_, g) = f_grad(1.0);
    let _ = g.x;
}
