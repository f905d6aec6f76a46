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
    let w = 0.7;
    Harness::new(total() + 1)
        .primal(|x| vec![weighted(&rows_of(&x[1..], &LENS), x[0])])
        .jvp(|x, t| {
            let (v, d) = weighted_jvp(
                &rows_of(&x[1..], &LENS),
                x[0],
                &rows_of(&t[1..], &LENS),
                t[0],
            );
            (vec![v], vec![d])
        })
        .vjp(|x, c, g| {
            let m = rows_of(&x[1..], &LENS);
            let mut bm: Vec<Vec<f64>> = LENS.iter().map(|&n| vec![0.0; n]).collect();
            let mut bw = 0.0;
            let v = weighted_vjp(&m, x[0], &mut bm, &mut bw, c[0]);
            g[0] += bw;
            for (a, b) in g[1..].iter_mut().zip(flat_of(&bm)) {
                *a += b;
            }
            vec![v]
        })
        .random(3, -1.5, 1.5);
    let _ = w;
}
