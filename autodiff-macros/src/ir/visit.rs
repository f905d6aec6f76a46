//! Traversals of the IR: takes statement lists and expressions, gives visits of every statement
//! or expression node in them (shared and mutable), so passes do not write their own recursion.

use super::*;

/// Visits every expression in a statement list, in evaluation order (children before parents is
/// not guaranteed; callers that care recurse themselves).
pub fn walk_exprs<'a>(block: &'a Block, f: &mut dyn FnMut(&'a Expr)) {
    for s in &block.stmts {
        walk_stmt_exprs(s, f);
    }
}

pub fn walk_stmt_exprs<'a>(s: &'a Stmt, f: &mut dyn FnMut(&'a Expr)) {
    match s {
        Stmt::Let { init, .. } => {
            if let Some(e) = init {
                f(e)
            }
        }
        Stmt::Assign { place, value, .. } => {
            if let Place::Index(_, i) = place {
                f(i)
            }
            f(value)
        }
        Stmt::Push { value, .. } => f(value),
        Stmt::Eval(e) => f(e),
        Stmt::If { cond, then, els } => {
            f(cond);
            walk_exprs(then, f);
            if let Some(b) = els {
                walk_exprs(b, f)
            }
        }
        Stmt::Match { scrut, arms } => {
            f(scrut);
            for a in arms {
                walk_exprs(&a.body, f)
            }
        }
        Stmt::For { range, body, .. } => {
            let Range::Bounds {
                start, end, step, ..
            } = range;
            f(start);
            f(end);
            if let Some(s) = step {
                f(s)
            }
            walk_exprs(body, f)
        }
        Stmt::While { cond, body, .. } => {
            f(cond);
            walk_exprs(body, f)
        }
        Stmt::Loop { body, .. } | Stmt::Block(body) => walk_exprs(body, f),
        Stmt::Return { value, .. } => {
            if let Some(e) = value {
                f(e)
            }
        }
        Stmt::Break { .. } | Stmt::Continue { .. } | Stmt::Macro(..) => {}
    }
}

/// The direct sub-expressions of an `ExprKind` (borrowed shared or mutable), pushed onto `out`
/// in evaluation order: one list for `Expr::children` and `Expr::children_mut`.
macro_rules! children_of {
    ($kind:expr, $out:ident, $iter:ident) => {
        match $kind {
            ExprKind::Lit(_)
            | ExprKind::Var(_)
            | ExprKind::Opaque { .. }
            | ExprKind::Len(_)
            | ExprKind::ElemConst { .. }
            | ExprKind::CopySeq(..)
            | ExprKind::Poison => {}
            ExprKind::Index { index, .. } => $out.push(index),
            ExprKind::Binary { lhs, rhs, .. } => {
                $out.push(lhs);
                $out.push(rhs)
            }
            ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } | ExprKind::Ref(expr) => {
                $out.push(expr)
            }
            ExprKind::Field { base, .. } => $out.push(base),
            ExprKind::Method { recv, args, .. } | ExprKind::PlainMethod { recv, args, .. } => {
                $out.push(recv);
                $out.extend(args.$iter())
            }
            ExprKind::Call { args, .. } | ExprKind::PlainCall { args, .. } => {
                $out.extend(args.$iter())
            }
            ExprKind::Tuple(items) | ExprKind::Array(items) | ExprKind::VecList(items) => {
                $out.extend(items.$iter())
            }
            ExprKind::ArrayRepeat { elem, .. } => $out.push(elem),
            ExprKind::VecRepeat { elem, len } => {
                $out.push(elem);
                $out.push(len)
            }
            ExprKind::VecNew { capacity } => {
                if let Some(c) = capacity {
                    $out.push(c)
                }
            }
            ExprKind::SubSlice { start, end, .. } => {
                if let Some(s) = start {
                    $out.push(s)
                }
                if let Some(x) = end {
                    $out.push(x)
                }
            }
        }
    };
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    /// Calls `f` on this node and every sub-expression.
    pub fn visit(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        self.for_each_child(&mut |c| c.visit(f));
    }

    /// The direct sub-expressions, in evaluation order.
    pub fn children(&self) -> Vec<&Expr> {
        let mut out: Vec<&Expr> = Vec::new();
        children_of!(&self.kind, out, iter);
        out
    }

    /// Calls `f` on every node, children first.
    pub fn visit_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        for c in self.children_mut() {
            c.visit_mut(f);
        }
        f(self);
    }

    fn children_mut(&mut self) -> Vec<&mut Expr> {
        let mut out: Vec<&mut Expr> = Vec::new();
        children_of!(&mut self.kind, out, iter_mut);
        out
    }

    pub fn for_each_child(&self, f: &mut dyn FnMut(&Expr)) {
        for c in self.children() {
            f(c)
        }
    }

    /// Variables this expression reads (including sequence bases of index reads).
    pub fn reads(&self, out: &mut Vec<VarId>) {
        self.visit(&mut |e| match &e.kind {
            ExprKind::Var(v)
            | ExprKind::Index { base: v, .. }
            | ExprKind::Len(v)
            | ExprKind::CopySeq(v, _)
            | ExprKind::SubSlice { base: v, .. } => out.push(*v),
            _ => {}
        });
    }

    /// Whether the expression is made of unsuffixed numeric literals only (`0.5`, `-1.0`,
    /// `2.0 * 3.0`): its type comes from where it is used, so it cannot be a method receiver.
    pub fn is_untyped_constant(&self) -> bool {
        match &self.kind {
            ExprKind::Lit(syn::Lit::Float(f)) => f.suffix().is_empty(),
            ExprKind::Lit(syn::Lit::Int(i)) => i.suffix().is_empty(),
            ExprKind::Unary {
                op: UnOp::Neg,
                expr,
            } => expr.is_untyped_constant(),
            ExprKind::Binary { op, lhs, rhs } => {
                op.is_arith() && lhs.is_untyped_constant() && rhs.is_untyped_constant()
            }
            _ => false,
        }
    }

    /// Whether the expression calls a function with derivative companions (costly to redo).
    pub fn has_call_to_companion(&self) -> bool {
        let mut found = false;
        self.visit(&mut |e| {
            if matches!(e.kind, ExprKind::Call { .. }) {
                found = true
            }
        });
        found
    }

    pub fn has_call(&self) -> bool {
        let mut found = false;
        self.visit(&mut |e| {
            if matches!(e.kind, ExprKind::Call { .. } | ExprKind::PlainCall { .. }) {
                found = true
            }
        });
        found
    }
}

