//! Issue 10, nested arrays: `[[T; C]; R]`, `&[[T; C]]`, `&mut [[T; C]]`, `Vec<[T; C]>` as
//! arguments, locals and outputs; `m[i][j]` reads and writes, rows borrowed (`&p[i]`, passed to
//! functions taking `&[f64; 3]`), copied (`let r = p[i];`), assigned (`p[i] = [..]`) and
//! iterated (`for q in p.iter()`, `iter_mut`, `zip`, `map`); nested literals. Both modes against
//! central differences and by the dot-product test.

#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::needless_borrow,
    dead_code
)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;
use num_traits::Float;

/// Squared distance of two points.
#[differentiate]
fn dist2(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    let mut s = 0.0;
    for k in 0..3 {
        let d = a[k] - b[k];
        s += d * d;
    }
    s
}

/// Pair energy of particles at `p` (springs of rest length 1), rows passed to `dist2`.
#[differentiate]
fn pair_energy(p: &[[f64; 3]], k: f64) -> f64 {
    let n = p.len();
    let mut e = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let r = dist2(&p[i], &p[j]).sqrt();
            e += 0.5 * k * (r - 1.0) * (r - 1.0);
        }
    }
    e
}

/// `R v` with `R` by reference and `v` by value.
#[differentiate]
fn rot_apply(r: &[[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
    let mut out = [0.0; 3];
    for i in 0..3 {
        for j in 0..3 {
            out[i] += r[i][j] * v[j];
        }
    }
    out
}

/// A 3x3 matrix product by value, into a local nested array, returned nested.
#[differentiate]
fn matmul3(a: [[f64; 3]; 3], b: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                c[i][j] += a[i][k] * b[k][j];
            }
        }
    }
    c
}

/// A rotation matrix, written as a nested literal.
#[differentiate]
fn rotation(theta: f64) -> [[f64; 2]; 2] {
    let (s, c) = (theta.sin(), theta.cos());
    [[c, -s], [s, c]]
}

/// Iteration over rows: `for q in p.iter()`, `map` over rows, a borrowed row, a copied row,
/// `p[i].iter()` and `p[i].len()`.
#[differentiate]
fn row_stats(p: &[[f64; 3]]) -> f64 {
    let mut s = 0.0;
    for q in p.iter() {
        s += q[0] * q[1] - q[2].sin();
    }
    let m: f64 = p.iter().map(|q| q[0] * q[2]).sum();
    let r = &p[1];
    let c = p[0];
    let t: f64 = p[2].iter().map(|x| x * x).sum();
    s * m + r[0] * c[2] + t * (p[0].len() as f64) + c[1].exp()
}

/// Explicit Euler step of particles in place: `iter_mut` over rows zipped with rows, a row
/// assigned, a row lent `&mut` to a function.
#[differentiate]
fn drift(x: &mut [[f64; 2]], v: &[[f64; 2]], dt: f64) {
    for (xi, vi) in x.iter_mut().zip(v.iter()) {
        xi[0] += dt * vi[0];
        xi[1] += dt * vi[1] * xi[0];
    }
    let a = x[0][0];
    x[0] = [a * x[1][1], x[1][0] + dt];
    push_out(&mut x[1], dt);
}

/// Scales a point in place.
#[differentiate]
fn push_out(q: &mut [f64; 2], s: f64) {
    q[0] *= 1.0 + s;
    q[1] = q[1] * q[0];
}

/// `Vec<[f64; 3]>` by value, a `vec![[0.0; 3]; n]` local, a `Vec<[f64; 3]>` output.
#[differentiate]
fn cumulative(p: Vec<[f64; 3]>, w: f64) -> Vec<[f64; 3]> {
    let n = p.len();
    let mut out = vec![[0.0; 3]; n];
    out[0] = p[0];
    for i in 1..n {
        for k in 0..3 {
            out[i][k] = w * out[i - 1][k] + p[i][k] * p[i][k];
        }
    }
    out
}

/// Generic over the float type.
#[differentiate]
fn generic_norms<T: Float>(p: &[[T; 2]]) -> T {
    let mut s = T::zero();
    for i in 0..p.len() {
        s = s + (p[i][0] * p[i][0] + p[i][1] * p[i][1]).sqrt();
    }
    s
}

