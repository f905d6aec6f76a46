//! Struct fields that are arrays of arrays: takes functions reading a rigid-body pose's rotation
//! matrix `r: [[f64; 3]; 3]` (as `s.r[i][j]`, rows `s.r[i]`, `for row in s.r.iter()`) and a
//! cloud's positions `p: Vec<[f64; 3]>`, with the struct by `&` and by value; gives checks of
//! both modes against central finite differences and of reverse against forward by the
//! dot-product test.
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use autodiff_runtime::{differentiate, Differentiable};
use common::Harness;

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Pose {
    pub r: [[f64; 3]; 3],
    pub t: [f64; 3],
}

fn pose(p: &[f64]) -> Pose {
    Pose {
        r: [[p[0], p[1], p[2]], [p[3], p[4], p[5]], [p[6], p[7], p[8]]],
        t: [p[9], p[10], p[11]],
    }
}

fn pose_t(p: &[f64]) -> PoseTangent {
    PoseTangent {
        r: [[p[0], p[1], p[2]], [p[3], p[4], p[5]], [p[6], p[7], p[8]]],
        t: [p[9], p[10], p[11]],
    }
}

fn pose_flat(d: &PoseTangent, g: &mut [f64]) {
    for i in 0..3 {
        for j in 0..3 {
            g[3 * i + j] += d.r[i][j];
        }
        g[9 + i] += d.t[i];
    }
}

fn pts(p: &[f64]) -> Vec<[f64; 3]> {
    p.chunks(3).map(|c| [c[0], c[1], c[2]]).collect()
}

/// The squared distance of transformed points `r x + t` to targets, by indexing.
#[differentiate]
fn misfit(s: &Pose, x: &[[f64; 3]], y: &[[f64; 3]]) -> f64 {
    let mut e = 0.0;
    for k in 0..x.len() {
        for i in 0..3 {
            let mut q = s.t[i];
            for j in 0..3 {
                q += s.r[i][j] * x[k][j];
            }
            let d = q - y[k][i];
            e += d * d;
        }
    }
    e
}

/// The same, the rotation's rows iterated and taken as rows.
#[differentiate]
fn misfit_rows(s: &Pose, x: &[[f64; 3]]) -> f64 {
    let mut e = 0.0;
    for k in 0..x.len() {
        for (i, row) in s.r.iter().enumerate() {
            let q = row[0] * x[k][0] + row[1] * x[k][1] + row[2] * x[k][2] + s.t[i];
            e += q * q.sin();
        }
        for row in s.r.iter() {
            e += row[1] * x[k][2];
        }
        let r1 = &s.r[1];
        e += r1[0] * r1[2] * x[k][1];
    }
    e
}

/// The pose by value.
#[differentiate]
fn trace_energy(s: Pose, w: f64) -> f64 {
    let mut e = 0.0;
    for i in 0..3 {
        e += w * s.r[i][i] * s.r[i][i] + (s.r[i][(i + 1) % 3] * s.t[i]).exp();
    }
    e
}

const Y: [f64; 6] = [0.5, 0.1, -0.8, 0.6, -0.3, 0.7];

#[test]
fn pose_indexed() {
    // Inputs: the pose (12) then the points x (6).
    Harness::new(18)
        .primal(|p| vec![misfit(&pose(p), &pts(&p[12..]), &pts(&Y))])
        .jvp(|p, t| {
            let (y, dy) = misfit_jvp(
                &pose(p),
                &pts(&p[12..]),
                &pts(&Y),
                &pose_t(t),
                &pts(&t[12..]),
                &pts(&[0.0; 6]),
            );
            (vec![y], vec![dy])
        })
        .vjp(|p, c, g| {
            let mut ds = pose_t(&[0.0; 12]);
            let mut dx = vec![[0.0; 3]; 2];
            let mut dy = vec![[0.0; 3]; 2];
            let y = misfit_vjp(
                &pose(p),
                &pts(&p[12..]),
                &pts(&Y),
                &mut ds,
                &mut dx,
                &mut dy,
                c[0],
            );
            pose_flat(&ds, g);
            for (k, row) in dx.iter().enumerate() {
                for j in 0..3 {
                    g[12 + 3 * k + j] += row[j];
                }
            }
            vec![y]
        })
        .random(6, -1.0, 1.0);
}

#[test]
fn pose_rows() {
    Harness::new(18)
        .primal(|p| vec![misfit_rows(&pose(p), &pts(&p[12..]))])
        .jvp(|p, t| {
            let (y, dy) = misfit_rows_jvp(&pose(p), &pts(&p[12..]), &pose_t(t), &pts(&t[12..]));
            (vec![y], vec![dy])
        })
        .vjp(|p, c, g| {
            let mut ds = pose_t(&[0.0; 12]);
            let mut dx = vec![[0.0; 3]; 2];
            let y = misfit_rows_vjp(&pose(p), &pts(&p[12..]), &mut ds, &mut dx, c[0]);
            pose_flat(&ds, g);
            for (k, row) in dx.iter().enumerate() {
                for j in 0..3 {
                    g[12 + 3 * k + j] += row[j];
                }
            }
            vec![y]
        })
        .random(6, -1.0, 1.0);
}

