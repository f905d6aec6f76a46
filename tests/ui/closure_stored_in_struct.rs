use autodiff_runtime::differentiate;

struct Holder<F: Fn(f64) -> f64> {
    f: F,
}

#[differentiate]
fn f(x: f64) -> f64 {
    let sq = |a: f64| a * a;
    let h = Holder { f: sq };
    (h.f)(x)
}

fn main() {}
