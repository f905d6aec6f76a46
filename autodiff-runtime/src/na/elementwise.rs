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

/// The shape checks of a one-operand rule's adjoints under the name `op`: `da` (if wanted) and
/// the seed have `a`'s length.
#[inline(always)]
#[track_caller]
fn check_unary_adjoints<T>(op: &str, a: &[T], da: Option<&[T]>, seed: &[T]) {
    if let Some(da) = da {
        check_same(op, "a", a.len(), "da", da.len());
    }
    check_seed(op, seed.len(), a.len());
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

/// The public rules of an element-wise binary operation: the value `$name(a, b)` (element
/// `f(x, y)`); `_jvp` and `_pushforward` through [`binary_forward`] with the partials `pa(x, y,
/// value)` and `pb(..)`; `_vjp` and `_pullback` through [`binary_adjoints`] with `qa(x, y)` and
/// `qb(x, y)`; `_vjp_dropped`. Each reports shape errors under its own name. The docs' formulas
/// are given as strings.
macro_rules! binary_rules {
    (
        $(#[$doc:meta])*
        fn $name:ident = $f:expr;
        jvp $jvp:ident, $push:ident = ($pa:expr, $pb:expr), $jvp_doc:literal;
        vjp $vjp:ident, $pull:ident, $dropped:ident = ($qa:expr, $qb:expr), $vjp_doc:literal;
    ) => {
        $(#[$doc])*
        #[inline]
        pub fn $name<T: Real>(a: &[T], b: &[T]) -> Vec<T> {
            binary(stringify!($name), a, b, $f)
        }

        #[doc = concat!("Forward mode of [`", stringify!($name), "`]: ", $jvp_doc, ".")]
        #[inline]
        pub fn $jvp<T: Real>(a: &[T], b: &[T], da: &[T], db: &[T]) -> (Vec<T>, Vec<T>) {
            binary_forward(stringify!($jvp), a, b, Some(da), Some(db), $f, $pa, $pb)
        }

        #[doc = concat!(
            "Forward mode of [`", stringify!($name), "`] for generated code: `None` for a tangent ",
            "that is zero skips its term."
        )]
        #[inline]
        pub fn $push<T: Real>(
            a: &[T],
            b: &[T],
            da: Option<&[T]>,
            db: Option<&[T]>,
        ) -> (Vec<T>, Vec<T>) {
            binary_forward(stringify!($push), a, b, da, db, $f, $pa, $pb)
        }

        #[doc = concat!("Reverse mode of [`", stringify!($name), "`]: ", $vjp_doc, ".")]
        #[inline]
        pub fn $vjp<T: Real>(
            a: &[T],
            b: &[T],
            da: &mut [T],
            db: &mut [T],
            seed: &[T],
        ) -> Vec<T> {
            binary_adjoints(stringify!($vjp), a, b, Some(da), Some(db), seed, $qa, $qb);
            $name(a, b)
        }

        #[doc = concat!(
            "Adjoints of [`", stringify!($name), "`] without its value, for generated code: ",
            $vjp_doc, "; nothing for a `None` buffer."
        )]
        #[inline]
        pub fn $pull<T: Real>(
            a: &[T],
            b: &[T],
            da: Option<&mut [T]>,
            db: Option<&mut [T]>,
            seed: &[T],
        ) {
            binary_adjoints(stringify!($pull), a, b, da, db, seed, $qa, $qb);
        }

        #[doc = concat!("[`", stringify!($vjp), "`] with a zero seed: checks the shapes, adds nothing.")]
        #[doc(hidden)]
        #[inline]
        pub fn $dropped<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T]) {
            check_binary(stringify!($vjp), a, b, da, db);
        }
    };
}

binary_rules! {
    /// Element-wise `a + b` (nalgebra's `&a + &b`).
    fn add = |x, y| x + y;
    jvp add_jvp, add_pushforward = (|_, _, _| T::one(), |_, _, _| T::one()), "`da + db`";
    vjp add_vjp, add_pullback, add_vjp_dropped = (|_, _| T::one(), |_, _| T::one()),
        "`da += seed`, `db += seed`";
}

