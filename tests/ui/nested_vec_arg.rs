use autodiff_runtime::differentiate;

#[differentiate]
fn f(rows: &[Vec<f64>]) -> f64 {
    rows[0][0] * rows[1][1]
}

fn main() {}
