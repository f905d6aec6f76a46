//! Small builders of IR expressions shared by the lowering passes (chains, views, nested
//! arrays, in-place methods): takes operands, gives the `Expr` node with the first operand's span.

use super::*;

pub(super) fn int_lit(n: usize, span: Span) -> Expr {
    Expr::new(
        ExprKind::Lit(syn::Lit::Int(syn::LitInt::new(&format!("{n}usize"), span))),
        span,
    )
}

/// The length of the slice `var[offset .. offset + len]` (all of `var` when `len` is `None`).
pub(super) fn src_len(var: VarId, len: &Option<Expr>, span: Span) -> Expr {
    match len {
        Some(l) => l.clone(),
        None => Expr::new(ExprKind::Len(var), span),
    }
}

/// `offset + k`, or `k` without an offset.
pub(super) fn shifted(offset: &Option<Expr>, k: Expr) -> Expr {
    match offset {
        Some(o) => bin(BinOp::Add, o.clone(), k),
        None => k,
    }
}

pub(super) fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let span = a.span;
    Expr::new(
        ExprKind::Binary {
            op,
            lhs: Box::new(a),
            rhs: Box::new(b),
        },
        span,
    )
}

pub(super) fn int_method(recv: Expr, name: &str, args: Vec<Expr>) -> Expr {
    let span = recv.span;
    Expr::new(
        ExprKind::PlainMethod {
            recv: Box::new(recv),
            method: crate::names::existing(name, span),
            turbofish: quote!(),
            args,
            shape: Shape::Int,
        },
        span,
    )
}

pub(super) fn var(v: VarId, span: Span) -> Expr {
    Expr::new(ExprKind::Var(v), span)
}
