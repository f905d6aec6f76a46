use autodiff_runtime::differentiate;

#[differentiate]
fn inner(x: f64) -> f64 {
    x.sin()
}

// `inner` has no generic copy: it needs `#[differentiate(hvp)]` too.
#[differentiate(hvp)]
fn outer(x: f64) -> f64 {
    inner(x) * x
}

fn main() {}
