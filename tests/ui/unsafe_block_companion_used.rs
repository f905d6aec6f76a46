use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    let y = unsafe { std::ptr::read(&x) };
    y * x
}

fn main() {
    let (_, dy) = f_jvp(1.0, 1.0);
    let (_, g) = f_grad(1.0);
    let _ = dy + g.x;
}
