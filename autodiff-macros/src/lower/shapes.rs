//! Shape inference after lowering: takes the lowered body, gives every variable its shape (joined
//! over its assignments), calls reclassified once shapes are known, and call results misused.

use super::*;

impl Lowerer<'_> {
    /// A call none of whose arguments looked float-valued when it was lowered, but one of which
    /// is, now that every variable's shape is known: a call of a differentiable function.
    pub(super) fn reclassify_calls(&self, body: &mut [Stmt], tail: Option<&mut Expr>) {
        let vars = &self.vars;
        let mut fix = |e: &mut Expr| {
            if let ExprKind::PlainCall {
                args,
                path: Some(path),
                ..
            } = &mut e.kind
            {
                if args.iter().any(|a| shape_of(vars, a).is_float()) {
                    let (path, args) = (path.clone(), std::mem::take(args));
                    e.kind = ExprKind::Call {
                        func: path,
                        args,
                        shape: Shape::Scalar,
                    };
                }
            }
        };
        visit_exprs_mut(body, &mut fix);
        if let Some(t) = tail {
            t.visit_mut(&mut fix);
        }
    }

    /// A variable holding a call's result (assumed one float) used as a sequence or a tuple: the
    /// macro cannot see the callee's output type, so it asks for an annotation.
    pub(super) fn check_call_results(&mut self, body: &[Stmt], tail: Option<&Expr>) {
        if self.call_lets.is_empty() {
            return;
        }
        let mut misused: Vec<VarId> = Vec::new();
        let mut look = |e: &Expr| {
            e.visit(&mut |n| match &n.kind {
                ExprKind::Index { base: v, .. }
                | ExprKind::Len(v)
                | ExprKind::CopySeq(v, _)
                | ExprKind::SubSlice { base: v, .. } => misused.push(*v),
                ExprKind::Field { base, .. } => {
                    if let ExprKind::Var(v) = base.kind {
                        misused.push(v);
                    }
                }
                _ => {}
            })
        };
        let blk = Block {
            stmts: body.to_vec(),
        };
        walk_exprs(&blk, &mut look);
        if let Some(t) = tail {
            look(t);
        }
        for (v, tokens) in self.call_lets.clone() {
            if misused.contains(&v) {
                let name = self.vars[v].name.to_string();
                self.diag.error_at(
                    &tokens,
                    format!(
                        "`{name}` holds the result of a call, which #[differentiate] takes to be a \
                         single float unless told otherwise; give its type, e.g. \
                         `let {name}: [f64; 2] = ...`, `let {name}: Vec<f64> = ...` or \
                         `let {name}: (f64, f64) = ...` (or destructure it: `let (a, b) = ...`)"
                    ),
                );
            }
        }
    }

    /// Shapes of variables assigned after their declaration (`let mut s = T::zero(); s += x;`).
    /// A fixpoint: a variable's shape only moves up (`Other` to anything, `Int` to `Scalar`,
    /// tuples componentwise), so it settles within a few rounds per variable; not settling is
    /// reported as an internal error rather than ignored.
    pub(super) fn infer_shapes(&mut self, body: &[Stmt], span: Span) {
        let blk = Block {
            stmts: body.to_vec(),
        };
        let rounds = 4 * self.vars.len() + 4;
        for _ in 0..rounds {
            let mut changed = false;
            let mut updates = Vec::new();
            visit_stmts(&blk, &mut |s| match s {
                Stmt::Assign {
                    place: Place::Var(v),
                    value,
                    ..
                } => updates.push((*v, shape_of(&self.vars, value))),
                // An annotation the macro cannot read (`let y: Real = x * 2.0;`, `Real` an
                // alias) names the type of the value, which rustc checks: take the value's shape.
                Stmt::Let {
                    pat: Pat::Bind(v),
                    init: Some(value),
                    ..
                } if self.vars[*v].ty.is_none() || self.vars[*v].shape == Shape::Other => {
                    updates.push((*v, shape_of(&self.vars, value)))
                }
                _ => {}
            });
            for (v, s) in updates {
                let j = self.vars[v].shape.join(&s);
                if j != self.vars[v].shape {
                    self.vars[v].shape = j;
                    changed = true;
                }
            }
            if !changed {
                return;
            }
        }
        self.diag.error(
            span,
            "internal error in #[differentiate]: shape inference did not settle on this \
             function; please report it",
        );
    }
}
