use autodiff_runtime::differentiate;

#[differentiate]
fn f(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in v.windows(2) {
        // `w` is a window of `v`, not a variable of its own.
        assert!(w[0] < 1e9);
        s += w[0] * w[1];
    }
    s
}

fn main() {}
