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

// The struct a differentiated call gives, bound to a local and its fields read: not yet.
#[differentiate]
fn typed(s: &State, dt: f64) -> f64 {
    let s2: State = step(s, dt);
    s2.x * 2.0
}

#[differentiate]
fn untyped(s: &State, dt: f64) -> f64 {
    let s2 = step(s, dt);
    s2.x * s2.v
}

fn main() {}
