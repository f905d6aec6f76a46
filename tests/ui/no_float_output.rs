use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> usize {
    (x * x) as usize
}

fn main() {}
