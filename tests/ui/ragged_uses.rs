use autodiff_runtime::differentiate;

#[differentiate]
fn norm2(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum()
}

#[differentiate]
fn total(m: &[Vec<f64>]) -> f64 {
    m[0][0]
}

#[differentiate]
fn f(m: &mut [Vec<f64>], x: f64) -> f64 {
    // Passed on whole, copied, bound to another name.
    let a = total(m);
    let c = m.first();
    let r = &*m;
    // A method with no meaning on the rows.
    m.swap(0, 1);
    // A range of rows, iterated and borrowed.
    let s: f64 = m[1..].iter().map(|q| q[0]).sum();
    let t = total(&m[1..]);
    // A whole row assigned, a row used as a value.
    m[0] = vec![x, x];
    let u = m[1].clone();
    // Named in a macro.
    assert!(m.len() > 1);
    a + s + t + x
}

fn main() {}
