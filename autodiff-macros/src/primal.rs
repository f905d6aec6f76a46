//! The primal printer: takes an IR expression and a way to name variables, gives the Rust
//! expression computing its value. Forward code names variables as the user did; the reverse
//! sweep names them by the values it saved.

use crate::ir::*;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};

pub fn binop_tokens(op: BinOp) -> TokenStream {
    match op {
        BinOp::Add => quote!(+),
        BinOp::Sub => quote!(-),
        BinOp::Mul => quote!(*),
        BinOp::Div => quote!(/),
        BinOp::Rem => quote!(%),
        BinOp::Lt => quote!(<),
        BinOp::Le => quote!(<=),
        BinOp::Gt => quote!(>),
        BinOp::Ge => quote!(>=),
        BinOp::Eq => quote!(==),
        BinOp::Ne => quote!(!=),
        BinOp::And => quote!(&&),
        BinOp::Or => quote!(||),
        BinOp::BitAnd => quote!(&),
        BinOp::BitOr => quote!(|),
        BinOp::BitXor => quote!(^),
        BinOp::Shl => quote!(<<),
        BinOp::Shr => quote!(>>),
    }
}

/// Rewrites an element access `base[index]`, or leaves it (`None`).
pub type IndexHook<'a> = &'a dyn Fn(VarId, &Expr) -> Option<TokenStream>;

pub struct Printer<'a> {
    pub name: &'a dyn Fn(VarId) -> TokenStream,
    /// Rewrites an element access `base[index]` (e.g. through a slice view), when it returns Some.
    pub index: Option<IndexHook<'a>>,
}

impl Printer<'_> {
    pub fn expr(&self, e: &Expr) -> TokenStream {
        let span = e.span;
        match &e.kind {
            ExprKind::Lit(l) => l.to_token_stream(),
            ExprKind::Var(v) => (self.name)(*v),
            ExprKind::Opaque { tokens, .. } => quote_spanned!(span=> (#tokens)),
            ExprKind::Index { base, index } => {
                if let Some(t) = self.index.and_then(|f| f(*base, index)) {
                    return t;
                }
                let b = (self.name)(*base);
                let i = self.expr(index);
                quote_spanned!(span=> #b[#i])
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (l, r, o) = (self.expr(lhs), self.expr(rhs), binop_tokens(*op));
                quote_spanned!(span=> (#l #o #r))
            }
            ExprKind::Unary { op, expr } => {
                let x = self.expr(expr);
                match op {
                    UnOp::Neg => quote_spanned!(span=> (-#x)),
                    UnOp::Not => quote_spanned!(span=> (!#x)),
                }
            }
            ExprKind::Cast { expr, ty } => {
                let x = self.expr(expr);
                quote_spanned!(span=> (#x as #ty))
            }
            ExprKind::Method { recv, method, args } => {
                let r = self.expr(recv);
                let a = args.iter().map(|a| self.expr(a));
                quote_spanned!(span=> #r.#method(#(#a),*))
            }
            ExprKind::PlainMethod {
                recv,
                method,
                turbofish,
                args,
                ..
            } => {
                let r = self.expr(recv);
                let a = args.iter().map(|a| self.expr(a));
                quote_spanned!(span=> #r.#method #turbofish (#(#a),*))
            }
            ExprKind::Len(v) => {
                let b = (self.name)(*v);
                quote_spanned!(span=> #b.len())
            }
            ExprKind::Call { func, args, .. } => {
                let a = args.iter().map(|a| self.expr(a));
                quote_spanned!(span=> #func(#(#a),*))
            }
            ExprKind::PlainCall {
                func, args, suffix, ..
            } => {
                let a = args.iter().map(|a| self.expr(a));
                quote_spanned!(span=> #func(#(#a),*) #suffix)
            }
            ExprKind::Tuple(items) => {
                let a = items.iter().map(|a| self.expr(a));
                quote_spanned!(span=> (#(#a,)*))
            }
            ExprKind::Array(items) => {
                let a = items.iter().map(|a| self.expr(a));
                quote_spanned!(span=> [#(#a),*])
            }
            ExprKind::ArrayRepeat { elem, len } => {
                let x = self.expr(elem);
                quote_spanned!(span=> [#x; #len])
            }
            ExprKind::VecRepeat { elem, len } => {
                let (x, n) = (self.expr(elem), self.expr(len));
                quote_spanned!(span=> ::std::vec![#x; #n])
            }
            ExprKind::VecList(items) => {
                let a = items.iter().map(|a| self.expr(a));
                quote_spanned!(span=> ::std::vec![#(#a),*])
            }
            ExprKind::VecNew { capacity } => match capacity {
                None => quote_spanned!(span=> ::std::vec::Vec::new()),
                Some(c) => {
                    let c = self.expr(c);
                    quote_spanned!(span=> ::std::vec::Vec::with_capacity(#c))
                }
            },
            ExprKind::CopySeq(v) => {
                let b = (self.name)(*v);
                quote_spanned!(span=> ::std::borrow::ToOwned::to_owned(&*#b))
            }
            ExprKind::Field { base, index } => {
                let b = self.expr(base);
                let i = syn::Index::from(*index as usize);
                quote_spanned!(span=> #b.#i)
            }
            ExprKind::Ref(inner) => {
                let x = self.expr(inner);
                quote_spanned!(span=> &#x)
            }
            ExprKind::SubSlice {
                base,
                start,
                end,
                inclusive,
            } => {
                let b = (self.name)(*base);
                let s = start.as_ref().map(|s| self.expr(s));
                let e = end.as_ref().map(|e| self.expr(e));
                if *inclusive {
                    quote_spanned!(span=> &#b[#s..=#e])
                } else {
                    quote_spanned!(span=> &#b[#s..#e])
                }
            }
            ExprKind::Poison => quote!(()),
        }
    }

    /// `(a..b)` with `.rev()` / `.step_by(s)` as written.
    pub fn range(&self, r: &Range) -> TokenStream {
        let Range::Bounds {
            start,
            end,
            inclusive,
            rev,
            step,
        } = r;
        let (s, e) = (self.expr(start), self.expr(end));
        let mut t = if *inclusive {
            quote!((#s..=#e))
        } else {
            quote!((#s..#e))
        };
        if *rev {
            t = quote!(#t.rev());
        }
        if let Some(st) = step {
            let st = self.expr(st);
            t = quote!(#t.step_by(#st));
        }
        t
    }
}

/// The user's name of a variable.
pub fn user_name(vars: &[Var]) -> impl Fn(VarId) -> TokenStream + '_ {
    move |v| vars[v].name.to_token_stream()
}
