//! `#[checkpoint]` loops: takes the attribute on a `for` loop (and any misplaced one), gives the
//! loop's entry in `Function::checkpoints` once the body is lowered and checked to have the one
//! form the reverse sweep checkpoints: a single call `step(.., &mut state, ..);` of a
//! differentiated function, over an ascending range, reading only values that cannot change
//! (the reverse sweep recomputes steps from stored states, so what a step reads must be the
//! same then). `strip` removes the attribute from the function the macro gives back.

use super::*;
use std::collections::BTreeMap;
use syn::spanned::Spanned;

/// A `#[checkpoint]` attribute read from a loop, before its body is checked.
pub(crate) struct CheckpointAttr {
    snapshots: Option<Expr>,
    /// The loop body, for errors.
    body: Span,
}

/// Whether `a` is `#[checkpoint]` or `#[checkpoint(..)]`.
fn is_checkpoint(a: &syn::Attribute) -> bool {
    a.path().is_ident("checkpoint")
}

impl Lowerer<'_> {
    /// The `#[checkpoint]` attribute of a `for` loop over a range, parsed (`snapshots = e` is
    /// lowered into `out`, before the loop); `range` is `None` for loops over iterators.
    pub(super) fn checkpoint_attr(
        &mut self,
        f: &syn::ExprForLoop,
        range: Option<&Range>,
        out: &mut Vec<Stmt>,
    ) -> Option<CheckpointAttr> {
        let attr = f.attrs.iter().find(|a| is_checkpoint(a))?;
        let Some(Range::Bounds { rev, step, .. }) = range else {
            self.diag.unsupported_at(
                &f.expr,
                "`#[checkpoint]` on a loop over an iterator (yet)",
                "loop over the step indices: `for i in 0..n`",
            );
            return None;
        };
        if *rev || step.is_some() {
            self.diag.unsupported_at(
                &f.expr,
                "`#[checkpoint]` on a reversed or stepped range (yet)",
                "loop over an ascending range `a..b` and compute the index from it",
            );
            return None;
        }
        let mut snapshots = None;
        if let syn::Meta::List(_) = &attr.meta {
            let parsed = attr.parse_nested_meta(|m| {
                if m.path.is_ident("snapshots") {
                    let e: syn::Expr = m.value()?.parse()?;
                    snapshots = Some(e);
                    Ok(())
                } else {
                    Err(m.error("unknown option: `#[checkpoint]` takes `snapshots = n`"))
                }
            });
            if let Err(e) = parsed {
                self.diag.push(e);
                return None;
            }
        }
        let snapshots = snapshots.map(|e| self.expr(&e, out));
        Some(CheckpointAttr {
            snapshots,
            body: f.body.span(),
        })
    }

    /// Every checkpointed loop in `body` with its state, once calls are classified; errors for
    /// bodies of another form.
    pub(super) fn check_checkpoints(
        &mut self,
        body: &[Stmt],
        attrs: BTreeMap<VarId, CheckpointAttr>,
    ) -> BTreeMap<VarId, Checkpoint> {
        let mut loops = Vec::new();
        crate::ir::visit_stmt_list(body, &mut |s| {
            if let Stmt::For { var, body, .. } = s {
                if attrs.contains_key(var) {
                    loops.push((*var, &body.stmts));
                }
            }
        });
        let mut out = BTreeMap::new();
        let mut attrs = attrs;
        for (var, stmts) in loops {
            let Some(a) = attrs.remove(&var) else {
                continue;
            };
            if let Some(state) = self.checkpoint_state(var, stmts, &a) {
                out.insert(
                    var,
                    Checkpoint {
                        snapshots: a.snapshots,
                        state,
                    },
                );
            }
        }
        out
    }

    /// The state of a checkpointed loop whose body is `stmts`, or an error.
    fn checkpoint_state(
        &mut self,
        index: VarId,
        stmts: &[Stmt],
        a: &CheckpointAttr,
    ) -> Option<VarId> {
        let call = match stmts {
            [Stmt::Eval(e)] if matches!(e.kind, ExprKind::Call { .. }) => e,
            _ => {
                self.diag.unsupported(
                    a.body,
                    "this body in a `#[checkpoint]` loop: its body must be one call of a \
                     differentiated function that updates the state in place",
                    "move the body into a `#[differentiate]` function taking the state by \
                     `&mut` and call it: `step(&mut state, ..);`",
                );
                return None;
            }
        };
        let ExprKind::Call { args, .. } = &call.kind else {
            return None;
        };
        let states: Vec<&Expr> = args
            .iter()
            .filter(|x| matches!(x.kind, ExprKind::MutRef(..)))
            .collect();
        let (state, range) = match states.as_slice() {
            [Expr {
                kind: ExprKind::MutRef(v, _, range),
                ..
            }] => (*v, range),
            _ => {
                self.diag.unsupported(
                    call.span,
                    "a `#[checkpoint]` loop whose call takes no or several `&mut` arguments \
                     (yet)",
                    "keep the whole state in one variable (a `Vec`, an array or a `&mut [T]` \
                     argument) and pass it as the one `&mut` argument",
                );
                return None;
            }
        };
        let var = &self.vars[state];
        let param = matches!(var.origin, VarOrigin::Param(_));
        let kind_ok = match &var.shape {
            Shape::Seq(SeqKind::Vec | SeqKind::Array(_)) => !param || var.by_mut_ref(),
            Shape::Seq(SeqKind::Slice) => var.by_mut_ref(),
            // A float local, or an in-out `x: &mut f64` argument.
            Shape::Scalar => !param || var.in_out_ref(),
            _ => false,
        };
        if range.is_some() || var.row.is_some() || !kind_ok {
            self.diag.unsupported(
                states[0].span,
                "this state in a `#[checkpoint]` loop (yet)",
                "pass a whole `Vec`, flat array, `&mut [T]` argument or float (a local or a \
                 `&mut f64` argument) by `&mut`",
            );
            return None;
        }
        for arg in args {
            if matches!(arg.kind, ExprKind::MutRef(..)) {
                continue;
            }
            let mut reads = Vec::new();
            arg.reads(&mut reads);
            for v in reads {
                if v == index {
                    continue;
                }
                let name = &self.vars[v].name;
                if v == state {
                    self.diag.unsupported(
                        arg.span,
                        &format!("reading the state `{name}` in another argument of the step"),
                        "read it inside the step function",
                    );
                    return None;
                }
                if self.vars[v].mutable {
                    self.diag.unsupported(
                        arg.span,
                        &format!(
                            "a `#[checkpoint]` loop reading `{name}`, which is assigned after \
                             its declaration (`mut`, or `let {name};` set later): the reverse \
                             sweep recomputes steps and needs the values they read unchanged"
                        ),
                        &format!("bind an immutable copy before the loop: `let {name} = {name};`"),
                    );
                    return None;
                }
            }
        }
        Some(state)
    }
}

