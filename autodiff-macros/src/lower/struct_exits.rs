//! Struct outputs given by branches and early returns: takes the body of a function with a
//! struct output whose value is an `if`/`match` (or a block) of struct values, or which returns
//! early (`return State { .. };`), gives the body ending in one struct literal, which
//! `struct_values.rs` then plans as usual.
//!
//! Each exit value (a *leaf*: a branch's value or a `return`'s) is a struct literal, or a struct
//! argument whole (`s`, `*s`, `s.clone()`). The fields any leaf lists are the output's
//! (`..base` of one struct argument, the same in every leaf that has one, gives the others).
//! A field every leaf gives by the same tokens, which name nothing the body binds (`steps:
//! s.steps + 1`, `k: s.k`), is written once in the final literal; every other field gets a local
//! of its own (`__ad_sout_x`), assigned where a branch gives its value:
//!
//! ```text
//! if c { State { x: a, v: b } } else { s.clone() }
//!   =>  let __ad_sout_x; let __ad_sout_v;
//!       { if c { __ad_sout_x = a; __ad_sout_v = b; } else { __ad_sout_x = s.x; __ad_sout_v = s.v; } };
//!       State { x: __ad_sout_x, v: __ad_sout_v, ..s }
//! ```
//!
//! A `return` gives the tuple of its leaf's fields in the final literal's order
//! (`return (a, b);`): `finish_struct_output` keeps its float items, as it does the tail's.

use super::*;
use syn::visit_mut::VisitMut;

/// One exit value.
struct Leaf {
    path: Option<syn::Path>,
    fields: Vec<(syn::Member, syn::Expr)>,
    /// The struct argument giving the fields not listed (`..s`, or `s` whole).
    base: Option<syn::Ident>,
}

fn member_name(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(id) => id.to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    }
}

/// `s`, `*s`, `(s)`, `s.clone()` of a name in `roots`.
fn whole_root(e: &syn::Expr, roots: &[String]) -> Option<syn::Ident> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => {
            let id = p.path.get_ident()?;
            roots.contains(&id.to_string()).then(|| id.clone())
        }
        syn::Expr::Paren(p) => whole_root(&p.expr, roots),
        syn::Expr::Group(g) => whole_root(&g.expr, roots),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => whole_root(&u.expr, roots),
        syn::Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
            whole_root(&m.receiver, roots)
        }
        _ => None,
    }
}

/// The value a block ends with, if any.
fn block_tail_mut(b: &mut syn::Block) -> Option<&mut syn::Expr> {
    match b.stmts.last_mut() {
        Some(syn::Stmt::Expr(e, None)) => Some(e),
        _ => None,
    }
}

/// Calls `f` on each leaf of a value: the values of `if`/`else` branches, `match` arms and
/// blocks, down to what is none of those. An `if` without `else` is an error.
fn leaves_mut(e: &mut syn::Expr, f: &mut dyn FnMut(&mut syn::Expr)) -> Result<(), TokenStream> {
    match e {
        syn::Expr::If(i) => {
            let Some((_, els)) = &mut i.else_branch else {
                return Err(i.to_token_stream());
            };
            if let Some(t) = block_tail_mut(&mut i.then_branch) {
                leaves_mut(t, f)?;
            }
            leaves_mut(els, f)
        }
        syn::Expr::Match(m) => {
            for arm in &mut m.arms {
                leaves_mut(&mut arm.body, f)?;
            }
            Ok(())
        }
        syn::Expr::Block(b) if b.label.is_none() => {
            if let Some(t) = block_tail_mut(&mut b.block) {
                leaves_mut(t, f)?;
            }
            Ok(())
        }
        syn::Expr::Paren(p) => leaves_mut(&mut p.expr, f),
        // A diverging arm (`return ..`, `panic!()`) gives no value.
        syn::Expr::Return(_) | syn::Expr::Macro(_) => Ok(()),
        e => {
            f(e);
            Ok(())
        }
    }
}

