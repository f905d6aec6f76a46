//! Layers on slices that `#[differentiate]` code calls and differentiates through their own
//! matrix-level rules (issue 11, part 2): takes row-major slices, gives the layer's value and
//! hand-written `_jvp`/`_vjp`/`_vjp_dropped` companions in the generated convention (primal
//! arguments, then one tangent or adjoint per float argument; an output buffer `&mut y` is an
//! in-out argument), each running on [`crate::kernels`]. The macro differentiates a call
//! `nn::linear(..)` through `nn::linear_jvp`/`nn::linear_vjp` like any custom rule, so the
//! reverse of `C = A B` is two products (`Ā += C̄ Bᵀ`, `B̄ += Aᵀ C̄`), not a scalar loop.
//!
//! ```
//! use autodiff_runtime::{differentiate, nn};
//!
//! /// Mean squared error of a two-layer network `W2 relu(W1 x + b1) + b2` (sizes 3 -> 4 -> 2).
//! #[differentiate(wrt(w1, b1, w2, b2))]
//! fn loss(w1: &[f64], b1: &[f64], w2: &[f64], b2: &[f64], x: &[f64], target: &[f64]) -> f64 {
//!     let mut h = vec![0.0; 4];
//!     nn::linear(w1, x, b1, &mut h, 4, 3);
//!     let mut a = vec![0.0; 4];
//!     nn::relu(&h, &mut a);
//!     let mut y = vec![0.0; 2];
//!     nn::linear(w2, &a, b2, &mut y, 2, 4);
//!     nn::mse(&y, target)
//! }
//!
//! let (w1, b1) = (vec![0.1; 12], vec![0.0, 0.1, -0.1, 0.2]);
//! let (w2, b2) = (vec![0.3; 8], vec![0.0, 0.5]);
//! let (value, g) = loss_grad(&w1, &b1, &w2, &b2, &[1.0, -2.0, 0.5], &[1.0, 0.0]);
//! assert_eq!(g.w1.len(), 12);
//! assert!(value > 0.0);
//! ```
//!
//! Each layer overwrites its output buffer, so in reverse the buffer's adjoint is consumed (the
//! adjoint with respect to its initial contents is zero, as the in-out convention says).
//! Shapes are checked (a mismatch panics naming the shapes).
//!
//! `_vjp` also writes the layer's value into the output buffer, as the convention says; the hidden
//! `_vjp_dropped` companions, which generated code calls on a copy of the buffer's saved
//! contents that it then drops (ARCHITECTURE.md, "Calls"), only add the adjoints: the reverse
//! sweep does not run the layer's forward kernel a second time (for `dense`, a whole matrix
//! product).

use crate::kernels::{self, MatMut, MatRef, Real};

/// `c = a b` with `a` `m x k`, `b` `k x n` and `c` `m x n`, row-major.
pub fn matmul<T: Real>(a: &[T], b: &[T], c: &mut [T], m: usize, k: usize, n: usize) {
    kernels::matmul(
        T::one(),
        MatRef::new(a, m, k),
        MatRef::new(b, k, n),
        T::zero(),
        MatMut::new(c, m, n),
    );
}

/// Forward mode of [`matmul`]: `dc = da b + a db`.
#[allow(clippy::too_many_arguments)]
pub fn matmul_jvp<T: Real>(
    a: &[T],
    b: &[T],
    c: &mut [T],
    m: usize,
    k: usize,
    n: usize,
    da: &[T],
    db: &[T],
    dc: &mut [T],
) {
    matmul(a, b, c, m, k, n);
    let (one, zero) = (T::one(), T::zero());
    let dcm = MatMut::new(dc, m, n);
    kernels::matmul(one, MatRef::new(da, m, k), MatRef::new(b, k, n), zero, dcm);
    let dcm = MatMut::new(dc, m, n);
    kernels::matmul(one, MatRef::new(a, m, k), MatRef::new(db, k, n), one, dcm);
}