binary_rules! {
    /// Element-wise `a - b` (nalgebra's `&a - &b`).
    fn sub = |x, y| x - y;
    jvp sub_jvp, sub_pushforward = (|_, _, _| T::one(), |_, _, _| -T::one()), "`da - db`";
    vjp sub_vjp, sub_pullback, sub_vjp_dropped = (|_, _| T::one(), |_, _| -T::one()),
        "`da += seed`, `db -= seed`";
}

binary_rules! {
    /// Element-wise `a * b` (nalgebra's `a.component_mul(&b)`).
    fn component_mul = |x, y| x * y;
    jvp component_mul_jvp, component_mul_pushforward = (|_, y, _| y, |x, _, _| x),
        "`da * b + a * db`";
    vjp component_mul_vjp, component_mul_pullback, component_mul_vjp_dropped = (|_, y| y, |x, _| x),
        "`da += seed * b`, `db += seed * a`";
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

binary_rules! {
    /// Element-wise `a / b` (nalgebra's `a.component_div(&b)`).
    fn component_div = |x, y| x / y;
    jvp component_div_jvp, component_div_pushforward = (
        |x, y, _| div_da(x, y),
        |_, y, v| div_db_of(y, v)
    ), "`da / b - (a / b) db / b`";
    vjp component_div_vjp, component_div_pullback, component_div_vjp_dropped = (div_da, div_db),
        "`da += seed / b`, `db -= seed (a / b) / b`";
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
    check_unary_adjoints(op, a, da.as_deref(), seed);
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

/// The public rules of an element-wise operation with a scalar `s`, over its private
/// `$fwd(op, a, s, da, ds)` (value and tangent) and `$adj(op, a, s, da, ds, seed)` (adjoints, a
/// `None` buffer skipped): `_jvp`, `_pushforward`, `_vjp`, `_pullback` and `_vjp_dropped`, each
/// reporting shape errors under its own name. The docs' formulas are given as strings.
macro_rules! scalar_rules {
    (
        $name:ident: $fwd:ident, $adj:ident;
        jvp $jvp:ident, $push:ident, $jvp_doc:literal, $push_doc:literal;
        vjp $vjp:ident, $pull:ident, $dropped:ident, $vjp_doc:literal;
    ) => {
        #[doc = concat!("Forward mode of [`", stringify!($name), "`]: ", $jvp_doc, ".")]
        #[inline]
        pub fn $jvp<T: Real>(a: &[T], s: T, da: &[T], ds: T) -> (Vec<T>, Vec<T>) {
            $fwd(stringify!($jvp), a, s, Some(da), Some(ds))
        }

        #[doc = concat!(
            "Forward mode of [`", stringify!($name), "`] for generated code: `None` for a tangent ",
            "that is zero skips its term (", $push_doc, ")."
        )]
        #[inline]
        pub fn $push<T: Real>(
            a: &[T],
            s: T,
            da: Option<&[T]>,
            ds: Option<T>,
        ) -> (Vec<T>, Vec<T>) {
            $fwd(stringify!($push), a, s, da, ds)
        }

        #[doc = concat!("Reverse mode of [`", stringify!($name), "`]: ", $vjp_doc, ".")]
        #[inline]
        pub fn $vjp<T: Real>(a: &[T], s: T, da: &mut [T], ds: &mut T, seed: &[T]) -> Vec<T> {
            $adj(stringify!($vjp), a, s, Some(da), Some(ds), seed);
            $name(a, s)
        }

        #[doc = concat!(
            "Adjoints of [`", stringify!($name), "`] without its value, for generated code: ",
            $vjp_doc, "; nothing for a `None` buffer."
        )]
        #[inline]
        pub fn $pull<T: Real>(
            a: &[T],
            s: T,
            da: Option<&mut [T]>,
            ds: Option<&mut T>,
            seed: &[T],
        ) {
            $adj(stringify!($pull), a, s, da, ds, seed);
        }

        #[doc = concat!("[`", stringify!($vjp), "`] with a zero seed: checks the shapes, adds nothing.")]
        #[doc(hidden)]
        #[inline]
        pub fn $dropped<T: Real>(a: &[T], _s: T, da: &mut [T], _ds: &mut T) {
            check_same(stringify!($vjp), "a", a.len(), "da", da.len());
        }
    };
}

