use autodiff_runtime::differentiate;

// Ranges of the chunks of `as_chunks`, their other methods, and `first_chunk` without its
// length are reported.
#[differentiate]
fn f(v: &[f64]) -> f64 {
    let (c, _r) = v.as_chunks::<2>();
    let d = &c[1..];
    let e = c.last().unwrap();
    let h: &[f64; 2] = v.first_chunk().unwrap();
    d[0][0] + h[0] + e[1]
}

fn main() {}
