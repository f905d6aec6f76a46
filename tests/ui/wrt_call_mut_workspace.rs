use autodiff_runtime::differentiate;

// `buf` is left out of `wrt`: a workspace.
#[differentiate(wrt(v))]
fn fill(v: &[f64], buf: &mut [f64]) -> f64 {
    for i in 0..buf.len() {
        buf[i] = v[i] * v[i];
    }
    buf[0]
}

#[differentiate]
fn f(v: &[f64]) -> f64 {
    let mut w = vec![0.0; v.len()];
    let s = fill(v, &mut w);
    s + w[1]
}

fn main() {}