/// Reverse mode of [`matmul`]: with `c̄` the adjoint in `dc`, `da += c̄ bᵀ`, `db += aᵀ c̄`; `dc`
/// ends zero (`c` is overwritten).
#[allow(clippy::too_many_arguments)]
pub fn matmul_vjp<T: Real>(
    a: &[T],
    b: &[T],
    c: &mut [T],
    m: usize,
    k: usize,
    n: usize,
    da: &mut [T],
    db: &mut [T],
    dc: &mut [T],
) {
    matmul(a, b, c, m, k, n);
    matmul_vjp_dropped(a, b, c, m, k, n, da, db, dc)
}

/// The adjoints of [`matmul_vjp`] without the value: `c` is left as given (generated code calls
/// this on a copy of `c` that it drops).
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn matmul_vjp_dropped<T: Real>(
    a: &[T],
    b: &[T],
    _c: &mut [T],
    m: usize,
    k: usize,
    n: usize,
    da: &mut [T],
    db: &mut [T],
    dc: &mut [T],
) {
    let one = T::one();
    let cbar = MatRef::new(&*dc, m, n);
    kernels::matmul(
        one,
        cbar,
        MatRef::new(b, k, n).t(),
        one,
        MatMut::new(da, m, k),
    );
    let cbar = MatRef::new(&*dc, m, n);
    kernels::matmul(
        one,
        MatRef::new(a, m, k).t(),
        cbar,
        one,
        MatMut::new(db, k, n),
    );
    dc.fill(T::zero());
}

/// Panics unless a buffer holds exactly `rows x cols` elements (the kernels' views only check
/// that it holds at least that many).
fn check_len(layer: &str, name: &str, len: usize, rows: usize, cols: usize) {
    assert!(
        Some(len) == rows.checked_mul(cols),
        "nn::{layer}: {name} has {len} elements, expected {rows} x {cols}"
    );
}

/// Batched dense layer `y = x w + b`: `x` is `rows x n_in` (one sample a row), `w` is
/// `n_in x n_out`, `b` of `n_out` is added to every row of `y` (`rows x n_out`), all row-major.
/// (The transpose of [`linear`]'s layout: `w` maps a row of inputs to a row of outputs, as in
/// `x @ w + b`.)
#[allow(clippy::too_many_arguments)]
pub fn dense<T: Real>(
    x: &[T],
    w: &[T],
    b: &[T],
    y: &mut [T],
    rows: usize,
    n_in: usize,
    n_out: usize,
) {
    check_len("dense", "x", x.len(), rows, n_in);
    check_len("dense", "w", w.len(), n_in, n_out);
    check_len("dense", "b", b.len(), 1, n_out);
    check_len("dense", "y", y.len(), rows, n_out);
    for yr in y.chunks_exact_mut(n_out.max(1)) {
        yr.copy_from_slice(b);
    }
    kernels::matmul(
        T::one(),
        MatRef::new(x, rows, n_in),
        MatRef::new(w, n_in, n_out),
        T::one(),
        MatMut::new(y, rows, n_out),
    );
}

/// Forward mode of [`dense`]: `dy = dx w + x dw + db` (`db` added to every row).
#[allow(clippy::too_many_arguments)]
pub fn dense_jvp<T: Real>(
    x: &[T],
    w: &[T],
    b: &[T],
    y: &mut [T],
    rows: usize,
    n_in: usize,
    n_out: usize,
    dx: &[T],
    dw: &[T],
    db: &[T],
    dy: &mut [T],
) {
    dense(x, w, b, y, rows, n_in, n_out);
    dense(dx, w, db, dy, rows, n_in, n_out);
    kernels::matmul(
        T::one(),
        MatRef::new(x, rows, n_in),
        MatRef::new(dw, n_in, n_out),
        T::one(),
        MatMut::new(dy, rows, n_out),
    );
}

