//! Element-wise operations: of two values (`add`, `sub`, `component_mul`, `component_div`), of one
//! (`neg`), and with a scalar (`scale`, `div_scalar`, `add_scalar`), each value `f(x, y)` with its
//! partials.

use super::*;

#[inline(always)]
#[track_caller]
fn binary<T: Real>(op: &str, a: &[T], b: &[T], f: impl Fn(T, T) -> T) -> Vec<T> {
    check_same(op, "a", a.len(), "b", b.len());
    a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect()
}

/// `term2(ta(i), pa(i), tb(i), pb(i))` for `i < n`, a `None` tangent read as `+0` (what `f_jvp`
/// gives with a zero tangent there) without its term: `x + term(0, p)` is `x` except where `x`
/// is a zero (`-0 + +0` is `+0`), so the whole `term2`, and the `None` side's partial, is taken
/// only where the other term is zero. Both `None`, `term2(0, pa, 0, pb)`: `-0` where both
/// partials are finite and negative, as `f_jvp` gives it.
#[inline(always)]
fn tangents2<T: Real, A: Fn(usize) -> T, B: Fn(usize) -> T>(
    n: usize,
    ta: Option<A>,
    pa: impl Fn(usize) -> T,
    tb: Option<B>,
    pb: impl Fn(usize) -> T,
) -> Vec<T> {
    let zero = T::zero();
    match (ta, tb) {
        (Some(ta), Some(tb)) => (0..n).map(|i| term2(ta(i), pa(i), tb(i), pb(i))).collect(),
        (Some(ta), None) => (0..n)
            .map(|i| {
                let (t, p) = (ta(i), pa(i));
                let y = term(t, p);
                if y == zero {
                    term2(t, p, zero, pb(i))
                } else {
                    y
                }
            })
            .collect(),
        (None, Some(tb)) => (0..n)
            .map(|i| {
                let (t, p) = (tb(i), pb(i));
                let y = term(t, p);
                if y == zero {
                    term2(zero, pa(i), t, p)
                } else {
                    y
                }
            })
            .collect(),
        (None, None) => (0..n).map(|i| term2(zero, pa(i), zero, pb(i))).collect(),
    }
}

/// `i -> t[i]`: a slice tangent for [`tangents2`].
#[inline(always)]
fn at<T: Real>(t: &[T]) -> impl Fn(usize) -> T + '_ {
    move |i| t[i]
}

/// The value `f(a[i], b[i])` of an element-wise binary operation and its tangent `term2(da[i],
/// pa, db[i], pb)` under the name `op`, the partials `pa(a[i], b[i], y[i])` and `pb(..)` taken as
/// [`tangents2`] needs them.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn binary_forward<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
    f: impl Fn(T, T) -> T,
    pa: impl Fn(T, T, T) -> T,
    pb: impl Fn(T, T, T) -> T,
) -> (Vec<T>, Vec<T>) {
    check_binary_adjoints(op, a, b, da, db);
    let y: Vec<T> = a.iter().zip(b).map(|(&x, &z)| f(x, z)).collect();
    let dy = tangents2(
        a.len(),
        da.map(at),
        |i| pa(a[i], b[i], y[i]),
        db.map(at),
        |i| pb(a[i], b[i], y[i]),
    );
    (y, dy)
}

/// The adjoints of an element-wise binary operation under the name `op`: `da[i] += seed[i] *
/// pa(a[i], b[i])` and `db[i] += seed[i] * pb(a[i], b[i])` (strong zero) over the seed's entries,
/// each partial evaluated only for a `Some` buffer.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn binary_adjoints<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: &[T],
    pa: impl Fn(T, T) -> T,
    pb: impl Fn(T, T) -> T,
) {
    check_binary_adjoints(op, a, b, da.as_deref(), db.as_deref());
    check_seed(op, seed.len(), a.len());
    if let Some(da) = da {
        for (i, &s) in seed.iter().enumerate() {
            da[i] = da[i] + term(s, pa(a[i], b[i]));
        }
    }
    if let Some(db) = db {
        for (i, &s) in seed.iter().enumerate() {
            db[i] = db[i] + term(s, pb(a[i], b[i]));
        }
    }
}

