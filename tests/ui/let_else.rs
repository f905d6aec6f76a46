use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, v: &[f64]) -> f64 {
    let [a, b] = v else {
        return x;
    };
    a * b * x
}

fn main() {}