/// The adjoints of [`dense_vjp`] without the value: `y` is left as given (generated code calls
/// this on a copy of `y` that it drops).
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn dense_vjp_dropped<T: Real>(
    x: &[T],
    w: &[T],
    _b: &[T],
    _y: &mut [T],
    rows: usize,
    n_in: usize,
    n_out: usize,
    dx: &mut [T],
    dw: &mut [T],
    db: &mut [T],
    dy: &mut [T],
) {
    check_len("dense_vjp", "x", x.len(), rows, n_in);
    check_len("dense_vjp", "w", w.len(), n_in, n_out);
    check_len("dense_vjp", "dx", dx.len(), rows, n_in);
    check_len("dense_vjp", "dw", dw.len(), n_in, n_out);
    check_len("dense_vjp", "db", db.len(), 1, n_out);
    check_len("dense_vjp", "dy", dy.len(), rows, n_out);
    kernels::matmul(
        T::one(),
        MatRef::new(&*dy, rows, n_out),
        MatRef::new(w, n_in, n_out).t(),
        T::one(),
        MatMut::new(dx, rows, n_in),
    );
    dense_weight_adjoints(x, rows, n_in, n_out, dw, db, dy);
}

/// The part of `dense`'s reverse shared with `dense_data`'s: `dw += xᵀ ȳ`, `db += Σ_rows ȳ`,
/// then `dy` zeroed.
fn dense_weight_adjoints<T: Real>(
    x: &[T],
    rows: usize,
    n_in: usize,
    n_out: usize,
    dw: &mut [T],
    db: &mut [T],
    dy: &mut [T],
) {
    let one = T::one();
    kernels::matmul(
        one,
        MatRef::new(x, rows, n_in).t(),
        MatRef::new(&*dy, rows, n_out),
        one,
        MatMut::new(dw, n_in, n_out),
    );
    for yr in dy.chunks_exact(n_out.max(1)) {
        kernels::axpy(one, yr, db);
    }
    dy.fill(T::zero());
}

/// Reverse mode of [`dense`]: with `ȳ` the adjoint in `dy`, `dx += ȳ wᵀ`, `dw += xᵀ ȳ`,
/// `db += Σ_rows ȳ`; `dy` ends zero (`y` is overwritten).
#[allow(clippy::too_many_arguments)]
pub fn dense_vjp<T: Real>(
    x: &[T],
    w: &[T],
    b: &[T],
    y: &mut [T],
    rows: usize,
    n_in: usize,
    n_out: usize,
    dx: &mut [T],
    dw: &mut [T],
    db: &mut [T],
    dy: &mut [T],
) {
    dense(x, w, b, y, rows, n_in, n_out);
    dense_vjp_dropped(x, w, b, y, rows, n_in, n_out, dx, dw, db, dy);
}

/// Values a layer reads but that are not differentiated: the inputs of a network's first layer
/// (a batch of samples). Inside a `#[differentiate]` function, `nn::dense_data(nn::Data(x), ..)`
/// is [`dense`] with no adjoint for `x`: the macro passes `Data` through as a value that is not a
/// float (no tangent, no adjoint buffer), so the reverse sweep skips the product `ȳ wᵀ` that
/// `dense` computes for `x`'s adjoint, however inactive `x` is in the caller. Wrapping an active
/// value is a compile error ("an active value passed to `Data`"), never a lost derivative.
#[derive(Clone, Copy, Debug)]
pub struct Data<'a, T>(pub &'a [T]);

/// [`dense`] of data: `y = x w + b` with `x` not differentiated (see [`Data`]).
#[allow(clippy::too_many_arguments)]
pub fn dense_data<T: Real>(
    x: Data<'_, T>,
    w: &[T],
    b: &[T],
    y: &mut [T],
    rows: usize,
    n_in: usize,
    n_out: usize,
) {
    dense(x.0, w, b, y, rows, n_in, n_out);
}

