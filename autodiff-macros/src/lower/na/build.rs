//! nalgebra values built in the body: `map` and `from_fn` as index loops over a new storage, and
//! the constructors (`zeros`, `from_element`, `from_row_slice`, `from_column_slice`, `from_vec`,
//! `new`).

use super::*;

impl Lowerer<'_> {
    /// `m.map(|x| ..)`: a new storage written element by element.
    pub(super) fn na_map(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<(Expr, NaDims)> {
        let span = m.span();
        let (a, d) = self.na_bound(&m.receiver, out)?;
        let c = self.closure_of(&m.args[0])?;
        let res = self.synthetic("namap", Shape::Seq(SeqKind::Vec), span);
        let zero = Expr::new(ExprKind::ElemConst { seq: a, one: false }, span);
        out.push(Stmt::Let {
            pat: Pat::Bind(res),
            init: Some(Expr::new(
                ExprKind::VecRepeat {
                    elem: Box::new(zero),
                    len: Box::new(Expr::new(ExprKind::Len(a), span)),
                },
                span,
            )),
        });
        let k = self.loop_index(span);
        let item = Expr::new(
            ExprKind::Index {
                base: a,
                index: Box::new(var_expr(k, span)),
            },
            span,
        );
        let mut body = Body::new();
        let r = self.apply(&c, vec![Item::Val(item)], &mut body)?;
        let mut stmts = body.finish();
        stmts.push(Stmt::Assign {
            place: Place::Index(res, Box::new(var_expr(k, span))),
            op: None,
            value: r,
        });
        let len = Expr::new(ExprKind::Len(a), span);
        out.push(super::inplace::index_loop(k, len, stmts, span));
        self.vars[res].mutable = true;
        Some((var_expr(res, span), d))
    }

    /// Constructors: `zeros`, `from_element`, `from_fn`, `from_row_slice`,
    /// `from_column_slice`, `from_vec`, `new`.
    pub(super) fn na_construct(
        &mut self,
        c: &syn::ExprCall,
        out: &mut Vec<Stmt>,
    ) -> Option<(Expr, NaDims)> {
        let span = c.span();
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        let (dims, ctor, elem) = self.na_constructor(&p.path)?;
        // The element type the path writes, given to the elements built here (literals alone
        // have none, and nothing else in the generated code names it).
        let typed = |e: Expr| match &elem {
            Some(t) if matches!(t.to_token_stream().to_string().as_str(), "f32" | "f64") => {
                let span = e.span;
                Expr::new(
                    ExprKind::Cast {
                        expr: Box::new(e),
                        ty: Box::new(t.clone()),
                        form: CastForm::As,
                    },
                    span,
                )
            }
            _ => e,
        };
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        // The dimensions the type fixes and those the call passes first.
        let fixed = |t: &TokenStream| {
            Expr::new(
                ExprKind::Opaque {
                    tokens: t.clone(),
                    shape: Shape::Int,
                },
                span,
            )
        };
        // Vectors built from data take their length from it; `DMatrix` takes both dimensions.
        let from_data = matches!(
            ctor.as_str(),
            "from_row_slice" | "from_column_slice" | "from_vec"
        );
        let dynamic_count = match &dims {
            Dims::Dynamic => 2,
            Dims::Column | Dims::Row if from_data => 0,
            Dims::Column | Dims::Row => 1,
            Dims::Fixed(..) => 0,
        };
        let bad = |cx: &mut Self, want: &str| {
            Some((
                cx.poison(
                    c,
                    &format!("`{ctor}` with these arguments"),
                    &format!("write {want}"),
                ),
                zero_dims(span),
            ))
        };
        // `new(a, b, c)` of a fixed-size vector or matrix: the elements, row by row.
        if ctor == "new" {
            let Dims::Fixed(r, cl) = &dims else {
                return bad(self, "`DVector::from_vec(vec![..])` for dynamic vectors");
            };
            let (Some(rn), Some(cn)) = (lit_usize(r), lit_usize(cl)) else {
                return bad(
                    self,
                    "`from_row_slice(&[..])` for sizes that are not numbers",
                );
            };
            if args.len() != rn * cn {
                return bad(self, &format!("{} elements", rn * cn));
            }
            let items: Vec<Expr> = args.iter().map(|a| typed(self.expr(a, out))).collect();
            let mut col_major = Vec::with_capacity(items.len());
            for j in 0..cn {
                for i in 0..rn {
                    col_major.push(items[i * cn + j].clone());
                }
            }
            let d = NaDims {
                rows: fixed(r),
                cols: fixed(cl),
            };
            return Some((Expr::new(ExprKind::VecList(col_major), span), d));
        }
        if args.len() < dynamic_count {
            return bad(self, "the dimensions first, as nalgebra does");
        }
        let mut given = Vec::new();
        for a in &args[..dynamic_count] {
            let e = self.expr(a, out);
            given.push(self.int_let("nadim", e, out));
        }
        let rest = &args[dynamic_count..];
        // The data of a vector built from it, and its length.
        let mut data = None;
        if from_data && matches!(dims, Dims::Column | Dims::Row) {
            let [s] = rest else {
                return bad(self, "one slice or `Vec` of elements");
            };
            let e = self.expr(s, out);
            let v = self.seq_var(e, elem.as_ref(), out)?;
            let n = self.int_let("nadim", Expr::new(ExprKind::Len(v), span), out);
            given.push(n);
            data = Some(v);
        }
        let d = match &dims {
            Dims::Dynamic => NaDims {
                rows: given[0].clone(),
                cols: given[1].clone(),
            },
            Dims::Column => NaDims {
                rows: given[0].clone(),
                cols: int_lit(1, span),
            },
            Dims::Row => NaDims {
                rows: int_lit(1, span),
                cols: given[0].clone(),
            },
            Dims::Fixed(r, cl) => NaDims {
                rows: fixed(r),
                cols: fixed(cl),
            },
        };
        let len = bin(BinOp::Mul, d.rows.clone(), d.cols.clone());
        match (ctor.as_str(), rest) {
            ("zeros", []) => {
                let zero = typed(Expr::new(
                    ExprKind::Lit(syn::Lit::Float(syn::LitFloat::new("0.0", span))),
                    span,
                ));
                let e = Expr::new(
                    ExprKind::VecRepeat {
                        elem: Box::new(zero),
                        len: Box::new(len),
                    },
                    span,
                );
                Some((e, d))
            }
            ("from_element" | "repeat", [x]) => {
                let x = typed(self.expr(x, out));
                let e = Expr::new(
                    ExprKind::VecRepeat {
                        elem: Box::new(x),
                        len: Box::new(len),
                    },
                    span,
                );
                Some((e, d))
            }
            ("from_fn", [f]) => {
                let zero = typed(Expr::new(
                    ExprKind::Lit(syn::Lit::Float(syn::LitFloat::new("0.0", span))),
                    span,
                ));
                self.na_from_fn(f, d, zero, out)
            }
            ("from_column_slice" | "from_vec", [s]) => {
                let v = match data {
                    Some(v) => v,
                    None => {
                        let e = self.expr(s, out);
                        self.seq_var(e, elem.as_ref(), out)?
                    }
                };
                Some((Expr::new(ExprKind::CopySeq(v, CopyTo::Vec), span), d))
            }
            ("from_row_slice", [s]) => {
                let v = match data {
                    Some(v) => v,
                    None => {
                        let e = self.expr(s, out);
                        self.seq_var(e, elem.as_ref(), out)?
                    }
                };
                let x = Expr::new(ExprKind::Ref(Box::new(var_expr(v, span))), span);
                // A row-major `rows x cols` array is the column-major `cols x rows` one.
                let args = vec![x, d.cols.clone(), d.rows.clone()];
                Some((self.rule("transpose", args, span), d))
            }
            _ => bad(
                self,
                "`zeros(..)`, `from_element(.., x)`, `from_fn(.., |i, j| ..)`, \
                 `from_row_slice(.., &v)`, `from_column_slice(.., &v)`, `from_vec(v)` or \
                 `new(..)` with the dimensions nalgebra's type needs",
            ),
        }
    }

    /// A sequence expression as a variable (a `let` for anything else).
    /// `elem`: the element type the constructor's path writes, given to literal elements.
    pub(super) fn seq_var(
        &mut self,
        e: Expr,
        elem: Option<&syn::Type>,
        out: &mut Vec<Stmt>,
    ) -> Option<VarId> {
        let span = e.span;
        let mut e = match e.kind {
            ExprKind::Ref(inner) => *inner,
            _ => e,
        };
        let float =
            elem.filter(|t| matches!(t.to_token_stream().to_string().as_str(), "f32" | "f64"));
        if let (Some(t), ExprKind::Array(items) | ExprKind::VecList(items)) = (float, &mut e.kind) {
            for item in items.iter_mut() {
                let sp = item.span;
                let inner = std::mem::replace(item, Expr::new(ExprKind::Poison, sp));
                *item = Expr::new(
                    ExprKind::Cast {
                        expr: Box::new(inner),
                        ty: Box::new(t.clone()),
                        form: CastForm::As,
                    },
                    sp,
                );
            }
        }
        match &e.kind {
            ExprKind::Var(v) if matches!(self.vars[*v].shape, Shape::Seq(_)) => Some(*v),
            ExprKind::Poison => None,
            _ if matches!(self.shape_of(&e), Shape::Seq(_)) => {
                let shape = self.shape_of(&e);
                let t = self.synthetic("seq", shape, span);
                self.vars[t].mutable = false;
                out.push(Stmt::Let {
                    pat: Pat::Bind(t),
                    init: Some(e),
                });
                Some(t)
            }
            _ => {
                self.diag.unsupported(
                    span,
                    "this value as the elements of a nalgebra value",
                    "pass a slice, array or `Vec` of floats",
                );
                None
            }
        }
    }

    /// `from_fn(.., |i, j| ..)`: a new storage written column by column.
    /// `zero`: the initial element (typed when the path gives the element type).
    pub(super) fn na_from_fn(
        &mut self,
        f: &syn::Expr,
        d: NaDims,
        zero: Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<(Expr, NaDims)> {
        let span = f.span();
        let c = self.closure_of(f)?;
        let res = self.synthetic("nafromfn", Shape::Seq(SeqKind::Vec), span);
        out.push(Stmt::Let {
            pat: Pat::Bind(res),
            init: Some(Expr::new(
                ExprKind::VecRepeat {
                    elem: Box::new(zero),
                    len: Box::new(bin(BinOp::Mul, d.rows.clone(), d.cols.clone())),
                },
                span,
            )),
        });
        let (i, j) = (self.loop_index(span), self.loop_index(span));
        let mut body = Body::new();
        let items = vec![Item::Val(var_expr(i, span)), Item::Val(var_expr(j, span))];
        let r = self.apply(&c, items, &mut body)?;
        let mut stmts = body.finish();
        let at = bin(
            BinOp::Add,
            var_expr(i, span),
            bin(BinOp::Mul, var_expr(j, span), d.rows.clone()),
        );
        stmts.push(Stmt::Assign {
            place: Place::Index(res, Box::new(at)),
            op: None,
            value: r,
        });
        let inner = super::inplace::index_loop(i, d.rows.clone(), stmts, span);
        out.push(super::inplace::index_loop(
            j,
            d.cols.clone(),
            vec![inner],
            span,
        ));
        self.vars[res].mutable = true;
        Some((var_expr(res, span), d))
    }
}
