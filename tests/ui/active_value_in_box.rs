use autodiff_runtime::differentiate;

// Constructors and associated functions of other types carry no derivative.
#[differentiate]
fn boxed(a: f64) -> f64 {
    let b = Box::new(a * 2.0);
    *b
}

fn main() {}