/// Forward mode of [`dense_data`]: `dy = x dw + db` (`db` added to every row).
#[allow(clippy::too_many_arguments)]
pub fn dense_data_jvp<T: Real>(
    x: Data<'_, T>,
    w: &[T],
    b: &[T],
    y: &mut [T],
    rows: usize,
    n_in: usize,
    n_out: usize,
    dw: &[T],
    db: &[T],
    dy: &mut [T],
) {
    dense(x.0, w, b, y, rows, n_in, n_out);
    // `x dw + db` is the layer applied to the tangents of its weights.
    dense(x.0, dw, db, dy, rows, n_in, n_out);
}

/// The adjoints of [`dense_data_vjp`] without the value (`y` left as given).
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn dense_data_vjp_dropped<T: Real>(
    x: Data<'_, T>,
    w: &[T],
    _b: &[T],
    _y: &mut [T],
    rows: usize,
    n_in: usize,
    n_out: usize,
    dw: &mut [T],
    db: &mut [T],
    dy: &mut [T],
) {
    check_len("dense_data_vjp", "x", x.0.len(), rows, n_in);
    check_len("dense_data_vjp", "w", w.len(), n_in, n_out);
    check_len("dense_data_vjp", "dw", dw.len(), n_in, n_out);
    check_len("dense_data_vjp", "db", db.len(), 1, n_out);
    check_len("dense_data_vjp", "dy", dy.len(), rows, n_out);
    dense_weight_adjoints(x.0, rows, n_in, n_out, dw, db, dy);
}

/// Reverse mode of [`dense_data`]: with `ȳ` the adjoint in `dy`, `dw += xᵀ ȳ`,
/// `db += Σ_rows ȳ`; `dy` ends zero (`y` is overwritten). No `ȳ wᵀ`: `x` has no adjoint.
#[allow(clippy::too_many_arguments)]
pub fn dense_data_vjp<T: Real>(
    x: Data<'_, T>,
    w: &[T],
    b: &[T],
    y: &mut [T],
    rows: usize,
    n_in: usize,
    n_out: usize,
    dw: &mut [T],
    db: &mut [T],
    dy: &mut [T],
) {
    dense(x.0, w, b, y, rows, n_in, n_out);
    dense_data_vjp_dropped(x, w, b, y, rows, n_in, n_out, dw, db, dy);
}

/// `y = w x + b` with `w` `m x n` row-major, `x` of `n`, `b` and `y` of `m`.
pub fn linear<T: Real>(w: &[T], x: &[T], b: &[T], y: &mut [T], m: usize, n: usize) {
    y.copy_from_slice(b);
    kernels::matvec(T::one(), MatRef::new(w, m, n), x, T::one(), y);
}

/// Forward mode of [`linear`]: `dy = dw x + w dx + db`.
#[allow(clippy::too_many_arguments)]
pub fn linear_jvp<T: Real>(
    w: &[T],
    x: &[T],
    b: &[T],
    y: &mut [T],
    m: usize,
    n: usize,
    dw: &[T],
    dx: &[T],
    db: &[T],
    dy: &mut [T],
) {
    linear(w, x, b, y, m, n);
    dy.copy_from_slice(db);
    kernels::matvec(T::one(), MatRef::new(dw, m, n), x, T::one(), dy);
    kernels::matvec(T::one(), MatRef::new(w, m, n), dx, T::one(), dy);
}

/// Reverse mode of [`linear`]: with `ȳ` the adjoint in `dy`, `dw += ȳ xᵀ`, `dx += wᵀ ȳ`,
/// `db += ȳ`; `dy` ends zero.
#[allow(clippy::too_many_arguments)]
pub fn linear_vjp<T: Real>(
    w: &[T],
    x: &[T],
    b: &[T],
    y: &mut [T],
    m: usize,
    n: usize,
    dw: &mut [T],
    dx: &mut [T],
    db: &mut [T],
    dy: &mut [T],
) {
    linear(w, x, b, y, m, n);
    linear_vjp_dropped(w, x, b, y, m, n, dw, dx, db, dy);
}