/// The adjoints of `a * s` or `a / s` under the name `op`: `da[i] += seed[i] * pa(s)` and
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
    check_unary_adjoints(op, a, da.as_deref(), seed);
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

/// `a * s`, every element times the scalar `s` (nalgebra's `&a * s`).
#[inline]
pub fn scale<T: Real>(a: &[T], s: T) -> Vec<T> {
    a.iter().map(|&x| x * s).collect()
}

/// Value and tangent of [`scale`] under the name `op`: `da * s + a * ds`.
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

/// Adjoints of [`scale`] under the name `op`: `da += seed * s`, `ds += Σ seed[i] a[i]`.
#[inline(always)]
#[track_caller]
fn scale_adjoints<T: Real>(
    op: &str,
    a: &[T],
    s: T,
    da: Option<&mut [T]>,
    ds: Option<&mut T>,
    seed: &[T],
) {
    with_scalar_adjoints(op, a, s, da, ds, seed, |s| s, |x, _| x);
}

scalar_rules! {
    scale: scale_forward, scale_adjoints;
    jvp scale_jvp, scale_pushforward, "`da * s + a * ds`", "`da * s` or `a * ds`";
    vjp scale_vjp, scale_pullback, scale_vjp_dropped, "`da += seed * s`, `ds += Σ seed[i] a[i]`";
}

/// `a / s`, every element divided by the scalar `s` (nalgebra's `&a / s`: a division per
/// element, not a product by `1 / s`, so the values are nalgebra's bit for bit).
#[inline]
pub fn div_scalar<T: Real>(a: &[T], s: T) -> Vec<T> {
    a.iter().map(|&x| x / s).collect()
}

/// Value and tangent of [`div_scalar`] under the name `op`: `da / s - (a / s) ds / s`.
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

/// Adjoints of [`div_scalar`] under the name `op`: `da += seed / s`, `ds -= Σ seed[i] (a[i] / s)
/// / s`.
#[inline(always)]
#[track_caller]
fn div_scalar_adjoints<T: Real>(
    op: &str,
    a: &[T],
    s: T,
    da: Option<&mut [T]>,
    ds: Option<&mut T>,
    seed: &[T],
) {
    with_scalar_adjoints(op, a, s, da, ds, seed, T::recip, div_db);
}

scalar_rules! {
    div_scalar: div_scalar_forward, div_scalar_adjoints;
    jvp div_scalar_jvp, div_scalar_pushforward, "`da / s - (a / s) ds / s`",
        "`da / s` or `-(a / s) ds / s`";
    vjp div_scalar_vjp, div_scalar_pullback, div_scalar_vjp_dropped,
        "`da += seed / s`, `ds -= Σ seed[i] (a[i] / s) / s`";
}

/// `a + s`, the scalar `s` added to every element (nalgebra's `a.add_scalar(s)`).
#[inline]
pub fn add_scalar<T: Real>(a: &[T], s: T) -> Vec<T> {
    a.iter().map(|&x| x + s).collect()
}

/// Value and tangent of [`add_scalar`] under the name `op`: `da + ds`, a `None` side's `+ 0`
/// kept (`da + 0` and `0 + ds`, whose `-0`s become `+0` as in [`add_scalar_jvp`]).
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
    _s: T,
    da: Option<&mut [T]>,
    ds: Option<&mut T>,
    seed: &[T],
) {
    check_unary_adjoints(op, a, da.as_deref(), seed);
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

scalar_rules! {
    add_scalar: add_scalar_forward, add_scalar_adjoints;
    jvp add_scalar_jvp, add_scalar_pushforward, "`da + ds`", "the `+ 0` kept";
    vjp add_scalar_vjp, add_scalar_pullback, add_scalar_vjp_dropped,
        "`da += seed`, `ds += Σ seed[i]`";
}
