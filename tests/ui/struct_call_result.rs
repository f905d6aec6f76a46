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

// A struct taken by `&mut` passed on whole: not yet.
#[differentiate]
fn update(s: &mut State, dt: f64) {
    s.x += dt * s.v;
}

#[differentiate]
fn twice(s: &mut State, dt: f64) {
    update(s, dt);
    update(&mut *s, dt);
}

fn main() {}