#[test]
fn pose_by_value() {
    Harness::new(13)
        .primal(|p| vec![trace_energy(pose(p), p[12])])
        .jvp(|p, t| {
            let (y, dy) = trace_energy_jvp(pose(p), p[12], pose_t(t), t[12]);
            (vec![y], vec![dy])
        })
        .vjp(|p, c, g| {
            let mut ds = pose_t(&[0.0; 12]);
            let mut dw = 0.0;
            let y = trace_energy_vjp(pose(p), p[12], &mut ds, &mut dw, c[0]);
            pose_flat(&ds, g);
            g[12] += dw;
            vec![y]
        })
        .random(6, -1.0, 1.0);
}

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Cloud {
    pub p: Vec<[f64; 3]>,
    pub k: f64,
    pub n: usize,
}

fn cloud(p: &[f64]) -> Cloud {
    Cloud {
        p: pts(&p[1..]),
        k: p[0],
        n: (p.len() - 1) / 3,
    }
}

fn cloud_t(p: &[f64]) -> CloudTangent {
    CloudTangent {
        p: pts(&p[1..]),
        k: p[0],
        n: (),
    }
}

/// Pairwise spring energy over a cloud's positions, by index and by rows.
#[differentiate]
fn springs(c: &Cloud, w: &[f64]) -> f64 {
    let mut e = 0.0;
    for a in 0..c.n {
        for b in a + 1..c.p.len() {
            let mut d2 = 0.0;
            for j in 0..3 {
                let d = c.p[a][j] - c.p[b][j];
                d2 += d * d;
            }
            e += c.k * w[a] * (d2 + 1.0).ln();
        }
    }
    for q in c.p.iter() {
        e += q[0] * q[1] - q[2] * q[2];
    }
    e
}

#[test]
fn cloud_positions() {
    // Inputs: k, three positions (9), then w (3).
    Harness::new(13)
        .primal(|p| vec![springs(&cloud(&p[..10]), &p[10..])])
        .jvp(|p, t| {
            let (y, dy) = springs_jvp(&cloud(&p[..10]), &p[10..], &cloud_t(&t[..10]), &t[10..]);
            (vec![y], vec![dy])
        })
        .vjp(|p, c, g| {
            let mut dc = cloud_t(&[0.0; 10]);
            let mut dw = vec![0.0; 3];
            let y = springs_vjp(&cloud(&p[..10]), &p[10..], &mut dc, &mut dw, c[0]);
            g[0] += dc.k;
            for (i, row) in dc.p.iter().enumerate() {
                for j in 0..3 {
                    g[1 + 3 * i + j] += row[j];
                }
            }
            for i in 0..3 {
                g[10 + i] += dw[i];
            }
            vec![y]
        })
        .random(6, -1.0, 1.0);
}

/// The pose by `&mut`: the rotation scaled in place, read before and after.
#[differentiate]
fn scale_in_place(s: &mut Pose, w: f64) -> f64 {
    let mut e = 0.0;
    for i in 0..3 {
        e += s.r[i][i] * s.t[i];
        for j in 0..3 {
            s.r[i][j] *= w * s.t[j];
            e += s.r[i][j].sin();
        }
        s.t[i] += s.r[i][0];
    }
    e
}

fn pose_out(s: &Pose, y: f64) -> Vec<f64> {
    let mut v = vec![y];
    for i in 0..3 {
        v.extend_from_slice(&s.r[i]);
    }
    v.extend_from_slice(&s.t);
    v
}

/// A function of a pose lent in-out and a scale, in both modes: outputs are the value, then the
/// pose after the call (12); the pose's adjoint holds the output pose's on entry.
fn check_pose_in_out(
    f: fn(&mut Pose, f64) -> f64,
    f_jvp: fn(&mut Pose, f64, &mut PoseTangent, f64) -> (f64, f64),
    f_vjp: fn(&mut Pose, f64, &mut PoseTangent, &mut f64, f64) -> f64,
) {
    Harness::new(13)
        .primal(|p| {
            let mut s = pose(p);
            let y = f(&mut s, p[12]);
            pose_out(&s, y)
        })
        .jvp(|p, t| {
            let (mut s, mut ds) = (pose(p), pose_t(t));
            let (y, dy) = f_jvp(&mut s, p[12], &mut ds, t[12]);
            let ds = Pose { r: ds.r, t: ds.t };
            (pose_out(&s, y), pose_out(&ds, dy))
        })
        .vjp(|p, c, g| {
            let mut s = pose(p);
            let mut ds = pose_t(&c[1..]);
            let mut dw = 0.0;
            let y = f_vjp(&mut s, p[12], &mut ds, &mut dw, c[0]);
            pose_flat(&ds, g);
            g[12] += dw;
            pose_out(&s, y)
        })
        .random(6, -1.0, 1.0);
}