/// Calls `f` on the value of every `return` (closures and items excluded).
fn returns_mut(b: &mut syn::Block, f: &mut dyn FnMut(&mut syn::Expr)) {
    struct R<'f>(&'f mut dyn FnMut(&mut syn::Expr));
    impl VisitMut for R<'_> {
        fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
            match e {
                syn::Expr::Closure(_) => {}
                syn::Expr::Return(r) => {
                    if let Some(v) = &mut r.expr {
                        self.visit_expr_mut(v);
                        (self.0)(v);
                    }
                }
                _ => syn::visit_mut::visit_expr_mut(self, e),
            }
        }
        // Items in the body (`fn`, `const`) have `return`s of their own.
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    R(f).visit_block_mut(b);
}

/// Whether a block has a `return` with a value (closures excluded).
fn has_returns(b: &syn::Block) -> bool {
    let mut b = b.clone();
    let mut found = false;
    returns_mut(&mut b, &mut |_| found = true);
    found
}

/// Every name a pattern in the block binds.
fn bound_names(b: &syn::Block) -> Vec<String> {
    struct F(Vec<String>);
    impl<'ast> Visit<'ast> for F {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut f = F(Vec::new());
    f.visit_block(b);
    f.0
}

/// Whether `e` names one of `names` (as a path of one segment, or a macro's token).
fn names_any(e: &syn::Expr, names: &[String]) -> bool {
    struct F<'n>(&'n [String], bool);
    impl<'ast> Visit<'ast> for F<'_> {
        fn visit_path(&mut self, p: &'ast syn::Path) {
            if let Some(id) = p.get_ident() {
                self.1 |= self.0.contains(&id.to_string());
            }
            syn::visit::visit_path(self, p);
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            let names = crate::ir::token_names(&m.tokens, true);
            self.1 |= names.iter().any(|n| self.0.contains(n));
        }
    }
    let mut f = F(names, false);
    f.visit_expr(e);
    f.1
}

