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
                let msg = call_result_untyped(&name, &untyped_examples(&name, &tokens));
                self.diag.error_at(&tokens, msg);
            }
        }
    }

    /// Shapes of variables assigned after their declaration (`let mut s = T::zero(); s += x;`),
    /// a fixpoint over every assignment.
    ///
    /// It ends: a variable's shape only moves up ([`Shape::join`] keeps the old shape or raises
    /// it: `Other` to anything, `Int` to `Scalar`, tuples componentwise), so every round but the
    /// last raises some shape, and tuple arities all come from the source. Shapes can only rise
    /// forever by nesting deeper, as in `t = (t, x)`. That needs a type containing itself, which
    /// rustc rejects: an assignment nests what it reads at most `k` tuple levels deeper (`k` the
    /// deepest tuple expression), so along a chain of distinct variables no shape gets deeper
    /// than `k * (vars + 1)` plus the deepest shape lowering gave. Beyond that the iteration is
    /// stopped and reported as an internal error, never ignored.
    pub(super) fn infer_shapes(&mut self, body: &[Stmt], span: Span) {
        let blk = Block {
            stmts: body.to_vec(),
        };
        let max_depth = self.shape_depth_bound(&blk);
        loop {
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
            if let Some(v) = self.vars.iter().find(|v| v.shape.depth() > max_depth) {
                let name = v.name.to_string();
                self.diag.error(
                    span,
                    format!(
                        "internal error in #[differentiate]: shape inference did not settle on                          this function (the shape of `{name}` keeps nesting deeper: does its                          value contain itself?); please report it"
                    ),
                );
                return;
            }
        }
    }

    /// The deepest tuple nesting a variable's shape can reach in a function rustc accepts (see
    /// [`Self::infer_shapes`]).
    fn shape_depth_bound(&self, blk: &Block) -> usize {
        let (mut given, mut nest) = (0, 0);
        for v in &self.vars {
            given = given.max(v.shape.depth());
        }
        walk_exprs(blk, &mut |e: &Expr| {
            nest = nest.max(tuple_nesting(e));
            e.visit(&mut |n| match &n.kind {
                ExprKind::Opaque { shape, .. }
                | ExprKind::Call { shape, .. }
                | ExprKind::PlainCall { shape, .. }
                | ExprKind::PlainMethod { shape, .. } => given = given.max(shape.depth()),
                _ => {}
            });
        });
        given + nest * (self.vars.len() + 1)
    }
}

/// How deeply tuple expressions nest in `e` (`(a, (b, c))`: 2).
fn tuple_nesting(e: &Expr) -> usize {
    let inner = e
        .children()
        .into_iter()
        .map(tuple_nesting)
        .max()
        .unwrap_or(0);
    inner + usize::from(matches!(e.kind, ExprKind::Tuple(_)))
}

/// Annotations to suggest for `name`, bound by the `let` pattern `pat` to a call's result.
pub(super) fn untyped_examples(name: &str, pat: &TokenStream) -> String {
    use proc_macro2::{Delimiter, TokenTree};
    match pat.clone().into_iter().next() {
        // Destructured: the type goes on the whole pattern.
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
            let commas = g
                .stream()
                .into_iter()
                .filter(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                .count();
            let items: Vec<&str> = (0..=commas)
                .map(|i| if i == 0 { "[f64; 2]" } else { "f64" })
                .collect();
            let pat = pat
                .to_string()
                .replace(" ,", ",")
                .replace("( ", "(")
                .replace(" )", ")");
            format!("`let {pat}: ({}) = ...`", items.join(", "))
        }
        _ => format!(
            "`let {name}: [f64; 2] = ...`, `let {name}: Vec<f64> = ...` or \
             `let {name}: (f64, f64) = ...` (or destructure it: `let (a, b) = ...`)"
        ),
    }
}

/// The error for a call's result bound to `name` without a type and then used as more than one
/// float; `examples` completes "give its type, e.g. ...".
pub(super) fn call_result_untyped(name: &str, examples: &str) -> String {
    format!(
        "`{name}` holds the result of a call, which #[differentiate] takes to be a single float \
         unless told otherwise; give its type, e.g. {examples}"
    )
}

#[cfg(test)]
mod tests {
    use crate::ir::Shape;
    use crate::testing::{errors, lowered, var};
    use syn::parse_quote;

    /// Each assignment reads a variable assigned later, so a shape moves one step per round.
    #[test]
    fn shapes_settle_along_a_chain_assigned_backwards() {
        let f = lowered(parse_quote! {
            fn f(x: f64) -> f64 {
                let mut a;
                let mut b;
                let mut c;
                let mut d;
                let mut p;
                p = (d, 1.0);
                d = c;
                c = b;
                b = a;
                a = x;
                p.0 + d
            }
        });
        for name in ["a", "b", "c", "d"] {
            assert_eq!(f.vars[var(&f, name)].shape, Shape::Scalar, "{name}");
        }
        assert_eq!(
            f.vars[var(&f, "p")].shape,
            Shape::Tuple(vec![Shape::Scalar, Shape::Scalar])
        );
    }

    /// A value containing itself has no Rust type; its shape would nest forever.
    #[test]
    fn a_shape_nesting_without_end_is_reported() {
        let errs = errors(parse_quote! {
            fn f(x: f64) -> f64 {
                let mut t;
                t = (t, x);
                x
            }
        });
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].contains("`t` keeps nesting deeper"), "{errs:?}");
    }
}
