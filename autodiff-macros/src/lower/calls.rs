//! Calls: takes method calls and function calls, gives float methods with rules, calls of
//! differentiated functions, plain calls and conversions.

use super::*;

impl Lowerer<'_> {
    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Stmt>) -> Expr {
        let span = m.span();
        let name = m.method.to_string();
        if self.is_chain_consumer(m) {
            return self.chain_consumer(m, out);
        }
        if self.looks_like_chain(&m.receiver) {
            return self.poison(
                &m,
                &format!("the iterator method `{name}` here"),
                "end the chain with sum/product/fold/max_by/min_by/reduce/count/any/all/\
                 for_each/collect, or loop over it with `for`",
            );
        }
        if let Some(e) = self.chunked_method(m) {
            return e;
        }
        if let Some(v) = self.var_of_path(&m.receiver) {
            if let Some(view) = self.views.get(&v) {
                if name == "len" && m.args.is_empty() {
                    return view.len.clone();
                }
                if name == "is_empty" && m.args.is_empty() {
                    let zero = super::build::int_lit(0, span);
                    return super::build::bin(BinOp::Eq, view.len.clone(), zero);
                }
                if matches!(name.as_str(), "to_vec" | "to_owned") && m.args.is_empty() {
                    return self.view_to_vec(m, out);
                }
            }
        }
        // `v[a..b].to_vec()`: the elements of a range collected, as from a view.
        let of_range = matches!(&*m.receiver, syn::Expr::Index(ix) if matches!(&*ix.index, syn::Expr::Range(_)));
        if of_range && matches!(name.as_str(), "to_vec" | "to_owned") && m.args.is_empty() {
            return self.view_to_vec(m, out);
        }
        if let Some(e) = self.ragged_method(m, out) {
            return e;
        }
        if let Some(e) = self.nested_method(m) {
            return e;
        }
        if let Some(e) = self.struct_method_call(m, out) {
            return e;
        }
        let recv_var = self.var_of_path(&m.receiver);
        // `s.clone()` of a struct argument outside a call's arguments: reported with the struct's
        // other whole uses (`structs::whole_uses`).
        if name == "clone" && recv_var.is_some_and(|v| self.vars[v].shape == Shape::Struct) {
            // A struct held whole in a local (`lower/struct_calls.rs`): a copy of it.
            if let Some(v) = recv_var.filter(|v| self.vars[*v].origin == VarOrigin::Local) {
                return Expr::new(ExprKind::CopySeq(v, CopyTo::Struct(false)), span);
            }
            return Expr::new(ExprKind::Poison, span);
        }
        let recv_is_seq = recv_var.is_some_and(|v| matches!(self.vars[v].shape, Shape::Seq(_)));
        match name.as_str() {
            "len" if m.args.is_empty() && recv_is_seq => {
                return Expr::new(ExprKind::Len(recv_var.unwrap_or_default()), span)
            }
            "to_vec" | "clone" | "to_owned" if m.args.is_empty() && recv_is_seq => {
                let v = recv_var.unwrap_or_default();
                let to = self.copy_to(v, name == "to_vec");
                return Expr::new(ExprKind::CopySeq(v, to), span);
            }
            "unwrap" | "expect" => {
                // `T::from(x).unwrap()`, `T::from_usize(n).unwrap()`: a conversion.
                if let syn::Expr::Call(c) = &*m.receiver {
                    if let syn::Expr::Path(p) = &*c.func {
                        if is_from_name(&p.path) {
                            return self.unwrapped_conversion(m, c, p, out);
                        }
                    }
                }
                // `x.to_f64().unwrap()`, `x.floor().to_usize().unwrap()`.
                if let syn::Expr::MethodCall(inner) = &*m.receiver {
                    if let Some(ty) = to_primitive_target(inner) {
                        return self.primitive_conversion(m, inner, ty, out);
                    }
                }
            }
            "into" if m.args.is_empty() && m.turbofish.is_none() => {
                return self.conversion_by_into(m, out)
            }
            "map" if m.args.len() == 1 && m.turbofish.is_none() => {
                let recv = self.deref_operand(&m.receiver, out);
                return self.array_map(m, recv, out);
            }
            _ => {}
        }
        let recv = self.deref_operand(&m.receiver, out);
        self.method_on(m, recv, out)
    }

    /// The method call `m` on its receiver, already lowered to `recv`.
    pub(super) fn method_on(
        &mut self,
        m: &syn::ExprMethodCall,
        recv: Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let span = m.span();
        let name = m.method.to_string();
        let recv_shape = self.shape_of(&recv);
        if let Some(rule) = methods::float_method(&name) {
            if recv_shape != Shape::Int && m.turbofish.is_none() {
                let want = methods::arg_count(rule.arity);
                if m.args.len() != want {
                    return self.poison(
                        &m.method,
                        &format!("`{name}` with {} arguments", m.args.len()),
                        &format!("`{name}` takes {want}"),
                    );
                }
                let args = m.args.iter().map(|a| self.expr(a, out)).collect();
                return Expr::new(
                    ExprKind::Method {
                        recv: Box::new(recv),
                        method: m.method.clone(),
                        args,
                    },
                    span,
                );
            }
        }
        if matches!(recv.kind, ExprKind::Poison) {
            // Already reported.
            return recv;
        }
        if matches!(recv_shape, Shape::Int | Shape::Bool | Shape::Other) {
            // A method of a value that is never differentiated (integers, options of constants,
            // other types): plain code. Activity analysis rejects it if an active value flows in.
            let args = m.args.iter().map(|a| self.expr(a, out)).collect();
            // A method of a variable that changes (`rng.next()`, `v.pop()` with `rng: &mut
            // Lcg`, `let mut v: Vec<usize>`) may change it: evaluated once, where it is
            // written, into a local the reverse sweep reads by name (never evaluated again to
            // recompute a value). Methods known not to change their receiver stay in place.
            let changes = crate::ir::writes::method_changes(&self.vars, &recv, &name).is_some();
            let e = Expr::new(
                ExprKind::PlainMethod {
                    recv: Box::new(recv),
                    method: m.method.clone(),
                    turbofish: m.turbofish.to_token_stream(),
                    args,
                    shape: recv_shape,
                },
                span,
            );
            return if changes && !self.no_hoist {
                self.once(e, out)
            } else {
                e
            };
        }
        // `arr.map(f).to_vec()`, `[a, b].len()`: an array that is not a variable, bound to one
        // first.
        let copy = matches!(name.as_str(), "len" | "to_vec" | "clone" | "to_owned");
        if copy && m.args.is_empty() && matches!(recv_shape, Shape::Seq(SeqKind::Array(_))) {
            let t = self.synthetic("seq", recv_shape, recv.span);
            self.vars[t].mutable = false;
            out.push(Stmt::Let {
                pat: Pat::Bind(t),
                init: Some(recv),
            });
            if name == "len" {
                return Expr::new(ExprKind::Len(t), span);
            }
            let to = self.copy_to(t, name == "to_vec");
            return Expr::new(ExprKind::CopySeq(t, to), span);
        }
        // `iter_mut` starts no chain the macro lowers, but is an iterator all the same.
        if ADAPTORS.contains(&name.as_str()) || name == "iter_mut" {
            return self.poison(
                &m.method,
                &format!("the iterator `{name}` kept as a value"),
                "consume an iterator in the expression that creates it, e.g. `v.iter().map(..).sum()`, \
                 or loop over it with `for`",
            );
        }
        if matches!(recv.kind, ExprKind::Cast { .. })
            && (name.starts_with("unwrap_or") || name == "expect" || name == "ok_or")
        {
            return self.poison(
                &m.method,
                &format!("`{name}` after a conversion"),
                "write `.unwrap()` (or `.expect(\"..\")` with a literal message): a conversion \
                 between float types always succeeds",
            );
        }
        if to_primitive_target(m).is_some() {
            return self.poison(
                &m.method,
                &format!("`{name}()` of a float here (it gives an `Option`)"),
                &format!(
                    "write `.{name}().unwrap()` (or `.expect(..)`): a conversion to a float \
                     carries the derivative, one to an integer gives an inactive index"
                ),
            );
        }
        self.poison(
            &m.method,
            &format!("the method `{name}` here (no derivative rule)"),
            "use f32/f64 methods that have a rule (sin, exp, powi, max, ...), or move the \
             computation into a function with hand-written `_jvp`/`_vjp` companions",
        )
    }

    pub(super) fn call(&mut self, c: &syn::ExprCall, out: &mut Vec<Stmt>) -> Expr {
        let span = c.span();
        let path = match &*c.func {
            syn::Expr::Path(p) if p.qself.is_none() => p.path.clone(),
            other => {
                return self.poison(&other, "calling this expression", "call a named function")
            }
        };
        if let Some(id) = path.get_ident() {
            if let Some(v) = self.lookup(&id.to_string()) {
                if self.closures.contains_key(&v) {
                    return self.call_closure(v, &c.args, span, out);
                }
                return self.poison(
                    &c.func,
                    &format!("calling `{id}`, a function value"),
                    "call a named #[differentiate] function (or one with hand-written \
                     `_jvp`/`_vjp`), or a closure defined with `let` in this function",
                );
            }
        }
        if is_stop_gradient(&path) {
            if c.args.len() != 1 {
                return self.poison(
                    &c,
                    &format!("`stop_gradient` with {} arguments", c.args.len()),
                    "`stop_gradient(value)` takes one value",
                );
            }
            let inner = self.expr(&c.args[0], out);
            return Expr::new(ExprKind::StopGradient(Box::new(inner)), span);
        }
        // `f64::from(x)`, `T::from(x)`: a conversion (`From`) to a float type.
        if path.segments.len() == 2 && c.args.len() == 1 && path.segments[1].ident == "from" {
            let p0 = path.segments[0].ident.to_string();
            if self.is_float_name(&p0) {
                return self.float_from_conversion(c, &path, out);
            }
        }
        if let Some(e) = self.nalgebra_convert(c, &path, out) {
            return e;
        }
        let last = match path.segments.last() {
            Some(s) => s.ident.to_string(),
            None => return Expr::new(ExprKind::Poison, span),
        };
        // `f64::sin(x)`, `T::max(a, b)`, `Float::sqrt(x)`: method calls in disguise.
        if path.segments.len() >= 2 && !c.args.is_empty() {
            let prefix = path.segments[path.segments.len() - 2].ident.to_string();
            if self.float_path_prefix(&path) {
                if let Some(rule) = methods::float_method(&last) {
                    let want = methods::arg_count(rule.arity) + 1;
                    if c.args.len() != want {
                        return self.poison(
                            &c,
                            &format!("`{last}` with {} arguments", c.args.len()),
                            &format!("`{last}` takes {want}"),
                        );
                    }
                    let mut args: Vec<Expr> = c.args.iter().map(|a| self.expr(a, out)).collect();
                    let mut recv = args.remove(0);
                    // `f64::min(0.5, x)`: as a receiver, the literal needs the path's type; so does
                    // a local bound to an unsuffixed literal (`let k = 0.5; f64::atan(k)`), whose
                    // type only the path fixes: `(k as f64).atan()`.
                    if prefix == "f64" || prefix == "f32" {
                        suffix_literal(&mut recv, &prefix);
                        let untyped_local = matches!(recv.kind, ExprKind::Var(v)
                            if self.vars[v].ty.is_none() && self.vars[v].origin == VarOrigin::Local);
                        if untyped_local {
                            let rspan = recv.span;
                            let ty: syn::Type = syn::parse_str(&prefix)
                                .unwrap_or_else(|_| syn::Type::Verbatim(quote!(f64)));
                            recv = Expr::new(
                                ExprKind::Cast {
                                    expr: Box::new(recv),
                                    ty: Box::new(ty),
                                    form: CastForm::As,
                                },
                                rspan,
                            );
                        }
                    }
                    let method = crate::names::existing(
                        &last,
                        path.segments.last().map_or(span, |s| s.ident.span()),
                    );
                    return Expr::new(
                        ExprKind::Method {
                            recv: Box::new(recv),
                            method,
                            args,
                        },
                        span,
                    );
                }
            }
        }
        if path.segments.len() >= 2 && !c.args.is_empty() && self.float_path_prefix(&path) {
            // `T::from_f64(x)` without `unwrap`, `f64::total_cmp(..)`: an associated function
            // of a float type without derivative companions; activity reports it if an active
            // value flows in.
            let args = c.args.iter().map(|a| self.expr(a, out)).collect();
            let shape = self.path_shape(&path);
            return plain_call(c, args, shape, None, span);
        }
        if let Some(name) = super::inplace::mem_function(&path) {
            return self.poison(
                &c,
                &format!("`mem::{name}` here (only `mem::swap(&mut a, &mut b);` of two float or integer variables)"),
                "swap sequences element by element or copy them (`u.copy_from_slice(&next);`), \
                 or assign through a temporary (`let t = a; a = b; b = t;`)",
            );
        }
        if path.segments.len() == 2 && path.segments[0].ident == "Vec" {
            match last.as_str() {
                "new" if c.args.is_empty() => {
                    return Expr::new(ExprKind::VecNew { capacity: None }, span)
                }
                "with_capacity" if c.args.len() == 1 => {
                    let cap = self.expr(&c.args[0], out);
                    return Expr::new(
                        ExprKind::VecNew {
                            capacity: Some(Box::new(cap)),
                        },
                        span,
                    );
                }
                _ => {}
            }
        }
        if let Some(a) = c.args.iter().find(|a| self.is_na(a)) {
            return self.poison(
                a,
                "passing a nalgebra value to a function (yet)",
                "pass its storage and dimensions (`m.as_slice(), m.nrows(), m.ncols()`) and \
                 rebuild it in the callee (`DMatrix::from_column_slice(r, c, m)`), or inline the \
                 computation",
            );
        }
        // A struct argument passed whole: by reference or as a clone (`lower/structs.rs`).
        let mut args: Vec<Expr> = c
            .args
            .iter()
            .map(|a| {
                let e = self.lent_call_arg(a).or_else(|| self.struct_call_arg(a));
                e.unwrap_or_else(|| self.expr(a, out))
            })
            .collect();
        self.check_struct_twice(&args, c);
        // `g(r)` with `r: &mut [f64]` an argument: in a call statement, `g` may write through
        // it (`&mut *r`; for a callee that only reads it, its adjoint accumulating into `r`'s
        // is the same as the in-out convention's update); inside an expression, `g` reads it
        // (`&r`, what `g(&*r)` means too), so that what it reads is saved as a copy.
        // Only if nothing else in the call reads `r`: `g(r, &*r)` compiles only when `g` takes
        // both shared.
        let whole_stmt = self.stmt_call == Some(c as *const syn::ExprCall);
        let mut reads = Vec::new();
        for a in &args {
            a.reads(&mut reads);
        }
        // What each argument reads, to tell whether a sequence is read by another argument.
        let reads_of: Vec<Vec<VarId>> = args
            .iter()
            .map(|a| {
                let mut r = Vec::new();
                a.reads(&mut r);
                r
            })
            .collect();
        for (i, (a, syn_arg)) in args.iter_mut().zip(&c.args).enumerate() {
            // A part of `split_at_mut`/`chunks_mut` passed bare (`g(head, x);`): the callee may
            // write through it, if no other argument reads its sequence (its own bounds may:
            // they are computed before the borrow).
            if let ExprKind::SubSlice { base, .. } = a.kind {
                let elsewhere = reads_of
                    .iter()
                    .enumerate()
                    .any(|(j, r)| j != i && r.contains(&base));
                if whole_stmt && !elsewhere {
                    if let Some(m) = self.bare_view_arg(syn_arg, out) {
                        *a = m;
                        continue;
                    }
                }
            }
            if let ExprKind::Var(v) = a.kind {
                let whole_stmt = whole_stmt && reads.iter().filter(|r| **r == v).count() == 1;
                // `g(x)` with `x: &mut f64` (not `g(*x)`, its value).
                // (A written float field of a `&mut` struct, `st.k`, is bound by reference but is
                // a float by value as written: not one.)
                let float = self.is_float_mut_ref_param(v)
                    && !self.structs.is_field_arg(&self.vars[v].name)
                    && matches!(syn_arg, syn::Expr::Path(_));
                if self.vars[v].by_mut_ref() || float {
                    let span = a.span;
                    let inner = std::mem::replace(a, Expr::new(ExprKind::Poison, span));
                    *a = if whole_stmt {
                        // A `&mut f64` argument is held by value in the companions: `&mut x`.
                        Expr::new(ExprKind::MutRef(v, !float, None), span)
                    } else {
                        Expr::new(ExprKind::Ref(Box::new(inner)), span)
                    };
                }
            }
        }
        // `Some(x)`, `Point(x, y)`, `Box::new(x)`: a constructor or a type's associated
        // function has no derivative companions; activity reports it if an argument is active.
        // (`State::energy(s, x)` with `s` a struct argument passed whole is a method of it.)
        let struct_arg = args.iter().any(|a| self.shape_of(a) == Shape::Struct);
        if self.is_constructor(&path) && !struct_arg {
            let shape = self.path_shape(&path);
            return plain_call(c, args, shape, None, span);
        }
        // An owned `Vec` passed bare (`g(w)`, the callee taking `Vec<T>`): moved in the
        // original, a clone here, since the companions read `w` again after the call (its
        // zeros, its saved copy).
        for (a, e) in c.args.iter().zip(args.iter_mut()) {
            if let ExprKind::Var(v) = e.kind {
                let var = &self.vars[v];
                let owned = var.shape == Shape::Seq(SeqKind::Vec)
                    && !matches!(var.ty, Some(syn::Type::Reference(_)));
                if owned && matches!(strip_parens(a), syn::Expr::Path(_)) {
                    *e = Expr::new(ExprKind::CopySeq(v, CopyTo::Vec), e.span);
                }
            }
        }
        let any_float = args.iter().any(|a| self.shape_of(a).is_float());
        if any_float {
            self.check_unseen_args(c, &args);
        }
        // A float by reference (`g(&y)`, or `g(x)` with `x: &f64`) for a differentiated callee,
        // whose companions take its tangent as `&T` and its adjoint as `&mut T`: `Ref` of the
        // float (the value borrowed; `&y` of a float lowers to `y` itself).
        for (a, e) in c.args.iter().zip(args.iter_mut()) {
            let by_ref = match &e.kind {
                // `&mut s`: the callee writes through it (the in-out convention).
                ExprKind::MutRef(..) => false,
                // `&y` of a float lowers to `y` itself.
                _ if matches!(a, syn::Expr::Reference(_)) => self.shape_of(e) == Shape::Scalar,
                // `*x` is the value (also in parentheses, `(*x)`).
                ExprKind::Var(v) if !matches!(strip_parens(a), syn::Expr::Unary(_)) => {
                    self.vars[*v].shape == Shape::Scalar
                        && matches!(self.vars[*v].ty, Some(syn::Type::Reference(_)))
                        && matches!(self.vars[*v].origin, VarOrigin::Param(_))
                        && !self.structs.is_field_arg(&self.vars[*v].name)
                }
                _ => false,
            };
            let untyped = match e.kind {
                ExprKind::Var(v) => self.call_lets.iter().find(|(c, _)| *c == v).cloned(),
                _ => None,
            };
            if let (true, Some((v, pat))) = (by_ref, untyped) {
                // More likely a sequence whose type the macro cannot see.
                let name = self.vars[v].name.to_string();
                let examples = super::shapes::untyped_examples(&name, &pat);
                let msg = super::shapes::call_result_untyped(&name, &examples);
                self.diag.error_at(a, msg);
            } else if by_ref {
                let span = e.span;
                let inner = std::mem::replace(e, Expr::new(ExprKind::Poison, span));
                *e = Expr::new(ExprKind::Ref(Box::new(inner)), span);
            }
        }
        if !any_float {
            // Re-examined once every variable's shape is known (`reclassify_calls`).
            let shape = self.path_shape(&path);
            return plain_call(c, args, shape, Some(path), span);
        }
        Expr::new(
            ExprKind::Call {
                func: path,
                args,
                shape: Shape::Scalar,
            },
            span,
        )
    }

    /// A differentiated call passes a tangent for each float argument, so the macro must know
    /// which arguments are floats: a constant declared outside the function (`DAMP`) is not
    /// visible to it, and is reported rather than guessed.
    pub(super) fn check_unseen_args(&mut self, c: &syn::ExprCall, args: &[Expr]) {
        for (a, e) in c.args.iter().zip(args) {
            let syn::Expr::Path(p) = a else { continue };
            let Some(id) = p.path.get_ident() else {
                continue;
            };
            let name = id.to_string();
            let const_like = name.chars().any(|ch| ch.is_ascii_uppercase())
                && name
                    .chars()
                    .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit() || ch == '_');
            let unseen = matches!(e.kind, ExprKind::Opaque { .. })
                && self.lookup(&name).is_none()
                && !self.item_shapes.contains_key(&name);
            if const_like && unseen {
                let lower = name.to_lowercase();
                self.diag.unsupported_at(
                    a,
                    &format!("passing `{name}`, whose type the macro cannot see, to a differentiated function"),
                    &format!("bind it to a local of its type first (`let {lower}: f64 = {name};` for a float, `let {lower}: usize = {name};` for an integer), or declare the `const` inside this function"),
                );
            }
        }
    }
}

