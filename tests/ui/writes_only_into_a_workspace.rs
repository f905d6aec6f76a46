use autodiff_runtime::differentiate;

// `dy` is left out of `wrt(...)`: a workspace, so the function has no output to differentiate.
#[differentiate(wrt(y))]
fn rhs(y: &[f64], dy: &mut [f64]) {
    dy[0] = y[1];
    dy[1] = -y[0];
}

fn main() {}
