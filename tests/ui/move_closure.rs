use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    let scaled = move |a: f64| a * x;
    scaled(x)
}

fn main() {}
