//! Arguments taken by `&mut` that hold no floats (integer buffers, flags, a random-number
//! generator of the user's type), changed by the function: the generated functions change them
//! exactly as the primal does, in both modes, and the reverse sweep reads the values they had
//! when they were read, not later ones. Regressions: `v.sort();` on a `&mut Vec<i32>` was left
//! out of the generated code (wrong value and derivative); a value read before a call changed
//! the buffer was read again after it in the reverse sweep (wrong gradient); a differentiated
//! callee changing such a buffer was run a second time on the caller's buffer by the reverse
//! sweep (wrong gradient and wrong final state); `rng.draw()` inside an expression did not
//! compile (E0382). Each against central differences, forward against reverse.
#![allow(clippy::ptr_arg, clippy::assign_op_pattern)]

use autodiff_runtime::differentiate;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// Central difference of `f` at `x`.
fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn sort_it(v: &mut Vec<i32>) {
    v.sort();
}

/// Methods of the buffer (kept), a plain call changing it between two reads.
#[differentiate]
fn sorted(x: f64, v: &mut Vec<i32>, flags: &mut [bool], n: &mut [usize]) -> f64 {
    let a = x * x * v[0] as f64;
    sort_it(v);
    let b = a * v[0] as f64;
    v.extend_from_slice(&[1, 2]);
    v.sort();
    v.reverse();
    flags[0] = true;
    n[0] += v.len();
    b * x * v[0] as f64 + (n[0] as f64) * x.sin() + x * v[v.len() - 1] as f64
}

#[test]
fn buffer_methods_and_calls_in_both_modes() {
    let init = || (vec![5, 1], [false; 2], [1usize]);
    let x = 0.7;
    let (mut v0, mut f0, mut n0) = init();
    let y0 = sorted(x, &mut v0, &mut f0, &mut n0);
    let (mut v1, mut f1, mut n1) = init();
    let (y1, dy) = sorted_jvp(x, &mut v1, &mut f1, &mut n1, 1.0);
    let (mut v2, mut f2, mut n2) = init();
    let mut dx = 0.25;
    let y2 = sorted_vjp(x, &mut v2, &mut f2, &mut n2, &mut dx, 1.0);
    assert_eq!((y1, y2), (y0, y0));
    assert_eq!((&v1, &v2), (&v0, &v0));
    assert_eq!((f1, f2, n1, n2), (f0, f0, n0, n0));
    let want = fd(
        |x| {
            let (mut v, mut f, mut n) = init();
            sorted(x, &mut v, &mut f, &mut n)
        },
        x,
    );
    assert!(close(dy, want, 1e-6), "{dy} vs {want}");
    assert!(close(dx - 0.25, want, 1e-6), "{} vs {want}", dx - 0.25);
}

/// A generator of the user's type (not `Clone`): each `next()` runs once per call of every
/// generated function, as in the primal.
pub struct Lcg(u64);

impl Lcg {
    pub fn draw(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[differentiate(wrt(x))]
fn noisy(x: f64, rng: &mut Lcg) -> f64 {
    let mut s = 0.0;
    for _ in 0..3 {
        s += (x * rng.draw()).sin() + x * x * rng.draw();
    }
    s
}

#[test]
fn a_generator_advances_once_per_draw() {
    let x = 0.4;
    let mut r0 = Lcg(7);
    let y0 = noisy(x, &mut r0);
    let mut r1 = Lcg(7);
    let (y1, dy) = noisy_jvp(x, &mut r1, 1.0);
    let mut r2 = Lcg(7);
    let mut dx = 0.0;
    let y2 = noisy_vjp(x, &mut r2, &mut dx, 1.0);
    assert_eq!((y1, y2), (y0, y0));
    assert_eq!((r1.0, r2.0), (r0.0, r0.0));
    let want = fd(|x| noisy(x, &mut Lcg(7)), x);
    assert!(close(dy, want, 1e-6), "{dy} vs {want}");
    assert!(close(dx, want, 1e-6), "{dx} vs {want}");
}

/// A differentiated callee pushing to the caller's buffer: the reverse sweep replays it on a
/// copy of the buffer as it was before the call.
#[differentiate]
fn push_len(x: f64, v: &mut Vec<usize>) -> f64 {
    let k = v.len();
    v.push(k);
    x * x * (v.len() as f64)
}

#[differentiate]
fn calls_push(x: f64, v: &mut Vec<usize>) -> f64 {
    let a = push_len(x, v);
    let b = push_len(x * a, v);
    a + b * v.len() as f64
}

#[test]
fn a_callee_changing_a_buffer_runs_once() {
    let x = 0.5;
    let mut v0 = vec![];
    let y0 = calls_push(x, &mut v0);
    let mut v1 = vec![];
    let (y1, dy) = calls_push_jvp(x, &mut v1, 1.0);
    let mut v2 = vec![];
    let mut dx = 0.0;
    let y2 = calls_push_vjp(x, &mut v2, &mut dx, 1.0);
    assert_eq!((y1, y2), (y0, y0));
    assert_eq!((&v1, &v2), (&v0, &v0));
    let want = fd(|x| calls_push(x, &mut vec![]), x);
    assert!(close(dy, want, 1e-6), "{dy} vs {want}");
    assert!(close(dx, want, 1e-6), "{dx} vs {want}");
}

/// `push` onto a `&mut Vec<usize>` (twice), elements of integer slices converted to floats, with
/// second order: the generic copy takes them as constants.
#[differentiate(hvp)]
fn indexed(x: f64, idx: &mut Vec<usize>, w: &[usize]) -> f64 {
    idx.push(1);
    idx.push(w[0]);
    x * x * idx[idx.len() - 2] as f64 + x * w[0] as f64 * idx[idx.len() - 1] as f64
}

#[test]
fn integer_buffers_with_second_order() {
    let x = 2.0;
    let mut idx = vec![3];
    let (y, g, hv) = indexed_hvp(x, &mut idx, &[2], 1.0);
    // x² + 4x: value 12, derivative 2x + 4 = 8, second derivative 2.
    assert_eq!(y, 12.0);
    assert_eq!((g.x, hv.x), (8.0, 2.0));
    assert_eq!(idx, vec![3, 1, 2]);
    let mut idx = vec![3];
    let (y, dy) = indexed_jvp(x, &mut idx, &[2], 1.0);
    assert_eq!((y, dy), (12.0, 8.0));
    assert_eq!(idx, vec![3, 1, 2]);
    assert_eq!(indexed(x, &mut vec![3], &[2]), 12.0);
}

/// A changing method on the right of `&&` runs only when the left holds, in both modes.
#[differentiate]
fn lazy_pop(x: f64, k: usize, v: &mut Vec<usize>) -> f64 {
    let mut s = x;
    if k > 0 && v.pop().is_some() {
        s = s * x;
    }
    s * (v.len() as f64 + 1.0)
}

#[test]
fn a_method_under_short_circuit_runs_as_written() {
    for k in [0, 1] {
        let mut v0 = vec![1, 2];
        let y0 = lazy_pop(2.0, k, &mut v0);
        let mut v1 = vec![1, 2];
        let (y1, d1) = lazy_pop_jvp(2.0, k, &mut v1, 1.0);
        let mut v2 = vec![1, 2];
        let mut dx = 0.0;
        let y2 = lazy_pop_vjp(2.0, k, &mut v2, &mut dx, 1.0);
        assert_eq!((y1, y2), (y0, y0));
        assert_eq!((&v1, &v2), (&v0, &v0));
        let want = if k == 0 { 3.0 } else { 8.0 };
        assert_eq!((d1, dx), (want, want));
    }
}
