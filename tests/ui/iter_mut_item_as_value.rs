use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, out: &mut [f64]) {
    for y in out.iter_mut() {
        // `y` is a `&mut f64`: passing it on as a value is not supported.
        let z = y;
        *z = x;
    }
}

fn main() {}
