//! Issue 10, ragged sequences: `&[Vec<T>]`, `&Vec<Vec<T>>`, `Vec<Vec<T>>`, `&mut [Vec<T>]` and
//! `&mut Vec<Vec<T>>` arguments whose rows have different lengths (an empty one included):
//! `m[i][j]`, `m[i].len()`, `m.len()`, rows iterated (`for r in m.iter()`, `for r in m`,
//! `enumerate`, chains over a row), rows lent to other differentiated functions (`&m[i]`), writes
//! through `&mut` (`m[i][j] = ..`, `+=`), `wrt` subsets, f32 and generic elements. Both modes
//! against central differences and by the dot-product test.

#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::ptr_arg,
    dead_code
)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;
use num_traits::Float;

/// Row lengths used throughout: different lengths, an empty row.
const LENS: [usize; 4] = [3, 0, 2, 4];

/// Flat data as rows of the given lengths.
fn rows_of<T: Copy>(flat: &[T], lens: &[usize]) -> Vec<Vec<T>> {
    let mut at = 0;
    lens.iter()
        .map(|&n| {
            let r = flat[at..at + n].to_vec();
            at += n;
            r
        })
        .collect()
}

fn flat_of<T: Copy>(rows: &[Vec<T>]) -> Vec<T> {
    rows.iter().flatten().copied().collect()
}

fn total() -> usize {
    LENS.iter().sum()
}

/// Zero rows shaped like `LENS`.
fn zeros() -> Vec<Vec<f64>> {
    LENS.iter().map(|&n| vec![0.0; n]).collect()
}

/// Adds flat `b` into `g`.
fn add_into(g: &mut [f64], b: &[f64]) {
    assert_eq!(g.len(), b.len());
    for (a, b) in g.iter_mut().zip(b) {
        *a += b;
    }
}

/// Reads by index: `m[i][j]`, `m[i].len()`, `m.len()`.
#[differentiate]
fn weighted(m: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        let n = m[i].len();
        for j in 0..n {
            s += (w * m[i][j]).sin() * (j as f64 + 1.0) + m[i][j] * m[i][j] / (n as f64);
        }
    }
    s
}

#[test]
fn index_reads_in_both_modes() {
    Harness::new(total() + 1)
        .primal(|x| vec![weighted(&rows_of(&x[1..], &LENS), x[0])])
        .jvp(|x, t| {
            let m = rows_of(&x[1..], &LENS);
            let (v, d) = weighted_jvp(&m, x[0], &rows_of(&t[1..], &LENS), t[0]);
            (vec![v], vec![d])
        })
        .vjp(|x, c, g| {
            let m = rows_of(&x[1..], &LENS);
            let (mut bm, mut bw) = (zeros(), 0.0);
            let v = weighted_vjp(&m, x[0], &mut bm, &mut bw, c[0]);
            g[0] += bw;
            add_into(&mut g[1..], &flat_of(&bm));
            vec![v]
        })
        .random(3, -1.5, 1.5);
    // `_grad` gives the rows' gradient as rows.
    let m = vec![vec![1.0, 2.0], vec![], vec![0.5]];
    let (v, g) = weighted_grad(&m, 0.0);
    assert!((v - (1.0 + 4.0) / 2.0 - 0.25).abs() < 1e-12);
    assert_eq!(g.m, vec![vec![1.0, 2.0], vec![], vec![1.0]]);
    assert!((g.w - (1.0 + 2.0 * 2.0 + 0.5)).abs() < 1e-12);
}

/// A squared norm, called on rows.
#[differentiate]
fn norm2(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum()
}