fn rows<const C: usize>(flat: &[f64]) -> Vec<[f64; C]> {
    flat.as_chunks::<C>().0.to_vec()
}

fn flat<const C: usize>(rows: &[[f64; C]]) -> Vec<f64> {
    rows.as_flattened().to_vec()
}

#[test]
fn pair_energy_over_rows_of_positions() {
    let k = 1.7;
    Harness::new(12)
        .primal(move |p| vec![pair_energy(&rows::<3>(p), k)])
        .jvp(move |p, t| {
            let (v, d) = pair_energy_jvp(&rows::<3>(p), k, &rows::<3>(t), 0.0);
            (vec![v], vec![d])
        })
        .vjp(move |p, c, g| {
            let mut bp = vec![[0.0; 3]; 4];
            let mut bk = 0.0;
            let v = pair_energy_vjp(&rows::<3>(p), k, &mut bp, &mut bk, c[0]);
            for (a, b) in g.iter_mut().zip(flat(&bp)) {
                *a += b;
            }
            vec![v]
        })
        .random(4, -2.0, 2.0);
    // The gradient struct holds rows.
    let p = [[0.0, 0.0, 0.0], [1.5, 0.0, 0.0]];
    let (e, g) = pair_energy_grad(&p, 2.0);
    assert!((e - 0.25).abs() < 1e-12);
    assert!((g.p[0][0] + 1.0).abs() < 1e-12 && (g.p[1][0] - 1.0).abs() < 1e-12);
    assert!((g.k - 0.125).abs() < 1e-12);
}

#[test]
fn matrix_vector_and_matrix_products() {
    Harness::new(12)
        .primal(|p| {
            let r: [[f64; 3]; 3] = rows::<3>(&p[..9]).try_into().unwrap();
            rot_apply(&r, [p[9], p[10], p[11]]).to_vec()
        })
        .jvp(|p, t| {
            let r: [[f64; 3]; 3] = rows::<3>(&p[..9]).try_into().unwrap();
            let dr: [[f64; 3]; 3] = rows::<3>(&t[..9]).try_into().unwrap();
            let (v, d) = rot_apply_jvp(&r, [p[9], p[10], p[11]], &dr, [t[9], t[10], t[11]]);
            (v.to_vec(), d.to_vec())
        })
        .vjp(|p, c, g| {
            let r: [[f64; 3]; 3] = rows::<3>(&p[..9]).try_into().unwrap();
            let mut br = [[0.0; 3]; 3];
            let mut bv = [0.0; 3];
            let v = rot_apply_vjp(
                &r,
                [p[9], p[10], p[11]],
                &mut br,
                &mut bv,
                [c[0], c[1], c[2]],
            );
            for (k, b) in flat(&br).iter().chain(&bv).enumerate() {
                g[k] += b;
            }
            v.to_vec()
        })
        .random(3, -1.0, 1.0);
    let m = |x: &[f64]| -> [[f64; 3]; 3] { rows::<3>(x).try_into().unwrap() };
    Harness::new(18)
        .primal(move |p| flat(&matmul3(m(&p[..9]), m(&p[9..]))))
        .jvp(move |p, t| {
            let (v, d) = matmul3_jvp(m(&p[..9]), m(&p[9..]), m(&t[..9]), m(&t[9..]));
            (flat(&v), flat(&d))
        })
        .vjp(move |p, c, g| {
            let (mut ba, mut bb) = ([[0.0; 3]; 3], [[0.0; 3]; 3]);
            let v = matmul3_vjp(m(&p[..9]), m(&p[9..]), &mut ba, &mut bb, m(c));
            for (k, b) in flat(&ba).iter().chain(&flat(&bb)).enumerate() {
                g[k] += b;
            }
            flat(&v)
        })
        .random(3, -1.0, 1.0);
}

#[test]
fn nested_literal_output() {
    let (r, dr) = rotation_jvp(0.3, 1.0);
    assert_eq!(r, rotation(0.3));
    assert!((dr[0][1] + 0.3f64.cos()).abs() < 1e-15 && (dr[1][1] + 0.3f64.sin()).abs() < 1e-15);
    Harness::new(1)
        .primal(|p| flat(&rotation(p[0])))
        .jvp(|p, t| {
            let (v, d) = rotation_jvp(p[0], t[0]);
            (flat(&v), flat(&d))
        })
        .vjp(|p, c, g| {
            let seed: [[f64; 2]; 2] = rows::<2>(c).try_into().unwrap();
            flat(&rotation_vjp(p[0], &mut g[0], seed))
        })
        .random(4, -3.0, 3.0);
}

