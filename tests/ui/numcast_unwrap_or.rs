use autodiff_runtime::differentiate;
use num_traits::{Float, NumCast};

#[differentiate]
fn f<T: Float>(x: f64, y: T) -> T {
    let c: T = NumCast::from(x).unwrap_or(y);
    c * y
}

fn main() {}