/// Rows iterated (`for r in m.iter()`, `for r in m`, `enumerate`), chains over a row
/// (`r.iter().sum()`, `zip`), a borrowed row (`let r = &m[2];`), rows lent to `norm2`
/// (`&m[i]`, and an item of `iter`), `m[i].iter()` and `m[i].to_vec()`, through `&Vec<Vec<T>>`.
#[differentiate]
fn row_stats(m: &Vec<Vec<f64>>, v: &[f64]) -> f64 {
    let mut s = 0.0;
    for r in m.iter() {
        let t: f64 = r.iter().sum();
        s += t * t.cos() + norm2(r);
    }
    for (i, r) in m.iter().enumerate() {
        let d: f64 = r.iter().zip(v.iter()).map(|(a, b)| a * b).sum();
        s += d * (i as f64 + 0.5) + r.len() as f64;
    }
    for r in m {
        if !r.is_empty() {
            s += r[r.len() - 1].exp();
        }
    }
    let last = &m[3];
    let c = m[0].to_vec();
    let q: f64 = m[2].iter().map(|x| x * x * x).sum();
    for i in 0..m.len() {
        s += norm2(&m[i]).sqrt() * v[i];
    }
    s + last[1] * c[2] + q
}

#[test]
fn rows_iterated_and_lent_in_both_modes() {
    let n = total();
    Harness::new(n + 4)
        .primal(move |x| vec![row_stats(&rows_of(&x[..n], &LENS), &x[n..])])
        .jvp(move |x, t| {
            let m = rows_of(&x[..n], &LENS);
            let (v, d) = row_stats_jvp(&m, &x[n..], &rows_of(&t[..n], &LENS), &t[n..]);
            (vec![v], vec![d])
        })
        .vjp(move |x, c, g| {
            let m = rows_of(&x[..n], &LENS);
            let (mut bm, mut bv) = (zeros(), vec![0.0; 4]);
            let v = row_stats_vjp(&m, &x[n..], &mut bm, &mut bv, c[0]);
            add_into(&mut g[..n], &flat_of(&bm));
            add_into(&mut g[n..], &bv);
            vec![v]
        })
        .random(3, 0.3, 1.5);
}

/// Scales a slice in place (a row is lent to it `&mut`).
#[differentiate]
fn scale_in(v: &mut [f64], s: f64) {
    for k in 0..v.len() {
        v[k] = v[k] * s + v[k].sin();
    }
}

/// In place through `&mut [Vec<T>]`: elements written and accumulated (`=`, `+=`, `*=`) reading
/// other rows, rows written through `iter_mut`, a row lent `&mut` to `scale_in`; gives a value
/// too.
#[differentiate]
fn relax(m: &mut [Vec<f64>], k: f64) -> f64 {
    let rows = m.len();
    for i in 0..rows {
        for j in 0..m[i].len() {
            let above = if i > 0 && j < m[i - 1].len() {
                m[i - 1][j]
            } else {
                k
            };
            m[i][j] = m[i][j] * k + 0.5 * above.tanh();
            m[i][j] += above * m[i][0];
        }
    }
    for r in m.iter_mut() {
        if !r.is_empty() {
            r[0] *= 1.0 + k;
        }
    }
    scale_in(&mut m[3], k);
    m[2][1] * m[0][0]
}

#[test]
fn in_place_writes_in_both_modes() {
    let n = total();
    // Inputs: k, then the rows' initial contents; outputs: the value, then their final contents.
    Harness::new(n + 1)
        .primal(move |x| {
            let mut m = rows_of(&x[1..], &LENS);
            let v = relax(&mut m, x[0]);
            [vec![v], flat_of(&m)].concat()
        })
        .jvp(move |x, t| {
            let mut m = rows_of(&x[1..], &LENS);
            let mut dm = rows_of(&t[1..], &LENS);
            let (v, d) = relax_jvp(&mut m, x[0], &mut dm, t[0]);
            (
                [vec![v], flat_of(&m)].concat(),
                [vec![d], flat_of(&dm)].concat(),
            )
        })
        .vjp(move |x, c, g| {
            let mut m = rows_of(&x[1..], &LENS);
            // The buffer holds the seed of the final contents on entry.
            let mut bm = rows_of(&c[1..], &LENS);
            let mut bk = 0.0;
            let v = relax_vjp(&mut m, x[0], &mut bm, &mut bk, c[0]);
            g[0] += bk;
            add_into(&mut g[1..], &flat_of(&bm));
            [vec![v], flat_of(&m)].concat()
        })
        .random(3, -1.0, 1.0);
}

/// No output: results only through `&mut Vec<Vec<T>>`, which is also read.
#[differentiate]
fn smooth(m: &mut Vec<Vec<f64>>, a: &[Vec<f64>]) {
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            m[i][j] = 0.5 * m[i][j] + a[i][j] * m[i][j].sin();
        }
    }
}

