//! Sparse Jacobians by coloring against dense ones: takes the residuals of two discretised
//! boundary-value problems (Bratu's equation `u'' + λ eᵘ = 0` on a line of `n` points, a
//! tridiagonal Jacobian; the same on an `m × m` grid with the 5-point stencil, 5 entries a row),
//! gives criterion measurements of `_jacobian` (dense: one `_jvp` per column) and
//! `_jacobian_sparse` (one `_jvp` per color of a greedy distance-1 coloring of the columns), then
//! a table of medians measured in the same run: passes, time and their ratios.
//!
//! Run: `cargo bench --bench sparse_jacobian` (criterion then the table), or
//! `cargo bench --bench sparse_jacobian -- --tables` (the table only, about 15 s). Under
//! `cargo test --benches` criterion runs each benchmark once and the table is skipped.
//!
//! Before timing, each problem checks that the sparse Jacobian equals the dense one bit for bit
//! (a color's seed sums columns that share no row, so each entry is one column's, plus zeros).

#[allow(dead_code)]
#[path = "overhead_parts/common.rs"]
mod common;

use std::hint::black_box;
use std::time::Duration;

use autodiff_runtime::differentiate;
use autodiff_runtime::jacobian::Sparsity;
use common::{format_ratio, format_time, interleaved_medians, print_table, Variant};
use criterion::Criterion;

const SAMPLE: Duration = Duration::from_millis(20);
const ROUNDS: usize = 11;

/// Bratu's residual on a line: `n` unknowns between two zero boundary values, spacing `1/(n+1)`.
#[differentiate(wrt(u))]
fn bratu_line(u: &[f64], lambda: f64) -> Vec<f64> {
    let n = u.len();
    let h = 1.0 / (n as f64 + 1.0);
    let mut r = vec![0.0; n];
    for i in 0..n {
        let left = if i == 0 { 0.0 } else { u[i - 1] };
        let right = if i + 1 == n { 0.0 } else { u[i + 1] };
        r[i] = (left - 2.0 * u[i] + right) / (h * h) + lambda * u[i].exp();
    }
    r
}

/// Bratu's residual on an `m × m` grid (row-major), zero on the boundary: the 5-point stencil.
#[differentiate(wrt(u))]
fn bratu_grid(u: &[f64], m: usize, lambda: f64) -> Vec<f64> {
    let h = 1.0 / (m as f64 + 1.0);
    let mut r = vec![0.0; m * m];
    for a in 0..m {
        for b in 0..m {
            let k = a * m + b;
            let up = if a == 0 { 0.0 } else { u[k - m] };
            let down = if a + 1 == m { 0.0 } else { u[k + m] };
            let left = if b == 0 { 0.0 } else { u[k - 1] };
            let right = if b + 1 == m { 0.0 } else { u[k + 1] };
            r[k] = (up + down + left + right - 4.0 * u[k]) / (h * h) + lambda * u[k].exp();
        }
    }
    r
}

fn grid_pattern(m: usize) -> Sparsity {
    let mut entries = Vec::new();
    for a in 0..m {
        for b in 0..m {
            let k = a * m + b;
            entries.push((k, k));
            if a > 0 {
                entries.push((k, k - m));
            }
            if a + 1 < m {
                entries.push((k, k + m));
            }
            if b > 0 {
                entries.push((k, k - 1));
            }
            if b + 1 < m {
                entries.push((k, k + 1));
            }
        }
    }
    Sparsity::from_entries(m * m, m * m, &entries)
}

fn start(n: usize) -> Vec<f64> {
    (0..n).map(|i| 0.1 * (i as f64 * 0.7).sin()).collect()
}

/// One problem: its name, size, pattern and the two ways to its Jacobian (each giving a number
/// that depends on the result, so the work is not dropped).
struct Problem {
    name: String,
    n: usize,
    pattern: Sparsity,
    u: Vec<f64>,
    grid: Option<usize>,
}

impl Problem {
    fn dense(&self) -> autodiff_runtime::jacobian::Jacobian<f64> {
        match self.grid {
            None => bratu_line_jacobian(black_box(&self.u), 3.0).1,
            Some(m) => bratu_grid_jacobian(black_box(&self.u), m, 3.0).1,
        }
    }

    fn sparse(&self) -> autodiff_runtime::jacobian::SparseJacobian<f64> {
        match self.grid {
            None => bratu_line_jacobian_sparse(black_box(&self.u), 3.0, &self.pattern).1,
            Some(m) => bratu_grid_jacobian_sparse(black_box(&self.u), m, 3.0, &self.pattern).1,
        }
    }

    fn variants(&self) -> Vec<Variant<'_>> {
        vec![
            ("dense", Box::new(move || self.dense().row(0)[0])),
            ("sparse", Box::new(move || self.sparse().get(0, 0))),
        ]
    }
}

fn problems(small: bool) -> Vec<Problem> {
    let (lines, grids): (&[usize], &[usize]) = if small {
        (&[50], &[8])
    } else {
        (&[100, 1000], &[16, 32])
    };
    let mut out = Vec::new();
    for &n in lines {
        out.push(Problem {
            name: format!("line, n = {n}"),
            n,
            pattern: Sparsity::banded(n, n, 1, 1),
            u: start(n),
            grid: None,
        });
    }
    for &m in grids {
        out.push(Problem {
            name: format!("grid {m} x {m}, n = {}", m * m),
            n: m * m,
            pattern: grid_pattern(m),
            u: start(m * m),
            grid: Some(m),
        });
    }
    out
}

fn check(p: &Problem) {
    let dense = p.dense();
    assert_eq!(
        p.sparse().to_dense(),
        dense,
        "{}: sparse and dense differ",
        p.name
    );
}

fn table() {
    let header = [
        "problem",
        "nonzeros",
        "dense passes",
        "sparse passes (colors)",
        "dense",
        "sparse",
        "dense/sparse time",
    ];
    let mut rows = Vec::new();
    for p in problems(false) {
        check(&p);
        let (colors, _) = p.pattern.color_columns();
        let mut vs = p.variants();
        let t = interleaved_medians(&mut vs, SAMPLE, ROUNDS);
        rows.push([
            p.name.clone(),
            p.pattern.nnz().to_string(),
            p.n.to_string(),
            colors.to_string(),
            format_time(Some(t[0])),
            format_time(Some(t[1])),
            format_ratio(Some(t[0]), Some(t[1])),
        ]);
    }
    println!(
        "\nJacobians of Bratu residuals: `_jacobian` (one `_jvp` per column) against \
         `_jacobian_sparse` (one per color), medians of {ROUNDS} interleaved rounds:"
    );
    print_table(&header, &rows);
    println!("every sparse Jacobian equals the dense one bit for bit.");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let as_test = !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--list");
    let tables_only = args.iter().any(|a| a == "--tables");
    if !tables_only {
        let mut c = Criterion::default()
            .without_plots()
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(2))
            .sample_size(10)
            .configure_from_args();
        for p in problems(as_test) {
            check(&p);
            let mut g = c.benchmark_group(format!("sparse_jacobian/{}", p.name));
            for (name, f) in p.variants().iter_mut() {
                g.bench_function(*name, |b| b.iter(&mut **f));
            }
            g.finish();
        }
        c.final_summary();
    }
    if !as_test {
        table();
    }
}
