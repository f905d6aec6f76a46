//! The matrix product `C = A B` on the kernels, and its companions.

use super::*;

/// `c = A B + beta c`, all column-major, through the row-major kernels: a column-major `r x c`
/// matrix is the row-major `c x r` transpose, and `Cᵀ = Bᵀ Aᵀ`.
#[inline]
fn product<T: Real>(a: &[T], b: &[T], m: usize, k: usize, n: usize, beta: T, c: &mut [T]) {
    kernels::matmul(
        T::one(),
        MatRef::new(b, n, k),
        MatRef::new(a, k, m),
        beta,
        MatMut::new(c, n, m),
    );
}

/// The shape checks of the product's operands and their tangents or adjoints.
#[inline]
#[track_caller]
fn check_mat_mul(op: &str, a: usize, b: usize, m: usize, k: usize, n: usize) -> usize {
    check_mat(op, "a", a, m, k);
    check_mat(op, "b", b, k, n);
    elements(op, m, n)
}

/// `C = A B` with `A` `m x k`, `B` `k x n` and `C` `m x n`, all column-major (nalgebra's
/// `&a * &b`), on [`kernels::matmul`]: equal to nalgebra's product to rounding (see the module
/// docs). Any dimension may be zero (`k = 0` gives zeros).
#[inline]
pub fn mat_mul<T: Real>(a: &[T], b: &[T], m: usize, k: usize, n: usize) -> Vec<T> {
    let len = check_mat_mul("mat_mul", a.len(), b.len(), m, k, n);
    let mut c = vec![T::zero(); len];
    product(a, b, m, k, n, T::zero(), &mut c);
    c
}

/// Forward mode of [`mat_mul`]: `dC = dA B + A dB`.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn mat_mul_jvp<T: Real>(
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    da: &[T],
    db: &[T],
) -> (Vec<T>, Vec<T>) {
    mat_mul_forward("mat_mul_jvp", a, b, m, k, n, Some(da), Some(db))
}

/// Forward mode of [`mat_mul`] for generated code: `None` for a tangent that is zero skips its
/// product (`dA B` or `A dB`; both `None`, zeros and no product).
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn mat_mul_pushforward<T: Real>(
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    mat_mul_forward("mat_mul_pushforward", a, b, m, k, n, da, db)
}

/// `C` and `dC = dA B + A dB` under the name `op`, each product skipped for a `None` tangent.
///
/// With both tangents, `dC = dA B` (written) then `+= A dB`. With one, its product is added into
/// zeros (`beta = 1`), which is what [`mat_mul_jvp`] gives with a zero tangent there: the
/// kernels' sums start from `+0`, so the product of zeros with a finite operand is `+0`, and
/// adding a `+0` changes no sum (which, from `+0`, is never `-0`). Where that operand holds an
/// `inf` or a NaN, [`mat_mul_jvp`]'s plain product of it with the zeros is NaN, and here that
/// term is absent: the kernels have no strong zero.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn mat_mul_forward<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    let len = check_mat_mul(op, a.len(), b.len(), m, k, n);
    if let Some(da) = da {
        check_mat(op, "da", da.len(), m, k);
    }
    if let Some(db) = db {
        check_mat(op, "db", db.len(), k, n);
    }
    let mut c = vec![T::zero(); len];
    product(a, b, m, k, n, T::zero(), &mut c);
    let mut dc = vec![T::zero(); len];
    match (da, db) {
        (Some(da), Some(db)) => {
            product(da, b, m, k, n, T::zero(), &mut dc);
            product(a, db, m, k, n, T::one(), &mut dc);
        }
        (Some(da), None) => product(da, b, m, k, n, T::one(), &mut dc),
        (None, Some(db)) => product(a, db, m, k, n, T::one(), &mut dc),
        (None, None) => {}
    }
    (c, dc)
}

/// The adjoints of [`mat_mul`] under the name `op`: `Ā += C̄ Bᵀ` into `da`, `B̄ += Aᵀ C̄` into
/// `db`, each product skipped for a `None` buffer, both for an empty seed.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn mat_mul_adjoints<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: &[T],
) {
    let len = check_mat_mul(op, a.len(), b.len(), m, k, n);
    if let Some(da) = da.as_deref() {
        check_mat(op, "da", da.len(), m, k);
    }
    if let Some(db) = db.as_deref() {
        check_mat(op, "db", db.len(), k, n);
    }
    check_seed(op, seed.len(), len);
    if seed.is_empty() || (da.is_none() && db.is_none()) {
        return;
    }
    let cbar: Cow<'_, [T]> = if seed.len() == len {
        Cow::Borrowed(seed)
    } else {
        let mut padded = seed.to_vec();
        padded.resize(len, T::zero());
        Cow::Owned(padded)
    };
    let one = T::one();
    if let Some(da) = da {
        // Row-major, the transposes: Āᵀ (k x m) += B C̄ᵀ, with B = (Bᵀ)ᵀ and C̄ᵀ n x m.
        kernels::matmul(
            one,
            MatRef::new(b, n, k).t(),
            MatRef::new(&cbar, n, m),
            one,
            MatMut::new(da, k, m),
        );
    }
    if let Some(db) = db {
        // B̄ᵀ (n x k) += C̄ᵀ A, with A = (Aᵀ)ᵀ.
        kernels::matmul(
            one,
            MatRef::new(&cbar, n, m),
            MatRef::new(a, k, m).t(),
            one,
            MatMut::new(db, n, k),
        );
    }
}

/// Reverse mode of [`mat_mul`]: with `C̄` the seed (zero-padded to `m x n`), `Ā += C̄ Bᵀ` and
/// `B̄ += Aᵀ C̄`, two products on the kernels (none for an empty seed). Returns `C`.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn mat_mul_vjp<T: Real>(
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    da: &mut [T],
    db: &mut [T],
    seed: &[T],
) -> Vec<T> {
    mat_mul_adjoints("mat_mul_vjp", a, b, m, k, n, Some(da), Some(db), seed);
    mat_mul(a, b, m, k, n)
}

/// Adjoints of [`mat_mul`] without its value, for generated code: `None` skips its product.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn mat_mul_pullback<T: Real>(
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: &[T],
) {
    mat_mul_adjoints("mat_mul_pullback", a, b, m, k, n, da, db, seed);
}

/// [`mat_mul_vjp`] with a zero seed, for a dropped value: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn mat_mul_vjp_dropped<T: Real>(
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    da: &mut [T],
    db: &mut [T],
) {
    let op = "mat_mul_vjp";
    check_mat_mul(op, a.len(), b.len(), m, k, n);
    check_mat(op, "da", da.len(), m, k);
    check_mat(op, "db", db.len(), k, n);
}