#[test]
fn iteration_over_rows() {
    Harness::new(12)
        .primal(|p| vec![row_stats(&rows::<3>(p))])
        .jvp(|p, t| {
            let (v, d) = row_stats_jvp(&rows::<3>(p), &rows::<3>(t));
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let mut bp = vec![[0.0; 3]; 4];
            let v = row_stats_vjp(&rows::<3>(p), &mut bp, c[0]);
            for (a, b) in g.iter_mut().zip(flat(&bp)) {
                *a += b;
            }
            vec![v]
        })
        .random(4, -1.0, 1.0);
}

#[test]
fn rows_written_in_place() {
    // Inputs: x (3 rows of 2), v (3 rows of 2), dt; outputs: x's final contents.
    Harness::new(13)
        .primal(|p| {
            let mut x = rows::<2>(&p[..6]);
            drift(&mut x, &rows::<2>(&p[6..12]), p[12]);
            flat(&x)
        })
        .jvp(|p, t| {
            let mut x = rows::<2>(&p[..6]);
            let mut dx = rows::<2>(&t[..6]);
            drift_jvp(
                &mut x,
                &rows::<2>(&p[6..12]),
                p[12],
                &mut dx,
                &rows::<2>(&t[6..12]),
                t[12],
            );
            (flat(&x), flat(&dx))
        })
        .vjp(|p, c, g| {
            let mut x = rows::<2>(&p[..6]);
            let mut bx = rows::<2>(c);
            let mut bv = vec![[0.0; 2]; 3];
            let mut bdt = 0.0;
            drift_vjp(
                &mut x,
                &rows::<2>(&p[6..12]),
                p[12],
                &mut bx,
                &mut bv,
                &mut bdt,
            );
            for (k, b) in flat(&bx).iter().chain(&flat(&bv)).chain([&bdt]).enumerate() {
                g[k] += b;
            }
            flat(&x)
        })
        .random(4, -1.0, 1.0);
}

#[test]
fn vec_of_rows_by_value_and_as_output() {
    Harness::new(10)
        .primal(|p| flat(&cumulative(rows::<3>(&p[..9]), p[9])))
        .jvp(|p, t| {
            let (v, d) = cumulative_jvp(rows::<3>(&p[..9]), p[9], &rows::<3>(&t[..9]), t[9]);
            (flat(&v), flat(&d))
        })
        .vjp(|p, c, g| {
            let mut bp = vec![[0.0; 3]; 3];
            let mut bw = 0.0;
            let v = cumulative_vjp(rows::<3>(&p[..9]), p[9], &mut bp, &mut bw, &rows::<3>(c));
            for (k, b) in flat(&bp).iter().chain([&bw]).enumerate() {
                g[k] += b;
            }
            flat(&v)
        })
        .random(4, -1.0, 1.0);
}

#[test]
fn generic_float_rows_f32_and_f64() {
    let p = [[3.0f64, 4.0], [0.6, 0.8]];
    let (v, g) = generic_norms_grad(&p);
    assert!((v - 6.0).abs() < 1e-12);
    assert!((g.p[0][0] - 0.6).abs() < 1e-12 && (g.p[1][1] - 0.8).abs() < 1e-12);
    let p32 = [[3.0f32, 4.0], [0.6, 0.8]];
    let (v32, d32) = generic_norms_jvp(&p32, &[[1.0, 0.0], [0.0, 1.0]]);
    assert!((v32 - 6.0).abs() < 1e-6 && (d32 - 1.4).abs() < 1e-6);
}

/// Pass-through macros naming a nested array and a row see rows, as in the function.
#[differentiate]
fn checked(p: &[[f64; 2]], x: f64) -> f64 {
    assert_eq!(p.len(), 3, "three points");
    let mut s = 0.0;
    for i in 0..p.len() {
        debug_assert!(p[i].len() == 2 && p[i][0] < 1e9);
        s += p[i][0] * p[i][1] * x;
    }
    s
}

