use autodiff_runtime::differentiate;

#[differentiate]
fn split(x: &[f64; 2]) -> ([f64; 2], f64) {
    ([x[1], x[0]], x[0] * x[1])
}

#[differentiate]
fn norm2(a: &[f64; 2]) -> f64 {
    a[0] * a[0] + a[1] * a[1]
}

#[differentiate]
fn f(x: &[f64; 2]) -> f64 {
    // The macro cannot see `split`'s output type: `a` is taken to be a float.
    let (a, p) = split(x);
    norm2(&a) + p
}

fn main() {}
