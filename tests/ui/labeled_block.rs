use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) -> f64 {
    let y = 'pos: {
        if x > 0.0 {
            break 'pos x;
        }
        -x
    };
    y * x
}

fn main() {}
