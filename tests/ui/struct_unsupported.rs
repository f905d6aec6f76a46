use autodiff_runtime::{differentiate, Differentiable};

#[derive(Differentiable)]
#[derive(Clone)]
struct Model {
    scale: f64,
    calls: usize,
}

impl Model {
    fn helper(&self, x: f64) -> f64 {
        x * self.scale
    }

    // A struct taken by `&mut` lent whole to a method inside an expression: reported. (Its
    // float field read and the counter only written are taken.)
    #[differentiate]
    fn eval(&mut self, x: f64) -> f64 {
        self.calls += 1;
        self.scale * self.helper(x)
    }
}

#[differentiate]
fn rebinds(m: &Model, x: f64) -> f64 {
    let y = m.scale * x;
    let m = 2.0;
    y * m
}

#[differentiate]
fn pair(a: &Model, b: &Model, x: f64) -> f64 {
    a.scale * b.scale * x
}

// A struct by value whose fields are written, passed on whole; one struct passed twice to one
// call (a clone bound to a local is taken).
#[differentiate]
fn writes_then_passes(mut m: Model, x: f64) -> f64 {
    m.scale *= 2.0;
    pair(&m, &m, x)
}

#[differentiate]
fn twice(m: &Model, x: f64) -> f64 {
    let c = m.clone();
    pair(m, m, x) + m.scale
}

fn main() {}
