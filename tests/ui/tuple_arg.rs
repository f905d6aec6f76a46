use autodiff_runtime::differentiate;

// A tuple mixing a float with an integer: only tuples of floats and float arrays are active.
#[differentiate]
fn f(p: (f64, usize)) -> f64 {
    p.0 * p.1 as f64
}

fn main() {}
