use autodiff_runtime::{differentiate, Differentiable};

#[derive(Differentiable, Clone)]
pub struct State {
    pub x: f64,
    pub q: [f64; 2],
    pub w: Vec<f64>,
    pub n: usize,
}

#[differentiate]
fn energy(s: &State) -> f64 {
    s.x * s.q[0]
}

// An array field of a copy written whole: not yet (its elements may be written).
#[differentiate]
fn array_written(s: &State, dt: f64) -> f64 {
    let mut t = s.clone();
    t.q = [t.q[1] * dt, t.q[0]];
    t.q[0] * t.x
}

// A field whose elements are written, also assigned whole: not yet.
#[differentiate]
fn elements_and_whole(s: &State, dt: f64) -> f64 {
    let mut t = s.clone();
    t.q[0] *= dt;
    t.q = [t.q[1], t.q[0]];
    t.q[0] * t.x
}

// Elements of a field of a copy made inside a loop written: not yet.
#[differentiate]
fn copied_in_a_loop(s: &State, dt: f64) -> f64 {
    let mut e = 0.0;
    for _ in 0..3 {
        let mut t = s.clone();
        t.w[0] += dt * e;
        e += t.w[0];
    }
    e
}

// A `Vec` field of a copy grown: not yet.
#[differentiate]
fn pushed(s: &State, dt: f64) -> f64 {
    let mut t = s.clone();
    t.w[0] += dt;
    t.w.push(dt);
    t.w[1]
}

// A copy whose fields are written, then passed on whole: not yet.
#[differentiate]
fn written_then_passed(s: &State, dt: f64) -> f64 {
    let mut t = s.clone();
    t.x = t.x * dt;
    energy(&t)
}

// An integer field of a copy given back written: not yet.
#[differentiate]
fn counted(s: &State, dt: f64) -> State {
    let mut t = s.clone();
    t.x = t.x * dt;
    t.n += 1;
    t
}

// An array field of a struct argument bound whole to a `let mut` local: not yet.
#[differentiate]
fn field_bound_mut(s: &State, dt: f64) -> f64 {
    let mut q = s.q;
    q[0] = q[0] * dt;
    q[0] + s.x
}

fn main() {}