#[test]
fn unit_output_through_mut_vec_of_vecs() {
    let n = total();
    Harness::new(2 * n)
        .primal(move |x| {
            let mut m = rows_of(&x[..n], &LENS);
            smooth(&mut m, &rows_of(&x[n..], &LENS));
            flat_of(&m)
        })
        .jvp(move |x, t| {
            let (mut m, a) = (rows_of(&x[..n], &LENS), rows_of(&x[n..], &LENS));
            let (mut dm, da) = (rows_of(&t[..n], &LENS), rows_of(&t[n..], &LENS));
            smooth_jvp(&mut m, &a, &mut dm, &da);
            (flat_of(&m), flat_of(&dm))
        })
        .vjp(move |x, c, g| {
            let (mut m, a) = (rows_of(&x[..n], &LENS), rows_of(&x[n..], &LENS));
            let (mut bm, mut ba) = (rows_of(c, &LENS), zeros());
            smooth_vjp(&mut m, &a, &mut bm, &mut ba);
            add_into(&mut g[..n], &flat_of(&bm));
            add_into(&mut g[n..], &flat_of(&ba));
            flat_of(&m)
        })
        .random(3, -1.0, 1.0);
    // The Jacobian: rows are `m`'s final contents, columns `m` then `a`.
    let m0 = rows_of(&[0.3, -0.2, 0.1, 0.4, 0.5, 0.6, -0.7, 0.8, 0.9], &LENS);
    let a = rows_of(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], &LENS);
    let mut m = m0.clone();
    let j = smooth_jacobian(&mut m, &a);
    assert_eq!((j.rows(), j.cols()), (n, 2 * n));
    let x = flat_of(&m0);
    for k in 0..n {
        let d = 0.5 + a.iter().flatten().nth(k).unwrap() * x[k].cos();
        assert!((j[(k, k)] - d).abs() < 1e-12);
        assert!((j[(k, n + k)] - x[k].sin()).abs() < 1e-12);
    }
}

/// `wrt` subsets: the rows only, or the weight only.
#[differentiate(wrt(m))]
fn rows_only(m: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    for r in m.iter() {
        for x in r.iter() {
            s += (w * x).exp();
        }
    }
    s
}

#[differentiate(wrt(w))]
fn weight_only(m: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    for r in m.iter() {
        for x in r.iter() {
            s += (w * x).exp();
        }
    }
    s
}

#[test]
fn wrt_subsets() {
    let n = total();
    let w = 0.6;
    Harness::new(n)
        .primal(move |x| vec![rows_only(&rows_of(x, &LENS), w)])
        .jvp(move |x, t| {
            let (v, d) = rows_only_jvp(&rows_of(x, &LENS), w, &rows_of(t, &LENS));
            (vec![v], vec![d])
        })
        .vjp(move |x, c, g| {
            let mut bm = zeros();
            let v = rows_only_vjp(&rows_of(x, &LENS), w, &mut bm, c[0]);
            add_into(g, &flat_of(&bm));
            vec![v]
        })
        .random(2, -1.0, 1.0);
    let m = rows_of(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9], &LENS);
    Harness::new(1)
        .primal(|x| vec![weight_only(&m, x[0])])
        .jvp(|x, t| {
            let (v, d) = weight_only_jvp(&m, x[0], t[0]);
            (vec![v], vec![d])
        })
        .vjp(|x, c, g| {
            let mut bw = 0.0;
            let v = weight_only_vjp(&m, x[0], &mut bw, c[0]);
            g[0] += bw;
            vec![v]
        })
        .random(2, -1.0, 1.0);
    let (_, g) = rows_only_grad(&m, w);
    assert_eq!(g.m.iter().map(Vec::len).collect::<Vec<_>>(), LENS);
}

/// f32 elements, by value (`Vec<Vec<f32>>`).
#[differentiate]
fn owned32(m: Vec<Vec<f32>>, w: f32) -> f32 {
    let mut s = 0.0;
    for (i, r) in m.iter().enumerate() {
        let t: f32 = r.iter().map(|x| (w * x).sin()).sum();
        s += t * (i as f32 + 1.0);
    }
    s + m[0][1] * m[3][3]
}