/// Element-wise `a + b` (nalgebra's `&a + &b`).
#[inline]
pub fn add<T: Real>(a: &[T], b: &[T]) -> Vec<T> {
    binary("add", a, b, |x, y| x + y)
}

/// Forward mode of [`add`]: `da + db`.
#[inline]
pub fn add_jvp<T: Real>(a: &[T], b: &[T], da: &[T], db: &[T]) -> (Vec<T>, Vec<T>) {
    add_forward("add_jvp", a, b, Some(da), Some(db))
}

/// Forward mode of [`add`] for generated code: `None` for a tangent that is zero skips its term.
#[inline]
pub fn add_pushforward<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    add_forward("add_pushforward", a, b, da, db)
}

/// [`add_jvp`] and [`add_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn add_forward<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    let one = |_, _, _| T::one();
    binary_forward(op, a, b, da, db, |x, y| x + y, one, one)
}

/// Reverse mode of [`add`]: `da += seed`, `db += seed`.
#[inline]
pub fn add_vjp<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T], seed: &[T]) -> Vec<T> {
    binary_adjoints(
        "add_vjp",
        a,
        b,
        Some(da),
        Some(db),
        seed,
        |_, _| T::one(),
        |_, _| T::one(),
    );
    add(a, b)
}

/// Adjoints of [`add`] without its value, for generated code: `da += seed`, `db += seed`.
#[inline]
pub fn add_pullback<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: &[T],
) {
    binary_adjoints(
        "add_pullback",
        a,
        b,
        da,
        db,
        seed,
        |_, _| T::one(),
        |_, _| T::one(),
    );
}

/// [`add_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn add_vjp_dropped<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T]) {
    check_binary("add_vjp", a, b, da, db);
}

/// Element-wise `a - b` (nalgebra's `&a - &b`).
#[inline]
pub fn sub<T: Real>(a: &[T], b: &[T]) -> Vec<T> {
    binary("sub", a, b, |x, y| x - y)
}

/// Forward mode of [`sub`]: `da - db`.
#[inline]
pub fn sub_jvp<T: Real>(a: &[T], b: &[T], da: &[T], db: &[T]) -> (Vec<T>, Vec<T>) {
    sub_forward("sub_jvp", a, b, Some(da), Some(db))
}

/// Forward mode of [`sub`] for generated code: `None` for a tangent that is zero skips its term.
#[inline]
pub fn sub_pushforward<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    sub_forward("sub_pushforward", a, b, da, db)
}

/// [`sub_jvp`] and [`sub_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn sub_forward<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    binary_forward(
        op,
        a,
        b,
        da,
        db,
        |x, y| x - y,
        |_, _, _| T::one(),
        |_, _, _| -T::one(),
    )
}

/// Reverse mode of [`sub`]: `da += seed`, `db -= seed`.
#[inline]
pub fn sub_vjp<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T], seed: &[T]) -> Vec<T> {
    binary_adjoints(
        "sub_vjp",
        a,
        b,
        Some(da),
        Some(db),
        seed,
        |_, _| T::one(),
        |_, _| -T::one(),
    );
    sub(a, b)
}

/// Adjoints of [`sub`] without its value, for generated code: `da += seed`, `db -= seed`.
#[inline]
pub fn sub_pullback<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: &[T],
) {
    binary_adjoints(
        "sub_pullback",
        a,
        b,
        da,
        db,
        seed,
        |_, _| T::one(),
        |_, _| -T::one(),
    );
}

/// [`sub_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn sub_vjp_dropped<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T]) {
    check_binary("sub_vjp", a, b, da, db);
}

/// Element-wise `a * b` (nalgebra's `a.component_mul(&b)`).
#[inline]
pub fn component_mul<T: Real>(a: &[T], b: &[T]) -> Vec<T> {
    binary("component_mul", a, b, |x, y| x * y)
}

/// Forward mode of [`component_mul`]: `da * b + a * db`.
#[inline]
pub fn component_mul_jvp<T: Real>(a: &[T], b: &[T], da: &[T], db: &[T]) -> (Vec<T>, Vec<T>) {
    component_mul_forward("component_mul_jvp", a, b, Some(da), Some(db))
}

