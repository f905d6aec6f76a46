//! The fast path of a statement's `Dual` evaluation (`Op::Dual { fast: true }`): takes an
//! active scalar expression of a statement, decides whether it is evaluated first on the
//! runtime's `Fast` numbers (`Dual`'s operations without the strong zero's tests) and again on
//! `Dual` only where that tangent is NaN (ARCHITECTURE.md, "Forward mode"), and whether an
//! inactive expression may have an effect, which the second evaluation would repeat.

use super::program::DualExpr;
use super::{expr_active, Forward};
use crate::ir::*;

impl Forward<'_> {
    /// Whether a `Dual` evaluation gets a fast path (`Op::Dual`): in `<f>_jvp`, in a statement
    /// that evaluates nothing with an effect, when some operation of it tests for the strong
    /// zero (a product, quotient, remainder or method; `+` and `-` have constant partials, whose
    /// tests fold away).
    pub(super) fn fast(&self, d: &DualExpr) -> bool {
        fn tests(d: &DualExpr) -> bool {
            match d {
                DualExpr::Binary { op, lhs, rhs, .. } => {
                    // `Dual * c`, `Dual / c` of a nonzero literal and `Dual % c`: a constant
                    // finite nonzero partial, whose test folds away.
                    let own = match (op, &**rhs) {
                        (BinOp::Mul | BinOp::Div, DualExpr::Plain(t)) => !nonzero_literal(t),
                        (BinOp::Rem, DualExpr::Plain(_)) => false,
                        (op, _) => matches!(op, BinOp::Mul | BinOp::Div | BinOp::Rem),
                    };
                    own || tests(lhs) || tests(rhs)
                }
                DualExpr::Neg { operand, .. } => tests(operand),
                DualExpr::Method { .. } => true,
                DualExpr::Constant { .. }
                | DualExpr::New { .. }
                | DualExpr::Plain(_)
                | DualExpr::Part { .. } => false,
            }
        }
        self.lanes.is_none() && !self.impure && tests(d)
    }
}

/// Whether `t` is a numeric literal other than zero (`2.0`, `100.0_f64`, `3`).
fn nonzero_literal(t: &proc_macro2::TokenStream) -> bool {
    match syn::parse2::<syn::Lit>(t.clone()) {
        Ok(syn::Lit::Float(f)) => f
            .base10_parse::<f64>()
            .is_ok_and(|v| v != 0.0 && v.is_finite()),
        Ok(syn::Lit::Int(i)) => i.base10_parse::<u128>().is_ok_and(|v| v != 0),
        _ => false,
    }
}

/// Whether evaluating `e` may have an effect beyond its value (a call, a `&mut` borrow, a path
/// expression with a call or macro in it).
pub(super) fn effects(vars: &[Var], e: &Expr) -> bool {
    let mut found = false;
    e.visit(&mut |n| found |= effects_here(vars, n));
    found
}

/// Integer methods of the standard library the transformations write themselves (loop peeling's
/// `n.saturating_sub(1)`) or users write in bounds: no effect on an integer receiver.
const PURE_INT_METHODS: [&str; 6] = [
    "saturating_sub",
    "saturating_add",
    "wrapping_sub",
    "wrapping_add",
    "min",
    "max",
];

/// Runtime helpers the lowering writes that have no effect but a panic on bad input (the length
/// check `copy_from_slice` lowers to): running them twice is harmless.
const PURE_RUNTIME_CALLS: [&str; 1] = ["check_same_len"];

/// Whether node `n` itself (not its children) may have an effect: a call (but the pure ones
/// above), a `&mut` borrow, a path expression with a call or macro in it.
fn effects_here(vars: &[Var], n: &Expr) -> bool {
    match &n.kind {
        ExprKind::PlainMethod { recv, method, .. } => {
            !(PURE_INT_METHODS.contains(&method.to_string().as_str())
                && shape_of(vars, recv) == Shape::Int)
        }
        ExprKind::PlainCall { func, .. } => {
            let path: Vec<String> = func.clone().into_iter().map(|t| t.to_string()).collect();
            let runtime = path.iter().any(|t| t == "autodiff_runtime");
            !(runtime
                && path
                    .last()
                    .is_some_and(|l| PURE_RUNTIME_CALLS.contains(&l.as_str())))
        }
        ExprKind::Call { .. } | ExprKind::MutRef(..) => true,
        ExprKind::Opaque { tokens, .. } => tokens.clone().into_iter().any(|t| match t {
            proc_macro2::TokenTree::Group(g) => {
                g.delimiter() == proc_macro2::Delimiter::Parenthesis
            }
            proc_macro2::TokenTree::Punct(p) => p.as_char() == '!',
            _ => false,
        }),
        _ => false,
    }
}

/// Whether statement `s` itself (not the statements of its blocks, which are asked on their
/// own) evaluates something with an effect that running the whole body again would repeat
/// (`whole.rs`): a macro other than an assertion, or an expression `effects` would flag, where
/// a call with active arguments counts only through its `_jvp`'s purity (`Op::CallJvp::pure`).
pub(super) fn stmt_effects(vars: &[Var], s: &Stmt) -> bool {
    if let Stmt::Macro(m, _) = s {
        let name = m.clone().into_iter().next().map(|t| t.to_string());
        const CHECKS: [&str; 6] = [
            "assert",
            "assert_eq",
            "assert_ne",
            "debug_assert",
            "debug_assert_eq",
            "debug_assert_ne",
        ];
        return !name.is_some_and(|n| CHECKS.contains(&n.as_str()));
    }
    let mut found = false;
    let mut look = |e: &Expr| {
        e.visit(&mut |n| {
            found |= match &n.kind {
                ExprKind::Call { .. } => !expr_active(vars, n),
                ExprKind::MutRef(..) => false,
                _ => effects_here(vars, n),
            }
        })
    };
    match s {
        Stmt::If { cond, .. } => look(cond),
        Stmt::Match { scrut, .. } => look(scrut),
        Stmt::While { cond, .. } => look(cond),
        Stmt::For {
            range: Range::Bounds {
                start, end, step, ..
            },
            ..
        } => {
            look(start);
            look(end);
            if let Some(st) = step {
                look(st)
            }
        }
        Stmt::Loop { .. } | Stmt::Block(_) => {}
        s => walk_stmt_exprs(s, &mut look),
    }
    found
}
