// `vector` on functions `_jvpn` does not serve yet: an error at the option, saying what instead.
use autodiff_runtime::{differentiate, Differentiable};

#[derive(Differentiable, Clone)]
struct State {
    x: Vec<f64>,
    k: f64,
}

impl State {
    #[differentiate(vector)]
    fn energy(&self, s: f64) -> f64 {
        self.k * self.x[0] * s
    }
}

#[differentiate(vector)]
fn trace(m: [[f64; 2]; 2]) -> f64 {
    m[0][0] + m[1][1]
}

#[differentiate(vector, vector)]
fn twice(x: f64) -> f64 {
    x
}

fn main() {
    // On an error the companions are stubs, which keep call sites quiet.
    let _ = trace_jvp([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]);
}
