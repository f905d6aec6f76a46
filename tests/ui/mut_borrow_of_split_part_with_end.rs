use autodiff_runtime::differentiate;

#[differentiate]
fn fill(x: f64, out: &mut [f64]) {
    out[0] = x;
}

#[differentiate]
fn f(x: f64) -> f64 {
    let mut v = vec![0.0; 4];
    let (a, _b) = v.split_at_mut(2);
    // `a[..1]` must stay inside `a`: a check the macro does not write.
    fill(x, &mut a[..1]);
    v[0] * x
}

fn main() {}
