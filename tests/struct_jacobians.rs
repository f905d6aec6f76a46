//! `<f>_jacobian` and `<f>_jacobian_sparse` of functions with struct arguments by `&` (and
//! `&self`): takes functions whose columns include a struct's scalars (float, array, `Vec` and
//! nested-struct fields, in field order; integer fields have none), gives checks of the dense
//! Jacobian (by `_jvp` columns and by `_vjp` rows) and of the sparse one against central
//! differences of the function itself.
#![allow(clippy::needless_range_loop)]

use autodiff_runtime::jacobian::Sparsity;
use autodiff_runtime::{differentiate, Differentiable};

#[path = "common/jacobian.rs"]
mod fd;
use fd::{assert_jacobian, fd_jacobian};

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Params {
    pub k: f64,
    pub m: f64,
}

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Body {
    pub x: f64,
    pub q: [f64; 2],
    pub w: Vec<f64>,
    pub params: Params,
    pub steps: usize,
}

/// Columns: `x`, `q[0]`, `q[1]`, `w[..]`, `params.k`, `params.m`, then `h`.
fn body(p: &[f64], n: usize) -> Body {
    Body {
        x: p[0],
        q: [p[1], p[2]],
        w: p[3..3 + n].to_vec(),
        params: Params {
            k: p[3 + n],
            m: p[4 + n],
        },
        steps: 3,
    }
}

/// Two outputs (rows fewer than columns: rows by `_vjp`).
#[differentiate]
fn wide(b: &Body, h: f64) -> [f64; 2] {
    let mut e = 0.0;
    for i in 0..b.w.len() {
        e += b.w[i] * b.w[i] * b.params.k;
    }
    for _ in 0..b.steps {
        e *= 1.0 - h * b.x.sin();
    }
    [e + b.q[0] * b.q[1], b.params.m.exp() * h + b.x]
}

/// Many outputs (columns fewer than rows: columns by `_jvp`).
#[differentiate]
fn tall(b: &Body, h: f64) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..b.w.len() {
        out.push(b.w[i] * b.params.k + h * b.x);
        out.push((b.w[i] * b.q[0]).sin() / b.params.m);
        out.push(b.q[1] * h * h);
        out.push(b.x * b.w[i]);
    }
    out
}

#[test]
fn wide_map_with_a_struct_argument_by_vjp_rows() {
    let n = 3;
    let p = [0.3, -0.4, 0.7, 0.2, -0.5, 0.9, 1.5, 0.8, 0.05];
    let (value, j) = wide_jacobian(&body(&p, n), p[8]);
    assert_eq!(value, wide(&body(&p, n), p[8]));
    let fd = fd_jacobian(|x| wide(&body(x, n), x[8]).to_vec(), &p);
    assert_jacobian(&j, &fd, 1e-7);
}

#[test]
fn tall_map_with_a_struct_argument_by_jvp_columns() {
    let n = 3;
    let p = [0.3, -0.4, 0.7, 0.2, -0.5, 0.9, 1.5, 0.8, 0.05];
    let (value, j) = tall_jacobian(&body(&p, n), p[8]);
    assert_eq!(value, tall(&body(&p, n), p[8]));
    assert_eq!((j.rows(), j.cols()), (12, 9));
    let fd = fd_jacobian(|x| tall(&body(x, n), x[8]), &p);
    assert_jacobian(&j, &fd, 1e-7);
}

#[test]
fn sparse_jacobian_with_a_struct_argument() {
    let n = 3;
    let p = [0.3, -0.4, 0.7, 0.2, -0.5, 0.9, 1.5, 0.8, 0.05];
    let (_, dense) = tall_jacobian(&body(&p, n), p[8]);
    // Every entry whose column the row reads: the pattern of `tall`.
    let mut entries = Vec::new();
    for i in 0..n {
        let w = 3 + i;
        for (r, cols) in [
            (4 * i, vec![w, 6, 0, 8]),
            (4 * i + 1, vec![w, 1, 7]),
            (4 * i + 2, vec![2, 8]),
            (4 * i + 3, vec![0, w]),
        ] {
            for c in cols {
                entries.push((r, c));
            }
        }
    }
    let pattern = Sparsity::from_entries(4 * n, 9, &entries);
    let (value, sparse) = tall_jacobian_sparse(&body(&p, n), p[8], &pattern);
    assert_eq!(value, tall(&body(&p, n), p[8]));
    for r in 0..4 * n {
        for c in 0..9 {
            assert_eq!(sparse.get(r, c), dense[(r, c)], "({r}, {c})");
        }
    }
}

impl Params {
    /// A method: columns `self.k`, `self.m`, then `x[..]`.
    #[differentiate]
    pub fn pull(&self, x: &[f64; 3]) -> [f64; 3] {
        [
            self.k * x[0] - x[1],
            (self.m * x[1]).sin() + x[2],
            self.k * self.m * x[2] * x[0],
        ]
    }
}

#[test]
fn method_with_self_by_ref() {
    let p = [1.5, 0.8, 0.3, -0.2, 0.6];
    let pr = |p: &[f64]| Params { k: p[0], m: p[1] };
    let x = |p: &[f64]| [p[2], p[3], p[4]];
    let (value, j) = pr(&p).pull_jacobian(&x(&p));
    assert_eq!(value, pr(&p).pull(&x(&p)));
    let fd = fd_jacobian(|q| pr(q).pull(&x(q)).to_vec(), &p);
    assert_jacobian(&j, &fd, 1e-7);
}