/// Forward mode of [`component_mul`] for generated code: `None` for a tangent that is zero skips
/// its term (`da * b` or `a * db`).
#[inline]
pub fn component_mul_pushforward<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    component_mul_forward("component_mul_pushforward", a, b, da, db)
}

/// [`component_mul_jvp`] and [`component_mul_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn component_mul_forward<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    binary_forward(op, a, b, da, db, |x, y| x * y, |_, y, _| y, |x, _, _| x)
}

/// Reverse mode of [`component_mul`]: `da += seed * b`, `db += seed * a`.
#[inline]
pub fn component_mul_vjp<T: Real>(
    a: &[T],
    b: &[T],
    da: &mut [T],
    db: &mut [T],
    seed: &[T],
) -> Vec<T> {
    binary_adjoints(
        "component_mul_vjp",
        a,
        b,
        Some(da),
        Some(db),
        seed,
        |_, y| y,
        |x, _| x,
    );
    component_mul(a, b)
}

/// Adjoints of [`component_mul`] without its value, for generated code: `seed * b`, `seed * a`.
#[inline]
pub fn component_mul_pullback<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: &[T],
) {
    binary_adjoints(
        "component_mul_pullback",
        a,
        b,
        da,
        db,
        seed,
        |_, y| y,
        |x, _| x,
    );
}

/// [`component_mul_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn component_mul_vjp_dropped<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T]) {
    check_binary("component_mul_vjp", a, b, da, db);
}

/// `∂(a / b) / ∂a = 1 / b`.
#[inline(always)]
fn div_da<T: Real>(_a: T, b: T) -> T {
    b.recip()
}

/// `∂(a / b) / ∂b = -(a / b) / b`, as [`div_db_of`] gives it from the value: the one partial of
/// the element-wise operations that needs the value.
#[inline(always)]
fn div_db<T: Real>(a: T, b: T) -> T {
    div_db_of(b, a / b)
}

/// `∂(a / b) / ∂b = -y / b` from the value `y = a / b`.
#[inline(always)]
fn div_db_of<T: Real>(b: T, y: T) -> T {
    -(y / b)
}

/// Element-wise `a / b` (nalgebra's `a.component_div(&b)`).
#[inline]
pub fn component_div<T: Real>(a: &[T], b: &[T]) -> Vec<T> {
    binary("component_div", a, b, |x, y| x / y)
}

/// Forward mode of [`component_div`]: `da / b - (a / b) db / b`.
#[inline]
pub fn component_div_jvp<T: Real>(a: &[T], b: &[T], da: &[T], db: &[T]) -> (Vec<T>, Vec<T>) {
    component_div_forward("component_div_jvp", a, b, Some(da), Some(db))
}

/// Forward mode of [`component_div`] for generated code: `None` for a tangent that is zero skips
/// its term (`da / b` or `-(a / b) db / b`).
#[inline]
pub fn component_div_pushforward<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    component_div_forward("component_div_pushforward", a, b, da, db)
}

/// [`component_div_jvp`] and [`component_div_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn component_div_forward<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    binary_forward(
        op,
        a,
        b,
        da,
        db,
        |x, y| x / y,
        |x, y, _| div_da(x, y),
        |_, y, v| div_db_of(y, v),
    )
}

/// Reverse mode of [`component_div`]: `da += seed / b`, `db -= seed (a / b) / b`.
#[inline]
pub fn component_div_vjp<T: Real>(
    a: &[T],
    b: &[T],
    da: &mut [T],
    db: &mut [T],
    seed: &[T],
) -> Vec<T> {
    binary_adjoints(
        "component_div_vjp",
        a,
        b,
        Some(da),
        Some(db),
        seed,
        div_da,
        div_db,
    );
    component_div(a, b)
}

/// Adjoints of [`component_div`] without its value, for generated code: as [`component_div_vjp`].
#[inline]
pub fn component_div_pullback<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: &[T],
) {
    binary_adjoints("component_div_pullback", a, b, da, db, seed, div_da, div_db);
}

/// [`component_div_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn component_div_vjp_dropped<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T]) {
    check_binary("component_div_vjp", a, b, da, db);
}

// ---------------------------------------------------------------------------------------------
// Element-wise with one operand, or with a scalar

/// Element-wise `-a` (nalgebra's `-&a`).
#[inline]
pub fn neg<T: Real>(a: &[T]) -> Vec<T> {
    a.iter().map(|&x| -x).collect()
}

