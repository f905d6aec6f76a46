//! Iterator chains and local closures: takes `v.iter().zip(..).map(|..| ..).sum()`, `for` loops
//! over such chains, and closures bound with `let`, gives plain IR: an index loop over the
//! chain's length whose body computes the k-th item, applies the closures inline and updates the
//! consumer's accumulator. Both sweeps then reuse the loop machinery; nothing here is calculus.

use crate::ir::*;
use crate::lower::{Lowerer, View};
use proc_macro2::Span;
use quote::quote;
use syn::spanned::Spanned;

/// A sequence described by its length and how to get its k-th item.
pub(crate) enum ISeq {
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
    /// Chunks of `size` over the slice `var[offset .. offset + len]` (as in `Slice`).
    Chunks {
        var: VarId,
        offset: Option<Expr>,
        len: Option<Expr>,
        size: Expr,
    },
    Map(Box<ISeq>, Closure),
    Filter(Box<ISeq>, Closure),
}

/// A function applied inline: a closure expression, or a path such as `f64::max`.
#[derive(Clone)]
pub(crate) enum Closure {
    Lambda(syn::ExprClosure),
    Path(syn::Path),
    /// A closure bound with `let` earlier in the function.
    Local(VarId),
}

/// An item flowing through a chain.
#[derive(Clone)]
pub(crate) enum Item {
    Val(Expr),
    Tuple(Vec<Item>),
    View(View),
}

/// A loop body under construction; `filter` opens a guarded level.
struct Body {
    levels: Vec<(Option<Expr>, Vec<Stmt>)>,
}

