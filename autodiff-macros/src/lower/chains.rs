//! Iterator chains and local closures: takes `v.iter().zip(..).map(|..| ..).sum()`, `for` loops
//! over such chains, and closures bound with `let`, gives plain IR: an index loop over the
//! chain's length whose body computes the k-th item, applies the closures inline and updates the
//! consumer's accumulator. Both sweeps then reuse the loop machinery; nothing here is calculus.

use super::*;

/// A sequence described by its length and how to get its k-th item.
pub(super) enum ISeq {
    /// Elements `var[offset + k]` for `k < len` (the whole sequence when both are `None`).
    Slice {
        var: VarId,
        offset: Option<Expr>,
        len: Option<Expr>,
    },
    /// Integers `start + k`, `k < len`.
    Range {
        start: Expr,
        len: Expr,
    },
    Zip(Box<ISeq>, Box<ISeq>),
    Chain(Box<ISeq>, Box<ISeq>),
    /// `v.iter_mut()`, `&mut v`: the elements of a slice as places (`*y = ..` writes `v[k]`).
    Mut(Box<ISeq>),
    Enumerate(Box<ISeq>),
    Skip(Box<ISeq>, Expr),
    Take(Box<ISeq>, Expr),
    StepBy(Box<ISeq>, Expr),
    Rev(Box<ISeq>),
    /// Windows of `width` over the slice `var[offset .. offset + len]` (as in `Slice`).
    Windows {
        var: VarId,
        offset: Option<Expr>,
        len: Option<Expr>,
        width: Expr,
    },
    /// Chunks of `size` over the slice `var[offset .. offset + len]` (as in `Slice`); `exact`
    /// (`chunks_exact`): only the full ones.
    Chunks {
        var: VarId,
        offset: Option<Expr>,
        len: Option<Expr>,
        size: Expr,
        exact: bool,
        /// `chunks_mut`, `chunks_exact_mut`: items borrowed `&mut`.
        mutable: bool,
    },
    /// The rows of a ragged variable (`lower/ragged.rs`): row `k` is the view
    /// `var[offsets[k]..offsets[k + 1]]`.
    Rows {
        var: VarId,
        offsets: VarId,
        /// `iter_mut`: rows written through.
        mutable: bool,
    },
    Map(Box<ISeq>, Closure),
    Filter(Box<ISeq>, Closure),
}

/// A function applied inline: a closure expression, or a path such as `f64::max`.
#[derive(Clone)]
pub(super) enum Closure {
    Lambda(syn::ExprClosure),
    Path(syn::Path),
    /// A closure bound with `let` earlier in the function.
    Local(VarId),
}

/// An item flowing through a chain.
#[derive(Clone)]
#[allow(clippy::large_enum_variant)] // short-lived, while a loop body is lowered
pub(super) enum Item {
    Val(Expr),
    Tuple(Vec<Item>),
    View(View),
    /// The element `base[index]` as a place (an item of `iter_mut`).
    Elem {
        base: VarId,
        index: Expr,
    },
}

/// A loop body under construction; `filter` opens a guarded level.
pub(super) struct Body {
    levels: Vec<(Option<Expr>, Vec<Stmt>)>,
}

impl Body {
    pub(super) fn new() -> Self {
        Body {
            levels: vec![(None, Vec::new())],
        }
    }
    pub(super) fn stmts(&mut self) -> &mut Vec<Stmt> {
        let n = self.levels.len() - 1;
        &mut self.levels[n].1
    }
    pub(super) fn guard(&mut self, cond: Expr) {
        self.levels.push((Some(cond), Vec::new()));
    }
    pub(super) fn finish(mut self) -> Vec<Stmt> {
        while self.levels.len() > 1 {
            let (cond, stmts) = self.levels.pop().unwrap_or((None, Vec::new()));
            let n = self.levels.len() - 1;
            if let Some(cond) = cond {
                self.levels[n].1.push(Stmt::If {
                    cond,
                    then: Block { stmts },
                    els: None,
                });
            }
        }
        self.levels.pop().map(|l| l.1).unwrap_or_default()
    }
}

