use autodiff_runtime::differentiate;

#[differentiate]
fn grow(x: f64, out: &mut Vec<f64>) {
    out.push(x * x);
}

fn main() {}
