//! Gradient-check helper tests: takes the functions of `check`, gives checks that they accept
//! right derivatives, reject wrong ones with concrete messages, and work in f32 and f64.

use autodiff_runtime::check::{
    all_close, central_difference, central_difference_scalar, check_jvp_fd, close, default_step,
    dot, dot_product_test,
};
use autodiff_runtime::Dual;

#[test]
fn central_differences_approximate_directional_derivatives() {
    // f(x) = (x0² x1, exp(x1)); J = [[2 x0 x1, x0²], [0, exp(x1)]].
    let f = |x: &[f64]| vec![x[0] * x[0] * x[1], x[1].exp()];
    let (x, dir) = ([1.5, -0.5], [0.2, 1.0]);
    let d = central_difference(f, &x, &dir, default_step());
    let want = [2.0 * 1.5 * -0.5 * 0.2 + 2.25 * 1.0, (-0.5f64).exp()];
    assert!(
        all_close(&d, &want, 1e-9, 1e-12).is_ok(),
        "{d:?} vs {want:?}"
    );

    let g = |x: &[f32]| x[0].sin() * x[1];
    let d = central_difference_scalar(g, &[0.5, 2.0], &[1.0, -1.0], default_step());
    let want = 0.5f32.cos() * 2.0 - 0.5f32.sin();
    assert!(close(d, want, 1e-3, 1e-4), "{d} vs {want}");

    // Exact for a quadratic up to rounding, even with a large step.
    let q = |x: &[f64]| 3.0 * x[0] * x[0] + x[0];
    let d = central_difference_scalar(q, &[2.0], &[1.0], 0.5);
    assert_eq!(d, 13.0);
}

#[test]
#[should_panic(expected = "x and dir differ in length")]
fn central_difference_rejects_mismatched_direction() {
    central_difference(|x: &[f64]| x.to_vec(), &[1.0, 2.0], &[1.0], 1e-3);
}

#[test]
fn default_step_is_the_cube_root_of_three_epsilon() {
    let h64: f64 = default_step();
    let h32: f32 = default_step();
    assert!(close(h64, (3.0 * f64::EPSILON).cbrt(), 1e-15, 0.0));
    assert!((8.7e-6..8.8e-6).contains(&h64), "{h64}");
    assert!((7.0e-3..7.2e-3).contains(&h32), "{h32}");
}

#[test]
fn dot_products() {
    assert_eq!(dot(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]), 32.0);
    assert_eq!(dot::<f32>(&[], &[]), 0.0);
    assert_eq!(dot(&[1.5f32], &[-2.0]), -3.0);
}

#[test]
#[should_panic(expected = "a and b differ in length")]
fn dot_rejects_mismatched_lengths() {
    dot(&[1.0], &[1.0, 2.0]);
}

#[test]
fn close_uses_the_larger_magnitude_and_rejects_nan() {
    assert!(close(100.0, 100.5, 1e-2, 0.0));
    assert!(!close(100.0, 102.0, 1e-2, 0.0));
    assert!(close(0.0, 1e-9, 0.0, 1e-8));
    assert!(!close(0.0, 1e-7, 1e-3, 1e-8));
    assert!(close(f64::INFINITY, f64::INFINITY, 0.0, 0.0));
    assert!(!close(f64::INFINITY, f64::NEG_INFINITY, 1.0, 1.0));
    assert!(!close(f64::INFINITY, 1e308, 1e-3, 0.0));
    assert!(!close(f32::NAN, 1.0, 1.0, 1.0));
    assert!(close(-0.0f32, 0.0, 0.0, 0.0));
}

#[test]
fn all_close_names_the_worst_index() {
    assert_eq!(all_close(&[1.0, 2.0], &[1.0, 2.0], 0.0, 0.0), Ok(()));
    let err = all_close(&[1.0, 2.0, 3.0, 4.0], &[1.1, 2.0, 3.9, 4.0], 1e-6, 0.0).unwrap_err();
    assert!(
        err.starts_with("2 of 4 values differ; worst at index 2: 3e0 vs 3.9e0"),
        "{err}"
    );
    let err = all_close(&[1.0f32, 2.0], &[1.0, f32::NAN], 1e-3, 1e-3).unwrap_err();
    assert!(err.contains("worst at index 1: 2e0 vs NaN"), "{err}");
    let err = all_close(&[1.0], &[1.0, 2.0], 1e-3, 1e-3).unwrap_err();
    assert_eq!(err, "length mismatch: 1 vs 2");
}

/// J of a 3×2 map and its transpose, as functions of the direction.
fn j(t: &[f64]) -> Vec<f64> {
    vec![2.0 * t[0] - t[1], 0.5 * t[1], -t[0] + 3.0 * t[1]]
}
fn jt(c: &[f64]) -> Vec<f64> {
    vec![2.0 * c[0] - c[2], -c[0] + 0.5 * c[1] + 3.0 * c[2]]
}

#[test]
fn dot_product_test_accepts_a_true_transpose() {
    let (t, c) = ([0.3, -1.7], [1.1, 0.4, -0.9]);
    assert_eq!(dot_product_test(&j(&t), &c, &t, &jt(&c), 1e-14), Ok(()));
    // f32 too.
    let t32 = [0.3f32, -1.7];
    let c32 = [1.1f32, 0.4, -0.9];
    let jt32: Vec<f32> = j(&[0.3, -1.7]).iter().map(|&v| v as f32).collect();
    let jtc32: Vec<f32> = jt(&[1.1, 0.4, -0.9]).iter().map(|&v| v as f32).collect();
    assert_eq!(dot_product_test(&jt32, &c32, &t32, &jtc32, 1e-6), Ok(()));
    // All zero: trivially equal.
    assert_eq!(
        dot_product_test(&[0.0], &[1.0], &[1.0], &[0.0], 0.0),
        Ok(())
    );
}

