use autodiff_runtime::differentiate;

#[differentiate(wrt(x))]
fn f(x: f64, p: *const f64) -> f64 {
    x * unsafe { *p }
}

fn main() {}