#[test]
fn f32_rows_by_value() {
    let n = total();
    Harness::new(n + 1)
        .f32()
        .primal(move |x| {
            let m = rows_of(&to32(&x[1..]), &LENS);
            vec![owned32(m, x[0] as f32) as f64]
        })
        .jvp(move |x, t| {
            let m = rows_of(&to32(&x[1..]), &LENS);
            let dm = rows_of(&to32(&t[1..]), &LENS);
            let (v, d) = owned32_jvp(m, x[0] as f32, &dm, t[0] as f32);
            (vec![v as f64], vec![d as f64])
        })
        .vjp(move |x, c, g| {
            let m = rows_of(&to32(&x[1..]), &LENS);
            let mut bm: Vec<Vec<f32>> = LENS.iter().map(|&n| vec![0.0; n]).collect();
            let mut bw = 0.0f32;
            let v = owned32_vjp(m, x[0] as f32, &mut bm, &mut bw, c[0] as f32);
            g[0] += bw as f64;
            add_into(&mut g[1..], &to64(&flat_of(&bm)));
            vec![v as f64]
        })
        .random(2, -1.0, 1.0);
}

/// Generic over the float type, in place through `&mut [Vec<T>]`.
#[differentiate]
fn generic_rows<T: Float>(m: &mut [Vec<T>], s: T) -> T {
    let mut acc = T::zero();
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            m[i][j] = m[i][j] * s + (m[i][j] * m[i][j]).sqrt();
            acc = acc + m[i][j];
        }
    }
    acc
}

#[test]
fn generic_elements_f64_and_f32() {
    let n = total();
    let check = |f32_: bool| {
        let h = Harness::new(n + 1)
            .primal(move |x| {
                if f32_ {
                    let mut m = rows_of(&to32(&x[1..]), &LENS);
                    let v = generic_rows(&mut m, x[0] as f32) as f64;
                    [vec![v], to64(&flat_of(&m))].concat()
                } else {
                    let mut m = rows_of(&x[1..], &LENS);
                    let v = generic_rows(&mut m, x[0]);
                    [vec![v], flat_of(&m)].concat()
                }
            })
            .jvp(move |x, t| {
                if f32_ {
                    let mut m = rows_of(&to32(&x[1..]), &LENS);
                    let mut dm = rows_of(&to32(&t[1..]), &LENS);
                    let (v, d) = generic_rows_jvp(&mut m, x[0] as f32, &mut dm, t[0] as f32);
                    (
                        [vec![v as f64], to64(&flat_of(&m))].concat(),
                        [vec![d as f64], to64(&flat_of(&dm))].concat(),
                    )
                } else {
                    let mut m = rows_of(&x[1..], &LENS);
                    let mut dm = rows_of(&t[1..], &LENS);
                    let (v, d) = generic_rows_jvp(&mut m, x[0], &mut dm, t[0]);
                    (
                        [vec![v], flat_of(&m)].concat(),
                        [vec![d], flat_of(&dm)].concat(),
                    )
                }
            })
            .vjp(move |x, c, g| {
                if f32_ {
                    let mut m = rows_of(&to32(&x[1..]), &LENS);
                    let mut bm = rows_of(&to32(&c[1..]), &LENS);
                    let mut bs = 0.0f32;
                    let v = generic_rows_vjp(&mut m, x[0] as f32, &mut bm, &mut bs, c[0] as f32);
                    g[0] += bs as f64;
                    add_into(&mut g[1..], &to64(&flat_of(&bm)));
                    [vec![v as f64], to64(&flat_of(&m))].concat()
                } else {
                    let mut m = rows_of(&x[1..], &LENS);
                    let mut bm = rows_of(&c[1..], &LENS);
                    let mut bs = 0.0;
                    let v = generic_rows_vjp(&mut m, x[0], &mut bm, &mut bs, c[0]);
                    g[0] += bs;
                    add_into(&mut g[1..], &flat_of(&bm));
                    [vec![v], flat_of(&m)].concat()
                }
            });
        if f32_ {
            h.f32().random(2, 0.5, 1.5)
        } else {
            h.random(2, 0.5, 1.5)
        }
    };
    check(false);
    check(true);
}

