use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> usize {
    (x * x) as usize
}

fn main() {
    let _ = f_jvp(1.0, 1.0);
}
