//! Checks for the construct test files: macros that adapt a differentiated function of scalar
//! (and slice) arguments to the harness, and `Check32`, the reverse-mode checks for f32
//! functions.
#![allow(dead_code, unused_macros, unused_imports)]

use super::Harness;
use autodiff_runtime::check;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// f64 functions of scalar arguments with one scalar output: the shared harness in both modes.
#[allow(unused_macros)]
macro_rules! chk {
    ($f:ident, $fj:ident, $fv:ident; $($i:tt),+) => {{
        let n = [$($i),+].len();
        Harness::new(n)
            .primal(|p| vec![$f($(p[$i]),+)])
            .jvp(|p, t| {
                let (v, d) = $fj($(p[$i]),+, $(t[$i]),+);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| {
                let mut it = g.iter_mut();
                let v = $fv($(p[$i]),+, $({ let _ = $i; it.next().unwrap() }),+, c[0]);
                vec![v]
            })
    }};
}

/// f32 functions of scalar arguments with one scalar output, checked by [`Check32`].
#[allow(unused_macros)]
macro_rules! chk32 {
    ($f:ident, $fj:ident, $fv:ident; $($i:tt),+) => {{
        let n = [$($i),+].len();
        Check32 {
            n,
            primal: |p: &[f64]| vec![$f($(p[$i] as f32),+) as f64],
            jvp: |p: &[f64], t: &[f64]| {
                let (v, d) = $fj($(p[$i] as f32),+, $(t[$i] as f32),+);
                (vec![v as f64], vec![d as f64])
            },
            vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
                let mut g32 = to32(g);
                let v = {
                    let mut it = g32.iter_mut();
                    $fv($(p[$i] as f32),+, $({ let _ = $i; it.next().unwrap() }),+, c[0] as f32)
                };
                g.copy_from_slice(&to64(&g32));
                vec![v as f64]
            },
        }
    }};
}

/// Checks of an f32 function. Forward mode goes through the shared harness (`.f32()`: value
/// equality, jvp vs central differences). The shared harness's dot-product test uses a fixed
/// relative tolerance of 1e-10, which f32 arithmetic cannot meet (rounding the f64 tangent and
/// seed to f32 alone costs ~6e-8), so reverse mode is checked here with the same three checks
/// (value equality, dot-product test against the jvp, accumulation into the buffers) and a
/// tolerance of a few hundred f32 ulps.
#[allow(dead_code)]
pub struct Check32<P, J, V> {
    pub n: usize,
    pub primal: P,
    pub jvp: J,
    pub vjp: V,
}

#[allow(dead_code)]
impl<P, J, V> Check32<P, J, V>
where
    P: Fn(&[f64]) -> Vec<f64>,
    J: Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>),
    V: Fn(&[f64], &[f64], &mut [f64]) -> Vec<f64>,
{
    const DOT_RTOL: f64 = 2e-5;

    pub fn at(&self, points: &[&[f64]]) {
        Harness::new(self.n)
            .f32()
            .primal(&self.primal)
            .jvp(&self.jvp)
            .at(points);
        let mut rng = ChaCha8Rng::seed_from_u64(32);
        for x in points {
            assert_eq!(x.len(), self.n, "point has the wrong number of inputs");
            let mut dirs: Vec<Vec<f64>> =
                vec![(0..self.n).map(|_| rng.gen_range(-1.0..1.0)).collect()];
            for k in 0..self.n {
                let mut e = vec![0.0; self.n];
                e[k] = 1.0;
                dirs.push(e);
            }
            let y = (self.primal)(x);
            for t in &dirs {
                let (_, jt) = (self.jvp)(x, t);
                let c: Vec<f64> = (0..y.len()).map(|_| rng.gen_range(-1.0..1.0)).collect();
                let mut g = vec![0.0; self.n];
                let v = (self.vjp)(x, &c, &mut g);
                assert_eq!(v, y, "f32 vjp value differs from the function at {x:?}");
                check::dot_product_test(&jt, &c, t, &g, Self::DOT_RTOL).unwrap_or_else(|e| {
                    panic!("f32 dot-product test failed at x = {x:?}, t = {t:?}, c = {c:?}: {e}")
                });
                let mut g2 = g.clone();
                (self.vjp)(x, &c, &mut g2);
                for (a, b) in g2.iter().zip(&g) {
                    assert!(
                        (a - 2.0 * b).abs() <= 1e-5 * (1.0 + b.abs()),
                        "f32 vjp does not accumulate: {g2:?} vs 2 x {g:?}"
                    );
                }
            }
        }
    }

    pub fn random(&self, count: usize, lo: f64, hi: f64) {
        let mut rng = ChaCha8Rng::seed_from_u64(0x32);
        let pts: Vec<Vec<f64>> = (0..count)
            .map(|_| (0..self.n).map(|_| rng.gen_range(lo..hi)).collect())
            .collect();
        let refs: Vec<&[f64]> = pts.iter().map(|p| p.as_slice()).collect();
        self.at(&refs);
    }
}

/// f64 functions `f(x: f64, v: &[f64], ..) -> f64` (extra inactive arguments after `v`), with
/// `v` of length `$nv`.
#[allow(unused_macros)]
macro_rules! chk_xv {
    ($f:ident, $fj:ident, $fv:ident; $nv:expr $(, $extra:expr)*) => {{
        Harness::new(1 + $nv)
            .primal(|p| vec![$f(p[0], &p[1..] $(, $extra)*)])
            .jvp(|p, t| {
                let (v, d) = $fj(p[0], &p[1..] $(, $extra)*, t[0], &t[1..]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| {
                let (a, b) = g.split_at_mut(1);
                vec![$fv(p[0], &p[1..] $(, $extra)*, &mut a[0], b, c[0])]
            })
    }};
}

/// f32 functions `f(x: f32, v: &[f32], ..) -> f32`, checked by [`Check32`].
#[allow(unused_macros)]
macro_rules! chk32_xv {
    ($f:ident, $fj:ident, $fv:ident; $nv:expr $(, $extra:expr)*) => {{
        Check32 {
            n: 1 + $nv,
            primal: |p: &[f64]| vec![$f(p[0] as f32, &to32(&p[1..]) $(, $extra)*) as f64],
            jvp: |p: &[f64], t: &[f64]| {
                let (v, d) = $fj(p[0] as f32, &to32(&p[1..]) $(, $extra)*, t[0] as f32, &to32(&t[1..]));
                (vec![v as f64], vec![d as f64])
            },
            vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
                let mut a = g[0] as f32;
                let mut b = to32(&g[1..]);
                let v = $fv(p[0] as f32, &to32(&p[1..]) $(, $extra)*, &mut a, &mut b, c[0] as f32);
                g[0] = a as f64;
                g[1..].copy_from_slice(&to64(&b));
                vec![v as f64]
            },
        }
    }};
}
