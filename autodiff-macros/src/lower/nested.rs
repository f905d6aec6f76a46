//! Nested arrays: takes `[[T; C]; R]`, `&[[T; C]]`, `&mut [[T; C]]`, `Vec<[T; C]>` (arguments,
//! outputs, locals) and the code that reads and writes them, gives the same code over one flat
//! row-major sequence: `p[i][j]` is `p[i * C + j]`, a row `p[i]` is the view
//! `p[i * C..i * C + C]` (borrowed as `&[T; C]` where it is passed on), `p.iter()` iterates over
//! such views, `p.len()` is the flat length over `C`. Everything after lowering sees flat
//! sequences only; the generated public companions convert at the boundary
//! (`codegen/nested.rs`).
//!
//! A nested variable is used whole only where the flat value means the same (a copy, a `let`, a
//! return); anywhere else (another function's argument, a method with no flat meaning such as
//! `swap` of rows) it is reported, never lowered as if flat.

use super::build::{bin, int_lit, shifted};
use super::chains::{ISeq, Item};
use super::*;

impl Lowerer<'_> {
    /// The row length of `v` when it holds a nested array (flattened).
    pub(super) fn row_of(&self, v: VarId) -> Option<ArrayLen> {
        self.rows.get(&v).cloned()
    }

    /// `C` as an integer expression.
    pub(super) fn row_len_expr(row: &ArrayLen, span: Span) -> Expr {
        match row.literal() {
            Some(n) => int_lit(n, span),
            None => Expr::new(
                ExprKind::Opaque {
                    tokens: row.tokens().clone(),
                    shape: Shape::Int,
                },
                span,
            ),
        }
    }

    /// A nested array type as its flat form and its row length: `[[T; C]; R]` is `[T; R * C]`,
    /// `&[[T; C]]`, `&[[T; C]; R]` and `&Vec<[T; C]>` are `&[T]` (`&mut` kept), `Vec<[T; C]>` is
    /// `Vec<T>`. `None` for any other type (deeper nesting included: `[[T; C]; R]` rows of rows
    /// are classified as unsupported by `classify`).
    pub(super) fn flat_type(&mut self, ty: &syn::Type) -> Option<(syn::Type, ArrayLen)> {
        let span = ty.span();
        match ty {
            syn::Type::Reference(r) => {
                let (elem, row) = match &*r.elem {
                    syn::Type::Slice(s) => self.float_row(&s.elem)?,
                    syn::Type::Array(a) => self.float_row(&a.elem)?,
                    t => self.vec_of_rows(t)?,
                };
                let lt = &r.lifetime;
                let m = &r.mutability;
                Some((syn::parse_quote_spanned!(span=> &#lt #m [#elem]), row))
            }
            syn::Type::Array(a) => {
                let (elem, row) = self.float_row(&a.elem)?;
                let rows = ArrayLen::new(a.len.to_token_stream());
                let len = self.flat_len(&rows, &row, ty)?;
                Some((syn::parse_quote_spanned!(span=> [#elem; #len]), row))
            }
            syn::Type::Paren(p) => self.flat_type(&p.elem),
            syn::Type::Group(g) => self.flat_type(&g.elem),
            t => {
                let (elem, row) = self.vec_of_rows(t)?;
                Some((
                    syn::parse_quote_spanned!(span=> ::std::vec::Vec<#elem>),
                    row,
                ))
            }
        }
    }

    /// `[T; C]` with `T` a float: `(T, C)`.
    fn float_row(&self, t: &syn::Type) -> Option<(syn::Type, ArrayLen)> {
        match t {
            syn::Type::Array(a) if matches!(self.classify(&a.elem), TypeClass::Float) => {
                Some(((*a.elem).clone(), ArrayLen::new(a.len.to_token_stream())))
            }
            syn::Type::Paren(p) => self.float_row(&p.elem),
            _ => None,
        }
    }

    /// `Vec<[T; C]>`: `(T, C)`.
    fn vec_of_rows(&self, t: &syn::Type) -> Option<(syn::Type, ArrayLen)> {
        let syn::Type::Path(tp) = t else {
            return None;
        };
        let last = tp.path.segments.last()?;
        if last.ident != "Vec" {
            return None;
        }
        let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
            return None;
        };
        match a.args.first()? {
            syn::GenericArgument::Type(inner) => self.float_row(inner),
            _ => None,
        }
    }

    /// The flat length `R * C` of `[[T; C]; R]`: a literal when both are, `R * C` of constants
    /// otherwise; a length naming a const generic parameter is reported (an array type cannot
    /// compute with one on stable Rust).
    fn flat_len(&mut self, rows: &ArrayLen, row: &ArrayLen, ty: &dyn ToTokens) -> Option<ArrayLen> {
        if let (Some(r), Some(c)) = (rows.literal(), row.literal()) {
            return Some(ArrayLen::of_items(r * c));
        }
        let generic = [rows, row].iter().any(|l| {
            token_names(l.tokens(), false)
                .iter()
                .any(|n| self.const_generics.contains(n))
        });
        if generic {
            self.diag.unsupported_at(
                ty,
                "arrays of arrays by value whose lengths are const generic parameters",
                "take the argument by reference (`&[[T; C]]` or `&[[T; C]; R]`), or use \
                 constants for the lengths",
            );
            return None;
        }
        let (r, c) = (rows.tokens(), row.tokens());
        Some(ArrayLen::new(quote!((#r) * (#c))))
    }

    /// Whether `e` is `p[i]` of a nested array variable `p` (nothing lowered).
    pub(super) fn is_row(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Index(ix) if !matches!(&*ix.index, syn::Expr::Range(_)) => {
                self.var_of_path(&ix.expr).is_some_and(|v| {
                    ((self.rows.contains_key(&v) || self.is_ragged(v))
                        && !self.views.contains_key(&v))
                        || self.chunked.contains_key(&v)
                })
            }
            syn::Expr::Paren(p) => self.is_row(&p.expr),
            _ => false,
        }
    }

    /// `p[i]` with `p` a nested array variable: the row as a view `p[i * C..i * C + C]`.
    pub(super) fn row_view(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Option<View> {
        let ix = match e {
            syn::Expr::Index(ix) => ix,
            syn::Expr::Paren(p) => return self.row_view(&p.expr, out),
            _ => return None,
        };
        if matches!(&*ix.index, syn::Expr::Range(_)) {
            return None;
        }
        let v = self.var_of_path(&ix.expr)?;
        if self.chunked.contains_key(&v) {
            return self.chunk_row(v, ix, out);
        }
        if self.views.contains_key(&v) {
            return None;
        }
        if self.is_ragged(v) {
            let i = self.expr(&ix.index, out);
            return self.ragged_view(v, i, out);
        }
        let row = self.row_of(v)?;
        let span = ix.index.span();
        let i = self.expr(&ix.index, out);
        // An index is read again wherever the row is (`i * C + j`, the end `i * C + C`): bound
        // to a name only when it calls a function (integer arithmetic is repeated instead, so
        // that a `while` condition `p[k + 1][0] < x` stays one expression).
        let i = if i.has_call() { self.once(i, out) } else { i };
        let c = Self::row_len_expr(&row, span);
        Some(View {
            base: v,
            offset: bin(BinOp::Mul, i, c.clone()),
            len: c,
            mutable: false,
            row: Some(row),
        })
    }

    /// The rows of a nested array variable `v` iterated (`p.iter()`, `for q in p`): chunks of its
    /// row length.
    pub(super) fn rows_source(&self, v: VarId) -> Option<ISeq> {
        if self.chunked.contains_key(&v) {
            return self.chunk_rows(v);
        }
        if self.views.contains_key(&v) {
            return None;
        }
        if let Some(rows) = self.ragged_rows(v) {
            return Some(rows);
        }
        let row = self.row_of(v)?;
        Some(ISeq::Chunks {
            var: v,
            offset: None,
            len: None,
            size: Self::row_len_expr(&row, Span::call_site()),
            exact: true,
            mutable: false,
        })
    }

    /// `p.iter_mut()` of a nested array (`s` its rows, as `rows_source` gives them): the rows
    /// written through.
    pub(super) fn rows_written(&mut self, s: &ISeq) -> Option<ISeq> {
        if let ISeq::Rows {
            var,
            offsets,
            mutable: false,
        } = s
        {
            self.vars[*var].mutable = true;
            return Some(ISeq::Rows {
                var: *var,
                offsets: *offsets,
                mutable: true,
            });
        }
        let ISeq::Chunks {
            var,
            offset,
            len,
            size,
            exact,
            mutable: false,
        } = s
        else {
            return None;
        };
        self.row_of(*var)?;
        self.vars[*var].mutable = true;
        Some(ISeq::Chunks {
            var: *var,
            offset: offset.clone(),
            len: len.clone(),
            size: size.clone(),
            exact: *exact,
            mutable: true,
        })
    }

    /// `p[a..b]` iterated, `p` a nested array: reported (a range of rows, not yet), `true`.
    pub(super) fn range_of_rows(&mut self, v: VarId, ix: &syn::ExprIndex) -> bool {
        if self.is_ragged(v) {
            self.diag.unsupported_at(
                ix,
                "ranges of rows of a sequence of `Vec`s (yet)",
                "iterate over all rows with `skip`/`take` (`m.iter().skip(a).take(n)`), or index \
                 the rows (`for i in a..b { m[i] }`)",
            );
            return true;
        }
        if self.chunked.contains_key(&v) {
            self.diag.unsupported_at(
                ix,
                "ranges of the chunks of `as_chunks` (yet)",
                "iterate over all chunks with `skip`/`take` (`c.iter().skip(a).take(n)`), or \
                 index them (`for i in a..b { c[i] }`)",
            );
            return true;
        }
        if !self.rows.contains_key(&v) || self.views.contains_key(&v) {
            return false;
        }
        self.diag.unsupported_at(
            ix,
            "ranges of rows of an array of arrays (yet)",
            "iterate over all rows with `skip`/`take` (`p.iter().skip(a).take(n)`), or index \
             the rows (`for i in a..b { p[i] }`)",
        );
        true
    }

    /// `p[i][j]` with `p` a nested array variable: `p` and the flat index `i * C + j`.
    pub(super) fn nested_elem(
        &mut self,
        ix: &syn::ExprIndex,
        out: &mut Vec<Stmt>,
    ) -> Option<(VarId, Expr)> {
        if matches!(&*ix.index, syn::Expr::Range(_)) {
            return None;
        }
        let view = self.row_view(&ix.expr, out)?;
        let j = self.expr(&ix.index, out);
        Some((view.base, bin(BinOp::Add, view.offset, j)))
    }

    /// `p[i]` used as a value: a copy of the row, `[p[i * C], .., p[i * C + C - 1]]` (a row of
    /// a literal length only).
    pub(super) fn row_copy(&mut self, e: &syn::Expr, view: View) -> Expr {
        let span = e.span();
        if view.row.is_none() {
            return self.poison(
                e,
                "a row of a sequence of `Vec`s used as a value",
                "borrow the row (`&m[i]`, `let r = &m[i];`), copy it (`m[i].to_vec()`) or read \
                 its elements (`m[i][j]`)",
            );
        }
        let Some(n) = view.row.as_ref().and_then(ArrayLen::literal) else {
            return self.poison(
                e,
                "a copy of a row of a nested array whose rows have a length that is not a \
                 literal",
                "borrow the row (`let r = &p[i];`) or read its elements (`p[i][j]`)",
            );
        };
        // `i * C` of an index with no call (`row_view`): read as often as needed.
        let offset = view.offset;
        Expr::new(
            ExprKind::Array(elements(view.base, Some(&offset), n, span)),
            span,
        )
    }

    /// The row length of a value that is a whole nested array variable (`p`, `p.clone()`,
    /// `&p`): a `let` of it holds a nested array too.
    pub(super) fn row_of_value(&self, e: Option<&Expr>) -> Option<ArrayLen> {
        match &e?.kind {
            ExprKind::Var(v) | ExprKind::CopySeq(v, _) => self.row_of(*v),
            ExprKind::Ref(inner) => self.row_of_value(Some(inner)),
            _ => None,
        }
    }

    /// A method called on a whole nested array `p` or on a row `p[i]`: `len` (rows of `p`,
    /// `C` of a row) and copies of `p`; any other method of `p` is reported (its flat form
    /// would mean something else: `swap` would swap elements, not rows). `None`: not one of
    /// these, lowered as usual.
    pub(super) fn nested_method(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        let span = m.span();
        let name = m.method.to_string();
        if self.is_row(&m.receiver) && name == "len" && m.args.is_empty() {
            let syn::Expr::Index(ix) = &*m.receiver else {
                return None;
            };
            let v = self.var_of_path(&ix.expr)?;
            let row = self.row_of(v)?;
            return Some(Self::row_len_expr(&row, span));
        }
        let v = self.var_of_path(&m.receiver)?;
        let row = self.row_of(v)?;
        if self.views.contains_key(&v) {
            return None;
        }
        Some(match name.as_str() {
            "len" if m.args.is_empty() => bin(
                BinOp::Div,
                Expr::new(ExprKind::Len(v), span),
                Self::row_len_expr(&row, span),
            ),
            "to_vec" | "clone" | "to_owned" if m.args.is_empty() => {
                let to = self.copy_to(v, name == "to_vec");
                Expr::new(ExprKind::CopySeq(v, to), span)
            }
            _ => self.poison(
                &m.method,
                &format!("the method `{name}` of an array of arrays (yet)"),
                "index rows and elements (`p[i]`, `p[i][j]`), iterate over the rows \
                 (`for r in p.iter()`), or write a loop",
            ),
        })
    }

    /// `let r = &p[i];`, `let r = &mut p[i];`: `r` names the row (a view). `true` when bound.
    pub(super) fn let_row(
        &mut self,
        pat: &syn::Pat,
        init: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let (syn::Pat::Ident(pi), syn::Expr::Reference(r)) = (pat, init) else {
            return false;
        };
        if pi.subpat.is_some() || pi.by_ref.is_some() {
            return false;
        }
        let Some(mut view) = self.row_view(&r.expr, out) else {
            return false;
        };
        // The row is the one at the time of the `let`: `let r = &p[k]; k += 1;`.
        view.offset = self.once(view.offset, out);
        view.len = self.once(view.len, out);
        if r.mutability.is_some() {
            view.mutable = true;
            self.vars[view.base].mutable = true;
        }
        self.bind_item(pat, Item::View(view), out);
        true
    }

    /// `p[i] = value;` with `p` a nested array variable: one write per element of the row
    /// (`value` an array literal, a repeat `[x; C]`, a row or an array variable of a literal
    /// length). `true` when handled (errors included).
    pub(super) fn row_assign(&mut self, a: &syn::ExprAssign, out: &mut Vec<Stmt>) -> bool {
        if self.ragged_row_assign(a) {
            return true;
        }
        let Some(view) = self.row_view(&a.left, out) else {
            return false;
        };
        let span = a.span();
        let value = self.expr(&a.right, out);
        let n = view.row.as_ref().and_then(ArrayLen::literal);
        let items: Vec<Expr> = match (&value.kind, n) {
            (ExprKind::Array(items), Some(n)) if items.len() == n => items.clone(),
            (ExprKind::ArrayRepeat { elem, .. }, Some(n)) => {
                let e = self.once((**elem).clone(), out);
                vec![e; n]
            }
            (ExprKind::Var(v) | ExprKind::CopySeq(v, _), Some(n))
                if matches!(self.vars[*v].shape, Shape::Seq(_)) =>
            {
                // Copied first: `p[i] = p[j]` reads the old row.
                let t = self.synthetic("row", self.vars[*v].shape.clone(), span);
                self.vars[t].mutable = false;
                out.push(Stmt::Let {
                    pat: Pat::Bind(t),
                    init: Some(Expr::new(
                        ExprKind::CopySeq(*v, self.copy_to(*v, false)),
                        span,
                    )),
                });
                elements(t, None, n, span)
            }
            (ExprKind::Poison, _) => return true,
            _ => {
                self.poison(
                    &a.right,
                    "assigning this to a row of a nested array",
                    "assign an array literal `[a, b, c]`, `[x; C]` or an array variable to a row \
                     of a literal length, or write the elements (`p[i][j] = ..`)",
                );
                return true;
            }
        };
        // The whole right-hand side is evaluated before the row is written: an item reading the
        // array itself (`p[i] = [p[i][1], p[i][0]]`) is bound to a name first.
        let items: Vec<Expr> = items
            .into_iter()
            .map(|it| {
                let mut reads = Vec::new();
                it.reads(&mut reads);
                if reads.contains(&view.base) {
                    self.once(it, out)
                } else {
                    it
                }
            })
            .collect();
        let offset = self.once(view.offset, out);
        self.vars[view.base].mutable = true;
        for (k, item) in items.into_iter().enumerate() {
            out.push(Stmt::Assign {
                place: Place::Index(
                    view.base,
                    Box::new(bin(BinOp::Add, offset.clone(), int_lit(k, span))),
                ),
                op: None,
                value: item,
            });
        }
        true
    }

    /// The flat form of a nested array literal (`[[a, b], [c, d]]`, `[[x; C]; R]`,
    /// `vec![[x; C]; n]`, `vec![[a, b], [c, d]]`) whose items are already lowered, with its row
    /// length; `None` if `items` are not rows. Rows of a literal length only, written out or
    /// repeated.
    pub(super) fn flatten_rows(
        &mut self,
        items: &[Expr],
        at: &dyn ToTokens,
    ) -> Option<Result<(Vec<Expr>, ArrayLen), ()>> {
        let first = items.first()?;
        let Shape::Seq(SeqKind::Array(row)) = self.shape_of(first) else {
            return None;
        };
        let Some(n) = row.literal() else {
            self.diag.unsupported_at(
                at,
                "arrays of arrays whose rows have a length that is not a literal, written out",
                "build the array with a repeat (`[[x; C]; R]`) and write its elements",
            );
            return Some(Err(()));
        };
        let mut flat = Vec::new();
        for it in items {
            let span = it.span;
            match &it.kind {
                ExprKind::Array(xs) if xs.len() == n => flat.extend(xs.iter().cloned()),
                ExprKind::ArrayRepeat { elem, len } if ArrayLen::new(len.clone()) == row => {
                    flat.extend(std::iter::repeat_n((**elem).clone(), n))
                }
                ExprKind::Var(v)
                    if self.vars[*v].shape == Shape::Seq(SeqKind::Array(row.clone())) =>
                {
                    flat.extend(elements(*v, None, n, span))
                }
                _ => {
                    self.diag.unsupported_at(
                        at,
                        "this row in an array of arrays",
                        "write each row as an array literal `[a, b, c]`, a repeat `[x; C]` or an \
                         array variable",
                    );
                    return Some(Err(()));
                }
            }
        }
        Some(Ok((flat, row)))
    }

    /// `[row; R]` with `row` an array of length `C` (`elem`, lowered): `[x; R * C]` for
    /// `row = [x; C]`, the items of `row` repeated for a literal `R` otherwise.
    pub(super) fn repeat_rows(
        &mut self,
        e: &syn::Expr,
        elem: Expr,
        row: ArrayLen,
        len: &syn::Expr,
        nested_ok: bool,
    ) -> Expr {
        let span = e.span();
        let rows = ArrayLen::new(len.to_token_stream());
        let flat = match elem.kind {
            ExprKind::ArrayRepeat { elem: x, len: l } if ArrayLen::new(l.clone()) == row => {
                let Some(n) = self.flat_len(&rows, &row, e) else {
                    return Expr::new(ExprKind::Poison, span);
                };
                ExprKind::ArrayRepeat {
                    elem: x,
                    len: n.tokens().clone(),
                }
            }
            ExprKind::Array(xs) if rows.literal().is_some() => {
                let r = rows.literal().unwrap_or_default();
                ExprKind::Array((0..r).flat_map(|_| xs.iter().cloned()).collect())
            }
            _ => {
                return self.poison(
                    e,
                    "this repeated row",
                    "repeat an array `[x; C]` (`[[x; C]; R]`), or write the rows out",
                )
            }
        };
        if !self.nested_value(e, row, nested_ok) {
            return Expr::new(ExprKind::Poison, span);
        }
        Expr::new(flat, span)
    }

    /// A nested array value where none can go: reported. `ok` says whether the enclosing
    /// context takes one (a `let`, a return).
    pub(super) fn nested_value(&mut self, at: &dyn ToTokens, row: ArrayLen, ok: bool) -> bool {
        if ok {
            self.nested_row = Some(row);
            return true;
        }
        self.diag.unsupported_at(
            at,
            "an array of arrays here",
            "bind it to a name with `let` first (`let m = [[0.0; 3]; 3];`), then index it",
        );
        false
    }

    /// After lowering: a nested array of any number of rows (`&[[T; C]]`, `Vec<[T; C]>`) passed
    /// whole to a differentiated function (`g(p)`, `g(&p)`, `g(&mut p)`) is lent as rows
    /// again (`Nesting::Rows`).
    pub(super) fn lend_rows(&mut self, body: &mut [Stmt], tail: Option<&mut Expr>) {
        if self.rows.is_empty() {
            return;
        }
        let (rows, fixed, vars) = (&self.rows, &self.rows_fixed, &self.vars);
        let passable = |v: VarId| {
            rows.contains_key(&v)
                && !fixed.contains(&v)
                && matches!(vars[v].shape, Shape::Seq(SeqKind::Slice | SeqKind::Vec))
        };
        let mut fix = |e: &mut Expr| {
            let ExprKind::Call { args, .. } = &mut e.kind else {
                return;
            };
            for a in args.iter_mut() {
                let v = match &a.kind {
                    ExprKind::Var(v) if vars[*v].shape == Shape::Seq(SeqKind::Slice) => *v,
                    ExprKind::Ref(inner) => match inner.kind {
                        ExprKind::Var(v) => v,
                        _ => continue,
                    },
                    ExprKind::MutRef(v, reborrow, None) if passable(*v) => {
                        let range = SubRange {
                            start: None,
                            end: None,
                            inclusive: false,
                            array: Some(Nesting::Rows(rows[v].clone())),
                        };
                        a.kind = ExprKind::MutRef(*v, *reborrow, Some(Box::new(range)));
                        continue;
                    }
                    _ => continue,
                };
                if passable(v) {
                    a.kind = ExprKind::SubSlice {
                        base: v,
                        start: None,
                        end: None,
                        inclusive: false,
                        array: Some(Nesting::Rows(rows[&v].clone())),
                    };
                }
            }
        };
        visit_exprs_mut(body, &mut fix);
        if let Some(t) = tail {
            t.visit_mut(&mut fix);
        }
    }

    /// After lowering: every use of a whole nested array variable where its flat form would
    /// mean something else (an argument of a call or method, an item of a tuple or array) is
    /// reported.
    pub(super) fn check_nested_uses(&mut self, body: &[Stmt], tail: Option<&Expr>) {
        if self.rows.is_empty() {
            return;
        }
        let mut bad = Vec::new();
        let rows = &self.rows;
        let mut check = |e: &Expr| {
            let args: Vec<&Expr> = match &e.kind {
                ExprKind::Call { args, .. } | ExprKind::PlainCall { args, .. } => {
                    args.iter().collect()
                }
                ExprKind::PlainMethod { recv, args, .. } | ExprKind::Method { recv, args, .. } => {
                    std::iter::once(&**recv).chain(args).collect()
                }
                ExprKind::Tuple(items) | ExprKind::Array(items) | ExprKind::VecList(items) => {
                    items.iter().collect()
                }
                _ => Vec::new(),
            };
            for a in args {
                let v = match &a.kind {
                    ExprKind::Var(v) | ExprKind::CopySeq(v, _) | ExprKind::MutRef(v, _, None) => *v,
                    ExprKind::Ref(inner) => match inner.kind {
                        ExprKind::Var(v) | ExprKind::CopySeq(v, _) => v,
                        _ => continue,
                    },
                    _ => continue,
                };
                if rows.contains_key(&v) {
                    bad.push((a.span, v));
                }
            }
        };
        for s in body {
            walk_stmt_exprs(s, &mut |e| e.visit(&mut check));
        }
        if let Some(t) = tail {
            t.visit(&mut check);
        }
        for (span, v) in bad {
            let name = self.vars[v].name.to_string();
            self.diag.unsupported(
                span,
                &format!(
                    "passing `{name}`, an array of arrays, whole to a function or method here \
                     (only `&[[T; C]]`, `&mut [[T; C]]` and `Vec<[T; C]>` values can be passed \
                     whole, to differentiated functions)"
                ),
                &format!("pass its rows (`&{name}[i]`) or its elements"),
            );
        }
    }
}

/// The reads `base[offset + k]` for `k < n` (`base[k]` without an offset).
fn elements(base: VarId, offset: Option<&Expr>, n: usize, span: Span) -> Vec<Expr> {
    (0..n)
        .map(|k| {
            let index = shifted(&offset.cloned(), int_lit(k, span));
            Expr::new(
                ExprKind::Index {
                    base,
                    index: Box::new(index),
                },
                span,
            )
        })
        .collect()
}
