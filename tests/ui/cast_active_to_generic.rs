use autodiff_runtime::differentiate;

#[differentiate]
fn f<T: num_traits::Float>(x: f64, y: T) -> T {
    (x as T) * y
}

fn main() {}
