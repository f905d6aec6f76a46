use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    fn helper(a: f64) -> f64 {
        a * a
    }
    helper(x)
}

fn main() {}
