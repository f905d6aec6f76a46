// A method of a generic `impl<T: Float>`: the macro cannot see the impl's `T`, reads it as a
// struct type, and says to name it with `float(T)`.
use autodiff_runtime::differentiate;
use num_traits::Float;

struct Body<T> {
    m: T,
}

impl<T: Float> Body<T> {
    #[differentiate(wrt(y))]
    fn energy(&self, y: T) -> T {
        y * y
    }
}

fn main() {}
