use autodiff_runtime::{differentiate, Differentiable};

#[derive(Differentiable, Clone)]
pub struct State {
    pub x: f64,
    pub v: f64,
    pub w: Vec<f64>,
    pub count: u32,
}

impl State {
    #[differentiate]
    fn kick(&mut self, dt: f64) {
        self.v -= dt * self.x;
    }

    #[differentiate]
    fn absorb(&mut self, a: Vec<f64>) {
        self.v += a[0] * self.x;
    }

    // Float fields of a struct lent whole are taken (`self.x`, and `self.dt`-like scalar
    // arguments); a sequence made from one of its fields passed along with it: not yet.
    #[differentiate]
    fn kick_drift(&mut self, dt: f64) {
        self.kick(dt * self.x);
        self.x += dt * self.v;
        self.absorb(self.w.to_vec());
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
