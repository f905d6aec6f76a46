use autodiff_runtime::differentiate;

// An active value wrapped in an `Option` would lose its derivative: rejected.
#[differentiate]
fn opt(a: f64) -> f64 {
    let x: Option<f64> = Some(a * 2.0);
    x.unwrap()
}

fn main() {}
