//! Test harness: takes a differentiated function through closures over flattened inputs and
//! outputs, gives assertions that its `_jvp` matches central finite differences, its `_vjp`
//! passes the dot-product test against `_jvp`, both return the primal value, and `_vjp`
//! accumulates into its adjoint buffers.
#![allow(dead_code)]

#[macro_use]
pub mod checks;
#[allow(unused_imports)]
pub use checks::*;

use autodiff_runtime::check;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Primal<'a> = Box<dyn Fn(&[f64]) -> Vec<f64> + 'a>;
type Jvp<'a> = Box<dyn Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>) + 'a>;
type Vjp<'a> = Box<dyn Fn(&[f64], &[f64], &mut [f64]) -> Vec<f64> + 'a>;

/// Checks one function in both modes. Inputs and outputs are flattened to `f64` vectors.
pub struct Harness<'a> {
    n_in: usize,
    primal: Option<Primal<'a>>,
    jvp: Option<Jvp<'a>>,
    vjp: Option<Vjp<'a>>,
    fd_rtol: f64,
    fd_atol: f64,
    step: f64,
    /// Tolerance of the dot-product test: rounding only (both sides are exact derivatives).
    dot_rtol: f64,
    seed: u64,
}

impl<'a> Harness<'a> {
    pub fn new(n_in: usize) -> Self {
        Harness {
            n_in,
            primal: None,
            jvp: None,
            vjp: None,
            fd_rtol: 1e-6,
            fd_atol: 1e-8,
            step: 1e-6,
            dot_rtol: 1e-10,
            seed: 7,
        }
    }

    /// The original function.
    pub fn primal(mut self, f: impl Fn(&[f64]) -> Vec<f64> + 'a) -> Self {
        self.primal = Some(Box::new(f));
        self
    }

    /// `(x, t) -> (value, tangent)`.
    pub fn jvp(mut self, f: impl Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>) + 'a) -> Self {
        self.jvp = Some(Box::new(f));
        self
    }

    /// `(x, seed, adjoint buffer) -> value`; must ADD seed^T J into the buffer.
    pub fn vjp(mut self, f: impl Fn(&[f64], &[f64], &mut [f64]) -> Vec<f64> + 'a) -> Self {
        self.vjp = Some(Box::new(f));
        self
    }

    /// For f32 functions: finite differences are coarser.
    pub fn f32(mut self) -> Self {
        self.fd_rtol = 2e-2;
        self.fd_atol = 2e-3;
        self.step = 1e-2;
        self.dot_rtol = 1e-5;
        self
    }

    pub fn tolerance(mut self, rtol: f64, atol: f64) -> Self {
        self.fd_rtol = rtol;
        self.fd_atol = atol;
        self
    }

    /// Runs every check at each point.
    pub fn at(&self, points: &[&[f64]]) {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        for x in points {
            assert_eq!(x.len(), self.n_in, "point has the wrong number of inputs");
            let t: Vec<f64> = (0..self.n_in).map(|_| rng.gen_range(-1.0..1.0)).collect();
            self.check_point(x, &t, &mut rng);
            // Also along each coordinate, so a wrong partial cannot hide in a sum.
            if self.n_in <= 8 {
                for k in 0..self.n_in {
                    let mut e = vec![0.0; self.n_in];
                    e[k] = 1.0;
                    self.check_point(x, &e, &mut rng);
                }
            }
        }
    }

    /// Runs every check at random points in `[lo, hi]^n`.
    pub fn random(&self, count: usize, lo: f64, hi: f64) {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ 0x5eed);
        let pts: Vec<Vec<f64>> = (0..count)
            .map(|_| (0..self.n_in).map(|_| rng.gen_range(lo..hi)).collect())
            .collect();
        let refs: Vec<&[f64]> = pts.iter().map(|p| p.as_slice()).collect();
        self.at(&refs);
    }

    fn check_point(&self, x: &[f64], t: &[f64], rng: &mut ChaCha8Rng) {
        let primal = self.primal.as_ref().expect("primal closure");
        let y = primal(x);
        if let Some(jvp) = &self.jvp {
            let (v, jt) = jvp(x, t);
            assert_eq!(v, y, "jvp value differs from the function at {x:?}");
            let fd = check::central_difference(|p: &[f64]| primal(p), x, t, self.step);
            check::all_close(&jt, &fd, self.fd_rtol, self.fd_atol).unwrap_or_else(|e| {
                panic!("jvp differs from central differences at x = {x:?}, t = {t:?}: {e}")
            });
            if let Some(vjp) = &self.vjp {
                let c: Vec<f64> = (0..y.len()).map(|_| rng.gen_range(-1.0..1.0)).collect();
                let mut g = vec![0.0; self.n_in];
                let v2 = vjp(x, &c, &mut g);
                assert_eq!(v2, y, "vjp value differs from the function at {x:?}");
                check::dot_product_test(&jt, &c, t, &g, self.dot_rtol).unwrap_or_else(|e| {
                    panic!("dot-product test failed at x = {x:?}, t = {t:?}, c = {c:?}: {e}")
                });
                // Accumulation: a second call adds the same amount again.
                let mut g2 = g.clone();
                vjp(x, &c, &mut g2);
                for (a, b) in g2.iter().zip(&g) {
                    assert!(
                        (a - 2.0 * b).abs() <= self.dot_rtol * (1.0 + b.abs()),
                        "vjp does not accumulate into its adjoint buffers: {g2:?} vs 2 x {g:?}"
                    );
                }
            }
        }
    }
}

/// Splits a flat adjoint buffer into consecutive pieces of the given lengths.
pub fn split_mut<'b>(mut g: &'b mut [f64], lens: &[usize]) -> Vec<&'b mut [f64]> {
    let mut out = Vec::new();
    for &l in lens {
        let (a, b) = g.split_at_mut(l);
        out.push(a);
        g = b;
    }
    out
}

/// f32 views of f64 data.
pub fn to32(x: &[f64]) -> Vec<f32> {
    x.iter().map(|&v| v as f32).collect()
}

pub fn to64(x: &[f32]) -> Vec<f64> {
    x.iter().map(|&v| v as f64).collect()
}
