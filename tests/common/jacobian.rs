//! Dense Jacobian checks shared by tests/jacobian.rs and tests/struct_jacobians.rs: takes a
//! function over flattened inputs and outputs, gives its central-difference Jacobian and an
//! assertion that a computed `Jacobian` matches it.
#![allow(dead_code)]

use autodiff_runtime::jacobian::Jacobian;

/// Central differences of `f` (inputs and outputs flattened) at `x`, one column per input.
pub fn fd_jacobian(f: impl Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<f64>> {
    let h = 1e-6;
    let rows = f(x).len();
    let mut j = vec![vec![0.0; x.len()]; rows];
    for c in 0..x.len() {
        let (mut xp, mut xm) = (x.to_vec(), x.to_vec());
        xp[c] += h;
        xm[c] -= h;
        let (fp, fm) = (f(&xp), f(&xm));
        for r in 0..rows {
            j[r][c] = (fp[r] - fm[r]) / (2.0 * h);
        }
    }
    j
}

pub fn assert_jacobian(j: &Jacobian<f64>, fd: &[Vec<f64>], tol: f64) {
    assert_eq!(j.rows(), fd.len(), "rows");
    for (r, row) in fd.iter().enumerate() {
        assert_eq!(j.cols(), row.len(), "columns");
        for (c, want) in row.iter().enumerate() {
            let got = j[(r, c)];
            assert!(
                (got - want).abs() <= tol * (1.0 + want.abs()),
                "J[{r}, {c}] = {got}, central differences give {want}"
            );
        }
    }
}
