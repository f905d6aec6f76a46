//! `let`s holding nalgebra values and assignments to them (whole, compound, element by element).

use super::*;

impl Lowerer<'_> {
    /// `let h = <nalgebra value>;` (with or without an annotation naming a nalgebra type):
    /// `h` holds the storage and keeps the dimensions. `false` when `init` is no nalgebra value.
    pub(in crate::lower) fn na_let(
        &mut self,
        pi: &syn::PatIdent,
        ty: Option<&syn::Type>,
        init: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> bool {
        if !self.is_na(init) {
            if let Some(t) = ty.filter(|t| Self::mentions_na(t)) {
                self.diag.unsupported_at(
                    t,
                    "a nalgebra variable initialised with this value",
                    "build nalgebra values with their constructors (`DMatrix::from_fn`, \
                     `zeros`, `from_row_slice`, ...) or operations on other nalgebra values",
                );
                return true;
            }
            return false;
        }
        let span = pi.ident.span();
        let Some((value, d)) = self.na_value(init, out) else {
            return false;
        };
        // A storage this pass just built (`map`, `from_fn`) is named as it is; a variable's
        // (`let w = v;`, of a `Copy` fixed-size value `v` still used after) is copied.
        let fresh = self.na_var(init).is_none();
        if let ExprKind::Var(v) = value.kind {
            if fresh && self.vars[v].origin == VarOrigin::Synthetic && self.vars[v].mutable {
                self.bind(&pi.ident, v);
                self.na.insert(v, d);
                return true;
            }
        }
        let var = self.new_var(
            pi.ident.clone(),
            pi.mutability.is_some(),
            Shape::Seq(SeqKind::Vec),
            VarOrigin::Local,
            None,
        );
        // A copy of a storage variable (`let y = x;`, `x.clone()`) owns its elements.
        let value = match value.kind {
            ExprKind::Var(v) => Expr::new(ExprKind::CopySeq(v, CopyTo::Vec), span),
            _ => value,
        };
        out.push(Stmt::Let {
            pat: Pat::Bind(var),
            init: Some(value),
        });
        self.bind(&pi.ident, var);
        self.na.insert(var, d);
        true
    }

    /// Assignments to nalgebra variables: `h = <value>;` (a rustc-visible check that the new
    /// value has the variable's dimensions, then the storage replaced), `h += &x;`, `h -= &x;`,
    /// `h *= s;`, `h *= &m;`, `h /= s;`, and element writes `m[(i, j)] = e;`, `m[(i, j)] += e;`.
    /// `false` when `e` assigns no nalgebra variable.
    pub(in crate::lower) fn na_assign(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> bool {
        if self.na.is_empty() {
            return false;
        }
        let (left, right, op) = match e {
            syn::Expr::Assign(a) => (&*a.left, &*a.right, None),
            syn::Expr::Binary(b) => match b.op {
                syn::BinOp::AddAssign(_) => (&*b.left, &*b.right, Some(BinOp::Add)),
                syn::BinOp::SubAssign(_) => (&*b.left, &*b.right, Some(BinOp::Sub)),
                syn::BinOp::MulAssign(_) => (&*b.left, &*b.right, Some(BinOp::Mul)),
                syn::BinOp::DivAssign(_) => (&*b.left, &*b.right, Some(BinOp::Div)),
                _ => return false,
            },
            _ => return false,
        };
        let span = e.span();
        // `m[(i, j)] = e`, `v[k] += e`: an element of the storage.
        if let syn::Expr::Index(ix) = left {
            let Some(v) = self.na_var(&ix.expr) else {
                return false;
            };
            if !self.vars[v].mutable
                && !matches!(self.vars[v].origin, VarOrigin::Local | VarOrigin::Synthetic)
            {
                self.diag.unsupported_at(
                    left,
                    "writing an element of a nalgebra argument taken by `&` or by value",
                    "take it by `&mut` (an in-out argument), or write into a copy \
                     (`let mut m2 = m.clone();`)",
                );
                return true;
            }
            let rows = self.na[&v].rows.clone();
            let index = match &*ix.index {
                syn::Expr::Tuple(t) if t.elems.len() == 2 => {
                    let i = self.expr(&t.elems[0], out);
                    let j = self.expr(&t.elems[1], out);
                    bin(BinOp::Add, i, bin(BinOp::Mul, j, rows))
                }
                other => self.expr(other, out),
            };
            let value = self.expr(right, out);
            self.vars[v].mutable = true;
            out.push(Stmt::Assign {
                place: Place::Index(v, Box::new(index)),
                op,
                value,
            });
            return true;
        }
        let Some(v) = self.na_var(left) else {
            return false;
        };
        // A local, or the storage `map`/`from_fn` built, which a `let` names as it is; or a
        // `&mut` argument (in-out storage), written element by element below.
        let local = matches!(self.vars[v].origin, VarOrigin::Local | VarOrigin::Synthetic);
        let in_out = self.vars[v].in_out_ref();
        if !local && !in_out {
            self.diag.unsupported_at(
                left,
                "assigning a nalgebra argument taken by `&` or by value",
                "take it by `&mut` (`*m = ..` then writes its elements), or bind a copy first \
                 (`let mut m2 = m.clone();`) and assign that",
            );
            return true;
        }
        let d = self.na[&v].clone();
        let (value, nd) = match op {
            // `h = v;`: a copy of `v`'s storage (a fixed-size `v` is `Copy` and may be used after).
            None => match self.na_value(right, out) {
                Some((
                    Expr {
                        kind: ExprKind::Var(w),
                        span: sp,
                        ..
                    },
                    d,
                )) => (Expr::new(ExprKind::CopySeq(w, CopyTo::Vec), sp), d),
                Some(x) => x,
                None => {
                    self.diag.unsupported_at(
                        right,
                        "assigning this value to a nalgebra variable",
                        "assign a nalgebra value of the same dimensions",
                    );
                    return true;
                }
            },
            Some(o) => {
                let me = Expr::new(ExprKind::Ref(Box::new(var_expr(v, span))), span);
                let other_na = self.is_na(right);
                match (o, other_na) {
                    (BinOp::Add | BinOp::Sub, true) => {
                        let Some((y, yd)) = self.na_operand(right, out) else {
                            return true;
                        };
                        self.check_shapes(&d, &yd, span, out);
                        let name = if o == BinOp::Add { "add" } else { "sub" };
                        (self.rule(name, vec![me, y], span), yd)
                    }
                    (BinOp::Mul, true) => {
                        let Some((y, yd)) = self.na_operand(right, out) else {
                            return true;
                        };
                        let args = vec![me, y, d.rows.clone(), d.cols.clone(), yd.cols.clone()];
                        let nd = NaDims {
                            rows: d.rows.clone(),
                            cols: yd.cols,
                        };
                        (self.rule("mat_mul", args, span), nd)
                    }
                    (BinOp::Mul | BinOp::Div, false) => {
                        let s = self.na_factor(right, out);
                        let name = if o == BinOp::Mul {
                            "scale"
                        } else {
                            "div_scalar"
                        };
                        (self.rule(name, vec![me, s], span), d.clone())
                    }
                    _ => {
                        self.diag.unsupported_at(
                            e,
                            "this compound assignment of a nalgebra variable",
                            "write `h += &x`, `h -= &x`, `h *= s`, `h *= &m` or `h /= s`",
                        );
                        return true;
                    }
                }
            }
        };
        // The variable keeps its dimensions: the new value must have them (checked at run time,
        // as nalgebra's own operators check theirs).
        let rt = crate::names::rt();
        let check = Expr::new(
            ExprKind::PlainCall {
                func: quote!(#rt::na::same_dims),
                args: vec![d.rows, d.cols, nd.rows, nd.cols],
                shape: Shape::Tuple(Vec::new()),
                suffix: quote!(),
                path: None,
            },
            span,
        );
        out.push(Stmt::Eval(check));
        if in_out {
            // `*m = value`: the new storage, then copied into the argument's.
            let t = self.synthetic("na", Shape::Seq(SeqKind::Vec), span);
            self.vars[t].mutable = false;
            out.push(Stmt::Let {
                pat: Pat::Bind(t),
                init: Some(value),
            });
            let k = self.loop_index(span);
            let n = Expr::new(ExprKind::Len(v), span);
            let read = Expr::new(
                ExprKind::Index {
                    base: t,
                    index: Box::new(var_expr(k, span)),
                },
                span,
            );
            let body = vec![Stmt::Assign {
                place: Place::Index(v, Box::new(var_expr(k, span))),
                op: None,
                value: read,
            }];
            out.push(super::super::inplace::index_loop(k, n, body, span));
            return true;
        }
        self.vars[v].mutable = true;
        out.push(Stmt::Assign {
            place: Place::Var(v),
            op: None,
            value,
        });
        true
    }
}
