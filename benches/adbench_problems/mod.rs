//! The ADBench problems (GMM, bundle adjustment, LSTM) shared by `tests/adbench_*.rs` and
//! `benches/adbench.rs`: takes ADBench's input files, gives each objective written once under
//! `#[differentiate]`, a hand-written derivative to compare with, and ADBench's comparison rule.
//!
//! Formats and formulas follow ADBench at commit `38cb7931` (MIT, Copyright (c) Microsoft
//! Corporation); the instances and expected outputs used here are in `tests/data/adbench/`.

// Each consumer (a test, the bench) uses its own part of this module.
#![allow(dead_code)]
// The objectives index on purpose: index loops are what `#[differentiate]` reads.
#![allow(clippy::needless_range_loop, clippy::too_many_arguments)]

pub mod ba;
pub mod gmm;
pub mod io;
pub mod lstm;
pub mod rotation;

use std::path::PathBuf;

/// Tolerance of ADBench's Jacobian comparison (`run-all.ps1`, the default for every exact tool).
pub const ADBENCH_TOLERANCE: f64 = 1e-8;

/// ADBench's difference of two numbers: 0 if equal, relative `|x - y| / (|x| + |y|)` when
/// `|x| + |y| > 1`, else absolute `|x - y|`.
pub fn adbench_difference(x: f64, y: f64) -> f64 {
    if x == y {
        return 0.0;
    }
    let scale = x.abs() + y.abs();
    if scale > 1.0 {
        (x - y).abs() / scale
    } else {
        (x - y).abs()
    }
}

/// Checks `got` against `want` element by element with [`adbench_difference`] `<= tol`; the error
/// names the first offending index and the largest difference.
pub fn adbench_compare(got: &[f64], want: &[f64], tol: f64) -> Result<f64, String> {
    if got.len() != want.len() {
        return Err(format!(
            "length {} against {} expected",
            got.len(),
            want.len()
        ));
    }
    let mut worst = 0.0f64;
    let mut first_bad = None;
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let d = adbench_difference(g, w);
        // A NaN difference is a failure too.
        if d.is_nan() || d > tol {
            first_bad.get_or_insert((i, g, w, d));
        }
        worst = worst.max(d);
    }
    match first_bad {
        None => Ok(worst),
        Some((i, g, w, d)) => Err(format!(
            "entry {i}: {g:e} against {w:e} expected (difference {d:e} > {tol:e}; largest {worst:e})"
        )),
    }
}

/// The folder of the shipped ADBench files (`tests/data/adbench`).
pub fn data_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/adbench")
}
