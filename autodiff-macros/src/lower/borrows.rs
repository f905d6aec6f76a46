//! Borrows of sequences and floats: takes `&mut v`, `&mut *v`, `&mut s`, `&mut v[a..b]`,
//! `&v[a..b]` (ranges nested to any depth, of variables or of views such as the halves of
//! `split_at_mut` and the chunks of `chunks_mut`) and split parts passed bare to a call, gives
//! `MutRef` (a call statement writes through it) and `SubSlice` nodes of the sequence the borrow
//! lands in, with one range.
//!
//! Ranges compose as rustc would check them, with no check of their own: `v[a..][b..c]` is
//! `v[a + b..a + c]`, `v[a..b][c..]` is `v[a + c..b]`, and a view `base[off..off + len]` sliced
//! `[a..]` is `base[off + a..off + len]`, each panicking exactly when the original does. An end
//! under an end (`v[a..b][..d]`, `part[..d]`) would need `d <= b - a` checked: reported.

use super::*;

/// A range of the sequence a borrow lands in (`end` exclusive unless `inclusive`).
pub(super) struct Landing {
    base: VarId,
    start: Option<Expr>,
    end: Option<Expr>,
    inclusive: bool,
    /// Part of a nested array: how it is passed on.
    array: Option<Nesting>,
}