#[test]
fn dot_product_test_rejects_a_wrong_transpose() {
    let (t, c) = ([0.3, -1.7], [1.1, 0.4, -0.9]);
    // One entry of Jᵀ wrong (0.5 replaced by 0.6), as a buggy reverse sweep would have it.
    let wrong = |c: &[f64]| vec![2.0 * c[0] - c[2], -c[0] + 0.6 * c[1] + 3.0 * c[2]];
    let err = dot_product_test(&j(&t), &c, &t, &wrong(&c), 1e-10).unwrap_err();
    assert!(
        err.starts_with("dot-product test failed: <J t, c> = "),
        "{err}"
    );
    assert!(err.contains("but <t, J^T c> = "), "{err}");
    // A missing adjoint contribution (the -c[2] term dropped).
    let missing = |c: &[f64]| vec![2.0 * c[0], -c[0] + 0.5 * c[1] + 3.0 * c[2]];
    assert!(dot_product_test(&j(&t), &c, &t, &missing(&c), 1e-10).is_err());
}

#[test]
fn dot_product_test_scales_with_the_terms_not_their_sum() {
    // Terms of size 1e8 cancelling to 1: an error of 1e-3 is tiny relative to the terms.
    let jt_v = [1e8, -1e8 + 1.0];
    let c = [1.0, 1.0];
    let t = [1.0];
    assert!(dot_product_test(&jt_v, &c, &t, &[1.0 + 1e-3], 1e-10).is_ok());
    assert!(dot_product_test(&jt_v, &c, &t, &[1.0 + 1e-3], 1e-12).is_err());
}

#[test]
fn dot_product_test_reports_length_mismatches() {
    let err = dot_product_test(&[1.0, 2.0], &[1.0], &[1.0], &[1.0], 1e-12).unwrap_err();
    assert_eq!(
        err,
        "output-space length mismatch: J t has 2 entries, c has 1"
    );
    let err = dot_product_test(&[1.0], &[1.0], &[1.0, 2.0], &[1.0], 1e-12).unwrap_err();
    assert_eq!(
        err,
        "input-space length mismatch: t has 2 entries, J^T c has 1"
    );
}

#[test]
fn check_jvp_fd_against_dual_numbers() {
    // The JVP of f from one forward pass with Dual, checked by finite differences.
    fn f<T: num_traits::Float>(x: &[T]) -> Vec<T> {
        vec![
            x[0] * x[1].sin(),
            (x[0] * x[0] + x[1]).sqrt(),
            x[1].atan2(x[0]),
        ]
    }
    let x = [1.3, 0.4];
    let dir = [0.6, -0.8];
    let xd: Vec<Dual<f64>> = x.iter().zip(&dir).map(|(&v, &t)| Dual::new(v, t)).collect();
    let jvp: Vec<f64> = f(&xd).iter().map(|d| d.eps).collect();
    assert_eq!(check_jvp_fd(f::<f64>, &x, &dir, &jvp, 1e-8, 1e-10), Ok(()));

    let x32 = [1.3f32, 0.4];
    let dir32 = [0.6f32, -0.8];
    let xd: Vec<Dual<f32>> = x32
        .iter()
        .zip(&dir32)
        .map(|(&v, &t)| Dual::new(v, t))
        .collect();
    let jvp32: Vec<f32> = f(&xd).iter().map(|d| d.eps).collect();
    assert_eq!(
        check_jvp_fd(f::<f32>, &x32, &dir32, &jvp32, 1e-2, 1e-3),
        Ok(())
    );

    // A wrong JVP fails, naming the bad entry.
    let mut wrong = jvp.clone();
    wrong[1] *= 1.01;
    let err = check_jvp_fd(f::<f64>, &x, &dir, &wrong, 1e-8, 1e-10).unwrap_err();
    assert!(
        err.starts_with("jvp vs central difference: 1 of 3 values differ; worst at index 1"),
        "{err}"
    );

    // A large input and a large direction are scaled for: still accurate.
    let g = |x: &[f64]| vec![x[0].ln()];
    assert_eq!(check_jvp_fd(g, &[1e6], &[1e3], &[1e-3], 1e-8, 0.0), Ok(()));
    // A zero direction gives a zero derivative.
    assert_eq!(check_jvp_fd(g, &[2.0], &[0.0], &[0.0], 0.0, 0.0), Ok(()));
}

#[test]
fn dot_product_test_of_forward_jacobian_columns() {
    // Build J column by column with Dual, then check a vector-Jacobian product formed from it.
    fn f(x: &[Dual<f64>]) -> Vec<Dual<f64>> {
        vec![x[0] * x[1], x[0].exp() - x[1], x[1].powi(3)]
    }
    let x = [0.5, -1.2];
    let column = |i: usize| -> Vec<f64> {
        let xd: Vec<_> = (0..2)
            .map(|k| Dual::new(x[k], if k == i { 1.0 } else { 0.0 }))
            .collect();
        f(&xd).iter().map(|d| d.eps).collect()
    };
    let cols = [column(0), column(1)];
    let (t, c) = ([0.7, 0.2], [1.0, -2.0, 0.5]);
    let jt_v: Vec<f64> = (0..3)
        .map(|r| cols[0][r] * t[0] + cols[1][r] * t[1])
        .collect();
    let jtc: Vec<f64> = cols.iter().map(|col| dot(col, &c)).collect();
    assert_eq!(dot_product_test(&jt_v, &c, &t, &jtc, 1e-14), Ok(()));
}