/// No rows at all, and only empty rows.
#[test]
fn no_rows_and_empty_rows() {
    let (v, g) = weighted_grad(&[], 0.5);
    assert_eq!((v, g.m.len(), g.w), (0.0, 0, 0.0));
    let (v, g) = weighted_grad(&[vec![], vec![]], 0.5);
    assert_eq!((v, g.m, g.w), (0.0, vec![vec![], vec![]], 0.0));
}

#[test]
#[should_panic(expected = "row 1 of `dm` has length 1 but row 1 of `m` has length 0")]
fn a_tangent_with_other_row_lengths_panics() {
    let m = vec![vec![1.0, 2.0], vec![]];
    let dm = vec![vec![1.0, 0.0], vec![1.0]];
    let _ = weighted_jvp(&m, 0.5, &dm, 0.0);
}

#[test]
#[should_panic(expected = "`dm` has 1 rows but `m` has 2")]
fn an_adjoint_with_other_rows_panics() {
    let m = vec![vec![1.0, 2.0], vec![]];
    let mut bm = vec![vec![0.0, 0.0]];
    let mut bw = 0.0;
    let _ = weighted_vjp(&m, 0.5, &mut bm, &mut bw, 1.0);
}

/// A method taking rows (its receiver's fields unused).
struct Scaler;

impl Scaler {
    #[differentiate]
    fn apply(&self, m: &[Vec<f64>], x: f64) -> f64 {
        let mut s = 0.0;
        for r in m {
            for v in r.iter() {
                s += v * v * x;
            }
        }
        s
    }
}

#[test]
fn a_method_taking_rows() {
    let m = vec![vec![2.0], vec![], vec![1.0, 3.0]];
    let dm = vec![vec![1.0], vec![], vec![0.0, 1.0]];
    let (v, d) = Scaler.apply_jvp(&m, 0.5, &dm, 0.0);
    assert_eq!((v, d), (7.0, 2.0 * 2.0 * 0.5 + 2.0 * 3.0 * 0.5));
    let (v, (gm, gx)) = Scaler.apply_grad(&m, 0.5);
    assert_eq!((v, gx), (7.0, 14.0));
    assert_eq!(gm, vec![vec![2.0], vec![], vec![1.0, 3.0]]);
}

/// Rows zipped with rows, mapped, reversed and skipped; `is_empty` of the whole and of a row;
/// rows written through `iter_mut` zipped with rows read.
#[differentiate]
fn pairs(m: &mut [Vec<f64>], a: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    if m.is_empty() || !a[1].is_empty() {
        return s;
    }
    for (r, q) in m.iter().zip(a.iter()) {
        for j in 0..r.len() {
            s += r[j] * q[j].cos();
        }
    }
    let firsts: f64 = a
        .iter()
        .map(|q| if q.is_empty() { 0.0 } else { q[0] * q[0] })
        .sum();
    for r in m.iter().rev().skip(1) {
        if !r.is_empty() {
            s += r[0].sinh();
        }
    }
    for (r, q) in m.iter_mut().zip(a.iter()) {
        for j in 0..r.len() {
            r[j] = r[j] * q[j] + s * 0.1;
        }
    }
    s + firsts
}

#[test]
fn rows_zipped_mapped_and_reversed() {
    let n = total();
    Harness::new(2 * n)
        .primal(move |x| {
            let mut m = rows_of(&x[..n], &LENS);
            let v = pairs(&mut m, &rows_of(&x[n..], &LENS));
            [vec![v], flat_of(&m)].concat()
        })
        .jvp(move |x, t| {
            let (mut m, a) = (rows_of(&x[..n], &LENS), rows_of(&x[n..], &LENS));
            let (mut dm, da) = (rows_of(&t[..n], &LENS), rows_of(&t[n..], &LENS));
            let (v, d) = pairs_jvp(&mut m, &a, &mut dm, &da);
            (
                [vec![v], flat_of(&m)].concat(),
                [vec![d], flat_of(&dm)].concat(),
            )
        })
        .vjp(move |x, c, g| {
            let (mut m, a) = (rows_of(&x[..n], &LENS), rows_of(&x[n..], &LENS));
            let (mut bm, mut ba) = (rows_of(&c[1..], &LENS), zeros());
            let v = pairs_vjp(&mut m, &a, &mut bm, &mut ba, c[0]);
            add_into(&mut g[..n], &flat_of(&bm));
            add_into(&mut g[n..], &flat_of(&ba));
            [vec![v], flat_of(&m)].concat()
        })
        .random(3, -1.0, 1.0);
}

