//! Fixed-size chunks of slices (issue 9): `first_chunk::<N>()` / `first_chunk_mut` in
//! `if let Some(c) = ..`, `let Some(c) = .. else { .. }` and `.unwrap()`/`.expect(..)`, and
//! `as_chunks::<N>()` / `as_chunks_mut`, each in both modes against central differences and
//! the dot-product test (the harness), f64 and f32.
#![allow(clippy::all)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

// ---------------------------------------------------------------------------------------------
// first_chunk
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn head3(x: f64, v: &[f64]) -> f64 {
    let mut s = x;
    if let Some(c) = v.first_chunk::<3>() {
        s += c[0] * c[1] + c[2].sin() * x;
    } else {
        s = s * v[0];
    }
    s
}

#[test]
fn first_chunk_if_let() {
    // Long enough (the chunk) and too short (the other branch).
    chk_xv!(head3, head3_jvp, head3_vjp; 4).random(6, -1.5, 1.5);
    chk_xv!(head3, head3_jvp, head3_vjp; 2).random(6, -1.5, 1.5);
}

#[differentiate]
fn dot3(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Chunks of a sub-slice, by `unwrap` and `expect`, lent to a function taking `&[f64; 3]`.
#[differentiate]
fn first_unwrap(x: f64, v: &[f64]) -> f64 {
    let c = v[1..].first_chunk::<3>().unwrap();
    let d = v.first_chunk::<3>().expect("three values");
    dot3(c, d) * x + c[2] * d[0].cos()
}

#[test]
fn first_chunk_unwrap() {
    chk_xv!(first_unwrap, first_unwrap_jvp, first_unwrap_vjp; 5).random(6, -1.5, 1.5);
}

#[test]
#[should_panic(expected = "first_chunk")]
fn first_chunk_unwrap_too_short() {
    let mut g = [0.0; 2];
    let mut gx = 0.0;
    first_unwrap_vjp(0.5, &[1.0, 2.0], &mut gx, &mut g, 1.0);
}

#[differentiate]
fn first_else(x: f64, v: &[f64]) -> f64 {
    let Some(c) = v.first_chunk::<2>() else {
        return x * x;
    };
    x * c[0] + c[1] * c[1]
}

#[test]
fn first_chunk_let_else() {
    chk_xv!(first_else, first_else_jvp, first_else_vjp; 3).random(6, -1.5, 1.5);
    chk_xv!(first_else, first_else_jvp, first_else_vjp; 1).random(6, -1.5, 1.5);
}

/// Written through `first_chunk_mut`, in a loop.
#[differentiate]
fn first_mut(x: f64, v: &[f64]) -> f64 {
    let mut w = v.to_vec();
    for _ in 0..2 {
        if let Some(c) = w.first_chunk_mut::<2>() {
            c[0] = c[0] * x;
            c[1] += c[0].sin();
        }
    }
    let mut s = 0.0;
    for y in w.iter() {
        s += y * y;
    }
    s
}

#[test]
fn first_chunk_mut_writes() {
    chk_xv!(first_mut, first_mut_jvp, first_mut_vjp; 3).random(6, -1.2, 1.2);
}

#[differentiate]
fn head3_32(x: f32, v: &[f32]) -> f32 {
    let Some(c) = v.first_chunk::<3>() else {
        return x;
    };
    c[0] * c[1] * x + c[2].exp()
}

#[test]
fn first_chunk_f32() {
    chk32_xv!(head3_32, head3_32_jvp, head3_32_vjp; 4).random(6, -1.2, 1.2);
}

// ---------------------------------------------------------------------------------------------
// as_chunks
// ---------------------------------------------------------------------------------------------

/// Chunks by index and by iteration, their count, and the rest.
#[differentiate]
fn chunk_sums(x: f64, v: &[f64]) -> f64 {
    let (chunks, rest) = v.as_chunks::<2>();
    let mut s = 0.0;
    for c in chunks {
        s += c[0] * c[1] * x;
    }
    for i in 0..chunks.len() {
        s += chunks[i][1].sin();
    }
    for (i, c) in chunks.iter().enumerate() {
        s += (i as f64) * c[0];
    }
    for r in rest {
        s += r * r;
    }
    s + rest.len() as f64 * x
}

#[test]
fn as_chunks_reads() {
    // An odd length (a rest) and an even one (none).
    chk_xv!(chunk_sums, chunk_sums_jvp, chunk_sums_vjp; 5).random(6, -1.5, 1.5);
    chk_xv!(chunk_sums, chunk_sums_jvp, chunk_sums_vjp; 4).random(6, -1.5, 1.5);
}

#[differentiate]
fn row_norm(r: &[f64; 3]) -> f64 {
    (r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + 1.0).sqrt()
}

#[differentiate]
fn rows_total(rows: &[[f64; 3]]) -> f64 {
    let mut s = 0.0;
    for r in rows {
        s += r[0] - r[2] * r[1];
    }
    s
}

/// A chunk lent as `&[f64; 3]`, all chunks lent as `&[[f64; 3]]`, of a sub-slice.
#[differentiate]
fn chunks_lent(x: f64, v: &[f64]) -> f64 {
    let (chunks, rest) = v[1..].as_chunks::<3>();
    let mut s = rows_total(chunks) * x;
    for i in 0..chunks.len() {
        s += row_norm(&chunks[i]);
    }
    if !rest.is_empty() {
        s += rest[0] * x;
    }
    s
}

#[test]
fn as_chunks_lent() {
    chk_xv!(chunks_lent, chunks_lent_jvp, chunks_lent_vjp; 8).random(6, -1.5, 1.5);
    chk_xv!(chunks_lent, chunks_lent_jvp, chunks_lent_vjp; 7).random(6, -1.5, 1.5);
}

/// Written through `as_chunks_mut`: by index and by `iter_mut`.
#[differentiate]
fn chunks_written(x: f64, v: &[f64]) -> f64 {
    let mut w = v.to_vec();
    let (chunks, rest) = w.as_chunks_mut::<2>();
    for i in 0..chunks.len() {
        chunks[i][0] = chunks[i][0] * x + chunks[i][1];
    }
    for c in chunks.iter_mut() {
        c[1] *= c[0].cos();
    }
    for r in rest.iter_mut() {
        *r = *r * x;
    }
    let mut s = 0.0;
    for y in w.iter() {
        s += y * y;
    }
    s
}

#[test]
fn as_chunks_mut_writes() {
    chk_xv!(chunks_written, chunks_written_jvp, chunks_written_vjp; 5).random(6, -1.2, 1.2);
}

#[differentiate]
fn chunk_sums32(x: f32, v: &[f32]) -> f32 {
    let (chunks, rest) = v.as_chunks::<2>();
    let mut s = 0.0;
    for c in chunks.iter() {
        s += c[0] * c[1].sin() * x;
    }
    for r in rest {
        s += *r;
    }
    s
}

#[test]
fn as_chunks_f32() {
    chk32_xv!(chunk_sums32, chunk_sums32_jvp, chunk_sums32_vjp; 5).random(6, -1.2, 1.2);
}
