use autodiff_runtime::differentiate;

static mut SCALE: f64 = 2.0;

#[differentiate]
fn f(x: f64) -> f64 {
    x * unsafe { SCALE }
}

fn main() {}
