use autodiff_runtime::{differentiate, Differentiable};

// A field indexed twice of a struct derived only after the function: its rows' length is not
// known yet. Reported at the indexing.
#[differentiate]
fn early(s: &Late) -> f64 {
    s.r[0][1] * s.r[1][0]
}

#[derive(Differentiable, Clone)]
pub struct Late {
    pub r: [[f64; 3]; 3],
}

#[derive(Differentiable, Clone)]
pub struct Body {
    pub m: f64,
}

#[derive(Differentiable, Clone)]
pub struct World {
    pub bodies: Vec<Body>,
    pub r: [[f64; 3]; 3],
}

// A field of an element of a `Vec` of structs: reported at the read (the nested field next to
// it is taken).
#[differentiate]
fn masses(w: &World) -> f64 {
    w.bodies[0].m * w.r[0][0]
}

fn main() {}
