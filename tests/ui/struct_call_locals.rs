use autodiff_runtime::{differentiate, Differentiable};

#[derive(Differentiable, Clone)]
pub struct State {
    pub x: f64,
    pub v: f64,
}

#[differentiate]
fn step(s: &State, dt: f64) -> State {
    State { x: s.x + dt * s.v, v: s.v }
}

// A callee defined later: its result's type is not known without an annotation.
#[differentiate]
fn untyped_later(s: &State, dt: f64) -> f64 {
    let s2 = later(s, dt);
    s2.x * s2.v
}

#[differentiate]
fn later(s: &State, dt: f64) -> State {
    State { x: s.x * dt, v: s.v }
}

// Taking the struct a call gives apart with a pattern: not yet.
#[differentiate]
fn destructured(s: &State, dt: f64) -> f64 {
    let State { x, v } = step(s, dt);
    x * v
}

// Assigning anything but a call's struct or a copy to a struct held whole: not yet.
#[differentiate]
fn assigned(s: &State, dt: f64) -> f64 {
    let mut a = step(s, dt);
    let y = a.x;
    a = State { x: dt, v: dt };
    a.x + y
}

#[derive(Differentiable, Clone)]
pub struct Arr {
    pub q: [f64; 2],
    pub m: f64,
}

#[differentiate]
fn arr_step(a: &Arr, dt: f64) -> Arr {
    Arr { q: [a.q[0] * dt, a.q[1]], m: a.m }
}

// Writing a field, indexing an array field: not yet.
#[differentiate]
fn field_written(s: &State, dt: f64) -> f64 {
    let mut a = step(s, dt);
    a.x = 1.0;
    a.x
}

#[differentiate]
fn field_indexed(s: &Arr, dt: f64) -> f64 {
    let a = arr_step(s, dt);
    a.q[0] + a.m
}

// Second order and vector forward mode: not yet.
#[differentiate(hvp)]
fn with_hvp(s: &State, dt: f64) -> f64 {
    let a = step(s, dt);
    a.x * a.v
}

#[differentiate]
fn seeded(x: f64, v: f64) -> State {
    State { x, v }
}

#[differentiate(vector)]
fn with_vector(x: f64, v: f64) -> f64 {
    let a = seeded(x, v);
    a.x * a.v
}

fn main() {}