/// The adjoints of [`linear_vjp`] without the value: `y` is left as given (generated code calls
/// this on a copy of `y` that it drops).
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn linear_vjp_dropped<T: Real>(
    w: &[T],
    x: &[T],
    _b: &[T],
    _y: &mut [T],
    m: usize,
    n: usize,
    dw: &mut [T],
    dx: &mut [T],
    db: &mut [T],
    dy: &mut [T],
) {
    kernels::ger(T::one(), dy, x, MatMut::new(dw, m, n));
    kernels::matvec(T::one(), MatRef::new(w, m, n).t(), dy, T::one(), dx);
    kernels::axpy(T::one(), dy, db);
    dy.fill(T::zero());
}

/// Element-wise activations `y = f(x)`, each with its three companions (the kernels' names).
macro_rules! activations {
    ($($f:ident, $jvp:ident, $vjp:ident, $dropped:ident: $doc:literal;)*) => {$(
        #[doc = concat!("`y[i] = ", $doc, "` (the kernel [`kernels::", stringify!($f), "`]).")]
        pub fn $f<T: Real>(x: &[T], y: &mut [T]) {
            kernels::$f(x, y);
        }

        #[doc = concat!("Forward mode of [`", stringify!($f), "`].")]
        pub fn $jvp<T: Real>(x: &[T], y: &mut [T], dx: &[T], dy: &mut [T]) {
            kernels::$jvp(x, dx, y, dy);
        }

        #[doc = concat!(
            "Reverse mode of [`", stringify!($f), "`]: `dx += f'(x) dy`; `dy` ends zero ",
            "(`y` is overwritten)."
        )]
        pub fn $vjp<T: Real>(x: &[T], y: &mut [T], dx: &mut [T], dy: &mut [T]) {
            kernels::$f(x, y);
            $dropped(x, y, dx, dy);
        }

        /// The adjoints without the value (`y` left as given: generated code drops it).
        #[doc(hidden)]
        pub fn $dropped<T: Real>(x: &[T], _y: &mut [T], dx: &mut [T], dy: &mut [T]) {
            kernels::$vjp(x, dy, dx);
            dy.fill(T::zero());
        }
    )*};
}

activations! {
    relu, relu_jvp, relu_vjp, relu_vjp_dropped: "max(x[i], 0)` (`relu'(0) = 0`";
    sigmoid, sigmoid_jvp, sigmoid_vjp, sigmoid_vjp_dropped: "1 / (1 + exp(-x[i]))";
    tanh, tanh_jvp, tanh_vjp, tanh_vjp_dropped: "tanh(x[i])";
    gelu_tanh, gelu_tanh_jvp, gelu_tanh_vjp, gelu_tanh_vjp_dropped: "gelu(x[i])` (tanh form`";
    gelu_erf, gelu_erf_jvp, gelu_erf_vjp, gelu_erf_vjp_dropped: "x[i] Φ(x[i])` (erf form`";
    silu, silu_jvp, silu_vjp, silu_vjp_dropped: "x[i] sigmoid(x[i])";
    softplus, softplus_jvp, softplus_vjp, softplus_vjp_dropped: "ln(1 + exp(x[i]))";
    exp, exp_jvp, exp_vjp, exp_vjp_dropped: "exp(x[i])";
    log, log_jvp, log_vjp, log_vjp_dropped: "ln(x[i])";
}

