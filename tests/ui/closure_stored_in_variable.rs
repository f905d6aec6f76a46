use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    let sq = |a: f64| a * a;
    let g = sq;
    g(x)
}

fn main() {}