/// Calls `f` on every expression node of a statement list (nested blocks included).
pub fn visit_exprs_mut(stmts: &mut [Stmt], f: &mut dyn FnMut(&mut Expr)) {
    for s in stmts {
        match s {
            Stmt::Let { init, .. } => {
                if let Some(e) = init {
                    e.visit_mut(f)
                }
            }
            Stmt::Assign { place, value, .. } => {
                if let Place::Index(_, i) = place {
                    i.visit_mut(f)
                }
                value.visit_mut(f)
            }
            Stmt::Push { value, .. } => value.visit_mut(f),
            Stmt::Eval(e) => e.visit_mut(f),
            Stmt::If { cond, then, els } => {
                cond.visit_mut(f);
                visit_exprs_mut(&mut then.stmts, f);
                if let Some(b) = els {
                    visit_exprs_mut(&mut b.stmts, f)
                }
            }
            Stmt::Match { scrut, arms } => {
                scrut.visit_mut(f);
                for a in arms {
                    visit_exprs_mut(&mut a.body.stmts, f)
                }
            }
            Stmt::For { range, body, .. } => {
                let Range::Bounds {
                    start, end, step, ..
                } = range;
                start.visit_mut(f);
                end.visit_mut(f);
                if let Some(s) = step {
                    s.visit_mut(f)
                }
                visit_exprs_mut(&mut body.stmts, f)
            }
            Stmt::While { cond, body, .. } => {
                cond.visit_mut(f);
                visit_exprs_mut(&mut body.stmts, f)
            }
            Stmt::Loop { body, .. } | Stmt::Block(body) => visit_exprs_mut(&mut body.stmts, f),
            Stmt::Return { value, .. } => {
                if let Some(e) = value {
                    e.visit_mut(f)
                }
            }
            Stmt::Break { .. } | Stmt::Continue { .. } | Stmt::Macro(..) => {}
        }
    }
}

/// Visits every statement (pre-order), descending into nested blocks.
pub fn visit_stmts(b: &Block, f: &mut dyn FnMut(&Stmt)) {
    for s in &b.stmts {
        f(s);
        match s {
            Stmt::If { then, els, .. } => {
                visit_stmts(then, f);
                if let Some(e) = els {
                    visit_stmts(e, f)
                }
            }
            Stmt::Match { arms, .. } => arms.iter().for_each(|a| visit_stmts(&a.body, f)),
            Stmt::For { body, .. }
            | Stmt::While { body, .. }
            | Stmt::Loop { body, .. }
            | Stmt::Block(body) => visit_stmts(body, f),
            _ => {}
        }
    }
}