/// Forward mode of [`neg`]: `-da`.
#[inline]
pub fn neg_jvp<T: Real>(a: &[T], da: &[T]) -> (Vec<T>, Vec<T>) {
    neg_forward("neg_jvp", a, Some(da))
}

/// Forward mode of [`neg`] for generated code: `None` for a tangent that is zero gives `-0`s, as
/// [`neg_jvp`] of zeros does.
#[inline]
pub fn neg_pushforward<T: Real>(a: &[T], da: Option<&[T]>) -> (Vec<T>, Vec<T>) {
    neg_forward("neg_pushforward", a, da)
}

/// [`neg_jvp`] and [`neg_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn neg_forward<T: Real>(op: &str, a: &[T], da: Option<&[T]>) -> (Vec<T>, Vec<T>) {
    let dy = match da {
        Some(da) => {
            check_same(op, "a", a.len(), "da", da.len());
            neg(da)
        }
        None => vec![-T::zero(); a.len()],
    };
    (neg(a), dy)
}

/// `da -= seed` under the name `op`, nothing for a `None` buffer.
#[inline(always)]
#[track_caller]
fn neg_adjoints<T: Real>(op: &str, a: &[T], da: Option<&mut [T]>, seed: &[T]) {
    if let Some(da) = da.as_deref() {
        check_same(op, "a", a.len(), "da", da.len());
    }
    check_seed(op, seed.len(), a.len());
    if let Some(da) = da {
        for (d, &s) in da.iter_mut().zip(seed) {
            *d = *d - s;
        }
    }
}

/// Reverse mode of [`neg`]: `da -= seed`.
#[inline]
pub fn neg_vjp<T: Real>(a: &[T], da: &mut [T], seed: &[T]) -> Vec<T> {
    neg_adjoints("neg_vjp", a, Some(da), seed);
    neg(a)
}

/// Adjoints of [`neg`] without its value, for generated code: `da -= seed`.
#[inline]
pub fn neg_pullback<T: Real>(a: &[T], da: Option<&mut [T]>, seed: &[T]) {
    neg_adjoints("neg_pullback", a, da, seed);
}

/// [`neg_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn neg_vjp_dropped<T: Real>(a: &[T], da: &mut [T]) {
    check_same("neg_vjp", "a", a.len(), "da", da.len());
}

/// `a * s`, every element times the scalar `s` (nalgebra's `&a * s`).
#[inline]
pub fn scale<T: Real>(a: &[T], s: T) -> Vec<T> {
    a.iter().map(|&x| x * s).collect()
}

/// Forward mode of [`scale`]: `da * s + a * ds`.
#[inline]
pub fn scale_jvp<T: Real>(a: &[T], s: T, da: &[T], ds: T) -> (Vec<T>, Vec<T>) {
    scale_forward("scale_jvp", a, s, Some(da), Some(ds))
}

/// Forward mode of [`scale`] for generated code: `None` for a tangent that is zero skips its term
/// (`da * s` or `a * ds`).
#[inline]
pub fn scale_pushforward<T: Real>(
    a: &[T],
    s: T,
    da: Option<&[T]>,
    ds: Option<T>,
) -> (Vec<T>, Vec<T>) {
    scale_forward("scale_pushforward", a, s, da, ds)
}

/// [`scale_jvp`] and [`scale_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn scale_forward<T: Real>(
    op: &str,
    a: &[T],
    s: T,
    da: Option<&[T]>,
    ds: Option<T>,
) -> (Vec<T>, Vec<T>) {
    if let Some(da) = da {
        check_same(op, "a", a.len(), "da", da.len());
    }
    let dy = tangents2(
        a.len(),
        da.map(at),
        |_| s,
        ds.map(|ds| move |_| ds),
        |i| a[i],
    );
    (scale(a, s), dy)
}

