use autodiff_runtime::differentiate;

#[differentiate]
fn f<T: Copy + std::ops::Mul<Output = T>>(x: T) -> T {
    x * x
}

fn main() {}
