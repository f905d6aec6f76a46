use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    let relu = |a: f64| {
        if a < 0.0 {
            return 0.0;
        }
        a
    };
    relu(x)
}

fn main() {}
