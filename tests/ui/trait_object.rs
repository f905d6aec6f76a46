use autodiff_runtime::differentiate;

trait Model {
    fn eval(&self, x: f64) -> f64;
}

#[differentiate]
fn f(x: f64, m: &dyn Model) -> f64 {
    m.eval(x) * x
}

fn main() {}
