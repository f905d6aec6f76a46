//! Guards of loop peeling (`peel.rs`): takes a loop's index, start and end and the conditions
//! of its body's `if`s, gives the comparisons of the index with the bounds found in them and
//! their values at the first index, at the last, or over a run of indices, and the body with
//! the `if`s those values decide replaced by the branch taken.

use super::lit_value;
use crate::ir::*;
use crate::transform::normalize::R;
use proc_macro2::Span;
fn bool_lit(b: bool) -> Expr {
    Expr::new(
        ExprKind::Lit(syn::Lit::Bool(syn::LitBool::new(b, Span::call_site()))),
        Span::call_site(),
    )
}

/// One side of an index comparison: `j + k` (`Index`), a literal `k` (`Const`), or the loop's
/// end plus `k` (`End`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Side {
    Index(i128),
    Const(i128),
    End(i128),
}

/// The loop a guard is read against: its index, its literal start (if it is one), its end.
pub(super) struct Lp<'a> {
    pub(super) j: VarId,
    pub(super) start: Option<i128>,
    pub(super) end: &'a Expr,
    pub(super) end_ok: bool,
}

impl Lp<'_> {
    fn side(&self, e: &Expr) -> Option<Side> {
        if let Some(c) = lit_value(e) {
            return Some(Side::Const(c));
        }
        if self.end_ok && e.same(self.end) {
            return Some(Side::End(0));
        }
        match &e.kind {
            ExprKind::Var(v) if *v == self.j => Some(Side::Index(0)),
            ExprKind::Binary { op, lhs, rhs } if matches!(op, BinOp::Add | BinOp::Sub) => {
                let (l, r) = (self.side(lhs)?, self.side(rhs)?);
                let add = *op == BinOp::Add;
                match (l, r) {
                    // `j + k`, `k + j`: never `j - k`, which may underflow where the guard is
                    // false (the copy would no longer evaluate it).
                    (Side::Index(a), Side::Const(k)) | (Side::Const(k), Side::Index(a))
                        if add && k >= 0 =>
                    {
                        Some(Side::Index(a + k))
                    }
                    (Side::End(a), Side::Const(k)) if add => Some(Side::End(a + k)),
                    (Side::End(a), Side::Const(k)) => Some(Side::End(a - k)),
                    (Side::Const(a), Side::End(k)) if add => Some(Side::End(a + k)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A comparison of the index with a literal or with the end: `j op T`, `T` the literal
    /// `Const(t)` or `End(d)` (the end plus `d`).
    fn atom(&self, e: &Expr) -> Option<(BinOp, Side)> {
        let ExprKind::Binary { op, lhs, rhs } = &e.kind else {
            return None;
        };
        if !matches!(
            op,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        ) {
            return None;
        }
        let (l, r) = (self.side(lhs)?, self.side(rhs)?);
        let flip = |op: BinOp| match op {
            BinOp::Lt => BinOp::Gt,
            BinOp::Le => BinOp::Ge,
            BinOp::Gt => BinOp::Lt,
            BinOp::Ge => BinOp::Le,
            other => other,
        };
        let (op, k, t) = match (l, r) {
            (Side::Index(k), t @ (Side::Const(_) | Side::End(_))) => (*op, k, t),
            (t @ (Side::Const(_) | Side::End(_)), Side::Index(k)) => (flip(*op), k, t),
            _ => return None,
        };
        Some(match t {
            Side::Const(c) => (op, Side::Const(c - k)),
            Side::End(d) => (op, Side::End(d - k)),
            Side::Index(_) => return None,
        })
    }
}

/// Where a guard is evaluated: at one index, or over a run of indices.
#[derive(Clone, Copy, Debug)]
pub(super) enum At {
    /// The literal index `a`.
    Point(i128),
    /// The index `end + e`.
    EndPoint(i128),
    /// Every index from `lo` (a literal, if known) up to `end + hi`.
    Run(Option<i128>, i128),
}

fn compare(op: BinOp, x: i128, y: i128) -> bool {
    match op {
        BinOp::Lt => x < y,
        BinOp::Le => x <= y,
        BinOp::Gt => x > y,
        BinOp::Ge => x >= y,
        BinOp::Eq => x == y,
        _ => x != y,
    }
}

/// The value of `j op T` wherever `at` says, when it is one value: `T` and `at` are read in
/// absolute numbers when the end is a literal, else a literal against a literal and the end
/// against the end.
pub(super) fn value(op: BinOp, t: Side, at: At, end_lit: Option<i128>) -> Option<bool> {
    let (t, at) = match end_lit {
        Some(l) => (
            match t {
                Side::End(d) => Side::Const(l + d),
                other => other,
            },
            match at {
                At::EndPoint(e) => At::Point(l + e),
                At::Run(lo, hi) => {
                    let c = match t {
                        Side::Const(c) => c,
                        Side::End(d) => l + d,
                        Side::Index(_) => return None,
                    };
                    return run_value(op, c, lo, Some(l + hi));
                }
                other => other,
            },
        ),
        None => (t, at),
    };
    match (t, at) {
        (Side::Const(c), At::Point(a)) => Some(compare(op, a, c)),
        (Side::End(d), At::EndPoint(e)) => Some(compare(op, e, d)),
        (Side::Const(c), At::Run(lo, _)) => run_value(op, c, lo, None),
        (Side::End(d), At::Run(_, hi)) => run_value(op, d, None, Some(hi)),
        _ => None,
    }
}

/// The value of `j op c` for every `j` in `[lo, hi]` (an absent bound: unbounded), when it is
/// one value.
fn run_value(op: BinOp, c: i128, lo: Option<i128>, hi: Option<i128>) -> Option<bool> {
    if matches!(op, BinOp::Eq | BinOp::Ne) {
        let outside = lo.is_some_and(|lo| c < lo) || hi.is_some_and(|hi| c > hi);
        return outside.then_some(op == BinOp::Ne);
    }
    // Far above every literal, `j > c` holds; far below, `j < c`.
    let up = matches!(op, BinOp::Gt | BinOp::Ge);
    let at_lo = lo.map_or(!up, |lo| compare(op, lo, c));
    let at_hi = hi.map_or(up, |hi| compare(op, hi, c));
    (at_lo == at_hi).then_some(at_lo)
}

/// `cond` with every guard whose value `at` fixes replaced by that value, and `&&`, `||`, `!`
/// over known values folded.
fn resolve(cond: &Expr, lp: &Lp, at: At) -> Expr {
    if let Some((op, t)) = lp.atom(cond) {
        if let Some(b) = value(op, t, at, lit_value(lp.end)) {
            return bool_lit(b);
        }
        return cond.clone();
    }
    let known = |e: &Expr| match &e.kind {
        ExprKind::Lit(syn::Lit::Bool(b)) => Some(b.value),
        _ => None,
    };
    match &cond.kind {
        ExprKind::Binary { op, lhs, rhs } if matches!(op, BinOp::And | BinOp::Or) => {
            let (l, r) = (resolve(lhs, lp, at), resolve(rhs, lp, at));
            let and = *op == BinOp::And;
            match (known(&l), known(&r)) {
                // `false && r`, `true || r`: `r` is not evaluated (and has no effect: conditions
                // are pure).
                (Some(b), _) if b != and => bool_lit(b),
                (Some(_), _) => r,
                (_, Some(b)) if b != and => bool_lit(b),
                (_, Some(_)) => l,
                _ => {
                    let mut e = cond.clone();
                    e.kind = ExprKind::Binary {
                        op: *op,
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                    };
                    e
                }
            }
        }
        ExprKind::Unary {
            op: UnOp::Not,
            expr,
        } => {
            let inner = resolve(expr, lp, at);
            match known(&inner) {
                Some(b) => bool_lit(!b),
                None => {
                    let mut e = cond.clone();
                    e.kind = ExprKind::Unary {
                        op: UnOp::Not,
                        expr: Box::new(inner),
                    };
                    e
                }
            }
        }
        _ => cond.clone(),
    }
}

/// The guards of `body`'s `if`s (anywhere in it): comparisons of the index the loop can decide.
pub(super) fn guards(body: &[R], lp: &Lp, out: &mut Vec<(BinOp, Side)>) {
    fn in_cond(e: &Expr, lp: &Lp, out: &mut Vec<(BinOp, Side)>) {
        if let Some(a) = lp.atom(e) {
            out.push(a);
            return;
        }
        match &e.kind {
            ExprKind::Binary {
                op: BinOp::And | BinOp::Or,
                lhs,
                rhs,
            } => {
                in_cond(lhs, lp, out);
                in_cond(rhs, lp, out);
            }
            ExprKind::Unary {
                op: UnOp::Not,
                expr,
            } => in_cond(expr, lp, out),
            _ => {}
        }
    }
    for s in body {
        if let R::If { cond, then, els } = s {
            in_cond(cond, lp, out);
            guards(then, lp, out);
            guards(els, lp, out);
        }
    }
}

/// `body` with its `if`s' guards decided at `at` and the `if`s whose condition is then known
/// replaced by the branch taken.
pub(super) fn decide(body: &[R], lp: &Lp, at: At) -> Vec<R> {
    let mut out = Vec::new();
    for s in body {
        match s {
            R::If { cond, then, els } => {
                let c = resolve(cond, lp, at);
                match &c.kind {
                    ExprKind::Lit(syn::Lit::Bool(b)) => {
                        out.extend(decide(if b.value { then } else { els }, lp, at))
                    }
                    _ => out.push(R::If {
                        cond: c,
                        then: decide(then, lp, at),
                        els: decide(els, lp, at),
                    }),
                }
            }
            other => out.push(other.clone()),
        }
    }
    out
}
