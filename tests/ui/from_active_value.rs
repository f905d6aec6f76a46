use autodiff_runtime::differentiate;

#[differentiate]
fn f<T: num_traits::Float>(x: f64, y: T) -> T {
    T::from(x).unwrap() * y
}

fn main() {}