/// A `&mut Vec<Vec<T>>` left out of `wrt(...)`: a workspace written and read back.
#[differentiate(wrt(x))]
fn with_workspace(x: &[f64], ws: &mut Vec<Vec<f64>>) -> f64 {
    let mut s = 0.0;
    for i in 0..ws.len() {
        for j in 0..ws[i].len() {
            ws[i][j] = x[(i + j) % x.len()] * (j as f64 + 1.0);
        }
    }
    for r in ws.iter() {
        for v in r.iter() {
            s += v.sin() * v;
        }
    }
    s
}

#[test]
fn a_workspace_of_rows() {
    Harness::new(3)
        .primal(|x| {
            let mut ws: Vec<Vec<f64>> = LENS.iter().map(|&n| vec![9.0; n]).collect();
            vec![with_workspace(x, &mut ws)]
        })
        .jvp(|x, t| {
            let mut ws: Vec<Vec<f64>> = LENS.iter().map(|&n| vec![9.0; n]).collect();
            let (v, d) = with_workspace_jvp(x, &mut ws, t);
            (vec![v], vec![d])
        })
        .vjp(|x, c, g| {
            let mut ws: Vec<Vec<f64>> = LENS.iter().map(|&n| vec![9.0; n]).collect();
            let v = with_workspace_vjp(x, &mut ws, g, c[0]);
            assert_eq!(ws[3][1], x[1] * 2.0);
            vec![v]
        })
        .random(3, -1.0, 1.0);
}

/// A `Vec` output from rows (one item per row, an empty row giving 0), with its Jacobian.
#[differentiate]
fn row_sums(m: &[Vec<f64>], w: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(m.len());
    for r in m.iter() {
        let s: f64 = r.iter().map(|x| (x * w).exp()).sum();
        out.push(s);
    }
    out
}

/// Rows by value, declared `mut` and written before they are read.
#[differentiate]
fn owned_mut(mut m: Vec<Vec<f64>>, k: f64) -> f64 {
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            m[i][j] = m[i][j] * k + (j as f64);
        }
    }
    let mut s = 0.0;
    for r in m.iter() {
        for x in r.iter() {
            s += x.tanh();
        }
    }
    s
}

#[test]
fn vec_output_and_rows_by_value_written() {
    let n = total();
    Harness::new(n + 1)
        .primal(move |x| row_sums(&rows_of(&x[1..], &LENS), x[0]))
        .jvp(move |x, t| {
            let m = rows_of(&x[1..], &LENS);
            row_sums_jvp(&m, x[0], &rows_of(&t[1..], &LENS), t[0])
        })
        .vjp(move |x, c, g| {
            let m = rows_of(&x[1..], &LENS);
            let (mut bm, mut bw) = (zeros(), 0.0);
            let v = row_sums_vjp(&m, x[0], &mut bm, &mut bw, c);
            g[0] += bw;
            add_into(&mut g[1..], &flat_of(&bm));
            v
        })
        .random(3, -1.0, 1.0);
    // The Jacobian: a row per output, columns `m`'s elements then `w`.
    let m = rows_of(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9], &LENS);
    let (v, j) = row_sums_jacobian(&m, 0.5);
    assert_eq!(v[1], 0.0);
    assert_eq!((j.rows(), j.cols()), (LENS.len(), n + 1));
    assert!((j[(2, 3)] - 0.5 * (0.4f64 * 0.5).exp()).abs() < 1e-12);
    assert!((j[(2, 4)] - 0.5 * (0.5f64 * 0.5).exp()).abs() < 1e-12);
    assert_eq!(j[(1, 4)], 0.0);
    Harness::new(n + 1)
        .primal(move |x| vec![owned_mut(rows_of(&x[1..], &LENS), x[0])])
        .jvp(move |x, t| {
            let m = rows_of(&x[1..], &LENS);
            let (v, d) = owned_mut_jvp(m, x[0], &rows_of(&t[1..], &LENS), t[0]);
            (vec![v], vec![d])
        })
        .vjp(move |x, c, g| {
            let m = rows_of(&x[1..], &LENS);
            let (mut bm, mut bk) = (zeros(), 0.0);
            let v = owned_mut_vjp(m, x[0], &mut bm, &mut bk, c[0]);
            g[0] += bk;
            add_into(&mut g[1..], &flat_of(&bm));
            vec![v]
        })
        .random(3, -1.0, 1.0);
}