/// Row-wise layers `y = f(x)` over `rows x cols` row-major matrices, each with its three
/// companions (the kernels' names).
macro_rules! row_layers {
    ($($f:ident, $jvp:ident, $vjp:ident, $dropped:ident: $doc:literal;)*) => {$(
        #[doc = concat!(
            "Row-wise `", $doc, "` of the `rows x cols` row-major `x` into `y` (same shape), ",
            "the kernel [`kernels::", stringify!($f), "`] (each row's maximum subtracted first: ",
            "no overflow)."
        )]
        pub fn $f<T: Real>(x: &[T], y: &mut [T], rows: usize, cols: usize) {
            check_len(stringify!($f), "x", x.len(), rows, cols);
            check_len(stringify!($f), "y", y.len(), rows, cols);
            kernels::$f(MatRef::new(x, rows, cols), MatMut::new(y, rows, cols));
        }

        #[doc = concat!("Forward mode of [`", stringify!($f), "`].")]
        pub fn $jvp<T: Real>(
            x: &[T],
            y: &mut [T],
            rows: usize,
            cols: usize,
            dx: &[T],
            dy: &mut [T],
        ) {
            check_len(stringify!($jvp), "x", x.len(), rows, cols);
            check_len(stringify!($jvp), "y", y.len(), rows, cols);
            check_len(stringify!($jvp), "dx", dx.len(), rows, cols);
            check_len(stringify!($jvp), "dy", dy.len(), rows, cols);
            kernels::$jvp(
                MatRef::new(x, rows, cols),
                MatRef::new(dx, rows, cols),
                MatMut::new(y, rows, cols),
                MatMut::new(dy, rows, cols),
            );
        }

        #[doc = concat!(
            "Reverse mode of [`", stringify!($f), "`]: `dx += J(x)ᵀ dy`; `dy` ends zero ",
            "(`y` is overwritten)."
        )]
        pub fn $vjp<T: Real>(
            x: &[T],
            y: &mut [T],
            rows: usize,
            cols: usize,
            dx: &mut [T],
            dy: &mut [T],
        ) {
            $f(x, y, rows, cols);
            $dropped(x, y, rows, cols, dx, dy);
        }

        /// The adjoints without the value (`y` left as given: generated code drops it).
        #[doc(hidden)]
        pub fn $dropped<T: Real>(
            x: &[T],
            _y: &mut [T],
            rows: usize,
            cols: usize,
            dx: &mut [T],
            dy: &mut [T],
        ) {
            check_len(stringify!($vjp), "x", x.len(), rows, cols);
            check_len(stringify!($vjp), "dx", dx.len(), rows, cols);
            check_len(stringify!($vjp), "dy", dy.len(), rows, cols);
            kernels::$vjp(
                MatRef::new(x, rows, cols),
                MatRef::new(&*dy, rows, cols),
                MatMut::new(dx, rows, cols),
            );
            dy.fill(T::zero());
        }
    )*};
}

row_layers! {
    softmax, softmax_jvp, softmax_vjp, softmax_vjp_dropped:
        "softmax: y[i][j] = exp(x[i][j]) / Σ_k exp(x[i][k])";
    log_softmax, log_softmax_jvp, log_softmax_vjp, log_softmax_vjp_dropped:
        "log-softmax: y[i][j] = x[i][j] - ln Σ_k exp(x[i][k])";
}

/// Row-wise log-sum-exp: `out[i] = ln Σ_j exp(x[i][j])` for the `rows x cols` row-major `x`,
/// `out` of `rows` (the kernel [`kernels::logsumexp`], each row's maximum subtracted first).
pub fn logsumexp<T: Real>(x: &[T], out: &mut [T], rows: usize, cols: usize) {
    check_len("logsumexp", "x", x.len(), rows, cols);
    kernels::logsumexp(MatRef::new(x, rows, cols), out);
}

/// Forward mode of [`logsumexp`]: `dout[i] = Σ_j softmax(x)[i][j] dx[i][j]`.
pub fn logsumexp_jvp<T: Real>(
    x: &[T],
    out: &mut [T],
    rows: usize,
    cols: usize,
    dx: &[T],
    dout: &mut [T],
) {
    check_len("logsumexp_jvp", "x", x.len(), rows, cols);
    check_len("logsumexp_jvp", "dx", dx.len(), rows, cols);
    kernels::logsumexp_jvp(
        MatRef::new(x, rows, cols),
        MatRef::new(dx, rows, cols),
        out,
        dout,
    );
}

/// Reverse mode of [`logsumexp`]: `dx[i][j] += softmax(x)[i][j] dout[i]`; `dout` ends zero
/// (`out` is overwritten).
pub fn logsumexp_vjp<T: Real>(
    x: &[T],
    out: &mut [T],
    rows: usize,
    cols: usize,
    dx: &mut [T],
    dout: &mut [T],
) {
    logsumexp(x, out, rows, cols);
    logsumexp_vjp_dropped(x, out, rows, cols, dx, dout);
}

