use autodiff_runtime::differentiate;

// An in-out argument: its pullback would have to restore the caller's buffer.
#[differentiate(split)]
fn step(u: &mut [f64], k: f64) {
    for i in 0..u.len() {
        u[i] = u[i] * k;
    }
}

#[differentiate(split, split)]
fn twice(x: f64) -> f64 {
    x
}

fn main() {}