#[test]
fn macros_see_rows() {
    let p = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];
    let (v, g) = checked_grad(&p, 2.0);
    assert_eq!(v, 88.0);
    assert_eq!(g.p[2], [12.0, 10.0]);
    assert_eq!(g.x, 44.0);
    let (_, d) = checked_jvp(&p, 2.0, &[[0.0; 2]; 3], 1.0);
    assert_eq!(d, 44.0);
}

/// Sum of `x * y` over the rows.
#[differentiate]
fn row_products(p: &[[f64; 2]]) -> f64 {
    p.iter().map(|q| q[0] * q[1]).sum()
}

/// Adds `s` times each row's swapped coordinates to it, in place.
#[differentiate]
fn shear(x: &mut [[f64; 2]], s: f64) {
    for q in x.iter_mut() {
        let a = q[0];
        q[0] += s * q[1];
        q[1] += s * a;
    }
}

/// Nested arrays passed whole to differentiated functions: an argument (`p`, `&p`), a local
/// `Vec` of rows (`&w`), written in place (`&mut w`, `&mut *x`).
#[differentiate]
fn passes_rows(p: &[[f64; 2]], x: &mut [[f64; 2]], s: f64) -> f64 {
    let mut w = p.to_vec();
    shear(&mut w, s);
    shear(&mut *x, s * s);
    let mut e = row_products(p) + row_products(&p) * s;
    e += row_products(&w) * row_products(x);
    let mut z = vec![[0.0; 2]; 3];
    z[1][0] = s;
    z[2][1] = e;
    shear(&mut z, 0.5);
    e + row_products(&z)
}

#[test]
fn nested_arrays_passed_whole() {
    // Inputs: p (3 rows of 2), x (3 rows of 2), s; outputs: the value, then x's final contents.
    Harness::new(13)
        .primal(|q| {
            let mut x = rows::<2>(&q[6..12]);
            let v = passes_rows(&rows::<2>(&q[..6]), &mut x, q[12]);
            let mut out = vec![v];
            out.extend(flat(&x));
            out
        })
        .jvp(|q, t| {
            let mut x = rows::<2>(&q[6..12]);
            let mut dx = rows::<2>(&t[6..12]);
            let (v, d) = passes_rows_jvp(
                &rows::<2>(&q[..6]),
                &mut x,
                q[12],
                &rows::<2>(&t[..6]),
                &mut dx,
                t[12],
            );
            let (mut out, mut dout) = (vec![v], vec![d]);
            out.extend(flat(&x));
            dout.extend(flat(&dx));
            (out, dout)
        })
        .vjp(|q, c, g| {
            let mut x = rows::<2>(&q[6..12]);
            let mut bp = vec![[0.0; 2]; 3];
            let mut bx = rows::<2>(&c[1..]);
            let mut bs = 0.0;
            let v = passes_rows_vjp(
                &rows::<2>(&q[..6]),
                &mut x,
                q[12],
                &mut bp,
                &mut bx,
                &mut bs,
                c[0],
            );
            for (k, b) in flat(&bp).iter().chain(&flat(&bx)).chain([&bs]).enumerate() {
                g[k] += b;
            }
            let mut out = vec![v];
            out.extend(flat(&x));
            out
        })
        .random(4, -1.0, 1.0);
}

#[test]
fn jacobians_of_nested_arrays() {
    // Rows: R v (3); columns: R (9, row-major), then v (3).
    let r = [[1.0, 2.0, 0.5], [0.0, -1.0, 3.0], [2.0, 1.0, 1.0]];
    let v = [0.3, -0.7, 1.1];
    let (value, j) = rot_apply_jacobian(&r, v);
    assert_eq!(value, rot_apply(&r, v));
    assert_eq!((j.rows(), j.cols()), (3, 12));
    for i in 0..3 {
        for k in 0..3 {
            assert_eq!(j[(i, 3 * i + k)], v[k]);
            assert_eq!(j[(i, 9 + k)], r[i][k]);
        }
    }
    // A nested output: rows are C's entries row-major.
    let a = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]];
    let (c, j) = matmul3_jacobian(a, a);
    assert_eq!(c, matmul3(a, a));
    assert_eq!((j.rows(), j.cols()), (9, 18));
    // d c[0][1] / d a[0][2] = a[2][1]; d c[0][1] / d b[2][1] = a[0][2].
    assert_eq!(j[(1, 2)], a[2][1]);
    assert_eq!(j[(1, 9 + 7)], a[0][2]);
    // An in-out slice of rows: rows are the final contents.
    let mut x = vec![[0.5, -0.25], [1.0, 2.0], [0.0, 1.5]];
    let vv = vec![[1.0, 0.0], [0.5, 0.5], [-1.0, 2.0]];
    let mut x2 = x.clone();
    drift(&mut x2, &vv, 0.1);
    let j = drift_jacobian(&mut x, &vv, 0.1);
    assert_eq!(x, x2);
    assert_eq!((j.rows(), j.cols()), (6, 13));
}

