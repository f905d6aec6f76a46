use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    if x < 0.0 {
        panic!("negative input");
    }
    x.sqrt()
}

fn main() {}