/// `stop_gradient(e)` or `autodiff_runtime::stop_gradient(e)` (`::autodiff_runtime::..` too):
/// the runtime's identity that both modes treat as a constant.
fn is_stop_gradient(path: &syn::Path) -> bool {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match names.as_slice() {
        [f] => f == "stop_gradient" && path.leading_colon.is_none(),
        [krate, f] => krate == "autodiff_runtime" && f == "stop_gradient",
        _ => false,
    }
}

/// `c` kept as a plain call (no derivative companions): activity reports it if an active value
/// flows into `args`. `path`: the callee, when the call becomes differentiable once the
/// arguments' shapes are known.
pub(super) fn plain_call(
    c: &syn::ExprCall,
    args: Vec<Expr>,
    shape: Shape,
    path: Option<syn::Path>,
    span: Span,
) -> Expr {
    Expr::new(
        ExprKind::PlainCall {
            func: c.func.to_token_stream(),
            args,
            shape,
            suffix: TokenStream::new(),
            path,
        },
        span,
    )
}

impl Lowerer<'_> {
    /// `&mut v` is an argument of a call that is a statement of its own (`f(.., &mut v);` or
    /// `let y = f(.., &mut v);`): there the reverse sweep can save `v` before the call and hand
    /// the callee's `_vjp` its adjoint buffer. Anywhere else it is reported.
    pub(super) fn check_mut_borrows(&mut self, body: &[Stmt], tail: Option<&Expr>) {
        let blk = Block {
            stmts: body.to_vec(),
        };
        let mut allowed: Vec<*const Expr> = Vec::new();
        let mut allow = |e: &Expr| {
            if let ExprKind::Call { args, .. } = &e.kind {
                for a in args {
                    if matches!(a.kind, ExprKind::MutRef(..)) {
                        allowed.push(a as *const Expr);
                    }
                }
            }
        };
        visit_stmts(&blk, &mut |s| match s {
            Stmt::Eval(e) => allow(e),
            // Any pattern: `let (p, q) = f(.., &mut v);` too.
            Stmt::Let { init: Some(e), .. } => allow(e),
            _ => {}
        });
        let mut bad: Vec<(Span, ExprId)> = Vec::new();
        let mut look = |e: &Expr| {
            e.visit(&mut |n| {
                if matches!(n.kind, ExprKind::MutRef(..)) && !allowed.contains(&(n as *const Expr))
                {
                    bad.push((n.span, n.id));
                }
            })
        };
        walk_exprs(&blk, &mut look);
        if let Some(t) = tail {
            look(t);
        }
        for (span, id) in bad {
            let what = "`&mut` borrows outside a call statement";
            let instead = "call the function that writes through `&mut` in a statement of its \
                           own: `f(.., &mut v);` or `let y = f(.., &mut v);`";
            let tokens = (id.0 as usize)
                .checked_sub(1)
                .and_then(|k| self.mut_ref_tokens.get(k));
            match tokens.cloned() {
                Some(tokens) => self.diag.unsupported_at(&tokens, what, instead),
                None => self.diag.unsupported(span, what, instead),
            }
        }
    }
}
