//! Expressions: takes `syn` expressions, gives pure IR expression trees (statements they need,
//! such as hoisted `if` expressions, go to `out`).

use super::*;

impl Lowerer<'_> {
    pub(super) fn poison(&mut self, at: &dyn ToTokens, what: &str, instead: &str) -> Expr {
        self.diag.unsupported_at(at, what, instead);
        let span = at
            .to_token_stream()
            .into_iter()
            .next()
            .map_or_else(Span::call_site, |t| t.span());
        Expr::new(ExprKind::Poison, span)
    }

    /// The operand of `*e` or the receiver of a method call: there a name bound by `iter_mut`
    /// may stand alone (`*y`, `y.sin()`).
    pub(super) fn deref_operand(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
        self.alias_ok = matches!(e, syn::Expr::Path(_));
        let r = self.expr(e, out);
        self.alias_ok = false;
        r
    }

    /// Whether `e` names an argument taken by `&mut` holding one integer or bool (`n: &mut
    /// usize`): read or written through `*n`, which the emitters do not serve yet.
    pub(super) fn mut_ref_scalar(&self, e: &Expr) -> bool {
        match e.kind {
            ExprKind::Var(v) => {
                let var = &self.vars[v];
                var.in_out_ref() && matches!(var.shape, Shape::Int | Shape::Bool)
            }
            _ => false,
        }
    }

    /// The error for `*n` of [`Self::mut_ref_scalar`], at `at`.
    pub(super) fn mut_ref_scalar_error(&mut self, at: &dyn ToTokens) -> Expr {
        self.poison(
            at,
            "reading or writing an integer or bool argument through `&mut` (`*n += 1` with `n: \
             &mut usize`) (yet)",
            "return the new value (`-> (f64, usize)`), or keep it in a `&mut [usize]` \
             (`n[0] += 1`)",
        )
    }

    pub(super) fn expr(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
        let span = e.span();
        // A nested array literal is allowed at the top of a `let`'s value or a returned value.
        let nested_ok = std::mem::take(&mut self.nested_ok);
        if self.mentions_poisoned(e) {
            return Expr::new(ExprKind::Poison, span);
        }
        if let Some(x) = self.na_expr(e, out) {
            return x;
        }
        if let syn::Expr::Lit(l) = e {
            return Expr::new(ExprKind::Lit(l.lit.clone()), span);
        }
        // Literal arithmetic (`-1.0`, `0.5 * 3.0`) stays IR so that its type can be given
        // where it is a method receiver; other constants are passed through verbatim.
        // A constant built from nalgebra values (`Matrix2::<f64>::identity().sum()`) is lowered
        // like any nalgebra expression: as an opaque value it would have no float shape.
        let na_const = self.any_na_syntax && super::na::names_na_type_in(e);
        if is_const_syntax(e) && !self.refs_locals(e) && !is_literal_arithmetic(e) && !na_const {
            let shape = self.opaque_shape(e);
            return Expr::new(
                ExprKind::Opaque {
                    tokens: self.typed_constant(e, &shape),
                    shape,
                },
                span,
            );
        }
        match e {
            syn::Expr::Lit(l) => Expr::new(ExprKind::Lit(l.lit.clone()), span),
            syn::Expr::Paren(p) => self.expr(&p.expr, out),
            syn::Expr::Group(g) => self.expr(&g.expr, out),
            syn::Expr::Path(p) => {
                if let Some(id) = p.path.get_ident() {
                    if let Some(v) = self.lookup(&id.to_string()) {
                        if let Some((base, index)) = self.elem_aliases.get(&v).cloned() {
                            if !std::mem::take(&mut self.alias_ok) {
                                self.diag.unsupported_at(
                                    &e,
                                    &format!(
                                        "using `{id}`, an element borrowed by `iter_mut`, as a \
                                         value"
                                    ),
                                    &format!(
                                        "write `*{id}` (or call a method on it: `{id}.sin()`)"
                                    ),
                                );
                            }
                            return Expr::new(
                                ExprKind::Index {
                                    base,
                                    index: Box::new(index),
                                },
                                span,
                            );
                        }
                        if let Some(view) = self.views.get(&v) {
                            // The chunks of `as_chunks`, whole: borrowed as `&[[T; N]]`.
                            let array = match self.chunked.get(&v) {
                                Some(n) => Some(Nesting::Rows(n.clone())),
                                None => view.row.clone().map(Nesting::Row),
                            };
                            let end = Expr::new(
                                ExprKind::Binary {
                                    op: BinOp::Add,
                                    lhs: Box::new(view.offset.clone()),
                                    rhs: Box::new(view.len.clone()),
                                },
                                span,
                            );
                            return Expr::new(
                                ExprKind::SubSlice {
                                    base: view.base,
                                    start: Some(Box::new(view.offset.clone())),
                                    end: Some(Box::new(end)),
                                    inclusive: false,
                                    array,
                                },
                                span,
                            );
                        }
                        if self.closures.contains_key(&v) {
                            return self.poison(
                                &e,
                                "closures used as values",
                                "call the closure directly, e.g. `f(x)`",
                            );
                        }
                        return Expr::new(ExprKind::Var(v), span);
                    }
                }
                let shape = self.opaque_shape(e);
                Expr::new(
                    ExprKind::Opaque {
                        tokens: e.to_token_stream(),
                        shape,
                    },
                    span,
                )
            }
            syn::Expr::Binary(b) => match bin_op(&b.op) {
                Some(op) => {
                    let lhs = self.expr(&b.left, out);
                    // The right side of `&&`/`||` may not run.
                    let lazy = matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_));
                    let outer = self.no_hoist;
                    self.no_hoist = outer || lazy;
                    let rhs = self.expr(&b.right, out);
                    self.no_hoist = outer;
                    Expr::new(
                        ExprKind::Binary {
                            op,
                            lhs: Box::new(lhs),
                            rhs: Box::new(rhs),
                        },
                        span,
                    )
                }
                None => self.poison(
                    &b.op,
                    "assignment inside an expression",
                    "make the assignment its own statement",
                ),
            },
            syn::Expr::Unary(u) => {
                let inner = if matches!(u.op, syn::UnOp::Deref(_)) {
                    self.deref_operand(&u.expr, out)
                } else {
                    self.expr(&u.expr, out)
                };
                match u.op {
                    syn::UnOp::Neg(_) => Expr::new(
                        ExprKind::Unary {
                            op: UnOp::Neg,
                            expr: Box::new(inner),
                        },
                        span,
                    ),
                    syn::UnOp::Not(_) => Expr::new(
                        ExprKind::Unary {
                            op: UnOp::Not,
                            expr: Box::new(inner),
                        },
                        span,
                    ),
                    // `*n` of an integer or bool argument taken by `&mut`: not yet.
                    syn::UnOp::Deref(_) if self.mut_ref_scalar(&inner) => {
                        self.mut_ref_scalar_error(u)
                    }
                    // `*x` of a float bound by reference is the float; `*a` of an array is a copy.
                    syn::UnOp::Deref(_) => match inner.kind {
                        ExprKind::Var(v) if matches!(self.vars[v].shape, Shape::Seq(_)) => {
                            let to = self.copy_to(v, false);
                            Expr::new(ExprKind::CopySeq(v, to), span)
                        }
                        _ => inner,
                    },
                    _ => self.poison(&u.op, "this operator", "use arithmetic operators"),
                }
            }
            syn::Expr::Cast(c) => {
                let inner = self.expr(&c.expr, out);
                Expr::new(
                    ExprKind::Cast {
                        expr: Box::new(inner),
                        ty: c.ty.clone(),
                        form: CastForm::As,
                    },
                    span,
                )
            }
            syn::Expr::Index(ix) => {
                if let syn::Expr::Range(_) = &*ix.index {
                    return self.poison(
                        &e,
                        "sub-slices outside call arguments",
                        "pass `&v[a..b]` directly to a differentiated function, or index elements",
                    );
                }
                // `p[i][j]` and `p[i]` of a nested array `p` (flattened).
                if let Some((base, index)) = self.nested_elem(ix, out) {
                    return Expr::new(
                        ExprKind::Index {
                            base,
                            index: Box::new(index),
                        },
                        span,
                    );
                }
                if let Some(view) = self.row_view(e, out) {
                    return self.row_copy(e, view);
                }
                match self.var_of_path(&ix.expr) {
                    Some(base) => {
                        let mut index = self.expr(&ix.index, out);
                        let mut base = base;
                        if let Some(view) = self.views.get(&base) {
                            index = Expr::new(
                                ExprKind::Binary {
                                    op: BinOp::Add,
                                    lhs: Box::new(view.offset.clone()),
                                    rhs: Box::new(index),
                                },
                                span,
                            );
                            base = view.base;
                        }
                        Expr::new(
                            ExprKind::Index {
                                base,
                                index: Box::new(index),
                            },
                            span,
                        )
                    }
                    None if self.is_struct_member(&ix.expr) => self.poison(
                        &ix.expr,
                        "indexing a field of a struct held whole in a local (the struct a call \
                         gives, or a copy) (yet)",
                        "have the differentiated function that gives the struct give the \
                         elements you need as float fields, or read them inside it",
                    ),
                    None if matches!(self.expr(&ix.expr, out).kind, ExprKind::Poison) => {
                        Expr::new(ExprKind::Poison, span)
                    }
                    None => self.poison(
                        &ix.expr,
                        "indexing into this expression",
                        "index a sequence variable directly: bind the sequence to a name first",
                    ),
                }
            }
            syn::Expr::MethodCall(m) => self.method_call(m, out),
            syn::Expr::Call(c) => self.call(c, out),
            syn::Expr::Tuple(t) => {
                let items = t.elems.iter().map(|x| self.expr(x, out)).collect();
                Expr::new(ExprKind::Tuple(items), span)
            }
            syn::Expr::Array(a) => {
                let items: Vec<Expr> = a.elems.iter().map(|x| self.expr(x, out)).collect();
                match self.flatten_rows(&items, e) {
                    None => Expr::new(ExprKind::Array(items), span),
                    Some(Ok((flat, row))) => match self.nested_value(e, row, nested_ok) {
                        true => Expr::new(ExprKind::Array(flat), span),
                        false => Expr::new(ExprKind::Poison, span),
                    },
                    Some(Err(())) => Expr::new(ExprKind::Poison, span),
                }
            }
            syn::Expr::Repeat(r) => {
                if self.refs_locals(&r.len) {
                    return self.poison(
                        &r.len,
                        "array lengths that are not constants",
                        "use `vec![x; n]` for a length known at run time",
                    );
                }
                let elem = self.expr(&r.expr, out);
                if let Shape::Seq(SeqKind::Array(row)) = self.shape_of(&elem) {
                    // `[[x; C]; R]`, `[[a, b]; R]`: flattened.
                    return self.repeat_rows(e, elem, row, &r.len, nested_ok);
                }
                Expr::new(
                    ExprKind::ArrayRepeat {
                        elem: Box::new(elem),
                        len: r.len.to_token_stream(),
                    },
                    span,
                )
            }
            syn::Expr::Macro(m) => self.expr_macro(&m.mac, out, nested_ok),
            // An integer field held in a local (`lower/struct_mut.rs`): that local.
            syn::Expr::Field(_) if self.int_local(e).is_some() => match self.int_local(e) {
                Some(v) => Expr::new(ExprKind::Var(v), span),
                None => Expr::new(ExprKind::Poison, span),
            },
            // An integer field of a struct argument (`s.n`): read as written, never active.
            syn::Expr::Field(_) if self.int_field(e) => Expr::new(
                ExprKind::Opaque {
                    tokens: e.to_token_stream(),
                    shape: Shape::Int,
                },
                span,
            ),
            // `s2.x` of a struct held whole in a local (`lower/struct_calls.rs`).
            syn::Expr::Field(_) if self.is_struct_member(e) => self
                .struct_member(e)
                .unwrap_or_else(|| Expr::new(ExprKind::Poison, span)),
            syn::Expr::Field(f) => match &f.member {
                syn::Member::Unnamed(i) => {
                    let base = self.expr(&f.base, out);
                    Expr::new(
                        ExprKind::Field {
                            base: Box::new(base),
                            index: i.index,
                        },
                        span,
                    )
                }
                // `s2.x` of a local: a struct a differentiated call gave (`let s2: State =
                // step(s, dt);`), the one way a local can hold a struct here.
                syn::Member::Named(n) if self.var_of_path(&f.base).is_some() => self.poison(
                    &n,
                    "fields of a local variable whose type it cannot see (the struct a call of a \
                     function defined later or elsewhere gives)",
                    "give the struct's type where the local is bound (`let s2: State = \
                     step(&s, dt);`), or define the callee earlier in the crate",
                ),
                syn::Member::Named(n) if matches!(&*f.base, syn::Expr::Index(_)) => self.poison(
                    &n,
                    "fields of elements of a sequence (`Vec`s or arrays of structs: \
                     `s.bodies[i].m`) (yet)",
                    "keep each field's values in a `Vec<f64>` or array of their own \
                     (`s.masses[i]`)",
                ),
                syn::Member::Named(n) => self.poison(
                    &n,
                    "struct fields (yet)",
                    "pass the field's value as its own argument",
                ),
            },
            syn::Expr::Reference(r) => {
                if let Some(b) = self.borrow(e, r, out) {
                    return b;
                }
                // `&*v`, a re-borrow of a sequence variable, is `&v` (`*v` alone is a copy).
                let borrowed = match &*r.expr {
                    syn::Expr::Unary(u)
                        if matches!(u.op, syn::UnOp::Deref(_))
                            && self
                                .var_of_path(&u.expr)
                                .is_some_and(|v| matches!(self.vars[v].shape, Shape::Seq(_))) =>
                    {
                        &*u.expr
                    }
                    e => e,
                };
                let inner = self.expr(borrowed, out);
                match &inner.kind {
                    // A sequence, or a variable whose shape is not known yet (`let w;`).
                    ExprKind::Var(v)
                        if matches!(self.vars[*v].shape, Shape::Seq(_) | Shape::Other) =>
                    {
                        Expr::new(ExprKind::Ref(Box::new(inner)), span)
                    }
                    // A borrowed sequence value: `&[a, b, c]`, `&vec![..]`, `&v.to_vec()`.
                    _ if matches!(self.shape_of(&inner), Shape::Seq(_)) => {
                        Expr::new(ExprKind::Ref(Box::new(inner)), span)
                    }
                    // A borrowed value that is never differentiated (`&[1, 2]`, `&n` passed to
                    // a plain method or call): the borrow is part of the call's signature.
                    _ if !matches!(inner.kind, ExprKind::Var(_))
                        && matches!(
                            self.shape_of(&inner),
                            Shape::Int | Shape::Bool | Shape::Other
                        ) =>
                    {
                        Expr::new(ExprKind::Ref(Box::new(inner)), span)
                    }
                    _ => inner,
                }
            }
            syn::Expr::If(i) => {
                let var = self.synthetic("if", Shape::Other, span);
                out.push(Stmt::Let {
                    pat: Pat::Bind(var),
                    init: None,
                });
                let start = out.len();
                self.if_stmt(i, Some(var), out);
                self.settle_result(var, &mut out[start..]);
                Expr::new(ExprKind::Var(var), span)
            }
            syn::Expr::Match(m) => {
                let var = self.synthetic("match", Shape::Other, span);
                out.push(Stmt::Let {
                    pat: Pat::Bind(var),
                    init: None,
                });
                let start = out.len();
                self.match_stmt(m, Some(var), out);
                self.settle_result(var, &mut out[start..]);
                Expr::new(ExprKind::Var(var), span)
            }
            syn::Expr::Block(b) if b.label.is_none() => {
                let var = self.synthetic("blk", Shape::Other, span);
                out.push(Stmt::Let {
                    pat: Pat::Bind(var),
                    init: None,
                });
                let blk = self.branch(&b.block, Some(var));
                out.push(Stmt::Block(blk));
                let last = out.len() - 1;
                self.settle_result(var, &mut out[last..]);
                Expr::new(ExprKind::Var(var), span)
            }
            syn::Expr::Loop(l) => {
                let var = self.synthetic("loop", Shape::Other, span);
                out.push(Stmt::Let {
                    pat: Pat::Bind(var),
                    init: None,
                });
                self.loop_expr(l, Some(var), out);
                Expr::new(ExprKind::Var(var), span)
            }
            syn::Expr::Block(b) if b.label.is_some() => self.poison(
                &b.label,
                "labeled blocks",
                "use `if`/`else` or a `loop` with `break`",
            ),
            syn::Expr::Closure(_) => self.poison(
                &e,
                "closures (yet)",
                "write the computation inline or as a separate #[differentiate] function",
            ),
            syn::Expr::Unsafe(_) => self.poison(
                &e,
                "`unsafe` blocks",
                "move the unsafe code into a function outside the differentiated code",
            ),
            syn::Expr::Async(_) | syn::Expr::Await(_) => self.poison(
                &e,
                "async code",
                "differentiate a synchronous function and call it from async code",
            ),
            syn::Expr::Try(t) => self.poison(
                &t.question_token,
                "the `?` operator",
                "handle errors outside the differentiated function",
            ),
            syn::Expr::Struct(_) => self.poison(
                &e,
                "a struct literal here (yet)",
                "bind it to a local first (`let p = Point { .. };`) and use its fields, or end \
                 the function with it when the function returns the struct",
            ),
            syn::Expr::Range(_) => self.poison(
                &e,
                "a range here",
                "use ranges only in `for` loops and sub-slice arguments `&v[a..b]`",
            ),
            syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_) => self.poison(
                &e,
                "`return`/`break`/`continue` inside an expression",
                "make it its own statement",
            ),
            syn::Expr::Assign(_) => self.poison(
                &e,
                "assignment inside an expression",
                "make the assignment its own statement",
            ),
            _ => self.poison(
                &e,
                "this expression",
                "use arithmetic, float methods, indexing, calls of #[differentiate] functions, \
                 `if`/`match`/blocks, tuples and arrays",
            ),
        }
    }

    pub(super) fn expr_macro(
        &mut self,
        mac: &syn::Macro,
        out: &mut Vec<Stmt>,
        nested_ok: bool,
    ) -> Expr {
        let span = mac.span();
        let is_vec = mac.path.is_ident("vec");
        if !is_vec {
            let name = mac.path.to_token_stream().to_string();
            return self.poison(
                &mac,
                &format!("the macro `{name}!` in an expression"),
                "compute the value with plain code; only `vec![..]` is understood here",
            );
        }
        enum VecArgs {
            Repeat(Box<syn::Expr>, Box<syn::Expr>),
            List(Vec<syn::Expr>),
        }
        let parsed = mac.parse_body_with(|input: syn::parse::ParseStream| {
            if input.is_empty() {
                return Ok(VecArgs::List(Vec::new()));
            }
            let first: syn::Expr = input.parse()?;
            if input.peek(syn::Token![;]) {
                let _: syn::Token![;] = input.parse()?;
                let len: syn::Expr = input.parse()?;
                return Ok(VecArgs::Repeat(Box::new(first), Box::new(len)));
            }
            let mut items = vec![first];
            while !input.is_empty() {
                let _: syn::Token![,] = input.parse()?;
                if input.is_empty() {
                    break;
                }
                items.push(input.parse()?);
            }
            Ok(VecArgs::List(items))
        });
        match parsed {
            Ok(VecArgs::Repeat(elem, len)) => {
                let elem = self.expr(&elem, out);
                let len = self.expr(&len, out);
                if let Shape::Seq(SeqKind::Array(row)) = self.shape_of(&elem) {
                    // `vec![[x; C]; n]`: `vec![x; n * C]`.
                    let x = match elem.kind {
                        ExprKind::ArrayRepeat { elem: x, len: l }
                            if ArrayLen::new(l.clone()) == row =>
                        {
                            x
                        }
                        _ => {
                            return self.poison(
                                &mac,
                                "`vec![row; n]` with a row other than `[x; C]`",
                                "start from `vec![[x; C]; n]` and write the elements",
                            )
                        }
                    };
                    if !self.nested_value(&mac, row.clone(), nested_ok) {
                        return Expr::new(ExprKind::Poison, span);
                    }
                    let c = Self::row_len_expr(&row, span);
                    return Expr::new(
                        ExprKind::VecRepeat {
                            elem: x,
                            len: Box::new(super::build::bin(BinOp::Mul, len, c)),
                        },
                        span,
                    );
                }
                Expr::new(
                    ExprKind::VecRepeat {
                        elem: Box::new(elem),
                        len: Box::new(len),
                    },
                    span,
                )
            }
            Ok(VecArgs::List(items)) => {
                let items: Vec<Expr> = items.iter().map(|x| self.expr(x, out)).collect();
                match self.flatten_rows(&items, &mac) {
                    None => Expr::new(ExprKind::VecList(items), span),
                    Some(Ok((flat, row))) => match self.nested_value(&mac, row, nested_ok) {
                        true => Expr::new(ExprKind::VecList(flat), span),
                        false => Expr::new(ExprKind::Poison, span),
                    },
                    Some(Err(())) => Expr::new(ExprKind::Poison, span),
                }
            }
            Err(err) => {
                self.diag.push(err);
                Expr::new(ExprKind::Poison, span)
            }
        }
    }
}