#[test]
fn pose_in_place() {
    check_pose_in_out(scale_in_place, scale_in_place_jvp, scale_in_place_vjp);
}

impl Pose {
    /// A method: the rotation applied to a point, through `&self`.
    #[differentiate]
    fn apply_norm(&self, x: &[f64; 3]) -> f64 {
        let mut n = 0.0;
        for i in 0..3 {
            let mut q = self.t[i];
            for j in 0..3 {
                q += self.r[i][j] * x[j];
            }
            n += q * q;
        }
        n.sqrt()
    }
}

#[test]
fn pose_method() {
    Harness::new(15)
        .primal(|p| vec![pose(p).apply_norm(&[p[12], p[13], p[14]])])
        .jvp(|p, t| {
            let (y, dy) =
                pose(p).apply_norm_jvp(&[p[12], p[13], p[14]], &pose_t(t), &[t[12], t[13], t[14]]);
            (vec![y], vec![dy])
        })
        .vjp(|p, c, g| {
            let mut ds = pose_t(&[0.0; 12]);
            let mut dx = [0.0; 3];
            let y = pose(p).apply_norm_vjp(&[p[12], p[13], p[14]], &mut ds, &mut dx, c[0]);
            pose_flat(&ds, g);
            for j in 0..3 {
                g[12 + j] += dx[j];
            }
            vec![y]
        })
        .random(6, -1.0, 1.0);
}

/// Scales the rotation's first column in place.
#[differentiate]
fn scale_column(s: &mut Pose, w: f64) {
    for i in 0..3 {
        s.r[i][0] *= w * s.t[i];
    }
}

/// The pose lent whole to a differentiated call, its rotation read before and after.
#[differentiate]
fn lend_pose(s: &mut Pose, w: f64) -> f64 {
    let a = s.r[0][0] * s.r[2][1];
    scale_column(s, w);
    a * s.r[0][0] + s.r[1][0].sin() * s.r[1][2]
}

#[test]
fn pose_lent_to_a_call() {
    check_pose_in_out(lend_pose, lend_pose_jvp, lend_pose_vjp);
}

/// A copy of the pose read by rows, and a pose output taking the rotation from the argument.
#[differentiate]
fn moved(s: &Pose, w: f64) -> Pose {
    let c = s.clone();
    let q = c.r[0][1] * w + c.r[2][2];
    Pose {
        t: [s.t[0] * q, s.r[0][0] * w, s.t[2].cos()],
        ..*s
    }
}

#[test]
fn pose_copy_and_output() {
    let flat = |s: &Pose| pose_out(s, 0.0)[1..].to_vec();
    Harness::new(13)
        .primal(|p| flat(&moved(&pose(p), p[12])))
        .jvp(|p, t| {
            let (y, dy) = moved_jvp(&pose(p), p[12], &pose_t(t), t[12]);
            (flat(&y), flat(&Pose { r: dy.r, t: dy.t }))
        })
        .vjp(|p, c, g| {
            let mut ds = pose_t(&[0.0; 12]);
            let mut dw = 0.0;
            let y = moved_vjp(&pose(p), p[12], &mut ds, &mut dw, pose_t(c));
            pose_flat(&ds, g);
            g[12] += dw;
            flat(&y)
        })
        .random(6, -1.0, 1.0);
}

/// A flat sequence field ranged twice (`&s.w[1..][..n]`, `&mut self.w[..][..n]`): a range of a
/// sub-slice, not a row of an array of arrays (random programs seed 75010 reported it as one).
#[derive(Differentiable, Clone, Debug, PartialEq)]
struct Flat {
    w: Vec<f64>,
    k: f64,
}

#[differentiate]
fn dot_sin(a: &[f64], b: &[f64]) -> f64 {
    let mut e = 0.0;
    for i in 0..a.len() {
        e += a[i] * b[i].sin();
    }
    e
}

#[differentiate]
fn flat_ranges(s: &Flat, n: usize) -> f64 {
    s.k * dot_sin(&s.w[1..][..n], &s.w[..][..n])
}

#[test]
fn a_range_of_a_flat_field_indexed_again() {
    let flat = |p: &[f64]| Flat {
        w: p[..4].to_vec(),
        k: p[4],
    };
    let flat_t = |t: &[f64]| FlatTangent {
        w: t[..4].to_vec(),
        k: t[4],
    };
    Harness::new(5)
        .primal(move |p| vec![flat_ranges(&flat(p), 3)])
        .jvp(move |p, t| {
            let (v, d) = flat_ranges_jvp(&flat(p), 3, &flat_t(t));
            (vec![v], vec![d])
        })
        .vjp(move |p, c, g| {
            let mut b = flat_t(&[0.0; 5]);
            let v = flat_ranges_vjp(&flat(p), 3, &mut b, c[0]);
            for (gi, bi) in g.iter_mut().zip(b.w.iter().chain([&b.k])) {
                *gi += bi;
            }
            vec![v]
        })
        .random(6, -1.5, 1.5);
}
