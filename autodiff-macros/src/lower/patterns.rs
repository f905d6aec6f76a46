//! Slice patterns and array `map`: takes `let [a, b] = *x;`, `let [first, .., last] = v[..] else
//! { .. };`, `let [a, b] = g(x);` (a call returning an array), `let [p, q] = [x, y];` and
//! `arr.map(|x| ..)`, gives one `let` per bound name, reading its element (counted from the end
//! after `..`) or taking the array's item, and `map` unrolled over the elements of an array whose
//! length is a literal.

use super::*;

/// Where the names of a slice pattern read from.
enum Source {
    /// The elements of a sequence variable (or of the sequence a view borrows).
    Seq(VarId),
    /// The items of an array expression (`[x, y]`, an unrolled `map`), evaluated already.
    Items(Vec<Expr>),
}

/// `rest @ ..` and `..`: the parts of a slice pattern that are not one element.
fn is_rest(p: &syn::Pat) -> bool {
    match p {
        syn::Pat::Rest(_) => true,
        syn::Pat::Ident(pi) => pi
            .subpat
            .as_ref()
            .is_some_and(|(_, sub)| matches!(&**sub, syn::Pat::Rest(_))),
        _ => false,
    }
}

impl Lowerer<'_> {
    /// `let [a, b, ..] = v[..] else { diverge };`: a length check, then the reads.
    pub(super) fn slice_let_else(
        &mut self,
        ps: &syn::PatSlice,
        init: &syn::Expr,
        els: &syn::Block,
        out: &mut Vec<Stmt>,
    ) {
        let src = slice_pattern_source(init);
        let base = match self.var_of_path(src) {
            Some(v) if matches!(self.vars[v].shape, Shape::Seq(_)) => v,
            _ => {
                self.diag.unsupported_at(
                    init,
                    "slice patterns on this expression",
                    "destructure a sequence variable: `let [a, b, ..] = v[..] else { .. };`",
                );
                return;
            }
        };
        let has_rest = ps.elems.iter().any(is_rest);
        let want = ps.elems.iter().filter(|p| !is_rest(p)).count();
        let span = init.span();
        let n = int_lit(want, span);
        let cond = bin(
            if has_rest { BinOp::Lt } else { BinOp::Ne },
            self.seq_length(base, span),
            n,
        );
        let then = self.unit_block(els);
        out.push(Stmt::If {
            cond,
            then,
            els: None,
        });
        self.bind_slice(ps, Source::Seq(base), None, out);
    }

    /// `let [a, b] = init;` (`ty`: the pattern's annotation).
    pub(super) fn slice_pattern(
        &mut self,
        ps: &syn::PatSlice,
        init: &syn::Expr,
        ty: Option<&syn::Type>,
        out: &mut Vec<Stmt>,
    ) {
        let elem_ty = ty.and_then(seq_elem);
        if let Some(src) = self.pattern_source(ps, init, ty, out) {
            self.bind_slice(ps, src, elem_ty, out);
        }
    }

    fn pattern_source(
        &mut self,
        ps: &syn::PatSlice,
        init: &syn::Expr,
        ty: Option<&syn::Type>,
        out: &mut Vec<Stmt>,
    ) -> Option<Source> {
        let not_here = |cx: &mut Self| {
            cx.diag.unsupported_at(
                &init,
                "slice patterns on this expression",
                "destructure an argument or local sequence directly, e.g. `let [a, b] = *x;`",
            );
            None
        };
        let src = slice_pattern_source(init);
        if let Some(v) = self.var_of_path(src) {
            if matches!(self.vars[v].shape, Shape::Seq(_)) {
                return Some(Source::Seq(v));
            }
            if self.call_lets.iter().any(|(c, _)| *c == v) {
                let name = self.vars[v].name.to_string();
                let msg = call_result_untyped(
                    &name,
                    &format!(
                        "`let {name}: [f64; 2] = ...`, or destructure the call itself: \
                         `let [a, b] = g(..);`"
                    ),
                );
                self.diag.error_at(&init, msg);
                return None;
            }
            return not_here(self);
        }
        let mut e = self.expr(init, out);
        let span = e.span;
        if let ExprKind::Call { shape, .. } = &mut e.kind {
            // The macro cannot see what the callee returns: the pattern (or its annotation)
            // gives the length of the array.
            *shape = match ty.map(|t| self.shape_of_type(t)) {
                Some(s @ Shape::Seq(SeqKind::Array(_))) => s,
                _ if ps.elems.iter().any(is_rest) => {
                    self.diag.unsupported_at(
                        &init,
                        "`..` in a slice pattern on the result of a call (the macro cannot see \
                         the length of the array it returns)",
                        "give the pattern its type, e.g. `let [a, .., b]: [f64; 4] = g(..);`",
                    );
                    return None;
                }
                _ => Shape::Seq(SeqKind::Array(ArrayLen::of_items(ps.elems.len()))),
            };
        }
        if matches!(e.kind, ExprKind::Poison) {
            return None;
        }
        let shape = self.shape_of(&e);
        if let ExprKind::Array(items) = e.kind {
            return Some(Source::Items(items));
        }
        match shape {
            shape @ Shape::Seq(SeqKind::Array(_)) => {
                let t = self.synthetic("arr", shape, span);
                self.vars[t].mutable = false;
                out.push(Stmt::Let {
                    pat: Pat::Bind(t),
                    init: Some(e),
                });
                Some(Source::Seq(t))
            }
            _ => not_here(self),
        }
    }

    /// One `let` per name of the pattern, in order; names after `..` count from the end.
    fn bind_slice(
        &mut self,
        ps: &syn::PatSlice,
        src: Source,
        elem_ty: Option<syn::Type>,
        out: &mut Vec<Stmt>,
    ) {
        let n = ps.elems.len();
        let rest = ps.elems.iter().position(is_rest);
        if let Source::Items(items) = &src {
            let fits = match rest {
                Some(_) => items.len() + 1 >= n,
                None => items.len() == n,
            };
            if !fits {
                self.diag.error_at(
                    ps,
                    format!(
                        "this pattern binds {} elements of an array of {}",
                        n - usize::from(rest.is_some()),
                        items.len()
                    ),
                );
                return;
            }
        }
        for (k, p) in ps.elems.iter().enumerate() {
            if is_rest(p) {
                if let syn::Pat::Ident(pi) = p {
                    // Its uses are not reported again.
                    self.poisoned_names.push(pi.ident.to_string());
                    self.diag.unsupported_at(
                        p,
                        "binding the rest of a slice pattern (`name @ ..`)",
                        "bind the elements you need by name, or index the sequence",
                    );
                }
                continue;
            }
            let span = p.span();
            // Elements after `..` are counted from the end: `n - k` from the last.
            let from_end = rest.is_some_and(|r| k > r).then_some(n - k);
            let read = match &src {
                Source::Items(items) => {
                    let i = from_end.map_or(k, |back| items.len() - back);
                    items[i].clone()
                }
                Source::Seq(base) => {
                    let index = match from_end {
                        Some(back) => bin(
                            BinOp::Sub,
                            self.seq_length(*base, span),
                            int_lit(back, span),
                        ),
                        None => int_lit(k, span),
                    };
                    self.seq_read(*base, index, span)
                }
            };
            let pat = self.pattern(p, &Shape::Scalar, elem_ty.clone());
            out.push(Stmt::Let {
                pat,
                init: Some(read),
            });
        }
    }

    /// The length of a sequence variable or view.
    fn seq_length(&self, v: VarId, span: Span) -> Expr {
        match self.views.get(&v) {
            Some(view) => view.len.clone(),
            None => Expr::new(ExprKind::Len(v), span),
        }
    }

    /// `v[index]`, through the view `v` names, if it is one.
    fn seq_read(&self, v: VarId, index: Expr, span: Span) -> Expr {
        let (base, index) = match self.views.get(&v) {
            Some(view) => (view.base, bin(BinOp::Add, view.offset.clone(), index)),
            None => (v, index),
        };
        Expr::new(
            ExprKind::Index {
                base,
                index: Box::new(index),
            },
            span,
        )
    }

    /// `arr.map(f)` with `recv` the lowered `arr`: for an array of literal length, the array of
    /// `f` applied to each element (the closure inlined once per element); anything else that has
    /// a `map` (an `Option`...) is a plain method.
    pub(super) fn array_map(
        &mut self,
        m: &syn::ExprMethodCall,
        recv: Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let span = m.span();
        let shape = self.shape_of(&recv);
        let items: Vec<Expr> =
            match (&recv.kind, &shape) {
                (ExprKind::Poison, _) => return recv,
                (ExprKind::Array(items), _) => items.clone(),
                (ExprKind::Call { .. }, Shape::Scalar) => return self.poison(
                    &m.receiver,
                    "`map` on the result of a call, which #[differentiate] takes to be a single \
                     float",
                    "bind the result with its type first, e.g. `let a: [f64; 2] = g(..);`, then \
                     `a.map(..)`",
                ),
                (_, Shape::Seq(SeqKind::Array(n))) => {
                    let Some(len) = n.literal() else {
                        return self.poison(
                            &m.receiver,
                            &format!(
                                "`map` on an array of length `{n}` (it is unrolled over the \
                             elements, so the length must be a number)"
                            ),
                            &format!("write the loop: `for i in 0..{n} {{ .. }}`"),
                        );
                    };
                    let base = match &recv.kind {
                        ExprKind::Var(v) | ExprKind::CopySeq(v, _) => *v,
                        _ => {
                            let t = self.synthetic("arr", shape.clone(), recv.span);
                            self.vars[t].mutable = false;
                            out.push(Stmt::Let {
                                pat: Pat::Bind(t),
                                init: Some(recv),
                            });
                            t
                        }
                    };
                    (0..len)
                        .map(|k| self.seq_read(base, int_lit(k, span), span))
                        .collect()
                }
                _ => return self.method_on(m, recv, out),
            };
        let Some(c) = self.closure_of(&m.args[0]) else {
            return Expr::new(ExprKind::Poison, span);
        };
        let mut mapped = Vec::new();
        for item in items {
            let mut body = Body::new();
            let r = self.apply(&c, vec![Item::Val(item)], &mut body);
            out.extend(body.finish());
            match r {
                Some(r) => mapped.push(r),
                None => return Expr::new(ExprKind::Poison, span),
            }
        }
        Expr::new(ExprKind::Array(mapped), span)
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::print;
    use crate::testing::{errors, lowered};
    use syn::parse_quote;

    #[test]
    fn map_is_unrolled_and_destructured() {
        let f = lowered(parse_quote! {
            fn f(p: &[f64; 2], s: f64) -> f64 {
                let [a, b] = p.map(|x| x * s);
                a * b
            }
        });
        assert_eq!(
            print::function(&f),
            "fn f(p#0 [array 2]: &[f64; 2], s#1 [scalar]: f64) -> f64 {
    let x#2 [scalar] = p#0[0usize];
    let x#3 [scalar] = p#0[1usize];
    let a#4 [scalar] = (x#2 * s#1);
    let b#5 [scalar] = (x#3 * s#1);
    (a#4 * b#5)
}
"
        );
    }

    #[test]
    fn names_after_the_rest_count_from_the_end() {
        let f = lowered(parse_quote! {
            fn f(v: &[f64], w: [f64; 3]) -> f64 {
                let [first, .., last] = v[..] else { return 0.0; };
                let [.., y, z] = w;
                first * last + y * z
            }
        });
        assert_eq!(
            print::function(&f),
            "fn f(v#0 [slice]: &[f64], w#1 [array 3]: [f64; 3]) -> f64 {
    if (v#0.len() < 2usize) {
        return 0.0;
    }
    let first#2 [scalar] = v#0[0usize];
    let last#3 [scalar] = v#0[(v#0.len() - 1usize)];
    let y#4 [scalar] = w#1[(w#1.len() - 2usize)];
    let z#5 [scalar] = w#1[(w#1.len() - 1usize)];
    ((first#2 * last#3) + (y#4 * z#5))
}
"
        );
    }

    #[test]
    fn a_call_destructured_takes_the_pattern_length() {
        let f = lowered(parse_quote! {
            fn f(x: f64) -> f64 {
                let [a, b] = g(x);
                let [p, .., q]: [f64; 4] = h(x);
                a * b + p * q
            }
        });
        // The pattern gives the length of the array `g` returns; the annotation that of `h`.
        assert_eq!(
            print::function(&f),
            "fn f(x#0 [scalar]: f64) -> f64 {
    let __ad_arr_1#1 [array 2] = g(x#0);
    let a#2 [scalar] = __ad_arr_1#1[0usize];
    let b#3 [scalar] = __ad_arr_1#1[1usize];
    let __ad_arr_4#4 [array 4] = h(x#0);
    let p#5 [scalar] = __ad_arr_4#4[0usize];
    let q#6 [scalar] = __ad_arr_4#4[(__ad_arr_4#4.len() - 1usize)];
    ((a#2 * b#3) + (p#5 * q#6))
}
"
        );
    }

    #[test]
    fn unsupported_forms_are_one_error_each() {
        let errs = errors(parse_quote! {
            fn f<const N: usize>(a: [f64; N], x: f64) -> f64 {
                let b = a.map(|t| t * x);
                let [p, .., q] = h(x);
                let [r, rest @ ..] = [x, x];
                let c = g(x).map(|t| t * 2.0);
                b[0] + p * q + r * rest[0] + c[0]
            }
        });
        assert_eq!(errs.len(), 4, "{errs:?}");
        assert!(
            errs[0].contains("`map` on an array of length `N`"),
            "{errs:?}"
        );
        assert!(
            errs[1].contains("`..` in a slice pattern on the result of a call"),
            "{errs:?}"
        );
        assert!(
            errs[2].contains("binding the rest of a slice pattern"),
            "{errs:?}"
        );
        assert!(
            errs[3].contains("`map` on the result of a call"),
            "{errs:?}"
        );
    }
}
