//! Fixed-size chunks of a slice: takes `first_chunk::<N>()` / `first_chunk_mut::<N>()` (in
//! `if let Some(c) = ..`, `let Some(c) = .. else { .. }` and `let c = ...unwrap();`) and
//! `let (chunks, rest) = v.as_chunks::<N>();` (`as_chunks_mut`), gives views of the sequence
//! they borrow, like `split_at` and `chunks_exact` (`consumers.rs`, `chains.rs`): a first chunk
//! is the view `v[o..o + N]` borrowed as `&[T; N]`, under the condition `len >= N`; `rest` is
//! the view after the last whole chunk; `chunks` is a view whose rows are the chunks
//! (`Lowerer::chunked`): `chunks[i]` is the row view `v[o + i * N..o + i * N + N]`, `chunks[i][j]`
//! its element, `chunks.len()` is `len / N`, and iterating it gives the rows (as `chunks_exact`).

use super::build::{bin, int_lit, src_len};
use super::chains::ISeq;
use super::*;

impl Lowerer<'_> {
    /// `N` of `m::<N>()`: its tokens, or an error (and `Some(None)`) without a turbofish of one
    /// argument.
    fn chunk_len(&mut self, m: &syn::ExprMethodCall) -> Option<Option<ArrayLen>> {
        let arg = m
            .turbofish
            .as_ref()
            .filter(|t| t.args.len() == 1)
            .and_then(|t| t.args.first());
        let tokens = match arg {
            Some(syn::GenericArgument::Const(c)) => c.to_token_stream(),
            Some(syn::GenericArgument::Type(t)) => t.to_token_stream(),
            _ => {
                let name = m.method.to_string();
                self.diag.unsupported_at(
                    &m.method,
                    &format!("`{name}` without its length"),
                    &format!("write the length with a turbofish: `v.{name}::<3>()`"),
                );
                return Some(None);
            }
        };
        Some(Some(ArrayLen::new(tokens)))
    }

    /// `recv.first_chunk::<N>()` (`first_chunk_mut`): the view of its first `N` elements,
    /// borrowed as `&[T; N]`, with the length of `recv` and `N` (it is `None` when the length is
    /// below `N`). `None` when `e` is not such a call; `Some(None)` after an error reported.
    pub(super) fn first_chunk(
        &mut self,
        e: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<Option<(View, Expr, Expr)>> {
        let m = match e {
            syn::Expr::MethodCall(m) => m,
            syn::Expr::Paren(p) => return self.first_chunk(&p.expr, out),
            _ => return None,
        };
        let mutable = match m.method.to_string().as_str() {
            "first_chunk" => false,
            "first_chunk_mut" => true,
            _ => return None,
        };
        if !m.args.is_empty() {
            return None;
        }
        let span = m.method.span();
        let Some(n) = self.chunk_len(m)? else {
            return Some(None);
        };
        let Some(ISeq::Slice { var, offset, len }) = self.parse_seq(&m.receiver, out) else {
            self.diag.unsupported_at(
                &m.receiver,
                &format!("`{}` of this expression", m.method),
                "take chunks of a sequence variable or a sub-slice `v[a..b]`",
            );
            return Some(None);
        };
        if mutable {
            self.vars[var].mutable = true;
        }
        let c = Self::row_len_expr(&n, span);
        let view = View {
            base: var,
            offset: offset.unwrap_or_else(|| int_lit(0, span)),
            len: c.clone(),
            mutable,
            row: Some(n),
        };
        Some(Some((view, src_len(var, &len, span), c)))
    }

    /// `Some(p)` with one sub-pattern: `p`.
    fn some_pattern(pat: &syn::Pat) -> Option<&syn::Pat> {
        let syn::Pat::TupleStruct(ts) = pat else {
            return None;
        };
        let is_some = ts.qself.is_none()
            && ts
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "Some" && s.arguments.is_none());
        (is_some && ts.elems.len() == 1).then(|| &ts.elems[0])
    }

    /// `let c = v.first_chunk::<N>().unwrap();` (or `.expect(..)`): a check that panics as the
    /// `unwrap` would, then `c` bound to the view. `true` when handled.
    pub(super) fn let_first_chunk(
        &mut self,
        pat: &syn::Pat,
        init: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let syn::Expr::MethodCall(u) = init else {
            return false;
        };
        let unwrap = (u.method == "unwrap" && u.args.is_empty())
            || (u.method == "expect" && u.args.len() == 1);
        if !unwrap {
            return false;
        }
        let Some(found) = self.first_chunk(&u.receiver, out) else {
            return false;
        };
        let Some((view, len, n)) = found else {
            return true;
        };
        let name = u.method.to_string();
        let panic: syn::Block = syn::parse_quote_spanned! {u.method.span()=>
            { panic!("`first_chunk` gave `None` (the slice is shorter than the chunk) before `{}`", #name) }
        };
        let then = self.unit_block(&panic);
        out.push(Stmt::If {
            cond: bin(BinOp::Lt, len, n),
            then,
            els: None,
        });
        self.bind_item(pat, Item::View(view), out);
        true
    }

    /// `let Some(c) = v.first_chunk::<N>() else { diverge };`. `true` when handled.
    pub(super) fn let_else_first_chunk(
        &mut self,
        pat: &syn::Pat,
        init: &syn::Expr,
        els: &syn::Block,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let Some(inner) = Self::some_pattern(pat) else {
            return false;
        };
        let Some(found) = self.first_chunk(init, out) else {
            return false;
        };
        let Some((view, len, n)) = found else {
            return true;
        };
        let then = self.unit_block(els);
        out.push(Stmt::If {
            cond: bin(BinOp::Lt, len, n),
            then,
            els: None,
        });
        self.bind_item(inner, Item::View(view), out);
        true
    }

    /// `if let Some(c) = v.first_chunk::<N>() { .. } else { .. }`: `if len >= N`, with `c` bound
    /// to the view in the first branch. `true` when handled.
    pub(super) fn if_let_first_chunk(
        &mut self,
        i: &syn::ExprIf,
        l: &syn::ExprLet,
        result: Option<VarId>,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let Some(inner) = Self::some_pattern(&l.pat) else {
            return false;
        };
        let Some(found) = self.first_chunk(&l.expr, out) else {
            return false;
        };
        let Some((view, len, n)) = found else {
            return true;
        };
        let then = self.with_scope(|cx| {
            let mut stmts = Vec::new();
            cx.bind_item(inner, Item::View(view), &mut stmts);
            let tail = cx.block_into_as(&i.then_branch, &mut stmts, result.is_some());
            if let Some(t) = tail {
                cx.assign_result(result, t, &mut stmts);
            }
            Block { stmts }
        });
        let els = match &i.else_branch {
            None => None,
            Some((_, e)) => {
                let mut stmts = Vec::new();
                match &**e {
                    syn::Expr::If(inner) => self.if_stmt(inner, result, &mut stmts),
                    syn::Expr::Block(b) => stmts = self.branch(&b.block, result).stmts,
                    other => {
                        let v = self.expr(other, &mut stmts);
                        self.assign_result(result, v, &mut stmts);
                    }
                }
                Some(Block { stmts })
            }
        };
        out.push(Stmt::If {
            cond: bin(BinOp::Ge, len, n),
            then,
            els,
        });
        true
    }

    /// `let (chunks, rest) = v.as_chunks::<N>();` (`as_chunks_mut`): `chunks` a view of the
    /// whole chunks, marked chunked (`Lowerer::chunked`), `rest` a view of what follows them.
    /// `true` when the statement has that form.
    pub(super) fn as_chunks(
        &mut self,
        pat: &syn::Pat,
        init: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let (syn::Pat::Tuple(pt), syn::Expr::MethodCall(m)) = (pat, init) else {
            return false;
        };
        let mutable = match m.method.to_string().as_str() {
            "as_chunks" => false,
            "as_chunks_mut" => true,
            _ => return false,
        };
        if !m.args.is_empty() || pt.elems.len() != 2 {
            return false;
        }
        let span = m.method.span();
        let Some(n) = self.chunk_len(m).flatten() else {
            return true;
        };
        let Some(ISeq::Slice { var, offset, len }) = self.parse_seq(&m.receiver, out) else {
            self.diag.unsupported_at(
                &m.receiver,
                &format!("`{}` of this expression", m.method),
                "take chunks of a sequence variable or a sub-slice `v[a..b]`",
            );
            return true;
        };
        if mutable {
            self.vars[var].mutable = true;
        }
        let c = Self::row_len_expr(&n, span);
        let total = src_len(var, &len, span);
        // The length of the whole chunks, `len / N * N`.
        let whole = bin(BinOp::Mul, bin(BinOp::Div, total.clone(), c.clone()), c);
        let whole = self.once(whole, out);
        let start = offset.unwrap_or_else(|| int_lit(0, span));
        let chunks = View {
            base: var,
            offset: start.clone(),
            len: whole.clone(),
            mutable,
            row: None,
        };
        let rest = View {
            base: var,
            offset: bin(BinOp::Add, start, whole.clone()),
            len: bin(BinOp::Sub, total, whole),
            mutable,
            row: None,
        };
        self.bind_item(&pt.elems[0], Item::View(chunks), out);
        if let Some(id) = pat_ident(&pt.elems[0]) {
            if let Some(v) = self.lookup(&id.to_string()) {
                self.chunked.insert(v, n);
            }
        }
        self.bind_item(&pt.elems[1], Item::View(rest), out);
        true
    }

    /// The view and chunk length of a chunked view variable.
    pub(super) fn chunked_view(&self, v: VarId) -> Option<(View, ArrayLen)> {
        let n = self.chunked.get(&v)?;
        Some((self.views.get(&v)?.clone(), n.clone()))
    }

    /// `chunks[i]`: the row view `base[o + i * N..o + i * N + N]`, borrowed as `&[T; N]`.
    pub(super) fn chunk_row(
        &mut self,
        v: VarId,
        ix: &syn::ExprIndex,
        out: &mut Vec<Stmt>,
    ) -> Option<View> {
        let (view, n) = self.chunked_view(v)?;
        let span = ix.index.span();
        let i = self.expr(&ix.index, out);
        let i = if i.has_call() { self.once(i, out) } else { i };
        let c = Self::row_len_expr(&n, span);
        Some(View {
            base: view.base,
            offset: bin(BinOp::Add, view.offset, bin(BinOp::Mul, i, c.clone())),
            len: c,
            mutable: view.mutable,
            row: Some(n),
        })
    }

    /// The chunks of a chunked view iterated (`for c in chunks`, `chunks.iter()`).
    pub(super) fn chunk_rows(&self, v: VarId) -> Option<ISeq> {
        let (view, n) = self.chunked_view(v)?;
        Some(ISeq::Chunks {
            var: view.base,
            offset: Some(view.offset),
            len: Some(view.len),
            size: Self::row_len_expr(&n, Span::call_site()),
            exact: true,
            mutable: view.mutable,
        })
    }

    /// A method of a chunked view: `len` (the number of chunks) and `is_empty`; any other is
    /// reported (its flat form would mean something else). `None`: not a chunked receiver.
    pub(super) fn chunked_method(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        let v = self.var_of_path(&m.receiver)?;
        let (view, n) = self.chunked_view(v)?;
        let span = m.span();
        let name = m.method.to_string();
        let count = bin(BinOp::Div, view.len, Self::row_len_expr(&n, span));
        Some(match name.as_str() {
            "len" if m.args.is_empty() => count,
            "is_empty" if m.args.is_empty() => bin(BinOp::Eq, count, int_lit(0, span)),
            _ => self.poison(
                &m.method,
                &format!("the method `{name}` of the chunks of `as_chunks` (yet)"),
                "index chunks and elements (`c[i]`, `c[i][j]`), iterate over the chunks \
                 (`for r in c.iter()`), or take `len()`",
            ),
        })
    }
}

/// The name a pattern binds, if it is a plain identifier.
fn pat_ident(p: &syn::Pat) -> Option<&syn::Ident> {
    match p {
        syn::Pat::Ident(pi) if pi.subpat.is_none() => Some(&pi.ident),
        syn::Pat::Type(pt) => pat_ident(&pt.pat),
        _ => None,
    }
}
