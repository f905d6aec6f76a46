use autodiff_runtime::{Differentiable, Scale, Tangent};

/// A hand-written tangent without `Debug` and `PartialEq`.
#[derive(Clone)]
struct Bare(f64);

impl Tangent for Bare {
    fn accumulate(&mut self, other: &Bare) {
        self.0 += other.0;
    }
    fn set_zero(&mut self) {
        self.0 = 0.0;
    }
}

impl Scale<f64> for Bare {
    fn scale(&mut self, s: f64) {
        self.0 *= s;
    }
    fn add_scaled(&mut self, other: &Bare, s: f64) {
        self.0 += s * other.0;
    }
}

struct Custom;

impl Differentiable for Custom {
    type Tangent = Bare;
    fn zero_tangent(&self) -> Bare {
        Bare(0.0)
    }
}

// A derived tangent is `Debug` and `PartialEq`: so must its fields' tangents be.
#[derive(Differentiable)]
struct Holder {
    custom: Custom,
    x: f64,
}

fn main() {}