/// The iterator sources and adaptors a chain is built from, each lowered by `parse_seq`.
pub(super) const ADAPTORS: &[&str] = &[
    "iter",
    "into_iter",
    "windows",
    "chunks",
    "chunks_mut",
    "chunks_exact",
    "chunks_exact_mut",
    "iter_mut",
    "zip",
    "chain",
    "map",
    "filter",
    "enumerate",
    "skip",
    "take",
    "step_by",
    "rev",
    "copied",
    "cloned",
];

pub(super) const CONSUMERS: &[&str] = &[
    "sum", "product", "fold", "max_by", "min_by", "reduce", "count", "any", "all", "for_each",
    "collect",
];

impl Lowerer<'_> {
    /// Whether `m` ends an iterator chain we lower (`....sum()`, `....collect()`, ...).
    pub(super) fn is_chain_consumer(&self, m: &syn::ExprMethodCall) -> bool {
        let name = m.method.to_string();
        if name == "unwrap" {
            if let syn::Expr::MethodCall(inner) = &*m.receiver {
                let n = inner.method.to_string();
                return matches!(n.as_str(), "max_by" | "min_by" | "reduce")
                    && self.looks_like_chain(&inner.receiver);
            }
            return false;
        }
        CONSUMERS.contains(&name.as_str()) && self.looks_like_chain(&m.receiver)
    }

    pub(super) fn looks_like_chain(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Paren(p) => self.looks_like_chain(&p.expr),
            syn::Expr::Range(_) => true,
            // `arr.map(f)`: arrays have `map` of their own; it is a chain only on a chain.
            syn::Expr::MethodCall(m) if m.method == "map" => self.looks_like_chain(&m.receiver),
            // Any adaptor (known or not) on top of a chain: the unknown ones are reported by
            // `parse_seq` at their own name.
            syn::Expr::MethodCall(m)
                if !CONSUMERS.contains(&m.method.to_string().as_str())
                    && m.method != "unwrap"
                    && self.looks_like_chain(&m.receiver) =>
            {
                true
            }
            syn::Expr::MethodCall(m) => ADAPTORS.contains(&m.method.to_string().as_str()),
            _ => false,
        }
    }

    /// Binds `e` to a fresh synthetic variable (so it is evaluated once) unless it is trivial.
    pub(super) fn once(&mut self, e: Expr, out: &mut Vec<Stmt>) -> Expr {
        if matches!(
            e.kind,
            ExprKind::Lit(_) | ExprKind::Var(_) | ExprKind::Opaque { .. }
        ) {
            return e;
        }
        let span = e.span;
        let shape = self.shape_of(&e);
        let t = self.synthetic("c", shape, span);
        self.vars[t].mutable = false;
        out.push(Stmt::Let {
            pat: Pat::Bind(t),
            init: Some(e),
        });
        var(t, span)
    }

    /// Something iterated: a chain, or `&v` / `v` given to `zip`/`chain`/`for`.
    pub(super) fn parse_seq(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Option<ISeq> {
        match e {
            syn::Expr::Paren(p) => self.parse_seq(&p.expr, out),
            syn::Expr::Reference(r) if r.mutability.is_none() => self.parse_seq(&r.expr, out),
            syn::Expr::Reference(r) => self.mut_seq(&r.expr, out),
            // `&*v` (a re-borrow, `v: &mut [f64]`) and `*a` iterate over the variable's elements.
            syn::Expr::Unary(u)
                if matches!(u.op, syn::UnOp::Deref(_))
                    && self
                        .var_of_path(&u.expr)
                        .is_some_and(|v| matches!(self.vars[v].shape, Shape::Seq(_))) =>
            {
                self.parse_seq(&u.expr, out)
            }
            // `&v[a..b]`, `v[a..].iter()`: a window of a sequence variable.
            syn::Expr::Index(ix) if matches!(&*ix.index, syn::Expr::Range(_)) => {
                let syn::Expr::Range(rg) = &*ix.index else {
                    return None;
                };
                let v = match self.var_of_path(&ix.expr) {
                    Some(v) => v,
                    None => {
                        self.diag.unsupported_at(
                            &ix.expr,
                            "iterating over a sub-slice of this expression",
                            "slice a sequence variable: `&v[a..b]`",
                        );
                        return None;
                    }
                };
                if self.range_of_rows(v, ix) {
                    return None;
                }
                let span = ix.index.span();
                let start = match &rg.start {
                    Some(st) => {
                        let e = self.expr(st, out);
                        self.once(e, out)
                    }
                    None => int_lit(0, span),
                };
                let end = match &rg.end {
                    Some(en) => {
                        let mut e = self.expr(en, out);
                        if matches!(rg.limits, syn::RangeLimits::Closed(_)) {
                            e = bin(BinOp::Add, e, int_lit(1, span));
                        }
                        e
                    }
                    None => Expr::new(ExprKind::Len(v), span),
                };
                let len = bin(BinOp::Sub, end, start.clone());
                let len = self.once(len, out);
                // A window of a window: offsets add up.
                let (base, offset) = match self.views.get(&v) {
                    Some(view) => (view.base, bin(BinOp::Add, view.offset.clone(), start)),
                    None => (v, start),
                };
                Some(ISeq::Slice {
                    var: base,
                    offset: Some(offset),
                    len: Some(len),
                })
            }
            syn::Expr::Path(_) => {
                let v = self.var_of_path(e)?;
                Some(self.slice_source(v))
            }
            // `p[i].iter()` of a nested array `p`: the elements of the row.
            syn::Expr::Index(_) if self.is_row(e) => {
                let view = self.row_view(e, out)?;
                Some(ISeq::Slice {
                    var: view.base,
                    offset: Some(view.offset),
                    len: Some(view.len),
                })
            }
            syn::Expr::Range(r) => {
                let (s, en) = self.range_bounds(r, "iterator chains", "`(a..b)`")?;
                let start = self.expr(s, out);
                let start = self.once(start, out);
                let mut end = self.expr(en, out);
                if matches!(r.limits, syn::RangeLimits::Closed(_)) {
                    end = bin(BinOp::Add, end, int_lit(1, r.span()));
                    // `1usize` would fix the type; use an untyped 1.
                    if let ExprKind::Binary { rhs, .. } = &mut end.kind {
                        rhs.kind = ExprKind::Lit(syn::Lit::Int(syn::LitInt::new("1", r.span())));
                    }
                }
                let len = bin(BinOp::Sub, end, start.clone());
                let len = self.once(len, out);
                Some(ISeq::Range { start, len })
            }
            syn::Expr::MethodCall(m) => {
                let name = m.method.to_string();
                let span = m.method.span();
                let arg = |cx: &mut Self, out: &mut Vec<Stmt>, k: usize| -> Option<Expr> {
                    let a = m.args.get(k)?;
                    let e = cx.expr(a, out);
                    Some(cx.once(e, out))
                };
                match name.as_str() {
                    "iter" | "into_iter" if m.args.is_empty() => {
                        if let syn::Expr::Index(_) = &*m.receiver {
                            return self.parse_seq(&m.receiver, out);
                        }
                        if let Some(v) = self.var_of_path(&m.receiver) {
                            return Some(self.slice_source(v));
                        }
                        self.parse_seq(&m.receiver, out)
                    }
                    "iter_mut" if m.args.is_empty() => self.mut_seq(&m.receiver, out),
                    "copied" | "cloned" if m.args.is_empty() => self.parse_seq(&m.receiver, out),
                    // `a.to_vec().iter()`: a copy iterated has the items of the original.
                    "to_vec" | "to_owned" | "clone" if m.args.is_empty() => {
                        self.parse_seq(&m.receiver, out)
                    }
                    "windows" | "chunks" | "chunks_mut" | "chunks_exact" | "chunks_exact_mut"
                        if m.args.len() == 1 =>
                    {
                        // Of a sequence, a window or chunk of one, or a sub-slice `v[a..b]`.
                        let src = match &*m.receiver {
                            syn::Expr::Path(_) | syn::Expr::Index(_) | syn::Expr::Paren(_) => {
                                self.parse_seq(&m.receiver, out)
                            }
                            _ => None,
                        };
                        let Some(ISeq::Slice { var, offset, len }) = src else {
                            self.diag.unsupported_at(
                                &m.receiver,
                                "`windows`/`chunks` of this expression",
                                "call them on a sequence variable or a sub-slice `v[a..b]`",
                            );
                            return None;
                        };
                        let n = arg(self, out, 0)?;
                        if name.ends_with("_mut") {
                            // Chunks written through (`c[0] = ..`, `c.swap(0, 1)`).
                            self.vars[var].mutable = true;
                        }
                        Some(if name == "windows" {
                            ISeq::Windows {
                                var,
                                offset,
                                len,
                                width: n,
                            }
                        } else {
                            ISeq::Chunks {
                                var,
                                offset,
                                len,
                                size: n,
                                exact: name.starts_with("chunks_exact"),
                                mutable: name.ends_with("_mut"),
                            }
                        })
                    }
                    "zip" | "chain" if m.args.len() == 1 => {
                        let a = self.parse_seq(&m.receiver, out)?;
                        let b = self.parse_seq(&m.args[0], out)?;
                        if has_filter(&a) || has_filter(&b) {
                            self.diag.unsupported(
                                span,
                                "`zip`/`chain` of filtered sequences",
                                "filter after zipping, or write a loop",
                            );
                            return None;
                        }
                        Some(if name == "zip" {
                            ISeq::Zip(Box::new(a), Box::new(b))
                        } else {
                            ISeq::Chain(Box::new(a), Box::new(b))
                        })
                    }
                    "enumerate" | "rev" if m.args.is_empty() => {
                        let a = self.parse_seq(&m.receiver, out)?;
                        if self.after_filter(&a, &name, span) {
                            return None;
                        }
                        Some(if name == "rev" {
                            ISeq::Rev(Box::new(a))
                        } else {
                            ISeq::Enumerate(Box::new(a))
                        })
                    }
                    "skip" | "take" | "step_by" if m.args.len() == 1 => {
                        let a = self.parse_seq(&m.receiver, out)?;
                        if self.after_filter(&a, &name, span) {
                            return None;
                        }
                        let n = arg(self, out, 0)?;
                        Some(match name.as_str() {
                            "skip" => ISeq::Skip(Box::new(a), n),
                            "take" => ISeq::Take(Box::new(a), n),
                            _ => ISeq::StepBy(Box::new(a), n),
                        })
                    }
                    "map" | "filter" if m.args.len() == 1 => {
                        let a = self.parse_seq(&m.receiver, out)?;
                        let c = self.closure_of(&m.args[0])?;
                        Some(if name == "map" {
                            ISeq::Map(Box::new(a), c)
                        } else {
                            ISeq::Filter(Box::new(a), c)
                        })
                    }
                    _ => {
                        self.diag.unsupported(
                            span,
                            &format!("the iterator method `{name}`"),
                            "use iter/zip/enumerate/skip/take/step_by/rev/chain/windows/chunks/\
                             map/filter with sum/product/fold/max_by/min_by/count/any/all/\
                             for_each/collect, or write a loop",
                        );
                        None
                    }
                }
            }
            other => {
                self.diag.unsupported_at(
                    &other,
                    "iterating over this expression",
                    "iterate over a sequence variable, a range or an iterator chain of them",
                );
                None
            }
        }
    }

    /// Position-dependent adaptors cannot follow `filter` (the positions are not known ahead):
    /// reports it and returns true.
    /// `v.iter_mut()`, `&mut v`, `v[a..b].iter_mut()`: the elements of a writable sequence as
    /// places.
    fn mut_seq(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Option<ISeq> {
        let inner = self.parse_seq(e, out)?;
        if let ISeq::Slice { var, .. } = &inner {
            self.vars[*var].mutable = true;
            return Some(ISeq::Mut(Box::new(inner)));
        }
        if let Some(rows) = self.rows_written(&inner) {
            return Some(rows);
        }
        // The chunks of `as_chunks_mut`: written through already.
        if matches!(inner, ISeq::Chunks { mutable: true, .. }) {
            return Some(inner);
        }
        self.diag.unsupported_at(
            e,
            "iterating mutably over this expression",
            "call `iter_mut` on a sequence variable or a sub-slice `v[a..b]`",
        );
        None
    }

    pub(super) fn after_filter(&mut self, a: &ISeq, name: &str, span: Span) -> bool {
        if has_filter(a) {
            self.diag.unsupported(
                span,
                &format!("`{name}` after `filter`"),
                "apply it before `filter`, or write a loop",
            );
        }
        has_filter(a)
    }

    pub(super) fn slice_source(&self, v: VarId) -> ISeq {
        if let Some(rows) = self.rows_source(v) {
            return rows;
        }
        match self.views.get(&v) {
            Some(view) => ISeq::Slice {
                var: view.base,
                offset: Some(view.offset.clone()),
                len: Some(view.len.clone()),
            },
            None => ISeq::Slice {
                var: v,
                offset: None,
                len: None,
            },
        }
    }

    pub(super) fn seq_len(&self, s: &ISeq, span: Span) -> Expr {
        match s {
            ISeq::Slice { var, len, .. } => src_len(*var, len, span),
            ISeq::Range { len, .. } => len.clone(),
            ISeq::Zip(a, b) => {
                int_method(self.seq_len(a, span), "min", vec![self.seq_len(b, span)])
            }
            ISeq::Chain(a, b) => bin(BinOp::Add, self.seq_len(a, span), self.seq_len(b, span)),
            ISeq::Enumerate(a)
            | ISeq::Map(a, _)
            | ISeq::Filter(a, _)
            | ISeq::Rev(a)
            | ISeq::Mut(a) => self.seq_len(a, span),
            ISeq::Skip(a, n) => {
                int_method(self.seq_len(a, span), "saturating_sub", vec![n.clone()])
            }
            ISeq::Take(a, n) => int_method(self.seq_len(a, span), "min", vec![n.clone()]),
            ISeq::StepBy(a, s) => {
                let l = self.seq_len(a, span);
                let up = bin(BinOp::Sub, bin(BinOp::Add, l, s.clone()), int_lit(1, span));
                bin(BinOp::Div, up, s.clone())
            }
            ISeq::Windows {
                var, len, width, ..
            } => int_method(
                bin(BinOp::Add, src_len(*var, len, span), int_lit(1, span)),
                "saturating_sub",
                vec![width.clone()],
            ),
            ISeq::Chunks {
                var,
                len,
                size,
                exact: true,
                ..
            } => bin(BinOp::Div, src_len(*var, len, span), size.clone()),
            ISeq::Rows { offsets, .. } => Self::ragged_len(*offsets, span),
            ISeq::Chunks { var, len, size, .. } => {
                let up = bin(
                    BinOp::Sub,
                    bin(BinOp::Add, src_len(*var, len, span), size.clone()),
                    int_lit(1, span),
                );
                bin(BinOp::Div, up, size.clone())
            }
        }
    }

    /// The k-th item of a sequence; statements computing it go into `body`.
    pub(super) fn elem(&mut self, s: &ISeq, k: Expr, body: &mut Body) -> Option<Item> {
        let span = k.span;
        Some(match s {
            ISeq::Mut(a) => match self.elem(a, k, body)? {
                Item::Val(Expr {
                    kind: ExprKind::Index { base, index },
                    ..
                }) => Item::Elem {
                    base,
                    index: *index,
                },
                _ => {
                    self.diag.unsupported(
                        span,
                        "`iter_mut` over this sequence",
                        "iterate mutably over a sequence variable or a sub-slice `v[a..b]`",
                    );
                    return None;
                }
            },
            ISeq::Slice { var, offset, .. } => Item::Val(Expr::new(
                ExprKind::Index {
                    base: *var,
                    index: Box::new(shifted(offset, k)),
                },
                span,
            )),
            ISeq::Range { start, .. } => Item::Val(bin(BinOp::Add, start.clone(), k)),
            ISeq::Zip(a, b) => {
                let x = self.elem(a, k.clone(), body)?;
                let y = self.elem(b, k, body)?;
                Item::Tuple(vec![x, y])
            }
            ISeq::Chain(a, b) => {
                let la = self.seq_len(a, span);
                let t = self.synthetic("chain", Shape::Other, span);
                body.stmts().push(Stmt::Let {
                    pat: Pat::Bind(t),
                    init: None,
                });
                let mut first = Body::new();
                let x = self.elem(a, k.clone(), &mut first)?;
                let mut second = Body::new();
                let y = self.elem(b, bin(BinOp::Sub, k.clone(), la.clone()), &mut second)?;
                let (x, y) = match (x, y) {
                    (Item::Val(x), Item::Val(y)) => (x, y),
                    _ => {
                        self.diag.unsupported(
                            span,
                            "`chain` of tuples or windows",
                            "map the items to single values before chaining",
                        );
                        return None;
                    }
                };
                let shape = self.shape_of(&x).join(&self.shape_of(&y));
                self.vars[t].shape = shape;
                let mut fs = first.finish();
                fs.push(Stmt::Assign {
                    place: Place::Var(t),
                    op: None,
                    value: x,
                });
                let mut ss = second.finish();
                ss.push(Stmt::Assign {
                    place: Place::Var(t),
                    op: None,
                    value: y,
                });
                body.stmts().push(Stmt::If {
                    cond: bin(BinOp::Lt, k, la),
                    then: Block { stmts: fs },
                    els: Some(Block { stmts: ss }),
                });
                Item::Val(var(t, span))
            }
            ISeq::Enumerate(a) => {
                let x = self.elem(a, k.clone(), body)?;
                Item::Tuple(vec![Item::Val(k), x])
            }
            ISeq::Skip(a, n) => self.elem(a, bin(BinOp::Add, k, n.clone()), body)?,
            ISeq::Take(a, _) => self.elem(a, k, body)?,
            ISeq::StepBy(a, st) => self.elem(a, bin(BinOp::Mul, k, st.clone()), body)?,
            ISeq::Rev(a) => {
                let l = self.seq_len(a, span);
                let idx = bin(BinOp::Sub, bin(BinOp::Sub, l, int_lit(1, span)), k);
                self.elem(a, idx, body)?
            }
            ISeq::Windows {
                var, offset, width, ..
            } => Item::View(View {
                base: *var,
                offset: shifted(offset, k),
                len: width.clone(),
                mutable: false,
                row: None,
            }),
            ISeq::Chunks {
                var,
                offset,
                len,
                size,
                mutable,
                ..
            } => {
                let start = bin(BinOp::Mul, k, size.clone());
                let rest = bin(BinOp::Sub, src_len(*var, len, span), start.clone());
                Item::View(View {
                    base: *var,
                    offset: shifted(offset, start),
                    len: int_method(size.clone(), "min", vec![rest]),
                    mutable: *mutable,
                    // Only the rows of a nested array are chunks of a nested variable.
                    row: self.row_of(*var),
                })
            }
            ISeq::Rows {
                var,
                offsets,
                mutable,
            } => {
                let k = self.once(k, body.stmts());
                let start = Expr::new(
                    ExprKind::Index {
                        base: *offsets,
                        index: Box::new(k.clone()),
                    },
                    span,
                );
                let end = Expr::new(
                    ExprKind::Index {
                        base: *offsets,
                        index: Box::new(bin(BinOp::Add, k, int_lit(1, span))),
                    },
                    span,
                );
                Item::View(View {
                    base: *var,
                    offset: start.clone(),
                    len: bin(BinOp::Sub, end, start),
                    mutable: *mutable,
                    row: None,
                })
            }
            ISeq::Map(a, c) => {
                let x = self.elem(a, k, body)?;
                let r = self.apply(c, vec![x], body)?;
                let r = self.once(r, body.stmts());
                Item::Val(r)
            }
            ISeq::Filter(a, c) => {
                let x = self.elem(a, k, body)?;
                let cond = self.apply(c, vec![x.clone()], body)?;
                body.guard(cond);
                x
            }
        })
    }
}

/// The first sequence variable a chain iterates (the one `elem_type` reads).
pub(super) fn first_seq_var(s: &ISeq) -> Option<VarId> {
    match s {
        ISeq::Slice { var, .. }
        | ISeq::Windows { var, .. }
        | ISeq::Chunks { var, .. }
        | ISeq::Rows { var, .. } => Some(*var),
        ISeq::Range { .. } => None,
        ISeq::Zip(a, _)
        | ISeq::Chain(a, _)
        | ISeq::Enumerate(a)
        | ISeq::Skip(a, _)
        | ISeq::Take(a, _)
        | ISeq::StepBy(a, _)
        | ISeq::Rev(a)
        | ISeq::Map(a, _)
        | ISeq::Filter(a, _)
        | ISeq::Mut(a) => first_seq_var(a),
    }
}

pub(super) fn has_filter(s: &ISeq) -> bool {
    match s {
        ISeq::Filter(..) => true,
        ISeq::Map(a, _) => has_filter(a),
        _ => false,
    }
}

/// For `|a, b| a.partial_cmp(b).unwrap()` / `a.total_cmp(b)`: `Some(false)`; with the arguments
/// swapped: `Some(true)`; anything else: `None`.
pub(super) fn comparator_order(cl: &syn::ExprClosure) -> Option<bool> {
    fn name(p: &syn::Pat) -> Option<String> {
        match p {
            syn::Pat::Ident(i) => Some(i.ident.to_string()),
            syn::Pat::Reference(r) => name(&r.pat),
            syn::Pat::Type(t) => name(&t.pat),
            _ => None,
        }
    }
    fn operand(e: &syn::Expr) -> Option<String> {
        match e {
            syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            syn::Expr::Unary(u) => operand(&u.expr),
            syn::Expr::Reference(r) => operand(&r.expr),
            syn::Expr::Paren(p) => operand(&p.expr),
            _ => None,
        }
    }
    if cl.inputs.len() != 2 {
        return None;
    }
    let (a, b) = (name(&cl.inputs[0])?, name(&cl.inputs[1])?);
    let mut body = &*cl.body;
    if let syn::Expr::MethodCall(m) = body {
        if m.method == "unwrap" && m.args.is_empty() {
            body = &m.receiver;
        }
    }
    let syn::Expr::MethodCall(m) = body else {
        return None;
    };
    if !(m.method == "partial_cmp" || m.method == "total_cmp") || m.args.len() != 1 {
        return None;
    }
    let (x, y) = (operand(&m.receiver)?, operand(&m.args[0])?);
    if x == a && y == b {
        Some(false)
    } else if x == b && y == a {
        Some(true)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::errors;
    use syn::parse_quote;

    /// `iter_mut` is no chain source (the macro does not write through iterators): kept as a
    /// value it is reported as an iterator, and a chain on it at its own name.
    #[test]
    fn iter_mut_kept_as_a_value_is_reported_but_chains_are_lowered() {
        let kept = errors(parse_quote! {
            fn f(x: f64) -> f64 {
                let mut v = vec![x; 3];
                let it = v.iter_mut();
                x
            }
        });
        assert!(
            kept.iter()
                .any(|e| e.contains("the iterator `iter_mut` kept as a value")),
            "{kept:?}"
        );
        // Its items are element aliases: `*y` reads `v[k]`.
        let chained = errors(parse_quote! {
            fn f(x: f64) -> f64 {
                let mut v = vec![x; 3];
                v.iter_mut().map(|y| *y).sum()
            }
        });
        assert!(chained.is_empty(), "{chained:?}");
    }
}
