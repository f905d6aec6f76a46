use autodiff_runtime::differentiate;

#[differentiate]
fn f(v: &mut [f64]) -> f64 {
    v[0] = v[0] * 2.0;
    v[0]
}

fn main() {}
