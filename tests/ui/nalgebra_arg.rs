use autodiff_runtime::differentiate;

#[differentiate]
fn f(m: nalgebra::DMatrix<f64>) -> f64 {
    m[(0, 0)]
}

fn main() {}
