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
}
