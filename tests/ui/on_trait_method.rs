use autodiff_runtime::differentiate;

trait Model {
    #[differentiate]
    fn eval(x: f64) -> f64;
}

fn main() {}