/// Errors for `#[checkpoint]` anywhere but on a `for` loop of `block`.
pub(super) fn misplaced(block: &syn::Block, diag: &mut Diag) {
    struct Find<'d>(&'d mut Diag);
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
            // The loop's own attributes are its business; its parts are checked.
            self.visit_pat(&f.pat);
            self.visit_expr(&f.expr);
            self.visit_block(&f.body);
        }
        fn visit_attribute(&mut self, a: &'ast syn::Attribute) {
            if is_checkpoint(a) {
                self.0.error_at(
                    a,
                    "`#[checkpoint]` applies to `for` loops over a range inside a \
                     #[differentiate] function",
                );
            }
        }
        // Nested functions are not differentiated.
        fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
    }
    syn::visit::Visit::visit_block(&mut Find(diag), block);
}

/// `item` without its `#[checkpoint]` attributes (which are the macro's, not rustc's): a loop
/// with `snapshots = e` becomes `{ let _ = &e; loop }`, so that what only `e` reads is still
/// used; misplaced attributes (reported by lowering) go too, so rustc does not report them again.
pub fn strip(item: &syn::ItemFn) -> TokenStream {
    struct Budgets;
    impl syn::visit_mut::VisitMut for Budgets {
        fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
            syn::visit_mut::visit_expr_mut(self, e);
            let syn::Expr::ForLoop(f) = e else {
                return;
            };
            let mut budget = None;
            for a in f.attrs.iter().filter(|a| is_checkpoint(a)) {
                let _ = a.parse_nested_meta(|m| {
                    budget = Some(m.value()?.parse::<syn::Expr>()?);
                    Ok(())
                });
            }
            f.attrs.retain(|a| !is_checkpoint(a));
            if let Some(b) = budget {
                *e = syn::parse_quote!({ let _ = &(#b); #f });
            }
        }
        fn visit_item_fn_mut(&mut self, _: &mut syn::ItemFn) {}
    }
    let mut f = item.clone();
    syn::visit_mut::VisitMut::visit_block_mut(&mut Budgets, &mut f.block);
    let syn::ItemFn {
        attrs,
        vis,
        sig,
        block,
    } = f;
    let block = without_attr(block.to_token_stream());
    quote::quote!(#(#attrs)* #vis #sig #block)
}

/// `tokens` without any `#[checkpoint..]` (at any depth).
fn without_attr(tokens: TokenStream) -> TokenStream {
    use proc_macro2::{Delimiter, Group, TokenTree};
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut k = 0;
    while k < trees.len() {
        if let (TokenTree::Punct(p), Some(TokenTree::Group(g))) = (&trees[k], trees.get(k + 1)) {
            let named = g
                .stream()
                .into_iter()
                .next()
                .is_some_and(|t| matches!(t, TokenTree::Ident(ref i) if i == "checkpoint"));
            if p.as_char() == '#' && g.delimiter() == Delimiter::Bracket && named {
                k += 2;
                continue;
            }
        }
        out.push(match &trees[k] {
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), without_attr(g.stream()));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            t => t.clone(),
        });
        k += 1;
    }
    out.into_iter().collect()
}