/// The adjoints of `a * s` under the name `op`: `da[i] += seed[i] * pa(s)` and
/// `ds += Σ seed[i] * ps(a[i], s)` (strong zero) over the seed's entries, `ds` untouched by an
/// empty seed, each partial evaluated only for a `Some` buffer.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn with_scalar_adjoints<T: Real>(
    op: &str,
    a: &[T],
    s: T,
    da: Option<&mut [T]>,
    ds: Option<&mut T>,
    seed: &[T],
    pa: impl Fn(T) -> T,
    ps: impl Fn(T, T) -> T,
) {
    if let Some(da) = da.as_deref() {
        check_same(op, "a", a.len(), "da", da.len());
    }
    check_seed(op, seed.len(), a.len());
    if let Some(da) = da {
        for (d, &g) in da.iter_mut().zip(seed) {
            *d = *d + term(g, pa(s));
        }
    }
    if let Some(ds) = ds {
        if !seed.is_empty() {
            let sum = a
                .iter()
                .zip(seed)
                .fold(T::zero(), |sum, (&x, &g)| sum + term(g, ps(x, s)));
            *ds = *ds + sum;
        }
    }
}

/// Reverse mode of [`scale`]: `da += seed * s`, `ds += Σ seed[i] a[i]`.
#[inline]
pub fn scale_vjp<T: Real>(a: &[T], s: T, da: &mut [T], ds: &mut T, seed: &[T]) -> Vec<T> {
    with_scalar_adjoints("scale_vjp", a, s, Some(da), Some(ds), seed, |s| s, |x, _| x);
    scale(a, s)
}

/// Adjoints of [`scale`] without its value, for generated code: `seed * s`, `Σ seed[i] a[i]`.
#[inline]
pub fn scale_pullback<T: Real>(
    a: &[T],
    s: T,
    da: Option<&mut [T]>,
    ds: Option<&mut T>,
    seed: &[T],
) {
    with_scalar_adjoints("scale_pullback", a, s, da, ds, seed, |s| s, |x, _| x);
}

/// [`scale_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn scale_vjp_dropped<T: Real>(a: &[T], _s: T, da: &mut [T], _ds: &mut T) {
    check_same("scale_vjp", "a", a.len(), "da", da.len());
}

/// `a / s`, every element divided by the scalar `s` (nalgebra's `&a / s`: a division per
/// element, not a product by `1 / s`, so the values are nalgebra's bit for bit).
#[inline]
pub fn div_scalar<T: Real>(a: &[T], s: T) -> Vec<T> {
    a.iter().map(|&x| x / s).collect()
}

/// Forward mode of [`div_scalar`]: `da / s - (a / s) ds / s`.
#[inline]
pub fn div_scalar_jvp<T: Real>(a: &[T], s: T, da: &[T], ds: T) -> (Vec<T>, Vec<T>) {
    div_scalar_forward("div_scalar_jvp", a, s, Some(da), Some(ds))
}

/// Forward mode of [`div_scalar`] for generated code: `None` for a tangent that is zero skips its
/// term (`da / s` or `-(a / s) ds / s`).
#[inline]
pub fn div_scalar_pushforward<T: Real>(
    a: &[T],
    s: T,
    da: Option<&[T]>,
    ds: Option<T>,
) -> (Vec<T>, Vec<T>) {
    div_scalar_forward("div_scalar_pushforward", a, s, da, ds)
}

/// [`div_scalar_jvp`] and [`div_scalar_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn div_scalar_forward<T: Real>(
    op: &str,
    a: &[T],
    s: T,
    da: Option<&[T]>,
    ds: Option<T>,
) -> (Vec<T>, Vec<T>) {
    if let Some(da) = da {
        check_same(op, "a", a.len(), "da", da.len());
    }
    let y = div_scalar(a, s);
    let dy = tangents2(
        a.len(),
        da.map(at),
        |_| div_da(T::zero(), s),
        ds.map(|ds| move |_| ds),
        |i| div_db_of(s, y[i]),
    );
    (y, dy)
}

/// Reverse mode of [`div_scalar`]: `da += seed / s`, `ds -= Σ seed[i] (a[i] / s) / s`.
#[inline]
pub fn div_scalar_vjp<T: Real>(a: &[T], s: T, da: &mut [T], ds: &mut T, seed: &[T]) -> Vec<T> {
    with_scalar_adjoints(
        "div_scalar_vjp",
        a,
        s,
        Some(da),
        Some(ds),
        seed,
        T::recip,
        div_db,
    );
    div_scalar(a, s)
}

