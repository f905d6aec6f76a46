use autodiff_runtime::differentiate;

fn apply(g: impl Fn(f64) -> f64, a: f64) -> f64 {
    g(a)
}

#[differentiate]
fn f(x: f64) -> f64 {
    let sq = |a: f64| a * a;
    apply(sq, x)
}

fn main() {}
