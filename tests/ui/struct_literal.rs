use autodiff_runtime::{differentiate, Differentiable};

#[derive(Differentiable, Clone, Copy)]
struct Point {
    x: f64,
    y: f64,
}

fn norm(p: Point) -> f64 {
    p.x.hypot(p.y)
}

// Struct literals and struct locals where they are not taken apart field by field: each
// reported at its own tokens.
#[differentiate]
fn f(x: f64, q: &mut Point) -> f64 {
    let p = Point { x, y: 2.0 * x };
    let _whole = p;
    let _r = Point { x: 1.0, ..*q };
    let n = norm(Point { x, y: x });
    let Point { x: a, y: _ } = q;
    p.y + n + *a
}

#[differentiate]
fn g(x: f64) -> f64 {
    let mut base = Point { x, y: 1.0 };
    base.x = 4.0 * x;
    let _c = Point { y: 3.0, ..base };
    let p = Point { x: 2.0, y: x };
    let mut r = Point { y: 2.0, ..p };
    r.x = x;
    base.x * r.y
}

fn main() {}
