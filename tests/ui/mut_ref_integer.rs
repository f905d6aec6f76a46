use autodiff_runtime::differentiate;

// An integer or bool argument taken by `&mut`, read or written through `*n`.
#[differentiate]
fn f(x: f64, n: &mut usize, done: &mut bool) -> f64 {
    *n += 1;
    *done = x > 1.0;
    x * (*n as f64)
}

fn main() {}
