use autodiff_runtime::differentiate;
use num_traits::Float;

#[differentiate]
fn f<T: Float>(x: f64, y: T) -> T {
    T::from(x).unwrap_or(y) * y
}

fn main() {}
