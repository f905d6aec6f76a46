//! Struct arguments next to nested-array arguments and outputs: takes functions reading a
//! struct's fields together with `&[[f64; 3]]` positions, a `[[f64; 2]; 2]` matrix by value
//! (also as the output), rows written through `&mut [[f64; 2]]`, and ragged `Vec<Vec<f64>>` rows
//! in a method; gives checks of both modes against central finite differences and of reverse
//! against forward by the dot-product test.
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use autodiff_runtime::{differentiate, Differentiable};
use common::Harness;

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Params {
    pub k: f64,
    pub w: Vec<f64>,
}

fn params(p: &[f64]) -> Params {
    Params {
        k: p[0],
        w: vec![p[1], p[2]],
    }
}

fn params_t(p: &[f64]) -> ParamsTangent {
    ParamsTangent {
        k: p[0],
        w: vec![p[1], p[2]],
    }
}

/// A potential over particle positions, weighted by the struct's fields.
#[differentiate]
fn energy(s: &Params, pos: &[[f64; 3]]) -> f64 {
    let mut e = 0.0;
    for i in 0..pos.len() {
        for j in 0..3 {
            e += s.k * pos[i][j] * pos[i][j] * s.w[i] + (pos[i][j] * s.w[i]).sin();
        }
    }
    e
}

fn pos(p: &[f64]) -> Vec<[f64; 3]> {
    vec![[p[0], p[1], p[2]], [p[3], p[4], p[5]]]
}

#[test]
fn struct_and_positions() {
    Harness::new(9)
        .primal(|p| vec![energy(&params(p), &pos(&p[3..]))])
        .jvp(|p, t| {
            let (y, dy) = energy_jvp(&params(p), &pos(&p[3..]), &params_t(t), &pos(&t[3..]));
            (vec![y], vec![dy])
        })
        .vjp(|p, c, g| {
            let mut ds = params_t(&[0.0; 3]);
            let mut dp = vec![[0.0; 3]; 2];
            let y = energy_vjp(&params(p), &pos(&p[3..]), &mut ds, &mut dp, c[0]);
            g[0] += ds.k;
            g[1] += ds.w[0];
            g[2] += ds.w[1];
            for (i, row) in dp.iter().enumerate() {
                for j in 0..3 {
                    g[3 + 3 * i + j] += row[j];
                }
            }
            vec![y]
        })
        .random(6, -1.0, 1.0);
}

/// A matrix by value and a matrix output.
#[differentiate]
fn scaled(s: &Params, m: [[f64; 2]; 2], x: f64) -> [[f64; 2]; 2] {
    let mut out = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            out[i][j] = s.k * m[i][j] * x + s.w[i] * m[j][i];
        }
    }
    out
}

fn mat(p: &[f64]) -> [[f64; 2]; 2] {
    [[p[0], p[1]], [p[2], p[3]]]
}

fn flat2(m: &[[f64; 2]; 2]) -> Vec<f64> {
    vec![m[0][0], m[0][1], m[1][0], m[1][1]]
}

#[test]
fn struct_and_a_matrix_output() {
    Harness::new(8)
        .primal(|p| flat2(&scaled(&params(p), mat(&p[3..]), p[7])))
        .jvp(|p, t| {
            let (y, dy) = scaled_jvp(
                &params(p),
                mat(&p[3..]),
                p[7],
                &params_t(t),
                mat(&t[3..]),
                t[7],
            );
            (flat2(&y), flat2(&dy))
        })
        .vjp(|p, c, g| {
            let mut ds = params_t(&[0.0; 3]);
            let mut dm = [[0.0; 2]; 2];
            let mut dx = 0.0;
            let y = scaled_vjp(
                &params(p),
                mat(&p[3..]),
                p[7],
                &mut ds,
                &mut dm,
                &mut dx,
                mat(c),
            );
            g[0] += ds.k;
            g[1] += ds.w[0];
            g[2] += ds.w[1];
            for (k, d) in flat2(&dm).into_iter().enumerate() {
                g[3 + k] += d;
            }
            g[7] += dx;
            flat2(&y)
        })
        .random(6, -1.0, 1.0);
}

/// Rows written in place.
#[differentiate]
fn stepped(s: &Params, p: &mut [[f64; 2]]) {
    for i in 0..p.len() {
        p[i][0] = p[i][0] * s.k + s.w[i];
        p[i][1] = p[i][1].sin() * s.w[i] + p[i][0];
    }
}

