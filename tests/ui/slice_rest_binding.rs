use autodiff_runtime::differentiate;

#[differentiate]
fn f(w: [f64; 3]) -> f64 {
    let [a, rest @ ..] = w;
    a * rest[0]
}

fn main() {}
