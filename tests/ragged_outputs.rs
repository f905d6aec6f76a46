//! Issue 10, rows of `Vec`s as outputs: `-> Vec<Vec<T>>` whose value is a local built by
//! `vec![vec![x; cols]; rows]` (or a copy of rows, `m.to_vec()` of a ragged argument). `_jvp`
//! gives the rows and their tangent as rows, `_vjp` takes the seed as `&[Vec<T>]` (checked to
//! have the output's row lengths; an empty seed is zero). Both modes against central
//! differences and by the dot-product test.

#![allow(clippy::needless_range_loop, clippy::ptr_arg, dead_code)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

fn rows_of(flat: &[f64], lens: &[usize]) -> Vec<Vec<f64>> {
    let mut at = 0;
    lens.iter()
        .map(|&n| {
            let r = flat[at..at + n].to_vec();
            at += n;
            r
        })
        .collect()
}

fn flat_of(rows: &[Vec<f64>]) -> Vec<f64> {
    rows.iter().flatten().copied().collect()
}

fn add_into(g: &mut [f64], b: &[f64]) {
    for (a, b) in g.iter_mut().zip(b) {
        *a += b;
    }
}

/// An outer product with a nonlinearity, `r x c` rows built in the body.
#[differentiate]
fn outer(a: &[f64], b: &[f64]) -> Vec<Vec<f64>> {
    let mut m = vec![vec![0.0; b.len()]; a.len()];
    for i in 0..a.len() {
        for j in 0..b.len() {
            m[i][j] = (a[i] * b[j]).sin() + a[i] * a[i];
        }
    }
    m
}

#[test]
fn rows_built_in_the_body() {
    let (na, nb) = (3, 4);
    Harness::new(na + nb)
        .primal(|x| flat_of(&outer(&x[..na], &x[na..])))
        .jvp(|x, t| {
            let (v, d) = outer_jvp(&x[..na], &x[na..], &t[..na], &t[na..]);
            assert_eq!(v.len(), na);
            assert!(v.iter().all(|r| r.len() == nb));
            assert!(d.iter().all(|r| r.len() == nb));
            (flat_of(&v), flat_of(&d))
        })
        .vjp(|x, c, g| {
            let (mut da, mut db) = (vec![0.0; na], vec![0.0; nb]);
            let seed = rows_of(c, &[nb; 3]);
            let v = outer_vjp(&x[..na], &x[na..], &mut da, &mut db, &seed);
            add_into(&mut g[..na], &da);
            add_into(&mut g[na..], &db);
            flat_of(&v)
        })
        .random(3, -1.5, 1.5);
    // The value is the primal's, rows and all.
    let (a, b) = ([0.5, -1.0, 2.0], [1.0, 0.25, -0.5, 3.0]);
    assert_eq!(outer_jvp(&a, &b, &[0.0; 3], &[0.0; 4]).0, outer(&a, &b));
}

/// Rows of different lengths: a copy of a ragged argument's rows, changed element by element.
#[differentiate]
fn scaled_rows(m: &[Vec<f64>], w: f64) -> Vec<Vec<f64>> {
    let mut out = m.to_vec();
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            out[i][j] = w * m[i][j] * m[i][j] + (j as f64) * w.exp();
        }
    }
    out
}

#[test]
fn rows_of_different_lengths() {
    let lens = [2, 0, 3, 1];
    let n: usize = lens.iter().sum();
    Harness::new(n + 1)
        .primal(|x| flat_of(&scaled_rows(&rows_of(&x[1..], &lens), x[0])))
        .jvp(|x, t| {
            let m = rows_of(&x[1..], &lens);
            let (v, d) = scaled_rows_jvp(&m, x[0], &rows_of(&t[1..], &lens), t[0]);
            assert_eq!(v.iter().map(Vec::len).collect::<Vec<_>>(), lens);
            (flat_of(&v), flat_of(&d))
        })
        .vjp(|x, c, g| {
            let m = rows_of(&x[1..], &lens);
            let mut dm: Vec<Vec<f64>> = lens.iter().map(|&k| vec![0.0; k]).collect();
            let mut dw = 0.0;
            let v = scaled_rows_vjp(&m, x[0], &mut dm, &mut dw, &rows_of(c, &lens));
            g[0] += dw;
            add_into(&mut g[1..], &flat_of(&dm));
            flat_of(&v)
        })
        .random(3, -1.0, 1.0);
}

/// An empty seed is a zero seed (what a caller dropping the value passes).
#[test]
fn an_empty_seed_is_zero() {
    let (mut da, mut db) = (vec![0.0; 2], vec![0.0; 2]);
    let v = outer_vjp(&[1.0, 2.0], &[3.0, 4.0], &mut da, &mut db, &[]);
    assert_eq!(v, outer(&[1.0, 2.0], &[3.0, 4.0]));
    assert_eq!((da, db), (vec![0.0; 2], vec![0.0; 2]));
}

#[test]
#[should_panic(expected = "row 1 of `seed` has length 1 but row 1 of `the output` has length 2")]
fn a_seed_with_other_row_lengths_panics() {
    let (mut da, mut db) = (vec![0.0; 2], vec![0.0; 2]);
    let seed = vec![vec![1.0, 1.0], vec![1.0]];
    outer_vjp(&[1.0, 2.0], &[3.0, 4.0], &mut da, &mut db, &seed);
}
