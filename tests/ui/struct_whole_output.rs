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

// Branches giving structs held whole: not yet (assign one local in each branch instead).
#[differentiate]
fn branches(s: &State, dt: f64) -> State {
    let a = step(s, dt);
    if dt > 0.5 {
        a
    } else {
        step(&a, dt)
    }
}

// An early `return` of a struct held whole: not yet.
#[differentiate]
fn early(s: &State, dt: f64) -> State {
    let a = step(s, dt);
    if a.x > 1.0 {
        return a;
    }
    step(&a, dt)
}

// A struct held whole given back by a function that also has `split`: not yet.
#[differentiate(split)]
fn with_split(s: &State, dt: f64) -> State {
    let a = step(s, dt);
    a
}

impl State {
    #[differentiate]
    fn energy(&self) -> f64 {
        self.x * self.v
    }
}

// A method of the struct a call gives, unannotated: its type is needed.
#[differentiate]
fn method_of_call(s: &State, dt: f64) -> f64 {
    let a = step(s, dt);
    a.energy()
}

// Annotated: fine.
#[differentiate]
fn method_of_annotated(s: &State, dt: f64) -> f64 {
    let a: State = step(s, dt);
    a.energy()
}

fn main() {}
