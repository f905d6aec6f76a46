use autodiff_runtime::differentiate;

#[differentiate]
fn total(p: &[[f64; 3]]) -> f64 {
    let mut s = 0.0;
    for q in p.iter() {
        s += q[0];
    }
    s
}

#[differentiate]
fn f(p: &[[f64; 3]], x: f64) -> f64 {
    // Passing a nested array whole to another function.
    total(p) * x
}

fn main() {}
