use autodiff_runtime::differentiate;

#[differentiate]
struct Point {
    x: f64,
}

fn main() {}
