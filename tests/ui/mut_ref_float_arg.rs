use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: &mut f64, a: f64) -> f64 {
    *x = *x * a;
    *x
}

fn main() {}
