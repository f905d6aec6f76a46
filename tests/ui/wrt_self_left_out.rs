use autodiff_runtime::{differentiate, Differentiable};

#[derive(Differentiable, Clone)]
pub struct P {
    pub x: f64,
    pub v: f64,
}

impl P {
    #[differentiate]
    pub fn step(&mut self, dt: f64) {
        self.v -= dt * self.x.sin();
        self.x += dt * self.v;
    }

    // `self` left out of `wrt(...)`: `self.step(dt)` is plain code, so an active `dt` cannot go
    // into it (the state's dependence on `dt` would be lost).
    #[differentiate(wrt(dt))]
    pub fn x_after(&mut self, dt: f64) -> f64 {
        self.step(dt);
        dt * dt
    }
}

fn main() {}