/// Product of a point's coordinates.
#[differentiate]
fn coord_product(a: &[f64; 2]) -> f64 {
    a[0] * a[1]
}

/// Rows of a nested array that is written later, lent to a function (random programs, helper
/// fuzzing: the reverse sweep's saved copy of the row was a slice, E0308).
#[differentiate]
fn lends_changing_rows(x: f64) -> f64 {
    let mut nm = [[x, 1.0], [2.0, x]];
    let mut s = 0.0;
    for i in 0..2 {
        s += coord_product(&nm[i]);
        nm[i][0] = s * x;
    }
    s + coord_product(&nm[1])
}

#[test]
fn rows_of_a_changing_nested_array_lent() {
    chk!(lends_changing_rows, lends_changing_rows_jvp, lends_changing_rows_vjp; 0)
        .random(6, -2.0, 2.0);
}

/// A row assigned from its own elements (the whole right-hand side is read first).
#[differentiate]
fn swap_coords(x: f64, y: f64) -> f64 {
    let mut p = [[x, y], [y, x * y]];
    p[0] = [p[0][1], p[0][0] * 2.0];
    p[1] = [p[0][0] + p[1][1], p[1][0]];
    p[0][0] * 3.0 + p[0][1] * 5.0 + p[1][0] * 7.0 + p[1][1] * 11.0
}

#[test]
fn row_assigned_from_itself() {
    // p[0] = [y, 2x]; p[1] = [y + xy, y].
    let (x, y) = (0.7, -1.3);
    let want = y * 3.0 + 2.0 * x * 5.0 + (y + x * y) * 7.0 + y * 11.0;
    assert!((swap_coords(x, y) - want).abs() < 1e-12);
    let (v, g) = swap_coords_grad(x, y);
    assert!((v - want).abs() < 1e-12);
    assert!(
        (g.x - (10.0 + 7.0 * y)).abs() < 1e-12
            && (g.y - (3.0 + 7.0 * (1.0 + x) + 11.0)).abs() < 1e-12
    );
    chk!(swap_coords, swap_coords_jvp, swap_coords_vjp; 0, 1).random(4, -2.0, 2.0);
}

/// A borrowed row keeps the index it was borrowed at; a `while` condition indexing rows.
#[differentiate]
fn walk_rows(p: &[[f64; 2]], x: f64) -> f64 {
    let mut k = 0;
    let mut s = 0.0;
    while p[k + 1][0] < x && k + 2 < p.len() {
        let r = &p[k + 1];
        k += 1;
        s += r[1] * x + p[k][0];
    }
    s
}

#[test]
fn rows_borrowed_before_the_index_changes() {
    let p = [[0.0, 1.0], [0.5, 2.0], [1.0, 3.0], [1.5, 4.0], [2.0, 5.0]];
    let (v, g) = walk_rows_grad(&p, 1.2);
    assert!((v - (2.0 * 1.2 + 0.5 + 3.0 * 1.2 + 1.0)).abs() < 1e-12);
    assert_eq!(g.x, 5.0);
    assert_eq!(g.p[1], [1.0, 1.2]);
    assert_eq!(g.p[2], [1.0, 1.2]);
    let (w, d) = walk_rows_jvp(&p, 1.2, &[[1.0; 2]; 5], 1.0);
    assert_eq!(w, v);
    assert!((d - (5.0 + 1.2 * 2.0 + 2.0)).abs() < 1e-12);
}
