use autodiff_runtime::differentiate;

#[differentiate]
fn f(p: &mut [[f64; 2]], x: f64) -> f64 {
    // Rows swapped: the flat form would swap elements.
    p.swap(0, 1);
    // A range of rows.
    let s: f64 = p[1..].iter().map(|q| q[0]).sum();
    s * x
}

#[differentiate]
fn g(x: f64) -> f64 {
    // A nested literal that is not bound to a name.
    let t = [[x, 1.0], [2.0, x]].len() as f64;
    t * x
}

#[differentiate]
fn h(m: [[[f64; 2]; 2]; 2]) -> f64 {
    m[0][0][0]
}

fn main() {}
