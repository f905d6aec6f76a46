use autodiff_runtime::differentiate;

#[differentiate(wrt(x))]
fn f(x: f64, o: Option<usize>) -> f64 {
    let Some(k) = o else {
        return x;
    };
    x * k as f64
}

fn main() {}