impl Lowerer<'_> {
    /// Rewrites a struct output's branches and `return`s (see the module's doc). `roots`: the
    /// struct arguments read only. True when the body was rewritten (its `return`s then give
    /// tuples); `Err` after reporting errors (at leaves that are not struct values...).
    pub(super) fn struct_exits(
        &mut self,
        block: &mut syn::Block,
        roots: &[String],
    ) -> Result<bool, ()> {
        let branching = match block.stmts.last() {
            Some(syn::Stmt::Expr(
                syn::Expr::If(_) | syn::Expr::Match(_) | syn::Expr::Block(_),
                None,
            )) => true,
            // `s.clone()`: a leaf of its own.
            Some(syn::Stmt::Expr(e @ syn::Expr::MethodCall(_), None)) => {
                whole_root(e, roots).is_some()
            }
            _ => false,
        };
        if !branching && !has_returns(block) {
            return Ok(false);
        }
        let Some(syn::Stmt::Expr(_, None)) = block.stmts.last() else {
            return Ok(false);
        };
        // The leaves, read.
        let mut leaves: Vec<(Leaf, TokenStream)> = Vec::new();
        let mut bad: Vec<TokenStream> = Vec::new();
        let mut read = |e: &mut syn::Expr| match leaf(e, roots) {
            Some(l) => leaves.push((l, e.to_token_stream())),
            None => bad.push(e.to_token_stream()),
        };
        let mut work = block.clone();
        returns_mut(&mut work, &mut read);
        let no_else = match block_tail_mut(&mut work) {
            Some(t) => leaves_mut(t, &mut read).err(),
            None => None,
        };
        if let Some(at) = no_else {
            self.diag.unsupported_at(
                &at,
                "an `if` without `else` as the value of a struct output",
                "give every branch a struct value",
            );
            return Err(());
        }
        for at in &bad {
            self.diag.unsupported_at(
                at,
                "this value as a struct output given by a branch or a `return` (yet)",
                "write a struct literal (`State { x, v: 2.0 * v }`, `State { x, ..*s }`, \
                 `..s.clone()` for a struct that is not `Copy`) or a struct argument (`s`, \
                 `s.clone()`); a struct a differentiated call gives, or a copy whose fields are \
                 written (`let mut t = s.clone(); t.x = ..; t`), is given at the end of the \
                 function, from one local each branch assigns (`let mut r = s.clone(); if c { r \
                 = step(s, dt); } r`)",
            );
        }
        if !bad.is_empty() || leaves.is_empty() {
            return Err(());
        }
        // The base, the fields and the path of the final literal.
        let mut base: Option<syn::Ident> = None;
        for (l, at) in &leaves {
            match (&base, &l.base) {
                (None, Some(b)) => base = Some(b.clone()),
                (Some(a), Some(b)) if a != b => {
                    self.diag.unsupported_at(
                        at,
                        "struct output values taking their other fields from different struct \
                         arguments",
                        "take the fields no branch lists from one struct argument (`..*s`, \
                         `..s.clone()`), or list every field",
                    );
                    return Err(());
                }
                _ => {}
            }
        }
        let all_listed = leaves.iter().any(|(l, _)| l.base.is_none());
        let mut members: Vec<syn::Member> = Vec::new();
        for (l, _) in &leaves {
            for (m, _) in &l.fields {
                if !members.iter().any(|x| member_name(x) == member_name(m)) {
                    members.push(m.clone());
                }
            }
        }
        // A field some leaf takes from the base and another lists as an array: the base's field
        // would be read as a whole (a slice), not as the array the other leaf gives.
        for m in &members {
            let array = leaves.iter().find_map(|(l, _)| {
                l.fields.iter().find(|(x, e)| {
                    member_name(x) == member_name(m)
                        && matches!(e, syn::Expr::Array(_) | syn::Expr::Repeat(_))
                })
            });
            let filled = leaves.iter().find(|(l, _)| {
                !l.fields
                    .iter()
                    .any(|(x, _)| member_name(x) == member_name(m))
            });
            if let (Some((_, e)), Some((_, at))) = (array, filled) {
                self.diag.unsupported_at(
                    at,
                    &format!(
                        "taking array field `{}` from a struct argument here while another \
                         branch lists it (`{}`) (yet)",
                        member_name(m),
                        e.to_token_stream()
                    ),
                    "list the field in every branch, element by element (`q: [s.q[0], \
                     s.q[1]]`), or in none",
                );
                return Err(());
            }
        }
        // Each leaf's value of each field.
        let mut values: Vec<Vec<syn::Expr>> = Vec::new();
        for (l, at) in &leaves {
            let mut row = Vec::new();
            for m in &members {
                let listed = l
                    .fields
                    .iter()
                    .find(|(x, _)| member_name(x) == member_name(m));
                match (listed, &l.base) {
                    (Some((_, e)), _) => row.push(e.clone()),
                    (None, Some(b)) => {
                        let span = at.span();
                        row.push(syn::parse_quote_spanned!(span=> #b.#m));
                    }
                    (None, None) => {
                        self.diag.unsupported_at(
                            at,
                            &format!(
                                "a struct output value without field `{}`, which another \
                                 branch lists",
                                member_name(m)
                            ),
                            "list the same fields in every branch",
                        );
                        return Err(());
                    }
                }
            }
            values.push(row);
        }
        let bound = bound_names(block);
        // A field every leaf takes from the base: the final literal's `..base` gives it.
        let text = |e: &syn::Expr| e.to_token_stream().to_string();
        let same = |j: usize| {
            values
                .iter()
                .all(|row| text(&row[j]) == text(&values[0][j]))
        };
        let drop: Vec<bool> = members
            .iter()
            .enumerate()
            .map(|(j, m)| {
                let fill = |b: &syn::Ident| -> syn::Expr { syn::parse_quote!(#b.#m) };
                !all_listed
                    && same(j)
                    && base
                        .as_ref()
                        .is_some_and(|b| text(&fill(b)) == text(&values[0][j]))
            })
            .collect();
        let members: Vec<syn::Member> = members
            .into_iter()
            .zip(&drop)
            .filter(|(_, d)| !**d)
            .map(|(m, _)| m)
            .collect();
        let values: Vec<Vec<syn::Expr>> = values
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .zip(&drop)
                    .filter(|(_, d)| !**d)
                    .map(|(e, _)| e)
                    .collect()
            })
            .collect();
        let mut finals: Vec<syn::Expr> = Vec::new();
        let mut decls: Vec<syn::Stmt> = Vec::new();
        let mut locals: Vec<Option<syn::Ident>> = Vec::new();
        for (j, m) in members.iter().enumerate() {
            let first = &values[0][j];
            let text = first.to_token_stream().to_string();
            let common = values
                .iter()
                .all(|row| row[j].to_token_stream().to_string() == text)
                && !names_any(first, &bound);
            if common {
                finals.push(first.clone());
                locals.push(None);
            } else {
                let id = syn::Ident::new(
                    &format!("__ad_sout_{}", member_name(m)),
                    Span::call_site().located_at(m.span()),
                );
                decls.push(syn::parse_quote!(let #id;));
                finals.push(syn::parse_quote!(#id));
                locals.push(Some(id));
            }
        }
        let path = leaves.iter().find_map(|(l, _)| l.path.clone());
        // Rewrite: each tail leaf assigns the fields' locals, each `return` gives the tuple.
        let mut k = 0usize;
        let mut next = |e: &mut syn::Expr, ret: bool| {
            let row = &values[k];
            k += 1;
            if ret {
                *e = syn::parse_quote!((#(#row,)*));
            } else {
                let sets = locals
                    .iter()
                    .zip(row)
                    .filter_map(|(id, v)| id.as_ref().map(|id| quote!(#id = #v;)));
                *e = syn::parse_quote!({ #(#sets)* });
            }
        };
        returns_mut(block, &mut |e| next(e, true));
        if let Some(t) = block_tail_mut(block) {
            let _ = leaves_mut(t, &mut |e| next(e, false));
        }
        let Some(syn::Stmt::Expr(tail, None)) = block.stmts.pop() else {
            return Ok(true);
        };
        let tail = match tail {
            syn::Expr::Block(b) => syn::Expr::Block(b),
            t => syn::parse_quote!({ #t }),
        };
        block
            .stmts
            .push(syn::Stmt::Expr(tail, Some(Default::default())));
        let inits = members.iter().zip(&finals).map(|(m, v)| quote!(#m: #v));
        let rest = match (&base, all_listed) {
            (Some(b), false) => quote!(..#b),
            _ => quote!(),
        };
        let value: syn::Expr = match &path {
            Some(p) => syn::parse_quote!(#p { #(#inits,)* #rest }),
            None => match &base {
                Some(b) => syn::parse_quote!(#b),
                None => return Ok(true),
            },
        };
        block.stmts.push(syn::Stmt::Expr(value, None));
        let mut stmts = decls;
        stmts.append(&mut block.stmts);
        block.stmts = stmts;
        Ok(true)
    }
}

/// A struct literal (its `..base` a struct argument) or a struct argument whole.
fn leaf(e: &syn::Expr, roots: &[String]) -> Option<Leaf> {
    if let Some(b) = whole_root(e, roots) {
        return Some(Leaf {
            path: None,
            fields: Vec::new(),
            base: Some(b),
        });
    }
    let syn::Expr::Struct(lit) = e else {
        return None;
    };
    if lit.qself.is_some() {
        return None;
    }
    let base = match &lit.rest {
        // `..*s`, `..s`, `..s.clone()`.
        Some(r) => Some(whole_root(r, roots)?),
        None => None,
    };
    Some(Leaf {
        path: Some(lit.path.clone()),
        fields: lit
            .fields
            .iter()
            .map(|f| (f.member.clone(), f.expr.clone()))
            .collect(),
        base,
    })
}
