use autodiff_runtime::differentiate;

#[differentiate(wrt(x))]
fn with_workspace(x: f64, ws: &mut [f64]) -> f64 {
    ws[0] = x * 2.0;
    ws[1] = 3.0;
    ws[0] * x
}

fn main() {}
