use autodiff_runtime::differentiate;

#[differentiate]
fn f(u0: &[f64]) -> f64 {
    let mut u = u0.to_vec();
    let mut next = vec![0.0; u.len()];
    for i in 0..u.len() {
        next[i] = u[i] * u[i];
    }
    // Buffers swapped whole.
    std::mem::swap(&mut u, &mut next);
    u[0]
}

fn main() {}
