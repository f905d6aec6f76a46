use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    let mut s = x;
    for i in 0.. {
        if i == 3 {
            break;
        }
        s = s * x;
    }
    s
}

fn main() {}