impl Lowerer<'_> {
    /// `&mut ..` and `&v[..]` (`None`: an ordinary borrow, `&v` or `&*v`, lowered by the caller).
    pub(super) fn borrow(
        &mut self,
        e: &syn::Expr,
        r: &syn::ExprReference,
        out: &mut Vec<Stmt>,
    ) -> Option<Expr> {
        let span = e.span();
        // `&p[i]`, `&mut p[i]`: a row of a nested array, borrowed as `&[T; C]`.
        if let syn::Expr::Index(_) = &*r.expr {
            if let Some(view) = self.row_view(&r.expr, out) {
                let end = super::build::bin(BinOp::Add, view.offset.clone(), view.len.clone());
                let l = Landing {
                    base: view.base,
                    start: Some(view.offset),
                    end: Some(end),
                    inclusive: false,
                    array: view.row.map(Nesting::Row),
                };
                if r.mutability.is_some() {
                    self.vars[l.base].mutable = true;
                    return Some(self.mut_ref(e, l, out));
                }
                return Some(Expr::new(
                    ExprKind::SubSlice {
                        base: l.base,
                        start: l.start.map(Box::new),
                        end: l.end.map(Box::new),
                        inclusive: false,
                        array: l.array,
                    },
                    span,
                ));
            }
        }
        if r.mutability.is_none() {
            let syn::Expr::Index(ix) = &*r.expr else {
                return None;
            };
            if !matches!(&*ix.index, syn::Expr::Range(_)) {
                return None;
            }
            return Some(match self.landing(ix, out) {
                Some(Some(l)) => Expr::new(
                    ExprKind::SubSlice {
                        base: l.base,
                        start: l.start.map(Box::new),
                        end: l.end.map(Box::new),
                        inclusive: l.inclusive,
                        array: l.array,
                    },
                    span,
                ),
                Some(None) => Expr::new(ExprKind::Poison, span),
                None => self.poison(
                    &ix.expr,
                    "sub-slices of this expression",
                    "slice a sequence variable: `&v[a..b]`",
                ),
            });
        }
        // `&mut v` (or `&mut *v`), `&mut s`, `&mut v[a..b]`: an argument of a call statement
        // (checked by `check_mut_borrows` once the statement is lowered).
        let inner = match &*r.expr {
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &*u.expr,
            x => x,
        };
        if let Some(v) = self.var_of_path(inner) {
            if let Some(l) = self.view_landing(v) {
                return Some(self.mut_ref(e, l, out));
            }
            // `&mut s` of a float: a `let mut` local or a `&mut f64` argument (which the
            // companions hold by value).
            let float = self.vars[v].shape == Shape::Scalar
                && (self.vars[v].mutable || self.is_float_mut_ref_param(v));
            if float || matches!(self.vars[v].shape, Shape::Seq(_)) {
                let l = Landing {
                    base: v,
                    start: None,
                    end: None,
                    inclusive: false,
                    array: None,
                };
                return Some(self.mut_ref(e, l, out));
            }
        }
        if let syn::Expr::Index(ix) = inner {
            if matches!(&*ix.index, syn::Expr::Range(_)) {
                return Some(match self.landing(ix, out) {
                    Some(Some(l)) => self.mut_ref(e, l, out),
                    Some(None) => Expr::new(ExprKind::Poison, span),
                    None => self.poison(
                        e,
                        "`&mut` borrows of sub-slices of this expression",
                        "borrow a sub-slice of a sequence variable: `&mut v[a..b]`",
                    ),
                });
            }
        }
        Some(self.poison(
            e,
            "`&mut` borrows of this expression",
            "pass `&mut v` of a sequence variable `v` (a `Vec`, an array or a `&mut` argument) \
             to a differentiated function, or write into it directly",
        ))
    }

    /// A part of `split_at_mut` or `chunks_mut` passed bare to a call statement (`g(head, x);`):
    /// `&mut base[off..off + len]`, which the callee may write through.
    pub(super) fn bare_view_arg(&mut self, arg: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Expr> {
        let v = self.var_of_path(arg)?;
        if !self.views.get(&v).is_some_and(|w| w.mutable) {
            return None;
        }
        let l = self.view_landing(v)?;
        Some(self.mut_ref(arg, l, out))
    }

    /// The whole of a view, as a range of its base.
    fn view_landing(&self, v: VarId) -> Option<Landing> {
        let view = self.views.get(&v)?;
        let end = super::build::bin(BinOp::Add, view.offset.clone(), view.len.clone());
        Some(Landing {
            base: view.base,
            start: Some(view.offset.clone()),
            end: Some(end),
            inclusive: false,
            array: view.row.clone().map(Nesting::Row),
        })
    }

    /// `MutRef` of a landing; its id says which tokens `e` are until normalisation numbers the
    /// nodes (1-based: 0 is `NONE`), for an error that underlines all of the borrow. The bounds
    /// are bound to names first: `&mut v[a..v.len() - 1]` would read `v` while borrowing it.
    fn mut_ref(&mut self, e: &syn::Expr, l: Landing, out: &mut Vec<Stmt>) -> Expr {
        let reborrow = self.vars[l.base].by_mut_ref();
        let l = Landing {
            start: l.start.map(|s| self.once(s, out)),
            end: l.end.map(|x| self.once(x, out)),
            ..l
        };
        let range = match (&l.start, &l.end) {
            (None, None) if !l.inclusive => None,
            _ => Some(Box::new(SubRange {
                start: l.start.map(Box::new),
                end: l.end.map(Box::new),
                inclusive: l.inclusive,
                array: l.array,
            })),
        };
        self.mut_ref_tokens.push(e.to_token_stream());
        let mut m = Expr::new(ExprKind::MutRef(l.base, reborrow, range), e.span());
        m.id = ExprId(self.mut_ref_tokens.len() as u32);
        m
    }

    /// `v[r1][r2]..` (`ix.index` a range) as one range of the sequence it lands in:
    /// `Some(Some(..))`, `Some(None)` after reporting an error, `None` if the innermost base is
    /// not a sequence variable.
    fn landing(&mut self, ix: &syn::ExprIndex, out: &mut Vec<Stmt>) -> Option<Option<Landing>> {
        let syn::Expr::Range(rg) = &*ix.index else {
            return None;
        };
        // What `ix.expr` is: a range of a base (a nested range, or a view), or a whole variable.
        let outer = match &*ix.expr {
            syn::Expr::Index(o) if matches!(&*o.index, syn::Expr::Range(_)) => {
                match self.landing(o, out)? {
                    Some(l) => l,
                    None => return Some(None),
                }
            }
            x => {
                let v = self.var_of_path(x)?;
                if self.is_ragged(v) {
                    self.poison(
                        ix,
                        "ranges of rows of a sequence of `Vec`s (yet)",
                        "borrow one row (`&m[i]`) or index elements (`m[i][j]`)",
                    );
                    return Some(None);
                }
                if self.chunked.contains_key(&v) {
                    self.poison(
                        ix,
                        "ranges of the chunks of `as_chunks` (yet)",
                        "borrow one chunk (`&c[i]`) or index elements (`c[i][j]`)",
                    );
                    return Some(None);
                }
                if self.rows.contains_key(&v) && !self.views.contains_key(&v) {
                    self.poison(
                        ix,
                        "ranges of rows of an array of arrays (yet)",
                        "borrow one row (`&p[i]`) or index elements (`p[i][j]`)",
                    );
                    return Some(None);
                }
                match self.view_landing(v) {
                    Some(l) => l,
                    None => {
                        // One range of a variable: as written.
                        let start = rg.start.as_ref().map(|s| self.expr(s, out));
                        let end = rg.end.as_ref().map(|s| self.expr(s, out));
                        return Some(Some(Landing {
                            base: v,
                            start,
                            end,
                            inclusive: matches!(rg.limits, syn::RangeLimits::Closed(_)),
                            array: None,
                        }));
                    }
                }
            }
        };
        let (s2, e2) = self.exclusive_range(rg, out);
        let (s1, e1) = match outer.inclusive {
            // `..=e` of the outer range is `..e + 1`.
            true => (outer.start, outer.end.map(plus_one)),
            false => (outer.start, outer.end),
        };
        if e1.is_some() && e2.is_some() {
            self.poison(
                ix,
                "a sub-slice with an end taken of a sub-slice with an end",
                "slice once: `&v[a + c..a + d]` for `&v[a..b][c..d]`, or split the part again \
                 (`split_at_mut`)",
            );
            return Some(None);
        }
        let add = |a: Option<Expr>, b: Option<Expr>| match (a, b) {
            (Some(a), Some(b)) => Some(super::build::bin(BinOp::Add, a, b)),
            (a, None) => a,
            (None, b) => b,
        };
        let start = add(s1.clone(), s2);
        let end = match e2 {
            Some(e2) => add(s1, Some(e2)),
            None => e1,
        };
        Some(Some(Landing {
            base: outer.base,
            start,
            end,
            inclusive: false,
            array: None,
        }))
    }

    /// The bounds of a range with an exclusive end (`..=e` gives `e + 1`).
    fn exclusive_range(
        &mut self,
        rg: &syn::ExprRange,
        out: &mut Vec<Stmt>,
    ) -> (Option<Expr>, Option<Expr>) {
        let s = rg.start.as_ref().map(|s| self.expr(s, out));
        let e = rg.end.as_ref().map(|e| self.expr(e, out));
        match rg.limits {
            syn::RangeLimits::Closed(_) => (s, e.map(plus_one)),
            syn::RangeLimits::HalfOpen(_) => (s, e),
        }
    }
}

fn plus_one(e: Expr) -> Expr {
    let one = Expr::new(
        ExprKind::Lit(syn::parse_quote!(1)),
        proc_macro2::Span::call_site(),
    );
    super::build::bin(BinOp::Add, e, one)
}
