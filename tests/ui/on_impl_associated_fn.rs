use autodiff_runtime::differentiate;

struct Model;

impl Model {
    #[differentiate]
    fn eval(x: f64) -> f64 {
        x * x
    }
}

fn main() {}
