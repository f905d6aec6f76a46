use autodiff_runtime::{differentiate, Differentiable};

#[derive(Differentiable)]
struct Config {
    scale: f64,
    count: usize,
}

fn weight(n: usize) -> f64 {
    1.0 / n as f64
}

// `c.count` is only passed to a plain function, so nothing in the body says it is an integer:
// the macro reads it as a float and rustc says so at the field, with what to write instead.
#[differentiate]
fn f(x: f64, c: &Config) -> f64 {
    x * c.scale * weight(c.count)
}

fn main() {}
