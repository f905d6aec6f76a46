use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    let y = dbg!(x * x);
    y + x
}

fn main() {}