#[test]
fn struct_and_rows_written_in_place() {
    let rows = |p: &[f64]| vec![[p[0], p[1]], [p[2], p[3]]];
    let flat = |r: &[[f64; 2]]| r.iter().flat_map(|x| x.iter().copied()).collect::<Vec<_>>();
    Harness::new(7)
        .primal(|p| {
            let mut r = rows(&p[3..]);
            stepped(&params(p), &mut r);
            flat(&r)
        })
        .jvp(|p, t| {
            let mut r = rows(&p[3..]);
            let mut dr = rows(&t[3..]);
            stepped_jvp(&params(p), &mut r, &params_t(t), &mut dr);
            (flat(&r), flat(&dr))
        })
        .vjp(|p, c, g| {
            let mut r = rows(&p[3..]);
            let mut ds = params_t(&[0.0; 3]);
            let mut br = rows(c);
            stepped_vjp(&params(p), &mut r, &mut ds, &mut br);
            g[0] += ds.k;
            g[1] += ds.w[0];
            g[2] += ds.w[1];
            for (k, d) in flat(&br).into_iter().enumerate() {
                g[3 + k] += d;
            }
            flat(&r)
        })
        .random(6, -1.0, 1.0);
}

impl Params {
    /// A method over ragged rows.
    #[differentiate]
    fn pull(&self, v: &[Vec<f64>]) -> f64 {
        let mut e = 0.0;
        for i in 0..v.len() {
            for j in 0..v[i].len() {
                e += self.k * v[i][j] * v[i][j] * self.w[i];
            }
        }
        e
    }
}

#[test]
fn method_over_ragged_rows() {
    let rows = |p: &[f64]| vec![vec![p[0]], vec![p[1], p[2]]];
    Harness::new(6)
        .primal(|p| vec![params(p).pull(&rows(&p[3..]))])
        .jvp(|p, t| {
            let (y, dy) = params(p).pull_jvp(&rows(&p[3..]), &params_t(t), &rows(&t[3..]));
            (vec![y], vec![dy])
        })
        .vjp(|p, c, g| {
            let mut ds = params_t(&[0.0; 3]);
            let mut dv = rows(&[0.0; 3]);
            let y = params(p).pull_vjp(&rows(&p[3..]), &mut ds, &mut dv, c[0]);
            g[0] += ds.k;
            g[1] += ds.w[0];
            g[2] += ds.w[1];
            g[3] += dv[0][0];
            g[4] += dv[1][0];
            g[5] += dv[1][1];
            vec![y]
        })
        .random(6, -1.0, 1.0);
}

#[test]
fn jacobian_of_struct_and_matrix() {
    let p = [1.5, 0.5, -0.7, 0.1, 0.2, -0.3, 0.4, 0.9];
    let (value, j) = scaled_jacobian(&params(&p), mat(&p[3..]), p[7]);
    assert_eq!(value, scaled(&params(&p), mat(&p[3..]), p[7]));
    let f = |q: &[f64]| flat2(&scaled(&params(q), mat(&q[3..]), q[7]));
    let h = 1e-6;
    for c in 0..8 {
        let (mut xp, mut xm) = (p.to_vec(), p.to_vec());
        xp[c] += h;
        xm[c] -= h;
        let (fp, fm) = (f(&xp), f(&xm));
        for r in 0..4 {
            let want = (fp[r] - fm[r]) / (2.0 * h);
            let got = j[(r, c)];
            assert!(
                (got - want).abs() <= 1e-7 * (1.0 + want.abs()),
                "J[{r}, {c}] = {got}, {want}"
            );
        }
    }
}

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Acc {
    pub e: f64,
    pub n: usize,
}

/// A `&mut` struct whose float field is written, next to positions.
#[differentiate]
fn accumulate_energy(acc: &mut Acc, pos: &[[f64; 3]], k: f64) {
    for i in 0..pos.len() {
        acc.e += k * (pos[i][0] * pos[i][1]).cos() + acc.e * pos[i][2];
    }
    acc.n += 1;
}

#[test]
fn mut_struct_and_positions() {
    Harness::new(8)
        .primal(|p| {
            let mut a = Acc { e: p[0], n: 0 };
            accumulate_energy(&mut a, &pos(&p[1..]), p[7]);
            assert_eq!(a.n, 1);
            vec![a.e]
        })
        .jvp(|p, t| {
            let mut a = Acc { e: p[0], n: 0 };
            let mut da = AccTangent { e: t[0], n: () };
            accumulate_energy_jvp(&mut a, &pos(&p[1..]), p[7], &mut da, &pos(&t[1..]), t[7]);
            (vec![a.e], vec![da.e])
        })
        .vjp(|p, c, g| {
            let mut a = Acc { e: p[0], n: 0 };
            let mut ba = AccTangent { e: c[0], n: () };
            let mut dp = vec![[0.0; 3]; 2];
            let mut dk = 0.0;
            accumulate_energy_vjp(&mut a, &pos(&p[1..]), p[7], &mut ba, &mut dp, &mut dk);
            g[0] += ba.e;
            for (i, row) in dp.iter().enumerate() {
                for j in 0..3 {
                    g[1 + 3 * i + j] += row[j];
                }
            }
            g[7] += dk;
            vec![a.e]
        })
        .random(6, -1.0, 1.0);
}
