//! nalgebra expressions: which syntax is a nalgebra value, operands bound to variables, operators
//! and methods as calls of the runtime's rules (with the run-time shape checks), element reads.

use super::*;

impl Lowerer<'_> {
    /// The nalgebra variable `e` names (through `&`, parentheses and `*`).
    pub(super) fn na_var(&self, e: &syn::Expr) -> Option<VarId> {
        match e {
            syn::Expr::Reference(r) => self.na_var(&r.expr),
            syn::Expr::Paren(p) => self.na_var(&p.expr),
            syn::Expr::Group(g) => self.na_var(&g.expr),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.na_var(&u.expr),
            _ => self.var_of_path(e).filter(|v| self.na.contains_key(v)),
        }
    }

    /// The nalgebra type a constructor path names (`DMatrix::from_fn`,
    /// `SMatrix::<f64, 2, 3>::zeros`, `na::Vector3::new`) and the constructor.
    /// The element type, when the path writes it (`DMatrix::<f64>::zeros`), comes third.
    pub(super) fn na_constructor(
        &self,
        p: &syn::Path,
    ) -> Option<(Dims, String, Option<syn::Type>)> {
        let n = p.segments.len();
        if n < 2 {
            return None;
        }
        let last = p.segments[n - 1].ident.to_string();
        if !CONSTRUCTORS.contains(&last.as_str()) {
            return None;
        }
        let (dims, elem) = type_dims(&p.segments[n - 2])?;
        Some((dims, last, elem))
    }

    /// Whether `e` is, by its syntax, a nalgebra matrix or vector value.
    pub(in crate::lower) fn is_na(&self, e: &syn::Expr) -> bool {
        if self.na.is_empty() && !self.any_na_syntax {
            return false;
        }
        match e {
            syn::Expr::Reference(r) => self.is_na(&r.expr),
            syn::Expr::Paren(p) => self.is_na(&p.expr),
            syn::Expr::Group(g) => self.is_na(&g.expr),
            syn::Expr::Path(_) => self.na_var(e).is_some(),
            syn::Expr::Unary(u) => self.is_na(&u.expr),
            syn::Expr::Binary(b) => {
                matches!(
                    b.op,
                    syn::BinOp::Add(_)
                        | syn::BinOp::Sub(_)
                        | syn::BinOp::Mul(_)
                        | syn::BinOp::Div(_)
                ) && (self.is_na(&b.left) || self.is_na(&b.right))
            }
            syn::Expr::MethodCall(m) => {
                MATRIX_METHODS.contains(&m.method.to_string().as_str()) && self.is_na(&m.receiver)
            }
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) if p.qself.is_none() => self.na_constructor(&p.path).is_some(),
                _ => false,
            },
            _ => false,
        }
    }

    /// `e` lowered, if it is a nalgebra value or an operation on one (a method giving a number,
    /// an element `m[(i, j)]`); `None` for any other expression.
    pub(in crate::lower) fn na_expr(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Expr> {
        if self.na.is_empty() && !self.any_na_syntax {
            return None;
        }
        if let Some((v, _)) = self.na_value(e, out) {
            return Some(v);
        }
        match e {
            syn::Expr::MethodCall(m) if self.is_na(&m.receiver) => {
                let name = m.method.to_string();
                if name == "as_slice" && m.args.is_empty() {
                    // The storage itself (column-major), e.g. for `nn::mse(y.as_slice(), t)`.
                    let (v, _) = self.na_bound(&m.receiver, out)?;
                    let span = m.span();
                    return Some(Expr::new(ExprKind::Ref(Box::new(var_expr(v, span))), span));
                }
                if !SCALAR_METHODS.contains(&name.as_str())
                    && (ADAPTORS.contains(&name.as_str()) || CONSUMERS.contains(&name.as_str()))
                {
                    // `m.iter()...`: a chain over the storage, in nalgebra's (column-major) order.
                    return None;
                }
                Some(self.na_scalar_method(m, out))
            }
            syn::Expr::Index(ix) if self.is_na(&ix.expr) => Some(self.na_index(ix, out)),
            _ => None,
        }
    }

    /// A nalgebra value: its expression (a `Vec<T>` or a storage variable) and dimensions.
    pub(in crate::lower) fn na_value(
        &mut self,
        e: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<(Expr, NaDims)> {
        if !self.is_na(e) {
            return None;
        }
        let span = e.span();
        match e {
            syn::Expr::Reference(r) => self.na_value(&r.expr, out),
            syn::Expr::Paren(p) => self.na_value(&p.expr, out),
            syn::Expr::Group(g) => self.na_value(&g.expr, out),
            syn::Expr::Path(_) => {
                let v = self.na_var(e)?;
                // An argument's storage is borrowed: as a value (returned, assigned) it is copied.
                let value = match self.vars[v].shape {
                    Shape::Seq(SeqKind::Vec) => var_expr(v, span),
                    _ => Expr::new(ExprKind::CopySeq(v, CopyTo::Vec), span),
                };
                Some((value, self.na[&v].clone()))
            }
            syn::Expr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => {
                    let (a, d) = self.na_operand(&u.expr, out)?;
                    Some((self.rule("neg", vec![a], span), d))
                }
                _ => self.na_value(&u.expr, out),
            },
            syn::Expr::Binary(b) => self.na_binary(b, out),
            syn::Expr::MethodCall(m) => self.na_method(m, out),
            syn::Expr::Call(c) => self.na_construct(c, out),
            _ => None,
        }
    }

    /// A nalgebra operand bound to a variable (a storage variable as it is; any other value to
    /// a new `let`), given as `&v` for a rule's argument.
    pub(super) fn na_operand(
        &mut self,
        e: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<(Expr, NaDims)> {
        let span = e.span();
        let (v, d) = self.na_bound(e, out)?;
        Some((
            Expr::new(ExprKind::Ref(Box::new(var_expr(v, span))), span),
            d,
        ))
    }

    /// A nalgebra value as a variable.
    pub(super) fn na_bound(
        &mut self,
        e: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<(VarId, NaDims)> {
        let span = e.span();
        if let Some(v) = self.na_var(e) {
            return Some((v, self.na[&v].clone()));
        }
        let (value, d) = self.na_value(e, out)?;
        if matches!(value.kind, ExprKind::Poison) {
            return None;
        }
        let t = self.synthetic("na", Shape::Seq(SeqKind::Vec), span);
        self.vars[t].mutable = false;
        out.push(Stmt::Let {
            pat: Pat::Bind(t),
            init: Some(value),
        });
        self.na.insert(t, d.clone());
        Some((t, d))
    }

    /// The run-time check that two operands have the same shape (as nalgebra's operators
    /// check), before an element-wise operation or a dot product of them.
    pub(super) fn check_shapes(&self, a: &NaDims, b: &NaDims, span: Span, out: &mut Vec<Stmt>) {
        let rt = crate::names::rt();
        let args = vec![
            a.rows.clone(),
            a.cols.clone(),
            b.rows.clone(),
            b.cols.clone(),
        ];
        out.push(Stmt::Eval(Expr::new(
            ExprKind::PlainCall {
                func: quote!(#rt::na::same_shape),
                args,
                shape: Shape::Tuple(Vec::new()),
                suffix: quote!(),
                path: None,
            },
            span,
        )));
    }

    /// A number multiplying, dividing or added to a nalgebra value: a float expression (the
    /// rule takes a tangent or adjoint for it), or an error at it.
    pub(super) fn na_factor(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
        let x = self.expr(e, out);
        match self.shape_of(&x) {
            Shape::Scalar => x,
            _ if matches!(x.kind, ExprKind::Poison) => x,
            _ => self.poison(
                e,
                "this factor of a nalgebra value (its type is not known to be a float here)",
                "bind it to a float first (`let k: f64 = ..;`) and use `k`",
            ),
        }
    }

    /// A call of the runtime rule `na::<name>` giving a `Vec<T>`.
    pub(super) fn rule(&self, name: &str, args: Vec<Expr>, span: Span) -> Expr {
        self.rule_shaped(name, args, Shape::Seq(SeqKind::Vec), span)
    }

    pub(super) fn rule_shaped(
        &self,
        name: &str,
        args: Vec<Expr>,
        shape: Shape,
        span: Span,
    ) -> Expr {
        let rt = crate::names::rt();
        let f = crate::names::existing(name, span);
        let func: syn::Path = syn::parse_quote!(#rt::na::#f);
        Expr::new(ExprKind::Call { func, args, shape }, span)
    }

    /// `a + b`, `a - b`, `a * b` (product of matrices, or by a number), `a / s`.
    pub(super) fn na_binary(
        &mut self,
        b: &syn::ExprBinary,
        out: &mut Vec<Stmt>,
    ) -> Option<(Expr, NaDims)> {
        let span = b.span();
        let (l, r) = (self.is_na(&b.left), self.is_na(&b.right));
        match b.op {
            syn::BinOp::Add(_) | syn::BinOp::Sub(_) if l && r => {
                let (x, d) = self.na_operand(&b.left, out)?;
                let (y, dy) = self.na_operand(&b.right, out)?;
                self.check_shapes(&d, &dy, span, out);
                let name = if matches!(b.op, syn::BinOp::Add(_)) {
                    "add"
                } else {
                    "sub"
                };
                // The operands' dimensions are equal (checked when run): the right one's serve a
                // `DMatrix` output when only they are known from the arguments
                // (`x * m - DMatrix::from_fn(3, 3, ..)` with `x` computed in the body).
                let d = if self.public_dim(&d.rows, 0).is_none()
                    || self.public_dim(&d.cols, 0).is_none()
                {
                    if self.public_dim(&dy.rows, 0).is_some()
                        && self.public_dim(&dy.cols, 0).is_some()
                    {
                        dy
                    } else {
                        d
                    }
                } else {
                    d
                };
                Some((self.rule(name, vec![x, y], span), d))
            }
            syn::BinOp::Mul(_) if l && r => {
                let (x, dx) = self.na_operand(&b.left, out)?;
                let (y, dy) = self.na_operand(&b.right, out)?;
                let args = vec![x, y, dx.rows.clone(), dx.cols, dy.cols.clone()];
                let d = NaDims {
                    rows: dx.rows,
                    cols: dy.cols,
                };
                Some((self.rule("mat_mul", args, span), d))
            }
            syn::BinOp::Mul(_) => {
                let (m, s) = if l {
                    (&b.left, &b.right)
                } else {
                    (&b.right, &b.left)
                };
                let (x, d) = self.na_operand(m, out)?;
                let s = self.na_factor(s, out);
                Some((self.rule("scale", vec![x, s], span), d))
            }
            syn::BinOp::Div(_) if l && !r => {
                let (x, d) = self.na_operand(&b.left, out)?;
                let s = self.na_factor(&b.right, out);
                Some((self.rule("div_scalar", vec![x, s], span), d))
            }
            _ => {
                let what = if l && r {
                    "this operator between nalgebra values"
                } else {
                    "this operator between a nalgebra value and a number"
                };
                Some((
                    self.poison(
                        &b.op,
                        what,
                        "write `a + b`, `a - b`, `a * b` (matrix product), `a * s`, `s * a`, `a / s`, \
                         `a.add_scalar(s)` or `a.component_mul(&b)`",
                    ),
                    zero_dims(span),
                ))
            }
        }
    }

    /// Methods giving a matrix or vector.
    pub(super) fn na_method(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<(Expr, NaDims)> {
        let span = m.span();
        let name = m.method.to_string();
        let nargs = |k: usize| m.args.len() == k;
        match name.as_str() {
            "transpose" if nargs(0) => {
                let (x, d) = self.na_operand(&m.receiver, out)?;
                let args = vec![x, d.rows.clone(), d.cols.clone()];
                let t = NaDims {
                    rows: d.cols,
                    cols: d.rows,
                };
                Some((self.rule("transpose", args, span), t))
            }
            "component_mul" | "component_div" if nargs(1) && self.is_na(&m.args[0]) => {
                let (x, d) = self.na_operand(&m.receiver, out)?;
                let (y, dy) = self.na_operand(&m.args[0], out)?;
                self.check_shapes(&d, &dy, span, out);
                Some((self.rule(&name, vec![x, y], span), d))
            }
            "add_scalar" | "scale" if nargs(1) => {
                let (x, d) = self.na_operand(&m.receiver, out)?;
                let s = self.na_factor(&m.args[0], out);
                Some((self.rule(&name, vec![x, s], span), d))
            }
            "clone" if nargs(0) => {
                let (v, d) = self.na_bound(&m.receiver, out)?;
                Some((Expr::new(ExprKind::CopySeq(v, CopyTo::Vec), span), d))
            }
            "column" | "row" if nargs(1) => {
                let (x, d) = self.na_operand(&m.receiver, out)?;
                let k = self.expr(&m.args[0], out);
                let k = self.int_let("nak", k, out);
                let args = vec![x, d.rows.clone(), d.cols.clone(), k];
                let one = int_lit(1, span);
                let r = if name == "column" {
                    NaDims {
                        rows: d.rows,
                        cols: one,
                    }
                } else {
                    NaDims {
                        rows: one,
                        cols: d.cols,
                    }
                };
                Some((self.rule(&name, args, span), r))
            }
            "map" if nargs(1) => self.na_map(m, out),
            _ => Some((
                self.poison(
                    &m.method,
                    &format!(
                        "`{name}` with {} arguments on a nalgebra value",
                        m.args.len()
                    ),
                    "nalgebra values support `transpose()`, `map(|x| ..)`, `component_mul(&b)`, \
                     `component_div(&b)`, `add_scalar(s)`, `scale(s)`, `clone()`, `column(j)`, \
                     `row(i)`, `dot(&b)`, `sum()`, `mean()`, `norm()`, `norm_squared()`, \
                     `nrows()`, `ncols()`, `len()`",
                ),
                zero_dims(span),
            )),
        }
    }

    /// Methods giving a number (`dot`, `sum`, `norm`, `nrows`...), and the others reported.
    pub(super) fn na_scalar_method(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let span = m.span();
        let name = m.method.to_string();
        let nargs = m.args.len();
        match name.as_str() {
            "nrows" | "ncols" | "len" if nargs == 0 => {
                let Some((_, d)) = self.na_bound(&m.receiver, out) else {
                    return Expr::new(ExprKind::Poison, span);
                };
                match name.as_str() {
                    "nrows" => d.rows,
                    "ncols" => d.cols,
                    _ => bin(BinOp::Mul, d.rows, d.cols),
                }
            }
            "dot" if nargs == 1 && self.is_na(&m.args[0]) => {
                let x = self.na_operand(&m.receiver, out);
                let y = self.na_operand(&m.args[0], out);
                // nalgebra sums a dot product column by column in blocks of rows: the rule
                // takes the shape to add in the same order.
                match (x, y) {
                    (Some((x, d)), Some((y, dy))) => {
                        self.check_shapes(&d, &dy, span, out);
                        let args = vec![x, y, d.rows, d.cols];
                        self.rule_shaped("dot_mat", args, Shape::Scalar, span)
                    }
                    _ => Expr::new(ExprKind::Poison, span),
                }
            }
            "sum" | "mean" if nargs == 0 => match self.na_operand(&m.receiver, out) {
                Some((x, _)) => self.rule_shaped(&name, vec![x], Shape::Scalar, span),
                None => Expr::new(ExprKind::Poison, span),
            },
            // Square matrices (checked at run time, as nalgebra does).
            "determinant" | "trace" if nargs == 0 => match self.na_operand(&m.receiver, out) {
                Some((x, d)) => {
                    self.rule_shaped(&name, vec![x, d.rows, d.cols], Shape::Scalar, span)
                }
                None => Expr::new(ExprKind::Poison, span),
            },
            "norm" | "norm_squared" if nargs == 0 => match self.na_operand(&m.receiver, out) {
                Some((x, d)) => {
                    let rule = format!("{name}_mat");
                    self.rule_shaped(&rule, vec![x, d.rows, d.cols], Shape::Scalar, span)
                }
                None => Expr::new(ExprKind::Poison, span),
            },
            _ => self.poison(
                &m.method,
                &format!("`{name}` with {nargs} arguments on a nalgebra value"),
                "nalgebra values support `transpose()`, `map(|x| ..)`, `component_mul(&b)`, \
                 `component_div(&b)`, `add_scalar(s)`, `scale(s)`, `clone()`, `column(j)`, \
                 `row(i)`, `dot(&b)`, `sum()`, `mean()`, `norm()`, `norm_squared()`, \
                 `determinant()`, `trace()`, `nrows()`, `ncols()`, `len()`; index elements with \
                 `m[(i, j)]` or `v[i]`",
            ),
        }
    }

    /// `m[(i, j)]` (element `i + j * rows` of the storage) and `v[k]` (element `k`).
    pub(super) fn na_index(&mut self, ix: &syn::ExprIndex, out: &mut Vec<Stmt>) -> Expr {
        let span = ix.span();
        let Some((v, d)) = self.na_bound(&ix.expr, out) else {
            return Expr::new(ExprKind::Poison, span);
        };
        let index = match &*ix.index {
            syn::Expr::Tuple(t) if t.elems.len() == 2 => {
                let i = self.expr(&t.elems[0], out);
                let j = self.expr(&t.elems[1], out);
                bin(BinOp::Add, i, bin(BinOp::Mul, j, d.rows))
            }
            syn::Expr::Range(_) => {
                return self.poison(
                    &ix.index,
                    "a range of a nalgebra value",
                    "read elements one at a time (`v[i]`, `m[(i, j)]`), or take `column(j)` / \
                     `row(i)`",
                )
            }
            other => self.expr(other, out),
        };
        Expr::new(
            ExprKind::Index {
                base: v,
                index: Box::new(index),
            },
            span,
        )
    }

    /// An integer bound to a new immutable `let` (a dimension or index read later).
    pub(super) fn int_let(&mut self, what: &str, e: Expr, out: &mut Vec<Stmt>) -> Expr {
        let span = e.span;
        if matches!(e.kind, ExprKind::Lit(_) | ExprKind::Opaque { .. }) {
            return e;
        }
        let t = self.synthetic(what, Shape::Int, span);
        self.vars[t].mutable = false;
        if self.na_out.dynamic {
            self.na_out.inits.insert(t, e.clone());
        }
        out.push(Stmt::Let {
            pat: Pat::Bind(t),
            init: Some(e),
        });
        var_expr(t, span)
    }
}
