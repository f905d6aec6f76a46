//! Statements: takes blocks, `let`s (with tuple, slice and `let`-`else` patterns), macros and
//! expression statements, gives IR statements.

use super::*;

impl Lowerer<'_> {
    /// Lowers the statements of `b` into `out` (in a new scope) and returns its tail expression.
    pub(super) fn block_into(&mut self, b: &syn::Block, out: &mut Vec<Stmt>) -> Option<Expr> {
        self.block_into_as(b, out, true)
    }

    /// With `want_value` false the block's last expression is lowered as a statement (its
    /// value, if any, is dropped).
    pub(super) fn block_into_as(
        &mut self,
        b: &syn::Block,
        out: &mut Vec<Stmt>,
        want_value: bool,
    ) -> Option<Expr> {
        // The function's body (lowered first): its value may be a nested array literal.
        let top = std::mem::take(&mut self.top_tail);
        self.with_scope(|cx| {
            let n = b.stmts.len();
            let mut tail = None;
            for (i, s) in b.stmts.iter().enumerate() {
                match s {
                    syn::Stmt::Expr(e, None)
                        if want_value && i + 1 == n && !is_unit_stmt_expr(e) =>
                    {
                        cx.nested_ok = top && cx.output_row.is_some();
                        tail = Some(if top && cx.na_out.dynamic {
                            cx.na_returned(e, out)
                        } else {
                            cx.expr(e, out)
                        });
                    }
                    _ => cx.stmt(s, out),
                }
            }
            tail
        })
    }

    /// A block whose value is unused (statement position).
    pub(super) fn unit_block(&mut self, b: &syn::Block) -> Block {
        let mut stmts = Vec::new();
        self.block_into_as(b, &mut stmts, false);
        Block { stmts }
    }

    pub(super) fn stmt(&mut self, s: &syn::Stmt, out: &mut Vec<Stmt>) {
        // The call that is the whole statement (`f(..);`, `let y = f(..);`): there a `&mut`
        // argument passed on bare (`f(r)`, `r: &mut [f64]`) may be written by the callee.
        let call = match s {
            syn::Stmt::Expr(syn::Expr::Call(c), _) => Some(c),
            syn::Stmt::Local(syn::Local {
                init: Some(init), ..
            }) if init.diverge.is_none() => match &*init.expr {
                syn::Expr::Call(c) => Some(c),
                _ => None,
            },
            _ => None,
        };
        // Statements nested in the call's arguments (`f({ g(); x }, r)`) restore it.
        let outer = std::mem::replace(&mut self.stmt_call, call.map(|c| c as *const syn::ExprCall));
        self.stmt_inner(s, out);
        self.stmt_call = outer;
    }

    fn stmt_inner(&mut self, s: &syn::Stmt, out: &mut Vec<Stmt>) {
        match s {
            syn::Stmt::Local(l) => self.local(l, out),
            syn::Stmt::Item(item) => match item {
                syn::Item::Const(_) | syn::Item::Use(_) | syn::Item::Fn(_) => {
                    self.items.push(item.to_token_stream())
                }
                syn::Item::Static(st) if matches!(st.mutability, syn::StaticMutability::None) => {
                    self.items.push(item.to_token_stream())
                }
                other => self.diag.unsupported_at(
                    other,
                    "this item inside a differentiated function",
                    "declare only `const`, `static`, `use` and `fn` items here, or move it out \
                     of the function body",
                ),
            },
            syn::Stmt::Macro(m) => self.stmt_macro(&m.mac, out),
            syn::Stmt::Expr(e, _) => self.expr_stmt(e, out),
        }
    }

    pub(super) fn stmt_macro(&mut self, mac: &syn::Macro, out: &mut Vec<Stmt>) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        const PASS: &[&str] = &[
            "assert",
            "assert_eq",
            "assert_ne",
            "debug_assert",
            "debug_assert_eq",
            "debug_assert_ne",
            "println",
            "print",
            "eprintln",
            "eprint",
            "panic",
            "unreachable",
        ];
        if PASS.contains(&name.as_str()) {
            let tokens = mac.to_token_stream();
            let mut visible: Vec<VarId> = Vec::new();
            for word in mentioned_names(&tokens) {
                if let Some(v) = self.lookup(&word) {
                    // Windows, chunks, rows and `iter_mut` items have no variable of their own
                    // in generated code.
                    if self.views.contains_key(&v) || self.elem_aliases.contains_key(&v) {
                        self.diag.unsupported_at(
                            &mac,
                            &format!(
                                "naming `{word}`, a borrowed part of a sequence (a window, chunk, \
                                 row or `iter_mut` item), in `{name}!`"
                            ),
                            &format!(
                                "copy what the macro needs into a local first \
                                 (`let first = {word}[0];`)"
                            ),
                        );
                        continue;
                    }
                    if !visible.contains(&v) {
                        visible.push(v);
                    }
                }
            }
            out.push(Stmt::Macro(tokens, visible));
        } else {
            self.diag.unsupported_at(
                &mac,
                &format!("the macro `{name}!` here"),
                "only assert!/debug_assert! (and _eq/_ne) and print!/println!/eprint!/eprintln! \
                 may appear as statements; compute the value outside or with plain code",
            );
        }
    }

    pub(super) fn local(&mut self, l: &syn::Local, out: &mut Vec<Stmt>) {
        let (pat, ty) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some((*pt.ty).clone())),
            p => (p, None),
        };
        let init = match &l.init {
            Some(init) => {
                if let Some((else_tok, else_expr)) = &init.diverge {
                    // `let Some(c) = v.first_chunk::<N>() else { .. };`: the same.
                    if let syn::Expr::Block(eb) = &**else_expr {
                        if self.let_else_first_chunk(pat, &init.expr, &eb.block, out) {
                            return;
                        }
                    }
                    // `let [a, b, ..] = v[..] else { .. };`: a length check, then the reads.
                    if let (syn::Pat::Slice(ps), syn::Expr::Block(eb)) = (pat, &**else_expr) {
                        self.slice_let_else(ps, &init.expr, &eb.block, out);
                        return;
                    }
                    self.diag.unsupported_at(
                        &else_tok,
                        "`let ... else` except with a slice pattern",
                        "use `match` or `if` to handle the other case",
                    );
                }
                Some(&*init.expr)
            }
            None => None,
        };
        // `let m: Vec<Vec<f64>> = ..`, `vec![vec![..]; n]`, `m.clone()` of rows: flat storage
        // and offsets, or reported (later uses are not).
        if self.ragged_local(pat, ty.as_ref(), init, out) {
            return;
        }
        // `let s2 = step(&s, dt);`, `let mut s = s0.clone();`: a struct held whole.
        if self.struct_let(pat, ty.as_ref(), init, out) {
            return;
        }
        // `let (a, b) = (e1, e2);` splits into one binding per component.
        if let (syn::Pat::Tuple(pt), Some(syn::Expr::Tuple(et)), None) = (pat, init, &ty) {
            if pt.elems.len() == et.elems.len()
                && !pt.elems.iter().any(|p| matches!(p, syn::Pat::Rest(_)))
            {
                let temps: Vec<(VarId, Expr)> = et
                    .elems
                    .iter()
                    .map(|e| {
                        let v = self.expr(e, out);
                        let shape = self.shape_of(&v);
                        let t = self.synthetic("tup", shape, e.span());
                        (t, v)
                    })
                    .collect();
                for (t, v) in &temps {
                    out.push(Stmt::Let {
                        pat: Pat::Bind(*t),
                        init: Some(v.clone()),
                    });
                }
                for (p, (t, _)) in pt.elems.iter().zip(&temps) {
                    let shape = self.vars[*t].shape.clone();
                    let pat = self.pattern(p, &shape, None);
                    out.push(Stmt::Let {
                        pat,
                        init: Some(Expr::new(ExprKind::Var(*t), p.span())),
                    });
                }
                return;
            }
        }
        // `let (h, t) = v.split_at(k);`: two views of `v`.
        if let (Some(init), None) = (init, &ty) {
            if self.split_at(pat, init, out) {
                return;
            }
        }
        // `let (chunks, rest) = v.as_chunks::<N>();`: two views of `v`, the first chunked.
        if let (Some(init), None) = (init, &ty) {
            if self.as_chunks(pat, init, out) {
                return;
            }
        }
        // `let c = v.first_chunk::<N>().unwrap();`: a view of `v`.
        if let Some(init) = init {
            if self.let_first_chunk(pat, init, out) {
                return;
            }
        }
        // `let r = &p[i];`: `r` names a row of a nested array.
        if let (Some(init), None) = (init, &ty) {
            if self.let_row(pat, init, out) {
                return;
            }
        }
        // `let h = &w * &x;`: the storage of a nalgebra value, with its dimensions.
        if let (syn::Pat::Ident(pi), Some(init)) = (pat, init) {
            if pi.subpat.is_none() && self.na_let(pi, ty.as_ref(), init, out) {
                return;
            }
        }
        // `let f = |a| ...;`: inlined at each call.
        if let (syn::Pat::Ident(pi), Some(syn::Expr::Closure(c))) = (pat, init) {
            self.bind_closure(&pi.ident, c);
            return;
        }
        // `let [a, b] = *arr;` / `let [a, b, ..] = v[..]`: one indexed read per name.
        if let syn::Pat::Slice(ps) = pat {
            if let Some(init) = init {
                self.slice_pattern(ps, init, ty.as_ref(), out);
                return;
            }
        }
        // `let m: [[f64; 3]; 3] = ..`: the variable holds the flat form.
        let (ty, mut row, fixed) = match ty {
            Some(t) => match self.flat_type(&t) {
                Some((flat, row)) => (Some(flat), Some(row), fixed_rows(&t).is_some()),
                None => (Some(t), None, false),
            },
            None => (None, None, false),
        };
        self.nested_row = None;
        // `let c: f64 = convert(x);`: the conversion's target is the annotation.
        self.let_target = match (init, &ty) {
            (Some(e), Some(t)) if Self::is_inferred_conversion(e) => Some(t.clone()),
            _ => None,
        };
        let mut init_ir = init.map(|e| {
            self.nested_ok = true;
            self.expr(e, out)
        });
        self.let_target = None;
        self.nested_ok = false;
        if let Some(r) = self
            .nested_row
            .take()
            .or_else(|| self.row_of_value(init_ir.as_ref()))
        {
            row = Some(r);
        }
        if let (
            Some(_),
            Some(Expr {
                kind: ExprKind::Call { .. },
                span,
                ..
            }),
        ) = (&row, &init_ir)
        {
            self.diag.unsupported(
                *span,
                "arrays of arrays returned by a call (yet)",
                "return a flat array and index it `m[i * C + j]`, or write the result through \
                 a `&mut` argument",
            );
        }
        // A call's result takes the shape the annotation gives.
        if let (
            Some(t),
            Some(Expr {
                kind: ExprKind::Call { shape, .. },
                ..
            }),
        ) = (&ty, init_ir.as_mut())
        {
            *shape = self.shape_of_type(t);
        }
        // A conversion whose target rustc infers (`x.into()`, `NumCast::from(x).unwrap()`)
        // converts to the annotated type (an integer target gives an index).
        if let (
            Some(t),
            Some(Expr {
                kind: ExprKind::Cast { ty: target, .. },
                ..
            }),
        ) = (&ty, init_ir.as_mut())
        {
            if matches!(**target, syn::Type::Infer(_))
                && matches!(self.classify(t), TypeClass::Float | TypeClass::Int)
            {
                **target = t.clone();
            }
        }
        let shape = match (&ty, &init_ir) {
            (Some(t), _) => self.shape_of_type(t),
            (None, Some(e)) => self.shape_of(e),
            (None, None) => Shape::Other,
        };
        let pat_ir = self.pattern(pat, &shape, ty.clone());
        if let Some(row) = row {
            match &pat_ir {
                Pat::Bind(v) => {
                    self.rows.insert(*v, row);
                    // Rows of a fixed count: annotated so, or copied from such an array.
                    let from_fixed = matches!(
                        init_ir.as_ref().map(|e| &e.kind),
                        Some(ExprKind::Var(w) | ExprKind::CopySeq(w, _)) if self.rows_fixed.contains(w)
                    );
                    if fixed || from_fixed {
                        self.rows_fixed.insert(*v);
                    }
                }
                _ => self.diag.unsupported_at(
                    pat,
                    "destructuring an array of arrays",
                    "bind it to one name and index it (`m[i][j]`)",
                ),
            }
        }
        // The result of a call is assumed to be one float (or a tuple of floats, destructured)
        // unless the `let` says otherwise.
        if let (
            None,
            Some(Expr {
                kind: ExprKind::Call { .. },
                ..
            }),
        ) = (&ty, &init_ir)
        {
            let mut vs = Vec::new();
            pat_ir.vars(&mut vs);
            for v in vs {
                self.call_lets.push((v, pat.to_token_stream()));
            }
        }
        if init_ir.is_none() {
            let mut vs = Vec::new();
            pat_ir.vars(&mut vs);
            for v in vs {
                self.vars[v].mutable = true;
            }
        }
        out.push(Stmt::Let {
            pat: pat_ir,
            init: init_ir,
        });
    }

    pub(super) fn pattern(&mut self, p: &syn::Pat, shape: &Shape, ty: Option<syn::Type>) -> Pat {
        match p {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let v = self.new_var(
                    pi.ident.clone(),
                    pi.mutability.is_some(),
                    shape.clone(),
                    VarOrigin::Local,
                    ty,
                );
                self.bind(&pi.ident, v);
                Pat::Bind(v)
            }
            syn::Pat::Wild(_) => Pat::Wild,
            syn::Pat::Paren(pp) => self.pattern(&pp.pat, shape, ty),
            syn::Pat::Reference(r) if r.mutability.is_none() => self.pattern(&r.pat, shape, ty),
            syn::Pat::Type(pt) => {
                let shape = self.shape_of_type(&pt.ty);
                self.pattern(&pt.pat, &shape, Some((*pt.ty).clone()))
            }
            syn::Pat::Tuple(pt) if !pt.elems.iter().any(|e| matches!(e, syn::Pat::Rest(_))) => {
                let tys: Vec<Option<syn::Type>> = match &ty {
                    Some(syn::Type::Tuple(tt)) if tt.elems.len() == pt.elems.len() => {
                        tt.elems.iter().cloned().map(Some).collect()
                    }
                    _ => vec![None; pt.elems.len()],
                };
                let items = pt
                    .elems
                    .iter()
                    .enumerate()
                    .map(|(i, e)| {
                        let s = match shape {
                            Shape::Tuple(items) if items.len() == pt.elems.len() => {
                                items[i].clone()
                            }
                            _ => Shape::Scalar,
                        };
                        self.pattern(e, &s, tys[i].clone())
                    })
                    .collect();
                Pat::Tuple(items)
            }
            other => {
                self.diag.unsupported_at(
                    &other,
                    "this pattern",
                    "bind plain names, tuples of names, `_`, or `[a, b, ..]` of a sequence",
                );
                Pat::Wild
            }
        }
    }

    pub(super) fn expr_stmt(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) {
        if self.na_assign(e, out) || self.counter_write(e, out) {
            return;
        }
        match e {
            syn::Expr::Assign(a) if matches!(&*a.left, syn::Expr::Tuple(_)) => {
                // `(a, b) = (b, a + b);`: every right-hand side first, then the assignments.
                let lhs = match &*a.left {
                    syn::Expr::Tuple(t) => t.elems.iter().collect::<Vec<_>>(),
                    _ => Vec::new(),
                };
                let values: Vec<Expr> = match &*a.right {
                    syn::Expr::Tuple(t) if t.elems.len() == lhs.len() => {
                        t.elems.iter().map(|x| self.expr(x, out)).collect()
                    }
                    other => {
                        let v = self.expr(other, out);
                        (0..lhs.len())
                            .map(|i| {
                                Expr::new(
                                    ExprKind::Field {
                                        base: Box::new(v.clone()),
                                        index: i as u32,
                                    },
                                    v.span,
                                )
                            })
                            .collect()
                    }
                };
                let mut temps = Vec::new();
                for v in values {
                    let sp = v.span;
                    let shape = self.shape_of(&v);
                    let t = self.synthetic("tup", shape, sp);
                    self.vars[t].mutable = false;
                    out.push(Stmt::Let {
                        pat: Pat::Bind(t),
                        init: Some(v),
                    });
                    temps.push(t);
                }
                for (l, t) in lhs.into_iter().zip(temps) {
                    if matches!(l, syn::Expr::Infer(_)) {
                        continue;
                    }
                    if let Some(place) = self.place(l, out) {
                        out.push(Stmt::Assign {
                            place,
                            op: None,
                            value: Expr::new(ExprKind::Var(t), l.span()),
                        });
                    }
                }
            }
            syn::Expr::Assign(a) if self.row_assign(a, out) => {}
            syn::Expr::Assign(a) => {
                let mut value = self.expr(&a.right, out);
                if let Some(place) = self.place(&a.left, out) {
                    if let Place::Var(v) = place {
                        self.struct_assign(v, &mut value, &a.right);
                    }
                    // A variable declared without a value takes the shape of what it is given,
                    // so that later uses in this function see it.
                    if let Place::Var(v) = place {
                        if self.vars[v].ty.is_none() {
                            let s = self.shape_of(&value);
                            self.vars[v].shape = self.vars[v].shape.join(&s);
                        }
                    }
                    out.push(Stmt::Assign {
                        place,
                        op: None,
                        value,
                    });
                }
            }
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                let op = compound_op(&b.op);
                match op {
                    Some(Some(op)) => {
                        let value = self.expr(&b.right, out);
                        if let Some(place) = self.place(&b.left, out) {
                            out.push(Stmt::Assign {
                                place,
                                op: Some(op),
                                value,
                            });
                        }
                    }
                    _ => {
                        // Integer-only compound operators (`<<=`, `|=`...): a plain statement.
                        let value = self.expr(&b.right, out);
                        let _ = value;
                        self.diag.unsupported_at(
                            &b.op,
                            "this compound assignment operator",
                            "write `x = x OP y`",
                        );
                    }
                }
            }
            syn::Expr::If(i) => self.if_stmt(i, None, out),
            syn::Expr::Match(m) => self.match_stmt(m, None, out),
            syn::Expr::ForLoop(f) => self.for_loop(f, out),
            syn::Expr::While(w) => {
                if let syn::Expr::Let(l) = &*w.cond {
                    self.diag.unsupported_at(
                        &l,
                        "`while let`",
                        "use `while` with a condition or `loop` with `break`",
                    );
                    return;
                }
                let mut pre = Vec::new();
                let outer = std::mem::replace(&mut self.no_hoist, true);
                let cond = self.expr(&w.cond, &mut pre);
                self.no_hoist = outer;
                if !pre.is_empty() {
                    self.diag.unsupported_at(
                        &w.cond,
                        "a `while` condition containing `if`, `match` or blocks",
                        "compute the condition in a variable updated at the end of the loop",
                    );
                }
                self.loop_results
                    .push((w.label.as_ref().map(|l| l.name.ident.to_string()), None));
                let body = self.unit_block(&w.body);
                self.loop_results.pop();
                out.push(Stmt::While {
                    cond,
                    body,
                    label: w.label.as_ref().map(|l| l.name.clone()),
                });
            }
            syn::Expr::Loop(l) => self.loop_expr(l, None, out),
            syn::Expr::Block(b) if b.label.is_none() => {
                let blk = self.unit_block(&b.block);
                out.push(Stmt::Block(blk));
            }
            syn::Expr::Break(b) => self.break_stmt(b, out),
            syn::Expr::Continue(c) => out.push(Stmt::Continue {
                label: c.label.clone(),
                span: c.span(),
            }),
            syn::Expr::Return(r) => {
                let value = r.expr.as_ref().map(|v| {
                    self.nested_ok = self.output_row.is_some();
                    if self.na_out.dynamic {
                        self.na_returned(v, out)
                    } else {
                        self.expr(v, out)
                    }
                });
                out.push(Stmt::Return {
                    value,
                    span: r.span(),
                });
            }
            syn::Expr::Macro(m) => self.stmt_macro(&m.mac, out),
            syn::Expr::Call(c) if self.mem_swap(c, out) => {}
            syn::Expr::MethodCall(m) if self.inplace_method(m, out) => {}
            // `push` onto a `Vec` declared to hold no floats (`out: &mut Vec<usize>`, `let mut
            // v: Vec<i32>`): a plain method.
            syn::Expr::MethodCall(m)
                if m.method == "push"
                    && self
                        .var_of_path(&m.receiver)
                        .is_some_and(|v| self.declared_without_floats(v)) =>
            {
                let v = self.expr(e, out);
                push_eval(out, v);
            }
            syn::Expr::MethodCall(m) if m.method == "push" && m.args.len() == 1 => {
                match self.var_of_path(&m.receiver) {
                    // Its tangent and adjoint are the caller's slices, of a fixed length.
                    Some(v) if self.vars[v].by_mut_ref() => self.diag.unsupported_at(
                        &m,
                        "`push` onto a `&mut Vec` argument",
                        "fill a `&mut [T]` of the final length, or build a local `Vec` and \
                         return it",
                    ),
                    Some(v) => {
                        let value = self.expr(&m.args[0], out);
                        self.vars[v].mutable = true;
                        if !matches!(self.vars[v].shape, Shape::Seq(_)) {
                            self.vars[v].shape = Shape::Seq(SeqKind::Vec).join(&self.vars[v].shape);
                        }
                        out.push(Stmt::Push { vec: v, value });
                    }
                    // Reported already (a field of a struct copy, `lower/struct_copies.rs`).
                    None if self.mentions_poisoned(&m.receiver) => {}
                    None => self.diag.unsupported_at(
                        &m.receiver,
                        "`push` onto this expression",
                        "push onto a local `Vec` variable",
                    ),
                }
            }
            other => {
                let v = self.expr(other, out);
                push_eval(out, v);
            }
        }
    }

    /// Whether variable `v` was declared with a type holding no floats (`&mut Vec<usize>`,
    /// `Vec<i32>`): its methods are plain code, whatever is pushed onto it.
    fn declared_without_floats(&self, v: VarId) -> bool {
        let mut t = match &self.vars[v].ty {
            Some(t) => t,
            None => return false,
        };
        while let syn::Type::Reference(r) = t {
            t = &r.elem;
        }
        matches!(
            self.classify(t),
            TypeClass::Int | TypeClass::Bool | TypeClass::Other
        ) && !self.mentions_float(t)
    }
}

/// `+=`, `-=`, `*=`... (any compound assignment operator).
pub(super) fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}
