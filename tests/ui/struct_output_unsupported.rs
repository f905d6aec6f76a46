use autodiff_runtime::{differentiate, Differentiable};

#[derive(Differentiable, Clone)]
pub struct State {
    pub x: f64,
    pub v: f64,
}

#[derive(Differentiable, Clone)]
pub struct Cloud {
    pub w: Vec<f64>,
    pub k: f64,
    pub n: usize,
}

// Struct outputs the macro does not take yet, each reported at its own tokens.
#[differentiate]
fn returned_branch(s: &State, dt: f64) -> State {
    if dt > 1.0 {
        return if dt > 2.0 { s.clone() } else { State { x: dt, v: dt } };
    }
    State { x: s.x + dt * s.v, v: s.v }
}

#[differentiate]
fn two_bases(a: &State, b: &State, dt: f64) -> State {
    if dt > 0.0 {
        State { x: dt, ..*a }
    } else {
        State { v: dt, ..*b }
    }
}

#[derive(Differentiable, Clone)]
pub struct Arr {
    pub q: [f64; 2],
    pub n: usize,
}

#[differentiate]
fn array_from_base(s: &Arr, dt: f64) -> Arr {
    if dt > 0.0 {
        Arr { q: [dt, s.q[0]], ..*s }
    } else {
        s.clone()
    }
}

#[differentiate]
fn count_differs(s: &Arr, dt: f64) -> Arr {
    if dt > 0.0 {
        Arr { q: [dt, s.q[0]], n: s.n + 1 }
    } else {
        Arr { q: [s.q[1], dt], n: s.n }
    }
}

#[differentiate]
fn with_base(s: &mut State, dt: f64) -> State {
    s.v *= 0.5;
    State { x: s.x + dt, ..*s }
}

#[differentiate]
fn vec_field(c: &Cloud) -> Cloud {
    let w: Vec<f64> = c.w.iter().map(|a| a * c.k).collect();
    let mut n = 0;
    for _ in 0..c.n {
        n += 1;
    }
    Cloud { w, k: c.k, n }
}

#[derive(Differentiable, Clone)]
pub struct Tagged {
    pub x: f64,
    #[differentiable(skip)]
    pub tag: Option<f64>,
}

#[differentiate]
fn tagged(x: f64) -> Tagged {
    Tagged {
        x: 2.0 * x,
        tag: Some(x),
    }
}

#[differentiate(split)]
fn split_step(x: f64, v: f64, dt: f64) -> State {
    State { x: x + dt * v, v }
}

#[differentiate(hvp)]
fn hvp_step(x: f64, v: f64) -> State {
    State { x: x * v, v }
}

#[differentiate(vector)]
fn vector_step(x: f64, v: f64) -> State {
    State { x: x * v, v }
}

fn main() {}
