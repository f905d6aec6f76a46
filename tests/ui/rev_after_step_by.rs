use autodiff_runtime::differentiate;

#[differentiate]
fn f(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..v.len()).step_by(2).rev() {
        s = s * 0.5 + v[i];
    }
    s
}

fn main() {}
