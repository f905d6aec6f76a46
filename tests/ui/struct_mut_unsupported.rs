use autodiff_runtime::{differentiate, Differentiable};

#[derive(Differentiable, Clone)]
pub struct State {
    pub x: f64,
    pub v: f64,
    pub count: u32,
}

impl State {
    #[differentiate]
    fn kick(&mut self, dt: f64) {
        self.v -= dt * self.x;
    }

    // A float field of a struct lent whole: not yet.
    #[differentiate]
    fn kick_drift(&mut self, dt: f64) {
        self.kick(dt);
        self.x += dt * self.v;
    }

    // An early `return` where an integer field is written and read.
    #[differentiate]
    fn counted(&mut self, y: f64) -> f64 {
        self.count += 1;
        if y > 0.0 {
            return y.powi(self.count as i32);
        }
        y * self.x
    }
}

#[differentiate]
fn energy(s: &State) -> f64 {
    s.x * s.x + s.v * s.v
}

// A clone of a lent struct passed on; a copy into a local.
#[differentiate]
fn clones(s: &mut State, dt: f64) -> f64 {
    s.kick(dt);
    let e = energy(&s.clone());
    let t = s.clone();
    e
}

fn main() {}