impl Body {
    fn new() -> Self {
        Body {
            levels: vec![(None, Vec::new())],
        }
    }
    fn stmts(&mut self) -> &mut Vec<Stmt> {
        let n = self.levels.len() - 1;
        &mut self.levels[n].1
    }
    fn guard(&mut self, cond: Expr) {
        self.levels.push((Some(cond), Vec::new()));
    }
    fn finish(mut self) -> Vec<Stmt> {
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

const CONSUMERS: &[&str] = &[
    "sum", "product", "fold", "max_by", "min_by", "reduce", "count", "any", "all", "for_each",
    "collect",
];

fn int_lit(n: usize, span: Span) -> Expr {
    Expr::new(
        ExprKind::Lit(syn::Lit::Int(syn::LitInt::new(&format!("{n}usize"), span))),
        span,
    )
}

/// The length of the slice `var[offset .. offset + len]` (all of `var` when `len` is `None`).
fn src_len(var: VarId, len: &Option<Expr>, span: Span) -> Expr {
    match len {
        Some(l) => l.clone(),
        None => Expr::new(ExprKind::Len(var), span),
    }
}

/// `offset + k`, or `k` without an offset.
fn shifted(offset: &Option<Expr>, k: Expr) -> Expr {
    match offset {
        Some(o) => bin(BinOp::Add, o.clone(), k),
        None => k,
    }
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let span = a.span;
    Expr::new(
        ExprKind::Binary {
            op,
            lhs: Box::new(a),
            rhs: Box::new(b),
        },
        span,
    )
}

fn int_method(recv: Expr, name: &str, args: Vec<Expr>) -> Expr {
    let span = recv.span;
    Expr::new(
        ExprKind::PlainMethod {
            recv: Box::new(recv),
            method: syn::Ident::new(name, span),
            turbofish: quote!(),
            args,
            shape: Shape::Int,
        },
        span,
    )
}

fn var(v: VarId, span: Span) -> Expr {
    Expr::new(ExprKind::Var(v), span)
}

impl Lowerer<'_> {
    /// Whether `m` ends an iterator chain we lower (`....sum()`, `....collect()`, ...).
    pub(crate) fn is_chain_consumer(&self, m: &syn::ExprMethodCall) -> bool {
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

    pub(crate) fn looks_like_chain(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Paren(p) => self.looks_like_chain(&p.expr),
            syn::Expr::Range(_) => true,
            // Any adaptor (known or not) on top of a chain: the unknown ones are reported by
            // `parse_seq` at their own name.
            syn::Expr::MethodCall(m)
                if !CONSUMERS.contains(&m.method.to_string().as_str())
                    && m.method != "unwrap"
                    && self.looks_like_chain(&m.receiver) =>
            {
                true
            }
            syn::Expr::MethodCall(m) => matches!(
                m.method.to_string().as_str(),
                "iter"
                    | "into_iter"
                    | "windows"
                    | "chunks"
                    | "zip"
                    | "chain"
                    | "map"
                    | "filter"
                    | "enumerate"
                    | "skip"
                    | "take"
                    | "step_by"
                    | "rev"
                    | "copied"
                    | "cloned"
            ),
            _ => false,
        }
    }

    /// Binds `e` to a fresh synthetic variable (so it is evaluated once) unless it is trivial.
    fn once(&mut self, e: Expr, out: &mut Vec<Stmt>) -> Expr {
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

    fn closure_of(&mut self, e: &syn::Expr) -> Option<Closure> {
        match e {
            syn::Expr::Closure(c) => {
                if c.capture.is_some() {
                    self.diag.unsupported_at(
                        &c,
                        "`move` closures",
                        "drop `move`: the closure is inlined where it is used",
                    );
                }
                Some(Closure::Lambda(c.clone()))
            }
            syn::Expr::Path(p) if p.qself.is_none() => {
                if let Some(id) = p.path.get_ident() {
                    if let Some(v) = self.lookup(&id.to_string()) {
                        if self.closures.contains_key(&v) {
                            return Some(Closure::Local(v));
                        }
                        self.diag.unsupported_at(
                            p,
                            &format!("passing `{id}`, a function value, to an iterator adaptor"),
                            "pass a closure `|x| ...`, a closure bound with `let`, or a function path",
                        );
                        return None;
                    }
                }
                Some(Closure::Path(p.path.clone()))
            }
            syn::Expr::Paren(p) => self.closure_of(&p.expr),
            other => {
                self.diag.unsupported_at(
                    &other,
                    "this function argument to an iterator adaptor",
                    "pass a closure `|x| ...` or a function path such as `f64::max`",
                );
                None
            }
        }
    }

    /// Something iterated: a chain, or `&v` / `v` given to `zip`/`chain`/`for`.
    pub(crate) fn parse_seq(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Option<ISeq> {
        match e {
            syn::Expr::Paren(p) => self.parse_seq(&p.expr, out),
            syn::Expr::Reference(r) if r.mutability.is_none() => self.parse_seq(&r.expr, out),
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
                    "copied" | "cloned" if m.args.is_empty() => self.parse_seq(&m.receiver, out),
                    "windows" | "chunks" if m.args.len() == 1 => {
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
    fn after_filter(&mut self, a: &ISeq, name: &str, span: Span) -> bool {
        if has_filter(a) {
            self.diag.unsupported(
                span,
                &format!("`{name}` after `filter`"),
                "apply it before `filter`, or write a loop",
            );
        }
        has_filter(a)
    }

    fn slice_source(&self, v: VarId) -> ISeq {
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

    fn seq_len(&self, s: &ISeq, span: Span) -> Expr {
        match s {
            ISeq::Slice { var, len, .. } => src_len(*var, len, span),
            ISeq::Range { len, .. } => len.clone(),
            ISeq::Zip(a, b) => {
                int_method(self.seq_len(a, span), "min", vec![self.seq_len(b, span)])
            }
            ISeq::Chain(a, b) => bin(BinOp::Add, self.seq_len(a, span), self.seq_len(b, span)),
            ISeq::Enumerate(a) | ISeq::Map(a, _) | ISeq::Filter(a, _) | ISeq::Rev(a) => {
                self.seq_len(a, span)
            }
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
    fn elem(&mut self, s: &ISeq, k: Expr, body: &mut Body) -> Option<Item> {
        let span = k.span;
        Some(match s {
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
            }),
            ISeq::Chunks {
                var,
                offset,
                len,
                size,
            } => {
                let start = bin(BinOp::Mul, k, size.clone());
                let rest = bin(BinOp::Sub, src_len(*var, len, span), start.clone());
                Item::View(View {
                    base: *var,
                    offset: shifted(offset, start),
                    len: int_method(size.clone(), "min", vec![rest]),
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

    /// Applies a closure inline to items; its statements go into `body`.
    fn apply(&mut self, c: &Closure, args: Vec<Item>, body: &mut Body) -> Option<Expr> {
        match c {
            Closure::Path(p) => {
                let span = p.span();
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.item_expr(a, span)?);
                }
                let last = p
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                if crate::methods::float_method(&last).is_some() && !vals.is_empty() {
                    let recv = vals.remove(0);
                    return Some(Expr::new(
                        ExprKind::Method {
                            recv: Box::new(recv),
                            method: syn::Ident::new(&last, span),
                            args: vals,
                        },
                        span,
                    ));
                }
                Some(Expr::new(
                    ExprKind::Call {
                        func: p.clone(),
                        args: vals,
                        shape: Shape::Scalar,
                    },
                    span,
                ))
            }
            Closure::Local(v) => {
                let (cl, captured) = self.closures.get(v)?.clone();
                if cl.inputs.len() != args.len() {
                    self.diag.error_at(
                        &cl.inputs,
                        format!(
                            "this closure takes {} arguments but the adaptor gives {}",
                            cl.inputs.len(),
                            args.len()
                        ),
                    );
                    return None;
                }
                let saved = std::mem::replace(&mut self.scopes, captured);
                let r = self.with_scope(|cx| {
                    for (p, item) in cl.inputs.iter().zip(args) {
                        cx.bind_item(p, item, body.stmts());
                    }
                    cx.closure_body(&cl.body, body.stmts())
                });
                self.scopes = saved;
                r
            }
            Closure::Lambda(cl) => {
                if cl.inputs.len() != args.len() {
                    self.diag.error_at(
                        &cl,
                        format!(
                            "this closure takes {} arguments but is given {}",
                            cl.inputs.len(),
                            args.len()
                        ),
                    );
                    return None;
                }
                self.with_scope(|cx| {
                    for (p, item) in cl.inputs.iter().zip(args) {
                        cx.bind_item(p, item, body.stmts());
                    }
                    cx.closure_body(&cl.body, body.stmts())
                })
            }
        }
    }

    fn closure_body(&mut self, b: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Expr> {
        let mut bad: Option<syn::ExprReturn> = None;
        struct Finder<'f>(&'f mut Option<syn::ExprReturn>);
        impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
            fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
                if self.0.is_none() {
                    *self.0 = Some(r.clone());
                }
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        }
        syn::visit::Visit::visit_expr(&mut Finder(&mut bad), b);
        if let Some(r) = bad {
            self.diag.unsupported_at(
                &r,
                "`return` inside a closure",
                "make the closure's value its last expression",
            );
            return None;
        }
        match b {
            syn::Expr::Block(blk) if blk.label.is_none() => {
                // The closure's statements run in the current block (names are resolved already).
                let tail = self.block_into(&blk.block, out);
                Some(tail.unwrap_or_else(|| Expr::new(ExprKind::Tuple(Vec::new()), b.span())))
            }
            other if crate::lower::is_unit_stmt_expr(other) => {
                self.expr_stmt(other, out);
                Some(Expr::new(ExprKind::Tuple(Vec::new()), b.span()))
            }
            other => Some(self.expr(other, out)),
        }
    }

    /// `let (head, tail) = v.split_at(k);`: both names become views of `v`. Returns false when
    /// the statement is not of that form.
    pub(crate) fn split_at(
        &mut self,
        pat: &syn::Pat,
        init: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let (syn::Pat::Tuple(pt), syn::Expr::MethodCall(m)) = (pat, init) else {
            return false;
        };
        if m.method != "split_at" || m.args.len() != 1 || pt.elems.len() != 2 {
            return false;
        }
        let span = m.method.span();
        let Some(ISeq::Slice { var, offset, len }) = self.parse_seq(&m.receiver, out) else {
            self.diag.unsupported_at(
                &m.receiver,
                "`split_at` of this expression",
                "split a sequence variable or a sub-slice `v[a..b]`",
            );
            return true;
        };
        let k = self.expr(&m.args[0], out);
        let k = self.once(k, out);
        let start = offset.clone().unwrap_or_else(|| int_lit(0, span));
        let head = View {
            base: var,
            offset: start.clone(),
            len: k.clone(),
        };
        let tail = View {
            base: var,
            offset: bin(BinOp::Add, start, k.clone()),
            len: bin(BinOp::Sub, src_len(var, &len, span), k),
        };
        self.bind_item(&pt.elems[0], Item::View(head), out);
        self.bind_item(&pt.elems[1], Item::View(tail), out);
        true
    }

    /// `view.to_vec()`: the elements of a view collected into a `Vec`.
    pub(crate) fn view_to_vec(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Stmt>) -> Expr {
        let recv = &m.receiver;
        let chain: syn::ExprMethodCall = syn::parse_quote_spanned! {m.method.span()=>
            #recv.iter().copied().collect::<::std::vec::Vec<_>>()
        };
        self.chain_consumer(&chain, out)
    }

    /// Binds a closure or loop pattern to an item.
    pub(crate) fn bind_item(&mut self, p: &syn::Pat, item: Item, out: &mut Vec<Stmt>) {
        match (p, item) {
            (syn::Pat::Type(pt), item) => {
                self.bind_item(&pt.pat, item, out);
                // `|t: f64|`: the annotation may be what fixes the type of the value bound.
                if let syn::Pat::Ident(pi) = &*pt.pat {
                    if let Some(v) = self.lookup(&pi.ident.to_string()) {
                        if self.vars[v].origin == VarOrigin::Local {
                            self.vars[v].ty = Some((*pt.ty).clone());
                        }
                    }
                }
            }
            (syn::Pat::Reference(r), item) if r.mutability.is_none() => {
                self.bind_item(&r.pat, item, out)
            }
            (syn::Pat::Paren(pp), item) => self.bind_item(&pp.pat, item, out),
            (syn::Pat::Wild(_), _) => {}
            (syn::Pat::Ident(pi), Item::View(view)) if pi.subpat.is_none() => {
                let v = self.new_var(
                    pi.ident.clone(),
                    false,
                    Shape::Seq(SeqKind::Slice),
                    VarOrigin::Synthetic,
                    None,
                );
                self.views.insert(v, view);
                self.bind(&pi.ident, v);
            }
            (syn::Pat::Tuple(pt), Item::Tuple(items)) if pt.elems.len() == items.len() => {
                for (q, it) in pt.elems.iter().zip(items) {
                    self.bind_item(q, it, out);
                }
            }
            (syn::Pat::Tuple(pt), Item::Val(e)) => {
                let e = self.once(e, out);
                for (i, q) in pt.elems.iter().enumerate() {
                    let f = Expr::new(
                        ExprKind::Field {
                            base: Box::new(e.clone()),
                            index: i as u32,
                        },
                        q.span(),
                    );
                    self.bind_item(q, Item::Val(f), out);
                }
            }
            (syn::Pat::Ident(pi), item) if pi.subpat.is_none() && pi.by_ref.is_none() => {
                let e = match self.item_expr(item, pi.span()) {
                    Some(e) => e,
                    None => return,
                };
                let shape = self.shape_of(&e);
                let v = self.new_var(
                    pi.ident.clone(),
                    pi.mutability.is_some(),
                    shape,
                    VarOrigin::Local,
                    None,
                );
                out.push(Stmt::Let {
                    pat: Pat::Bind(v),
                    init: Some(e),
                });
                self.bind(&pi.ident, v);
            }
            (other, _) => {
                self.diag.unsupported_at(
                    &other,
                    "this pattern for an iterator item",
                    "bind names, `&x`, or tuples of them (`|(i, &x)|`)",
                );
            }
        }
    }

    fn item_expr(&mut self, item: Item, span: Span) -> Option<Expr> {
        match item {
            Item::Val(e) => Some(e),
            Item::Tuple(items) => {
                let mut es = Vec::new();
                for i in items {
                    es.push(self.item_expr(i, span)?);
                }
                Some(Expr::new(ExprKind::Tuple(es), span))
            }
            Item::View(v) => {
                let end = bin(BinOp::Add, v.offset.clone(), v.len.clone());
                Some(Expr::new(
                    ExprKind::SubSlice {
                        base: v.base,
                        start: Some(Box::new(v.offset)),
                        end: Some(Box::new(end)),
                        inclusive: false,
                    },
                    span,
                ))
            }
        }
    }

    /// The element type of the first sequence variable a chain reads, if it is written down.
    fn elem_type(&self, s: &ISeq) -> Option<syn::Type> {
        match s {
            ISeq::Slice { var: v, .. }
            | ISeq::Windows { var: v, .. }
            | ISeq::Chunks { var: v, .. } => {
                let ty = self.vars[*v].ty.as_ref()?;
                crate::lower::seq_elem(ty)
            }
            ISeq::Range { .. } => None,
            ISeq::Zip(a, _) | ISeq::Chain(a, _) => self.elem_type(a),
            ISeq::Enumerate(a)
            | ISeq::Skip(a, _)
            | ISeq::Take(a, _)
            | ISeq::StepBy(a, _)
            | ISeq::Rev(a)
            | ISeq::Map(a, _)
            | ISeq::Filter(a, _) => self.elem_type(a),
        }
    }

    /// A `for` loop over an iterator chain.
    pub(crate) fn for_chain(&mut self, f: &syn::ExprForLoop, seq: ISeq, out: &mut Vec<Stmt>) {
        let span = f.expr.span();
        let label = f.label.as_ref().map(|l| l.name.clone());
        let len = self.seq_len(&seq, span);
        let len = self.once(len, out);
        self.with_scope(|cx| {
            let k = cx.loop_index(span);
            let mut body = Body::new();
            let item = match cx.elem(&seq, var(k, span), &mut body) {
                Some(i) => i,
                None => return,
            };
            cx.bind_item(&f.pat, item, body.stmts());
            cx.loop_results
                .push((label.as_ref().map(|l| l.ident.to_string()), None));
            let user = cx.unit_block(&f.body);
            cx.loop_results.pop();
            body.stmts().extend(user.stmts);
            out.push(Stmt::For {
                var: k,
                range: Range::Bounds {
                    start: Box::new(int_lit(0, span)),
                    end: Box::new(len),
                    inclusive: false,
                    rev: false,
                    step: None,
                },
                body: Block {
                    stmts: body.finish(),
                },
                label,
            });
        });
    }

    fn loop_index(&mut self, span: Span) -> VarId {
        let k = self.synthetic("k", Shape::Int, span);
        self.vars[k].origin = VarOrigin::LoopIndex;
        self.vars[k].mutable = false;
        k
    }

    /// `chain.consumer(...)`: the loop, and the expression for its result.
    pub(crate) fn chain_consumer(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Stmt>) -> Expr {
        let span = m.span();
        // `.max_by(..).unwrap()` and friends.
        let (m, unwrapped) = match (&*m.receiver, m.method.to_string().as_str()) {
            (syn::Expr::MethodCall(inner), "unwrap") => (inner, true),
            _ => (m, false),
        };
        let name = m.method.to_string();
        if matches!(name.as_str(), "max_by" | "min_by" | "reduce") && !unwrapped {
            return self.poison(
                &m,
                &format!("`{name}` whose `Option` result is used as is"),
                &format!("write `.{name}(..).unwrap()` (or fold with an initial value)"),
            );
        }
        let seq = match self.parse_seq(&m.receiver, out) {
            Some(s) => s,
            None => return Expr::new(ExprKind::Poison, span),
        };
        let len = self.seq_len(&seq, span);
        let len = self.once(len, out);
        let elem_ty = self.elem_type(&seq);
        let first_seq = first_seq_var(&seq);
        let turbofish_ty = m.turbofish.as_ref().and_then(|t| match t.args.first() {
            Some(syn::GenericArgument::Type(ty)) if !matches!(ty, syn::Type::Infer(_)) => {
                Some(ty.clone())
            }
            _ => None,
        });
        let rt = crate::names::rt();
        let typed_const = |what: &str| -> Expr {
            let f = syn::Ident::new(what, span);
            let ty = turbofish_ty.clone().or(elem_ty.clone());
            let tokens = match (ty, first_seq) {
                (Some(t), _) => quote!(#rt::#f::<#t>()),
                // Typed like the elements of the sequence iterated.
                (None, Some(seq)) => {
                    let one = what == "one";
                    return Expr::new(ExprKind::ElemConst { seq, one }, span);
                }
                (None, None) if what == "zero" => quote!(0.0),
                (None, None) => quote!(1.0),
            };
            Expr::new(
                ExprKind::Opaque {
                    tokens,
                    shape: Shape::Scalar,
                },
                span,
            )
        };
        // Accumulator and its initial value.
        let (acc_init, start_at_one): (Option<Expr>, bool) = match name.as_str() {
            "sum" => (Some(typed_const("zero")), false),
            "product" => (Some(typed_const("one")), false),
            "fold" => match m.args.first() {
                Some(init) => (Some(self.expr(init, out)), false),
                None => (None, false),
            },
            "count" => (Some(int_lit(0, span)), false),
            "any" => (
                Some(Expr::new(
                    ExprKind::Lit(syn::Lit::Bool(syn::LitBool::new(false, span))),
                    span,
                )),
                false,
            ),
            "all" => (
                Some(Expr::new(
                    ExprKind::Lit(syn::Lit::Bool(syn::LitBool::new(true, span))),
                    span,
                )),
                false,
            ),
            "collect" => (
                Some(Expr::new(
                    ExprKind::VecNew {
                        capacity: Some(Box::new(len.clone())),
                    },
                    span,
                )),
                false,
            ),
            "max_by" | "min_by" | "reduce" => (None, true),
            _ => (None, false),
        };
        let acc = if name == "for_each" {
            None
        } else {
            let shape = match name.as_str() {
                "count" => Shape::Int,
                "any" | "all" => Shape::Bool,
                "collect" => Shape::Seq(SeqKind::Vec),
                _ => acc_init
                    .as_ref()
                    .map(|e| self.shape_of(e))
                    .unwrap_or(Shape::Scalar),
            };
            let a = self.synthetic("acc", shape, span);
            if start_at_one {
                // The first item starts the accumulator.
                let mut first = Body::new();
                let x = match self.elem(&seq, int_lit(0, span), &mut first) {
                    Some(Item::Val(x)) => x,
                    _ => {
                        return self.poison(
                            &m,
                            &format!("`{name}` over tuples or windows"),
                            "map the items to values first",
                        )
                    }
                };
                let shape = self.shape_of(&x);
                self.vars[a].shape = shape;
                let stmts = first.finish();
                // After `filter`, the first item is not item 0.
                if has_filter(&seq) {
                    return self.poison(
                        &m,
                        &format!("`{name}` after `filter`"),
                        "use `fold` with an initial value",
                    );
                }
                out.extend(stmts);
                out.push(Stmt::Let {
                    pat: Pat::Bind(a),
                    init: Some(x),
                });
            } else {
                out.push(Stmt::Let {
                    pat: Pat::Bind(a),
                    init: acc_init,
                });
            }
            Some(a)
        };
        let closure = match name.as_str() {
            "fold" => m.args.get(1).and_then(|c| self.closure_of(c)),
            "max_by" | "min_by" | "reduce" | "any" | "all" | "for_each" => {
                m.args.first().and_then(|c| self.closure_of(c))
            }
            _ => None,
        };
        self.with_scope(|cx| {
            let k = cx.loop_index(span);
            let mut body = Body::new();
            let item = match cx.elem(&seq, var(k, span), &mut body) {
                Some(i) => i,
                None => return,
            };
            let av = acc.map(|a| var(a, span));
            let set = |value: Expr| Stmt::Assign {
                place: Place::Var(acc.unwrap_or_default()),
                op: None,
                value,
            };
            match name.as_str() {
                "sum" | "product" => {
                    if let (Some(x), Some(a)) = (cx.item_expr(item, span), av) {
                        let op = if name == "sum" {
                            BinOp::Add
                        } else {
                            BinOp::Mul
                        };
                        body.stmts().push(set(bin(op, a, x)));
                    }
                }
                "count" => {
                    if let Some(a) = av {
                        body.stmts().push(set(bin(BinOp::Add, a, int_lit(1, span))));
                    }
                }
                "collect" => {
                    if let Some(x) = cx.item_expr(item, span) {
                        body.stmts().push(Stmt::Push {
                            vec: acc.unwrap_or_default(),
                            value: x,
                        });
                    }
                }
                "fold" | "reduce" => {
                    if let (Some(c), Some(a)) = (&closure, av) {
                        if let Some(r) = cx.apply(c, vec![Item::Val(a), item], &mut body) {
                            body.stmts().push(set(r));
                        }
                    }
                }
                "max_by" | "min_by" => {
                    let swap = match &closure {
                        Some(Closure::Lambda(cl)) => comparator_order(cl),
                        _ => None,
                    };
                    let swap = match swap {
                        Some(s) => s,
                        None => {
                            cx.diag.unsupported_at(
                                &m.args,
                                "this comparator",
                                "compare the two arguments directly: \
                                 `|a, b| a.partial_cmp(b).unwrap()` or `|a, b| a.total_cmp(b)`",
                            );
                            return;
                        }
                    };
                    let want_max = (name == "max_by") != swap;
                    if let (Some(x), Some(a)) = (cx.item_expr(item, span), av) {
                        let x = cx.once(x, body.stmts());
                        // max_by keeps the last of equal maxima, min_by the first of equal minima.
                        let op = if want_max == (name == "max_by") {
                            if want_max {
                                BinOp::Ge
                            } else {
                                BinOp::Lt
                            }
                        } else if want_max {
                            BinOp::Gt
                        } else {
                            BinOp::Le
                        };
                        body.stmts().push(Stmt::If {
                            cond: bin(op, x.clone(), a),
                            then: Block {
                                stmts: vec![set(x)],
                            },
                            els: None,
                        });
                    }
                }
                "any" | "all" => {
                    if let (Some(c), Some(_)) = (&closure, av) {
                        if let Some(cond) = cx.apply(c, vec![item], &mut body) {
                            let hit = if name == "any" {
                                cond
                            } else {
                                Expr::new(
                                    ExprKind::Unary {
                                        op: UnOp::Not,
                                        expr: Box::new(cond),
                                    },
                                    span,
                                )
                            };
                            let val = Expr::new(
                                ExprKind::Lit(syn::Lit::Bool(syn::LitBool::new(
                                    name == "any",
                                    span,
                                ))),
                                span,
                            );
                            body.stmts().push(Stmt::If {
                                cond: hit,
                                then: Block {
                                    stmts: vec![set(val), Stmt::Break { label: None, span }],
                                },
                                els: None,
                            });
                        }
                    }
                }
                "for_each" => {
                    if let Some(c) = &closure {
                        if let Some(r) = cx.apply(c, vec![item], &mut body) {
                            if r.has_call() {
                                body.stmts().push(Stmt::Eval(r));
                            }
                        }
                    }
                }
                _ => {}
            }
            let start = if start_at_one { 1 } else { 0 };
            out.push(Stmt::For {
                var: k,
                range: Range::Bounds {
                    start: Box::new(int_lit(start, span)),
                    end: Box::new(len.clone()),
                    inclusive: false,
                    rev: false,
                    step: None,
                },
                body: Block {
                    stmts: body.finish(),
                },
                label: None,
            });
        });
        match acc {
            Some(a) => var(a, span),
            None => Expr::new(ExprKind::Tuple(Vec::new()), span),
        }
    }

    /// `let f = |a| ...;`: remembered with the names it can see, inlined at each call.
    pub(crate) fn bind_closure(&mut self, name: &syn::Ident, c: &syn::ExprClosure) {
        if c.capture.is_some() {
            self.diag.unsupported_at(
                &c,
                "`move` closures",
                "drop `move`: the closure is inlined where it is called",
            );
        }
        let v = self.new_var(
            name.clone(),
            false,
            Shape::Other,
            VarOrigin::Synthetic,
            None,
        );
        self.closures.insert(v, (c.clone(), self.scopes.clone()));
        self.bind(name, v);
    }

    /// `f(a, b)` where `f` is a local closure: its body inlined with the names it captured.
    pub(crate) fn call_closure(
        &mut self,
        v: VarId,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let (c, captured) = match self.closures.get(&v) {
            Some(x) => x.clone(),
            None => return Expr::new(ExprKind::Poison, span),
        };
        if c.inputs.len() != args.len() {
            return self.poison(
                &args,
                &format!(
                    "calling a closure of {} arguments with {}",
                    c.inputs.len(),
                    args.len()
                ),
                "pass one value per closure parameter",
            );
        }
        let vals: Vec<Expr> = args
            .iter()
            .map(|a| {
                let e = self.expr(a, out);
                self.once(e, out)
            })
            .collect();
        // Evaluate the body where the closure was defined (plus its parameters).
        let saved = std::mem::replace(&mut self.scopes, captured);
        let result = self.with_scope(|cx| {
            for (p, e) in c.inputs.iter().zip(vals) {
                cx.bind_item(p, Item::Val(e), out);
            }
            cx.closure_body(&c.body, out)
        });
        self.scopes = saved;
        let r = result.unwrap_or_else(|| Expr::new(ExprKind::Poison, span));
        self.once(r, out)
    }
}

/// The first sequence variable a chain iterates (the one `elem_type` reads).
fn first_seq_var(s: &ISeq) -> Option<VarId> {
    match s {
        ISeq::Slice { var, .. } | ISeq::Windows { var, .. } | ISeq::Chunks { var, .. } => {
            Some(*var)
        }
        ISeq::Range { .. } => None,
        ISeq::Zip(a, _)
        | ISeq::Chain(a, _)
        | ISeq::Enumerate(a)
        | ISeq::Skip(a, _)
        | ISeq::Take(a, _)
        | ISeq::StepBy(a, _)
        | ISeq::Rev(a)
        | ISeq::Map(a, _)
        | ISeq::Filter(a, _) => first_seq_var(a),
    }
}

fn has_filter(s: &ISeq) -> bool {
    match s {
        ISeq::Filter(..) => true,
        ISeq::Map(a, _) => has_filter(a),
        _ => false,
    }
}

/// For `|a, b| a.partial_cmp(b).unwrap()` / `a.total_cmp(b)`: `Some(false)`; with the arguments
/// swapped: `Some(true)`; anything else: `None`.
fn comparator_order(cl: &syn::ExprClosure) -> Option<bool> {
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
