use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> impl Fn(f64) -> f64 {
    move |y| x * y
}

fn main() {}