/// Rows of a fixed length by value, declared `mut` and written (the owned tangent of a `Vec`
/// written in the body, as for `Vec<Vec<T>>`).
#[differentiate]
fn fixed_rows_written(mut p: Vec<[f64; 2]>, k: f64) -> f64 {
    p[0][0] = p[0][0] * k;
    p[1][1] += p[0][0].sin();
    p[0][0] + p[1][1] * p[1][0]
}

#[test]
fn fixed_rows_by_value_written() {
    Harness::new(5)
        .primal(|x| vec![fixed_rows_written(vec![[x[1], x[2]], [x[3], x[4]]], x[0])])
        .jvp(|x, t| {
            let p = vec![[x[1], x[2]], [x[3], x[4]]];
            let dp = [[t[1], t[2]], [t[3], t[4]]];
            let (v, d) = fixed_rows_written_jvp(p, x[0], &dp, t[0]);
            (vec![v], vec![d])
        })
        .vjp(|x, c, g| {
            let p = vec![[x[1], x[2]], [x[3], x[4]]];
            let (mut bp, mut bk) = ([[0.0; 2]; 2], 0.0);
            let v = fixed_rows_written_vjp(p, x[0], &mut bp, &mut bk, c[0]);
            g[0] += bk;
            add_into(&mut g[1..], bp.as_flattened());
            vec![v]
        })
        .random(3, -1.0, 1.0);
}

/// In-place methods on rows: `swap`, `fill`, `copy_from_slice`, `iter_mut` of one row.
#[differentiate]
fn row_methods(m: &mut [Vec<f64>], v: &[f64], x: f64) -> f64 {
    m[0].swap(0, 2);
    m[2].fill(x * x);
    m[3].copy_from_slice(&v[..4]);
    for y in m[0].iter_mut() {
        *y *= x;
    }
    m[0][0] * m[0][1] + m[2][1].sin() + m[3][2]
}

#[test]
fn in_place_methods_of_rows() {
    let n = total();
    Harness::new(n + 5)
        .primal(move |x| {
            let mut m = rows_of(&x[5..], &LENS);
            let y = row_methods(&mut m, &x[1..5], x[0]);
            [vec![y], flat_of(&m)].concat()
        })
        .jvp(move |x, t| {
            let mut m = rows_of(&x[5..], &LENS);
            let mut dm = rows_of(&t[5..], &LENS);
            let (y, d) = row_methods_jvp(&mut m, &x[1..5], x[0], &mut dm, &t[1..5], t[0]);
            (
                [vec![y], flat_of(&m)].concat(),
                [vec![d], flat_of(&dm)].concat(),
            )
        })
        .vjp(move |x, c, g| {
            let mut m = rows_of(&x[5..], &LENS);
            let mut bm = rows_of(&c[1..], &LENS);
            let (mut bv, mut bx) = (vec![0.0; 4], 0.0);
            let y = row_methods_vjp(&mut m, &x[1..5], x[0], &mut bm, &mut bv, &mut bx, c[0]);
            g[0] += bx;
            add_into(&mut g[1..5], &bv);
            add_into(&mut g[5..], &flat_of(&bm));
            [vec![y], flat_of(&m)].concat()
        })
        .random(3, -1.0, 1.0);
}

// ---------------------------------------------------------------------------------------------
// Locals holding rows: `vec![vec![x; c]; r]` and copies of rows (`m.clone()`)

