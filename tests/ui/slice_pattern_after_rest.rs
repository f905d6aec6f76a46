use autodiff_runtime::differentiate;

#[differentiate]
fn f(v: [f64; 3]) -> f64 {
    let [first, .., last] = v;
    first * last
}

fn main() {}