/// The adjoints of [`logsumexp_vjp`] without the value (`out` left as given: generated code
/// drops it).
#[doc(hidden)]
pub fn logsumexp_vjp_dropped<T: Real>(
    x: &[T],
    _out: &mut [T],
    rows: usize,
    cols: usize,
    dx: &mut [T],
    dout: &mut [T],
) {
    check_len("logsumexp_vjp", "x", x.len(), rows, cols);
    check_len("logsumexp_vjp", "dx", dx.len(), rows, cols);
    kernels::logsumexp_vjp(
        MatRef::new(x, rows, cols),
        dout,
        MatMut::new(dx, rows, cols),
    );
    dout.fill(T::zero());
}

/// Mean squared error `Σ (pred[i] - target[i])² / n`.
pub fn mse<T: Real>(pred: &[T], target: &[T]) -> T {
    kernels::mse(pred, target)
}

/// Forward mode of [`mse`] (both arguments may carry tangents).
pub fn mse_jvp<T: Real>(pred: &[T], target: &[T], dpred: &[T], dtarget: &[T]) -> (T, T) {
    // The loss depends on `pred - target` only.
    let diff: Vec<T> = dpred.iter().zip(dtarget).map(|(&p, &t)| p - t).collect();
    kernels::mse_jvp(pred, target, &diff)
}

/// Reverse mode of [`mse`]: `dpred += seed ∂/∂pred`, `dtarget += seed ∂/∂target`.
pub fn mse_vjp<T: Real>(
    pred: &[T],
    target: &[T],
    dpred: &mut [T],
    dtarget: &mut [T],
    seed: T,
) -> T {
    kernels::mse_vjp(pred, target, seed, dpred);
    kernels::mse_vjp(pred, target, -seed, dtarget);
    kernels::mse(pred, target)
}

/// [`mse_vjp`] for a call statement (zero seed).
#[doc(hidden)]
pub fn mse_vjp_dropped<T: Real>(pred: &[T], target: &[T], dpred: &mut [T], dtarget: &mut [T]) {
    let _ = mse_vjp(pred, target, dpred, dtarget, T::zero());
}

/// Mean over `rows` of the cross-entropy of the softmax of each row of `logits` (`rows x cols`,
/// row-major) with the class `labels[row]`.
pub fn cross_entropy<T: Real>(logits: &[T], labels: &[usize], rows: usize, cols: usize) -> T {
    kernels::cross_entropy_labels(MatRef::new(logits, rows, cols), labels)
}

/// Forward mode of [`cross_entropy`].
pub fn cross_entropy_jvp<T: Real>(
    logits: &[T],
    labels: &[usize],
    rows: usize,
    cols: usize,
    dlogits: &[T],
) -> (T, T) {
    kernels::cross_entropy_labels_jvp(
        MatRef::new(logits, rows, cols),
        labels,
        MatRef::new(dlogits, rows, cols),
    )
}

/// Reverse mode of [`cross_entropy`]: `dlogits += seed (softmax(logits) - onehot(labels)) / rows`.
pub fn cross_entropy_vjp<T: Real>(
    logits: &[T],
    labels: &[usize],
    rows: usize,
    cols: usize,
    dlogits: &mut [T],
    seed: T,
) -> T {
    let x = MatRef::new(logits, rows, cols);
    kernels::cross_entropy_labels_vjp(x, labels, seed, MatMut::new(dlogits, rows, cols));
    kernels::cross_entropy_labels(x, labels)
}

/// [`cross_entropy_vjp`] for a call statement (zero seed).
#[doc(hidden)]
pub fn cross_entropy_vjp_dropped<T: Real>(
    logits: &[T],
    labels: &[usize],
    rows: usize,
    cols: usize,
    dlogits: &mut [T],
) {
    let _ = cross_entropy_vjp(logits, labels, rows, cols, dlogits, T::zero());
}
