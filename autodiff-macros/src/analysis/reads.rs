//! What the reverse code of one statement reads: takes an expression (with activity) and the
//! `Scope`, gives the nodes whose values the rules read (`mark`), the reads among them the reverse
//! sweep cannot find by name (`snap_sites`: copied before the statement, or kept by their `let`),
//! and whether a needed `let` in a loop or branch is recomputed or saved (`recomputable`, the
//! cost model). The predicates of the saves analysis (`saves.rs`).

use crate::analysis::activity::expr_active;
use crate::analysis::scope::Scope;
use crate::ir::*;
use crate::methods::{self, Linearity};
use std::collections::BTreeSet;

/// Marks (into `out`) which nodes' values the reverse code of this expression computes:
/// everything under a node whose rule reads values, index expressions, call arguments.
pub(crate) fn mark(vars: &[Var], e: &Expr, needed: bool, out: &mut BTreeSet<ExprId>) {
    if needed {
        e.visit(&mut |n| {
            out.insert(n.id);
        });
        return;
    }
    if !expr_active(vars, e) {
        return;
    }
    match &e.kind {
        ExprKind::Binary { op, lhs, rhs } => {
            let [a, b, y] = binop_needs(vars, *op, lhs, rhs);
            if y {
                mark(vars, e, true, out);
            } else {
                mark(vars, lhs, a, out);
                mark(vars, rhs, b, out);
            }
        }
        ExprKind::Unary { expr, .. } => mark(vars, expr, false, out),
        ExprKind::Cast { expr, .. } => mark(vars, expr, true, out),
        ExprKind::Method { recv, method, .. } => {
            match methods::float_method(&method.to_string()).map(|r| r.linearity) {
                Some(Linearity::Linear) => mark(vars, recv, false, out),
                Some(Linearity::Zero) => {}
                _ => mark(vars, e, true, out),
            }
        }
        ExprKind::Call { args, .. } => {
            for a in args {
                mark(vars, a, true, out);
            }
        }
        ExprKind::Index { index, .. } => mark(vars, index, true, out),
        ExprKind::SubSlice { start, end, .. } => {
            if let Some(s) = start {
                mark(vars, s, true, out)
            }
            if let Some(x) = end {
                mark(vars, x, true, out)
            }
        }
        _ => {
            for k in e.children() {
                mark(vars, k, false, out);
            }
        }
    }
}

/// Which of `(lhs, rhs, result)` the partials of the active operands of `lhs op rhs` read.
pub(crate) fn binop_needs(vars: &[Var], op: BinOp, lhs: &Expr, rhs: &Expr) -> [bool; 3] {
    let (da, db) = methods::binop_reads(op);
    let (la, ra) = (expr_active(vars, lhs), expr_active(vars, rhs));
    let mut need = [false; 3];
    for k in 0..3 {
        need[k] = (la && da[k]) || (ra && db[k]);
    }
    need
}