/// A grid of rows built inside the function, written through `g[i][j]`, iterated by rows, and a
/// copy of the argument's rows written and read.
#[differentiate]
fn grid_local(m: &[Vec<f64>], w: f64, cols: usize) -> f64 {
    let rows = m.len();
    let mut g: Vec<Vec<f64>> = vec![vec![w; cols]; rows];
    for i in 0..rows {
        for j in 0..g[i].len() {
            if j < m[i].len() {
                g[i][j] = g[i][j] * m[i][j] + (j as f64);
            }
        }
    }
    let mut c = m.to_vec();
    for i in 0..c.len() {
        for j in 0..c[i].len() {
            c[i][j] = c[i][j].sin() * w;
        }
    }
    let mut s = 0.0;
    for r in g.iter() {
        for x in r.iter() {
            s += x * x;
        }
    }
    for (i, r) in c.iter().enumerate() {
        s += r.iter().sum::<f64>() * (i as f64 + 1.0);
    }
    s + g.len() as f64
}

/// An unannotated local grid (`mut`), rows lent to another differentiated function, a row copied
/// (`to_vec`), f32.
#[differentiate]
fn grid32(v: &[f32], k: f32) -> f32 {
    let mut g = vec![vec![0.0f32; v.len()]; 3];
    for i in 0..3 {
        for j in 0..v.len() {
            g[i][j] = v[j] * (k + i as f32);
        }
    }
    let last = g[2].to_vec();
    let mut s = 0.0f32;
    for i in 0..g.len() {
        s += norm32(&g[i]);
    }
    s + last[0] * k
}

#[differentiate]
fn norm32(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

#[test]
fn local_rows_in_both_modes() {
    let n = total();
    Harness::new(n + 1)
        .primal(move |x| vec![grid_local(&rows_of(&x[1..], &LENS), x[0], 3)])
        .jvp(move |x, t| {
            let m = rows_of(&x[1..], &LENS);
            let (v, d) = grid_local_jvp(&m, x[0], 3, &rows_of(&t[1..], &LENS), t[0]);
            (vec![v], vec![d])
        })
        .vjp(move |x, c, g| {
            let m = rows_of(&x[1..], &LENS);
            let (mut bm, mut bw) = (zeros(), 0.0);
            let v = grid_local_vjp(&m, x[0], 3, &mut bm, &mut bw, c[0]);
            g[0] += bw;
            add_into(&mut g[1..], &flat_of(&bm));
            vec![v]
        })
        .random(4, -1.0, 1.0);
    // The primal against the same code on real rows.
    let m = rows_of(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9], &LENS);
    let mut want = 4.0;
    for (i, r) in m.iter().enumerate() {
        for j in 0..3 {
            let x = if j < r.len() {
                0.7 * r[j] + j as f64
            } else {
                0.7
            };
            want += x * x;
        }
        want += r.iter().map(|x| x.sin() * 0.7).sum::<f64>() * (i as f64 + 1.0);
    }
    assert!((grid_local(&m, 0.7, 3) - want).abs() < 1e-12);
}

#[test]
fn local_rows_f32() {
    let v = [0.3f32, -0.4, 0.5];
    let k = 0.7f32;
    let (y, dy) = grid32_jvp(&v, k, &[1.0, 0.0, 0.0], 0.0);
    let (mut dv, mut dk) = ([0.0f32; 3], 0.0f32);
    let y2 = grid32_vjp(&v, k, &mut dv, &mut dk, 1.0);
    assert_eq!(y, y2);
    assert!((dy - dv[0]).abs() < 1e-5, "{dy} vs {}", dv[0]);
    let h = 1e-2f32;
    let mut vp = v;
    vp[0] += h;
    let mut vm = v;
    vm[0] -= h;
    let fd = (grid32(&vp, k) - grid32(&vm, k)) / (2.0 * h);
    assert!((fd - dv[0]).abs() < 2e-3, "{fd} vs {}", dv[0]);
    let fdk = (grid32(&v, k + h) - grid32(&v, k - h)) / (2.0 * h);
    assert!((fdk - dk).abs() < 2e-3, "{fdk} vs {dk}");
}