/// Adjoints of [`div_scalar`] without its value, for generated code: as [`div_scalar_vjp`].
#[inline]
pub fn div_scalar_pullback<T: Real>(
    a: &[T],
    s: T,
    da: Option<&mut [T]>,
    ds: Option<&mut T>,
    seed: &[T],
) {
    with_scalar_adjoints("div_scalar_pullback", a, s, da, ds, seed, T::recip, div_db);
}

/// [`div_scalar_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn div_scalar_vjp_dropped<T: Real>(a: &[T], _s: T, da: &mut [T], _ds: &mut T) {
    check_same("div_scalar_vjp", "a", a.len(), "da", da.len());
}

/// `a + s`, the scalar `s` added to every element (nalgebra's `a.add_scalar(s)`).
#[inline]
pub fn add_scalar<T: Real>(a: &[T], s: T) -> Vec<T> {
    a.iter().map(|&x| x + s).collect()
}

/// Forward mode of [`add_scalar`]: `da + ds`.
#[inline]
pub fn add_scalar_jvp<T: Real>(a: &[T], s: T, da: &[T], ds: T) -> (Vec<T>, Vec<T>) {
    add_scalar_forward("add_scalar_jvp", a, s, Some(da), Some(ds))
}

/// Forward mode of [`add_scalar`] for generated code: `None` for a tangent that is zero skips its
/// term (the `+ 0` kept: `da + 0` and `0 + ds`, whose `-0`s become `+0` as in [`add_scalar_jvp`]).
#[inline]
pub fn add_scalar_pushforward<T: Real>(
    a: &[T],
    s: T,
    da: Option<&[T]>,
    ds: Option<T>,
) -> (Vec<T>, Vec<T>) {
    add_scalar_forward("add_scalar_pushforward", a, s, da, ds)
}

/// [`add_scalar_jvp`] and [`add_scalar_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn add_scalar_forward<T: Real>(
    op: &str,
    a: &[T],
    s: T,
    da: Option<&[T]>,
    ds: Option<T>,
) -> (Vec<T>, Vec<T>) {
    let dy = match (da, ds) {
        (Some(da), ds) => {
            check_same(op, "a", a.len(), "da", da.len());
            add_scalar(da, ds.unwrap_or_else(T::zero))
        }
        (None, ds) => vec![T::zero() + ds.unwrap_or_else(T::zero); a.len()],
    };
    (add_scalar(a, s), dy)
}

/// The adjoints of `a + s` under the name `op`: `da += seed`, `ds += Σ seed[i]` (untouched by an
/// empty seed), nothing for a `None` buffer.
#[inline(always)]
#[track_caller]
fn add_scalar_adjoints<T: Real>(
    op: &str,
    a: &[T],
    da: Option<&mut [T]>,
    ds: Option<&mut T>,
    seed: &[T],
) {
    if let Some(da) = da.as_deref() {
        check_same(op, "a", a.len(), "da", da.len());
    }
    check_seed(op, seed.len(), a.len());
    if let Some(da) = da {
        for (d, &g) in da.iter_mut().zip(seed) {
            *d = *d + g;
        }
    }
    if let Some(ds) = ds {
        if !seed.is_empty() {
            *ds = *ds + sum(seed);
        }
    }
}

/// Reverse mode of [`add_scalar`]: `da += seed`, `ds += Σ seed[i]`.
#[inline]
pub fn add_scalar_vjp<T: Real>(a: &[T], s: T, da: &mut [T], ds: &mut T, seed: &[T]) -> Vec<T> {
    add_scalar_adjoints("add_scalar_vjp", a, Some(da), Some(ds), seed);
    add_scalar(a, s)
}

/// Adjoints of [`add_scalar`] without its value, for generated code: `da += seed`, `ds += Σ seed`.
#[inline]
pub fn add_scalar_pullback<T: Real>(
    a: &[T],
    _s: T,
    da: Option<&mut [T]>,
    ds: Option<&mut T>,
    seed: &[T],
) {
    add_scalar_adjoints("add_scalar_pullback", a, da, ds, seed);
}

/// [`add_scalar_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn add_scalar_vjp_dropped<T: Real>(a: &[T], _s: T, da: &mut [T], _ds: &mut T) {
    check_same("add_scalar_vjp", "a", a.len(), "da", da.len());
}
