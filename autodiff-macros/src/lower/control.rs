//! Control flow and places: takes `if`, `match`, `loop`, `break`, `for` over ranges and
//! assignment targets, gives IR statements and places.

use super::*;

impl Lowerer<'_> {
    pub(super) fn break_stmt(&mut self, b: &syn::ExprBreak, out: &mut Vec<Stmt>) {
        if let Some(v) = &b.expr {
            let label = b.label.as_ref().map(|l| l.ident.to_string());
            let target = self
                .loop_results
                .iter()
                .rev()
                .find(|(l, _)| label.is_none() || *l == label)
                .and_then(|(_, r)| *r);
            let value = self.expr(v, out);
            match target {
                Some(var) => {
                    let shape = self.shape_of(&value);
                    self.vars[var].shape = self.vars[var].shape.join(&shape);
                    out.push(Stmt::Assign {
                        place: Place::Var(var),
                        op: None,
                        value,
                    })
                }
                None => self.diag.unsupported_at(
                    &b,
                    "`break` with a value here",
                    "use `break value` only in a `loop` whose value is used",
                ),
            }
        }
        out.push(Stmt::Break {
            label: b.label.clone(),
            span: b.span(),
        });
    }

    pub(super) fn loop_expr(
        &mut self,
        l: &syn::ExprLoop,
        result: Option<VarId>,
        out: &mut Vec<Stmt>,
    ) {
        self.loop_results
            .push((l.label.as_ref().map(|l| l.name.ident.to_string()), result));
        let body = self.unit_block(&l.body);
        self.loop_results.pop();
        out.push(Stmt::Loop {
            body,
            label: l.label.as_ref().map(|l| l.name.clone()),
        });
    }

    /// `if` as a statement (`result` None) or as an expression whose value goes to `result`.
    pub(super) fn if_stmt(&mut self, i: &syn::ExprIf, result: Option<VarId>, out: &mut Vec<Stmt>) {
        if let syn::Expr::Let(l) = &*i.cond {
            // `if let Some(c) = v.first_chunk::<N>()`: a length check, `c` a view.
            if self.if_let_first_chunk(i, l, result, out) {
                return;
            }
            self.diag
                .unsupported_at(&l, "`if let`", "use `match` on an integer or a plain `if`");
            return;
        }
        let cond = self.expr(&i.cond, out);
        let then = self.branch(&i.then_branch, result);
        let els = match &i.else_branch {
            None => None,
            Some((_, e)) => {
                let mut stmts = Vec::new();
                match &**e {
                    syn::Expr::If(inner) => self.if_stmt(inner, result, &mut stmts),
                    syn::Expr::Block(b) => {
                        let blk = self.branch(&b.block, result);
                        stmts = blk.stmts;
                    }
                    other => {
                        let v = self.expr(other, &mut stmts);
                        self.assign_result(result, v, &mut stmts);
                    }
                }
                Some(Block { stmts })
            }
        };
        out.push(Stmt::If { cond, then, els });
    }

    /// A branch body: its tail value (if any) is assigned to `result`.
    pub(super) fn branch(&mut self, b: &syn::Block, result: Option<VarId>) -> Block {
        let mut stmts = Vec::new();
        let tail = self.block_into_as(b, &mut stmts, result.is_some());
        if let Some(t) = tail {
            self.assign_result(result, t, &mut stmts);
        }
        Block { stmts }
    }

    pub(super) fn assign_result(
        &mut self,
        result: Option<VarId>,
        value: Expr,
        out: &mut Vec<Stmt>,
    ) {
        match result {
            Some(var) => {
                // A call's shape is an assumption (one float); the other branches, if they say
                // more, decide (`settle_result`).
                if !matches!(value.kind, ExprKind::Call { .. }) {
                    let shape = self.shape_of(&value);
                    self.vars[var].shape = self.vars[var].shape.join(&shape);
                }
                out.push(Stmt::Assign {
                    place: Place::Var(var),
                    op: None,
                    value,
                });
            }
            None => push_eval(out, value),
        }
    }

    /// After an `if`, `match` or block whose value is `var` was lowered into `stmts`: a branch
    /// giving a call's result (assumed one float) takes the shape the other branches gave
    /// (`if c { swap2(v) } else { [v[0], v[1]] }` is an array), or one float if none said.
    pub(super) fn settle_result(&mut self, var: VarId, stmts: &mut [Stmt]) {
        if self.vars[var].shape == Shape::Other {
            self.vars[var].shape = Shape::Scalar;
        }
        fn settle(stmts: &mut [Stmt], var: VarId, shape: &Shape) {
            for s in stmts {
                match s {
                    Stmt::Assign {
                        place: Place::Var(v),
                        op: None,
                        value:
                            Expr {
                                kind: ExprKind::Call { shape: s, .. },
                                ..
                            },
                    } if *v == var => *s = shape.clone(),
                    Stmt::If { then, els, .. } => {
                        settle(&mut then.stmts, var, shape);
                        if let Some(e) = els {
                            settle(&mut e.stmts, var, shape);
                        }
                    }
                    Stmt::Match { arms, .. } => {
                        for a in arms {
                            settle(&mut a.body.stmts, var, shape);
                        }
                    }
                    Stmt::Block(b) => settle(&mut b.stmts, var, shape),
                    _ => {}
                }
            }
        }
        let shape = self.vars[var].shape.clone();
        settle(stmts, var, &shape);
    }

    pub(super) fn match_stmt(
        &mut self,
        m: &syn::ExprMatch,
        result: Option<VarId>,
        out: &mut Vec<Stmt>,
    ) {
        let scrut = self.expr(&m.expr, out);
        let mut arms = Vec::new();
        for arm in &m.arms {
            if let Some((if_tok, _)) = &arm.guard {
                self.diag.unsupported_at(
                    &if_tok,
                    "match guards",
                    "move the condition into an `if` inside the arm",
                );
            }
            if pattern_binds(&arm.pat) {
                self.diag.unsupported_at(&arm.pat,
                    "match patterns that bind names",
                    "match on integer literals, ranges and `_`, and use the scrutinee inside the arm",
                );
            }
            let body = match &*arm.body {
                syn::Expr::Block(b) if b.label.is_none() => self.branch(&b.block, result),
                other => {
                    let mut stmts = Vec::new();
                    self.with_scope(|cx| {
                        if is_unit_stmt_expr(other) || result.is_none() {
                            cx.expr_stmt(other, &mut stmts);
                        } else {
                            let v = cx.expr(other, &mut stmts);
                            cx.assign_result(result, v, &mut stmts);
                        }
                    });
                    Block { stmts }
                }
            };
            arms.push(Arm {
                pat: arm.pat.clone(),
                body,
            });
        }
        out.push(Stmt::Match { scrut, arms });
    }

    pub(super) fn place(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Place> {
        // A write to a variable already reported is not reported again.
        if self.mentions_poisoned(e) {
            return None;
        }
        match e {
            // An integer field held in a local (`lower/struct_mut.rs`).
            syn::Expr::Field(_) if self.int_local(e).is_some() => self.int_local(e).map(Place::Var),
            // Reported when the struct arguments were planned (`lower/structs.rs`).
            syn::Expr::Field(_) if self.int_field(e) => None,
            syn::Expr::Paren(p) => self.place(&p.expr, out),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                if let Some(v) = self.var_of_path(&u.expr) {
                    if self.mut_ref_scalar(&Expr::new(ExprKind::Var(v), u.span())) {
                        self.mut_ref_scalar_error(u);
                        return None;
                    }
                }
                self.place(&u.expr, out)
            }
            syn::Expr::Index(ix) => {
                // `p[i][j] = ..` of a nested array `p` (flattened).
                if let Some((base, index)) = self.nested_elem(ix, out) {
                    self.vars[base].mutable = true;
                    return Some(Place::Index(base, Box::new(index)));
                }
                let base = self.var_of_path(&ix.expr);
                if base.is_some_and(|v| self.is_ragged(v)) {
                    self.diag.unsupported_at(
                        e,
                        "this write to a row of a sequence of `Vec`s",
                        "write its elements (`m[i][j] = ..`, `m[i][j] += ..`)",
                    );
                    return None;
                }
                if base.is_some_and(|v| self.rows.contains_key(&v) && !self.views.contains_key(&v))
                {
                    self.diag.unsupported_at(
                        e,
                        "this write to a row of an array of arrays",
                        "assign the row (`p[i] = [a, b, c];`) or its elements (`p[i][j] = ..`)",
                    );
                    return None;
                }
                match base {
                    // An element of a view (`split_at_mut`, `chunks_mut`) is an element of the
                    // sequence it views.
                    Some(v) if self.views.contains_key(&v) => {
                        let index = self.expr(&ix.index, out);
                        let view = self.views[&v].clone();
                        self.vars[view.base].mutable = true;
                        let at = Expr::new(
                            ExprKind::Binary {
                                op: BinOp::Add,
                                lhs: Box::new(view.offset),
                                rhs: Box::new(index),
                            },
                            ix.index.span(),
                        );
                        Some(Place::Index(view.base, Box::new(at)))
                    }
                    Some(v) => {
                        let index = self.expr(&ix.index, out);
                        self.vars[v].mutable = true;
                        Some(Place::Index(v, Box::new(index)))
                    }
                    None => {
                        self.diag.unsupported_at(
                            &ix.expr,
                            "assigning into an element of this expression",
                            "assign into an element of a local Vec or array variable: `v[i] = ...`",
                        );
                        None
                    }
                }
            }
            _ => match self.var_of_path(e) {
                Some(v) if self.views.get(&v).is_some_and(|w| w.row.is_some()) => {
                    self.diag.unsupported_at(
                        e,
                        "assigning a whole row through a borrowed row",
                        "write its elements (`r[j] = ..`), or assign the row in the array \
                         (`p[i] = [a, b, c];`)",
                    );
                    None
                }
                Some(v) if self.elem_aliases.contains_key(&v) => {
                    let (base, index) = self.elem_aliases[&v].clone();
                    self.vars[base].mutable = true;
                    Some(Place::Index(base, Box::new(index)))
                }
                Some(v) => {
                    self.vars[v].mutable = true;
                    Some(Place::Var(v))
                }
                None if self.is_struct_member(e) => {
                    self.diag.unsupported_at(
                        &e,
                        "writing a field of a struct held whole in a local (the struct a call \
                         gives, or a copy) (yet)",
                        "read its fields into float locals and work on those, or have the \
                         differentiated function that gives the struct write the field; a copy \
                         of a struct argument (`let mut t = s.clone(); t.x += dt;`) may have its \
                         float fields written when it is otherwise only read field by field or \
                         given back at the end, not passed on or assigned whole",
                    );
                    None
                }
                None => {
                    self.diag.unsupported_at(
                        &e,
                        "assigning to this place",
                        "assign to a local variable or an element `v[i]` of a local sequence",
                    );
                    None
                }
            },
        }
    }

    /// Whether `v` is an argument `x: &mut f64` (a float by mutable reference).
    pub(super) fn is_float_mut_ref_param(&self, v: VarId) -> bool {
        let var = &self.vars[v];
        var.shape == Shape::Scalar
            && matches!(var.origin, VarOrigin::Param(_))
            && matches!(&var.ty, Some(syn::Type::Reference(r)) if r.mutability.is_some())
    }

    pub(super) fn var_of_path(&self, e: &syn::Expr) -> Option<VarId> {
        match e {
            syn::Expr::Path(p) if p.qself.is_none() => p
                .path
                .get_ident()
                .and_then(|id| self.lookup(&id.to_string())),
            syn::Expr::Paren(p) => self.var_of_path(&p.expr),
            syn::Expr::Reference(r) if r.mutability.is_none() => self.var_of_path(&r.expr),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.var_of_path(&u.expr),
            _ => None,
        }
    }

    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop, out: &mut Vec<Stmt>) {
        let label = f.label.as_ref().map(|l| l.name.clone());
        // Ranges: `a..b`, `(a..b).rev()`, `(a..=b).step_by(s)`.
        if let Some(range) = self.range_expr(&f.expr, out) {
            let checkpoint = self.checkpoint_attr(f, Some(&range), out);
            self.with_scope(|cx| {
                let var = match &*f.pat {
                    syn::Pat::Ident(pi) if pi.subpat.is_none() && pi.by_ref.is_none() => {
                        let v = cx.new_var(
                            pi.ident.clone(),
                            false,
                            Shape::Int,
                            VarOrigin::LoopIndex,
                            None,
                        );
                        cx.bind(&pi.ident, v);
                        v
                    }
                    syn::Pat::Wild(w) => {
                        let v = cx.synthetic("i", Shape::Int, w.span());
                        cx.vars[v].origin = VarOrigin::LoopIndex;
                        cx.vars[v].mutable = false;
                        v
                    }
                    other => {
                        cx.diag.unsupported_at(
                            &other,
                            "this loop pattern over a range",
                            "bind the index to a name: `for i in a..b`",
                        );
                        return;
                    }
                };
                if let Some(c) = checkpoint {
                    cx.checkpoint_attrs.insert(var, c);
                }
                cx.loop_results
                    .push((label.as_ref().map(|l| l.ident.to_string()), None));
                let body = cx.unit_block(&f.body);
                cx.loop_results.pop();
                out.push(Stmt::For {
                    var,
                    range,
                    body,
                    label: label.clone(),
                });
            });
            return;
        }
        if is_range_syntax(&f.expr) {
            return; // reported by `range_expr`
        }
        // Sequences and iterator chains: `v.iter()`, `&v`, `a.iter().zip(&b)`, `v.windows(2)`...
        if let Some(seq) = self.parse_seq(&f.expr, out) {
            self.checkpoint_attr(f, None, out);
            self.for_chain(f, seq, out);
        }
    }

    /// Both bounds of a range, or an error (open ranges are not iterated).
    pub(super) fn range_bounds<'r>(
        &mut self,
        r: &'r syn::ExprRange,
        place: &str,
        example: &str,
    ) -> Option<(&'r syn::Expr, &'r syn::Expr)> {
        match (&r.start, &r.end) {
            (Some(s), Some(e)) => Some((s, e)),
            _ => {
                self.diag.unsupported_at(
                    r,
                    &format!("open ranges in {place}"),
                    &format!("give both bounds: {example}"),
                );
                None
            }
        }
    }

    /// `a..b`, `a..=b` with `.rev()` and `.step_by(s)` in either order.
    pub(super) fn range_expr(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Range> {
        match e {
            syn::Expr::Paren(p) => self.range_expr(&p.expr, out),
            syn::Expr::Range(r) => {
                let (start, end) = self.range_bounds(r, "`for` loops", "`for i in a..b`")?;
                let start = self.expr(start, out);
                let end = self.expr(end, out);
                Some(Range::Bounds {
                    start: Box::new(start),
                    end: Box::new(end),
                    inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
                    rev: false,
                    step: None,
                })
            }
            syn::Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                let mut r = self.range_expr(&m.receiver, out)?;
                let Range::Bounds { rev, step, .. } = &mut r;
                if step.is_some() {
                    // `(a..b).step_by(s).rev()` visits a different set of indices than
                    // `(a..b).rev().step_by(s)`; only the latter keeps the simple meaning.
                    self.diag.unsupported_at(
                        &m.method,
                        "`.rev()` after `.step_by()`",
                        "write `(a..b).rev().step_by(k)` or loop forward",
                    );
                }
                *rev = !*rev;
                Some(r)
            }
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let mut r = self.range_expr(&m.receiver, out)?;
                let s = self.expr(&m.args[0], out);
                let Range::Bounds { step, .. } = &mut r;
                *step = Some(Box::new(s));
                Some(r)
            }
            _ => None,
        }
    }
}
