use autodiff_runtime::differentiate;

struct Model {
    scale: f64,
}

impl Model {
    #[differentiate]
    fn eval(&self, x: f64) -> f64 {
        x * x
    }
}

fn main() {}