/// What the reverse of a statement does about one read under its needed nodes (`needed`, from
/// `mark`) that it cannot find by name.
#[derive(Clone, Copy)]
pub(crate) enum SnapSite<'e> {
    /// An immutable variable declared in a loop or branch: kept by its `let` (`needed`).
    Needed(VarId),
    /// A copy of the read's value taken before the statement; `counted` is the mutable variable
    /// (or sequence) read, counted for the restore decision.
    Copy {
        read: &'e Expr,
        counted: Option<VarId>,
    },
    /// An owned copy of the sequence `var` borrowed by `&var` (saved under the variable's node).
    OwnedVar { read: &'e Expr, var: VarId },
    /// An owned copy of a sub-slice.
    OwnedSlice(&'e Expr),
}

/// The reads under `e`'s needed nodes that the reverse sweep cannot find by name, in the order
/// the reverse sweep computes them.
pub(crate) fn snap_sites<'e>(
    scope: &Scope,
    e: &'e Expr,
    needed: &BTreeSet<ExprId>,
    out: &mut Vec<SnapSite<'e>>,
) {
    let here = needed.contains(&e.id);
    match &e.kind {
        ExprKind::Var(v) if here => {
            if !scope.stable_at_stmt(*v) {
                if scope.vars[*v].mutable {
                    out.push(SnapSite::Copy {
                        read: e,
                        counted: Some(*v),
                    });
                } else {
                    out.push(SnapSite::Needed(*v));
                }
            }
        }
        ExprKind::Index { base, index } if here => {
            if !scope.stable_at_stmt(*base) {
                out.push(SnapSite::Copy {
                    read: e,
                    counted: Some(*base),
                });
            }
            // The index also locates the element's adjoint.
            snap_sites(scope, index, needed, out);
        }
        // A method of a changing variable of a type the macro does not know (`v.len()` with
        // `v: &mut Vec<i32>`): its value copied, not the variable.
        ExprKind::PlainMethod { recv, .. }
            if here
                && matches!(recv.kind, ExprKind::Var(v)
                    if !scope.stable_at_stmt(v) && scope.vars[v].shape == Shape::Other) =>
        {
            out.push(SnapSite::Copy {
                read: e,
                counted: None,
            });
        }
        ExprKind::Member { base, .. } if here && !scope.stable_at_stmt(*base) => {
            if scope.vars[*base].mutable {
                out.push(SnapSite::Copy {
                    read: e,
                    counted: None,
                });
            } else {
                out.push(SnapSite::Needed(*base));
            }
        }
        ExprKind::Len(v) if here && !scope.stable_at_stmt(*v) => {
            out.push(SnapSite::Copy {
                read: e,
                counted: None,
            });
        }
        ExprKind::Ref(inner) if here => {
            if let ExprKind::Var(v) = inner.kind {
                if !scope.stable_at_stmt(v) {
                    // Saved under the variable's node: `val` then borrows the copy.
                    out.push(SnapSite::OwnedVar {
                        read: inner,
                        var: v,
                    });
                    return;
                }
            }
            snap_sites(scope, inner, needed, out);
        }
        ExprKind::SubSlice {
            base, start, end, ..
        } if here => {
            if !scope.stable_at_stmt(*base) {
                out.push(SnapSite::OwnedSlice(e));
            }
            if let Some(s) = start {
                snap_sites(scope, s, needed, out)
            }
            if let Some(x) = end {
                snap_sites(scope, x, needed, out)
            }
        }
        ExprKind::CopySeq(v, _) if here && !scope.stable_at_stmt(*v) => {
            out.push(SnapSite::Copy {
                read: e,
                counted: None,
            });
        }
        _ => {
            for k in e.children() {
                snap_sites(scope, k, needed, out);
            }
        }
    }
}

/// Whether a needed immutable `let` in a loop or branch with initialiser `init` is recomputed at
/// the start of its block's reverse, and the immutable variables declared in loops or branches it
/// reads, which must be kept in turn (all of them when it is recomputed; those before the first
/// mutable read otherwise). The cost model: recomputed when it only reads stable or immutable
/// variables and is cheap (arithmetic, indexing, the primitive table's `CHEAP` methods); saved
/// when it reads a value that may have changed by the reverse sweep, calls a differentiated
/// function, or calls a costly float method (`exp`, `sin`, ...: a library call is dearer than a
/// load from the tape).
pub(crate) fn recomputable(scope: &Scope, init: &Expr) -> (bool, Vec<VarId>) {
    let mut kept = Vec::new();
    if init.has_call_to_companion() || costly(init) {
        return (false, kept);
    }
    let mut reads = Vec::new();
    init.reads(&mut reads);
    for r in reads {
        if scope.stable(r) {
            continue;
        }
        if scope.vars[r].mutable {
            return (false, kept);
        }
        kept.push(r);
    }
    (true, kept)
}

/// Whether `e` calls a float method outside the primitive table's cheap ones.
fn costly(e: &Expr) -> bool {
    let mut found = false;
    e.visit(&mut |n| {
        if let ExprKind::Method { method, .. } = &n.kind {
            found |= !crate::primitives::CHEAP.contains(&method.to_string().as_str());
        }
    });
    found
}

/// Whether the reverse sweep runs the call's `_vjp`: the call reads an active value, and its
/// result (bound to `bound`) or a sequence it writes has an adjoint.
pub(crate) fn call_live(vars: &[Var], acc: &BTreeSet<VarId>, bound: &[VarId], e: &Expr) -> bool {
    let live = |v: &VarId| vars[*v].active && acc.contains(v);
    expr_active(vars, e) && (bound.iter().any(live) || e.mut_borrows().iter().any(live))
}

/// Whether the reverse sweep recomputes a value steering control flow (a condition, a
/// scrutinee, a loop's bounds) rather than reading it saved: when it calls no differentiated
/// function and reads only variables it can name (`Scope::stable`).
pub(crate) fn decision_recomputable(scope: &Scope, e: &Expr) -> bool {
    let mut reads = Vec::new();
    e.reads(&mut reads);
    !e.has_call_to_companion() && reads.iter().all(|v| scope.stable(*v))
}
