use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f32) -> f64 {
    f64::from(x) * 2.0
}

fn main() {}
