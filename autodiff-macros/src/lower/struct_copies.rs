//! Copies of struct arguments bound to locals, before struct arguments are planned (a syntactic
//! step of `struct_values.rs`'s pass): takes `let t = s.clone();`, `let t = *s;`,
//! `let t = (*s).clone();` (`s` a struct argument read only, or a struct local not `mut`), gives
//! `t` as a struct local all of whose fields come from `s` (like `let t = State { ..*s };`):
//! `t.k` reads `s.k`, `t` returned whole is a struct output based on `s`. A copy bound by
//! `let mut` stays an error (its fields would need locals of their own, of types the macro
//! cannot see before the fields are read).

use super::struct_values::{plain_name, Local, Pass};
use super::*;

/// `s.clone()`, `*s`, `(*s).clone()`, `s.to_owned()`: the name copied.
pub(super) fn copied(e: &syn::Expr) -> Option<&syn::Ident> {
    match e {
        syn::Expr::MethodCall(m)
            if (m.method == "clone" || m.method == "to_owned") && m.args.is_empty() =>
        {
            plain_name(&m.receiver)
        }
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => plain_name(&u.expr),
        syn::Expr::Paren(p) => copied(&p.expr),
        _ => None,
    }
}

/// Whether the block binds a copy of one of `roots` by `let` (the pass must then run).
pub(super) fn copies_root(b: &syn::Block, roots: &[String]) -> bool {
    struct F<'r>(&'r [String], bool);
    impl<'ast> Visit<'ast> for F<'_> {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if let Some(init) = &l.init {
                if copied(&init.expr).is_some_and(|n| self.0.contains(&n.to_string())) {
                    self.1 = true;
                }
            }
            syn::visit::visit_local(self, l);
        }
    }
    let mut f = F(roots, false);
    f.visit_block(b);
    f.1
}

/// The struct arguments' types as paths for struct literals (`State`, `Self`; generic
/// arguments left to inference).
pub(super) fn root_paths(cx: &Lowerer, sig: &syn::Signature) -> HashMap<String, syn::Path> {
    let mut out = HashMap::new();
    for input in &sig.inputs {
        match input {
            syn::FnArg::Receiver(_) => {
                out.insert("self".to_string(), syn::parse_quote!(Self));
            }
            syn::FnArg::Typed(pt) => {
                let syn::Pat::Ident(pi) = &*pt.pat else {
                    continue;
                };
                if cx.struct_type(&pt.ty, &sig.generics).is_none() {
                    continue;
                }
                let ty = match &*pt.ty {
                    syn::Type::Reference(r) => &*r.elem,
                    t => t,
                };
                if let syn::Type::Path(tp) = ty {
                    let mut path = tp.path.clone();
                    if let Some(last) = path.segments.last_mut() {
                        last.arguments = syn::PathArguments::None;
                    }
                    out.insert(pi.ident.to_string(), path);
                }
            }
        }
    }
    out
}

impl Pass<'_, '_> {
    /// `let t = s.clone();` (or `*s`, `(*s).clone()`) of a struct argument read only or a
    /// struct local not `mut`, bound to a plain name without `mut`: `t` entered in `locals`
    /// with every field from `s`. False when `l` is not such a `let`.
    pub(super) fn copy_let(&mut self, l: &syn::Local, locals: &mut HashMap<String, Local>) -> bool {
        let Some(init) = &l.init else { return false };
        if init.diverge.is_some() {
            return false;
        }
        let Some(src) = copied(&init.expr) else {
            return false;
        };
        let pat = match &l.pat {
            syn::Pat::Type(pt) => &*pt.pat,
            p => p,
        };
        let syn::Pat::Ident(pi) = pat else {
            return false;
        };
        if pi.by_ref.is_some() || pi.subpat.is_some() || pi.mutability.is_some() {
            return false;
        }
        let n = src.to_string();
        let path = match locals.get(&n) {
            Some(local) if !local.mutable => local.path.clone(),
            Some(_) => return false,
            None if self.roots.contains(&n) => match self.types.get(&n) {
                Some(p) => p.clone(),
                None => return false,
            },
            None => return false,
        };
        locals.insert(
            pi.ident.to_string(),
            Local {
                path,
                fields: Vec::new(),
                base: Some(syn::parse_quote!(#src)),
                mutable: false,
            },
        );
        true
    }
}
