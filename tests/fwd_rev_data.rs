use autodiff_runtime::differentiate;

#[differentiate]
fn mixed_a(x: f64) -> f64 {
    let (m, k) = (x, 3usize);
    m * (k as f64)
}

#[differentiate]
fn mixed_b(x: f64) -> f64 {
    let t = (x, 3usize);
    t.0 * (t.1 as f64)
}

#[differentiate]
fn mixed_c(x: f64) -> f64 {
    let t = (x, 3usize);
    let (m, k) = t;
    m * (k as f64)
}
