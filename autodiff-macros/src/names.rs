//! Every identifier the macro mints comes from here. Generated locals use `Span::mixed_site()`
//! so they can never capture or shadow a user's variable.

use crate::ir::{Var, VarId, VarOrigin};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

/// The one path generated code uses to reach the runtime.
pub fn rt() -> TokenStream {
    quote!(::autodiff_runtime::__private)
}

/// An item of the runtime named after [`rt`] (a rule of `rules`, a helper such as `scale`).
pub fn runtime_item(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// A hygienic generated local of an emitter: `__ad_<what><n>`, `what` lowercase letters.
pub fn local(what: &str, n: usize) -> Ident {
    debug_assert!(is_word(what), "{what}");
    format_ident!("__ad_{}{}", what, n, span = Span::mixed_site())
}

/// The result of the fast path of one `Dual` evaluation of forward mode, bound in a block of its
/// own (`forward/program.rs`).
pub fn fast_result() -> Ident {
    local("fast", 0)
}

/// The result of `<f>_jvp`'s whole body run on the fast path (`forward/whole.rs`).
pub fn whole_result() -> Ident {
    local("whole", 0)
}

/// A variable the IR itself introduces (lowering's temporaries, normalisation's flags), named
/// after its `VarId`: `__ad_<what>_<id>`. The `_` before the number keeps these apart from the
/// emitters' [`local`]s, whose counters are independent.
pub fn synthetic(what: &str, id: VarId) -> Ident {
    debug_assert!(is_word(what), "{what}");
    format_ident!("__ad_{}_{}", what, id, span = Span::mixed_site())
}

/// The name of a copy, numbered `id`, of the synthetic variable named `name` (a loop body copied
/// by `transform/peel.rs`): `__ad_<what>_<id>` with the original's `what`, `__ad_copy_<id>` for a
/// name of another form.
pub fn synthetic_renumbered(name: &Ident, id: VarId) -> Ident {
    let s = strip_raw(name);
    let what = s
        .strip_prefix("__ad_")
        .and_then(|rest| rest.rsplit_once('_'))
        .filter(|(what, n)| is_word(what) && n.chars().all(|c| c.is_ascii_digit()))
        .map_or("copy", |(what, _)| what);
    synthetic(what, id)
}

/// The name of variable `id` in generated code. Arguments and variables lowering introduced keep
/// theirs; every other binding gets a unique hygienic name (`x__7`), so that the statements of an
/// inlined closure, and a later `let` shadowing a name a closure captured, cannot rebind each
/// other's names.
pub fn var(var: &Var, id: VarId) -> Ident {
    match var.origin {
        VarOrigin::Param(_) | VarOrigin::Synthetic => var.name.clone(),
        VarOrigin::Local | VarOrigin::LoopIndex => {
            format_ident!(
                "{}__{}",
                strip_raw(&var.name),
                id,
                span = Span::mixed_site()
            )
        }
    }
}

/// The tangent (forward mode) of variable `id`, shadowed together with it: `__ad_d_<name>` of
/// its generated name ([`var`]). An argument keeps its own name, which may be spelt like a
/// renamed local (`x__2`) or a lowering variable (`__ad_c_5`), names that contain `__`; such an
/// argument's tangent is `__ad_dp_<name>` so that it cannot be another variable's tangent.
pub fn tangent(v: &Var, id: VarId) -> Ident {
    let name = strip_raw(&var(v, id));
    let param_like_generated = matches!(v.origin, VarOrigin::Param(_)) && name.contains("__");
    let what = if param_like_generated { "dp" } else { "d" };
    format_ident!("__ad_{}_{}", what, name, span = Span::mixed_site())
}

/// The adjoint (reverse mode) of variable number `id`: unique per binding.
pub fn adjoint(name: &Ident, id: usize) -> Ident {
    format_ident!(
        "__ad_b{}_{}",
        id,
        strip_raw(name),
        span = Span::mixed_site()
    )
}

/// The public name of the tangent or adjoint argument of `arg`: `d<arg>`, or `__d<arg>` when a
/// user argument already has that name (callers pass arguments by position, so only the
/// documentation sees the difference).
pub fn shadow_param(arg: &Ident, taken: &[String]) -> Ident {
    let plain = format!("d{}", strip_raw(arg));
    if taken.contains(&plain) {
        format_ident!("__d{}", strip_raw(arg))
    } else {
        Ident::new(&plain, arg.span())
    }
}

/// The reference a `&mut` float argument arrived as, kept while the companions work on its value
/// under the argument's own name: `__ad_ref_<arg>`, and `__ad_tref_<arg>` for its tangent.
pub fn param_ref(arg: &Ident, tangent: bool) -> Ident {
    let what = if tangent { "tref" } else { "ref" };
    format_ident!(
        "__ad_{}_{}",
        what,
        strip_raw(arg),
        span = Span::mixed_site()
    )
}

/// The clone of a struct field that the `k`-th copy field argument borrows, or of its tangent
/// or adjoint (`codegen/copies.rs`): `__ad_cp<k>`, `__ad_cpd<k>`.
pub fn field_copy(k: usize, shadow: bool) -> Ident {
    let what = if shadow { "cpd" } else { "cp" };
    format_ident!("__ad_{}{}", what, k, span = Span::mixed_site())
}

/// The value the reverse companion's body gave, kept while the adjoints of copies are added in
/// (`codegen/copies.rs`).
pub fn copy_value() -> Ident {
    format_ident!("__ad_cp_value", span = Span::mixed_site())
}

/// A local of the companions of a function with a struct output (`codegen/structs.rs`):
/// `__ad_so_<what>`.
pub fn struct_out(what: &str) -> Ident {
    format_ident!("__ad_so_{}", what, span = Span::mixed_site())
}

pub fn seed(taken: &[String]) -> Ident {
    if taken.iter().any(|t| t == "seed") {
        format_ident!("__seed")
    } else {
        format_ident!("seed")
    }
}

/// `f_jvp`, `f_vjp`, `f_grad` for `f`, spanned at the user's name so errors point there.
pub fn companion(f: &Ident, suffix: &str) -> Ident {
    format_ident!("{}_{}", strip_raw(f), suffix, span = f.span())
}

/// `__ad_flat_f_jvp`, `__ad_flat_f_vjp`: the hidden companions of a function with nested array
/// arguments or outputs, over their flat forms (`codegen/nested.rs`), which the public ones call.
pub fn flat_companion(f: &Ident, suffix: &str) -> Ident {
    format_ident!("__ad_flat_{}_{}", strip_raw(f), suffix, span = f.span())
}

/// `f_generic`: the copy of `f` generic over its float type that `#[differentiate(hvp)]` writes
/// (`transform/lift.rs`); its companions are `f_generic_vjp` and so on, and calls inside it go
/// to the callees' own copies.
pub fn generic_twin(f: &Ident) -> Ident {
    format_ident!("{}_generic", strip_raw(f), span = f.span())
}

/// The float type parameter of a generic copy of a function written for `f32` or `f64`.
pub fn lift_param() -> Ident {
    Ident::new("__AdS", Span::call_site())
}

/// `FGrad` for `f` (`my_loss` gives `MyLossGrad`).
pub fn grad_struct(f: &Ident) -> Ident {
    let mut out = String::new();
    for part in strip_raw(f).split('_').filter(|p| !p.is_empty()) {
        let mut cs = part.chars();
        if let Some(c) = cs.next() {
            out.extend(c.to_uppercase());
            out.push_str(cs.as_str());
        }
    }
    format_ident!("{}Grad", out, span = f.span())
}

/// The gradient buffer of argument `arg` in `f_grad`: `__ad_g_<arg>_0`.
pub fn grad_buffer(arg: &Ident) -> Ident {
    format_ident!("__ad_g_{}_0", strip_raw(arg), span = Span::mixed_site())
}

/// An identifier naming something that already exists (a float method, a runtime function, a
/// primitive type), spelt `name` and spanned at `span`: never a new binding.
pub fn existing(name: &str, span: Span) -> Ident {
    Ident::new(name, span)
}

/// What [`local`] and [`synthetic`] accept as `what`: one or more lowercase ASCII letters, so
/// that the digits after it, and the `_` before them, tell the two families apart.
fn is_word(what: &str) -> bool {
    !what.is_empty() && what.bytes().all(|b| b.is_ascii_lowercase())
}

fn strip_raw(i: &Ident) -> String {
    let s = i.to_string();
    s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
}

/// Every identifier the body of `item` names (functions it calls, constants, statics, names in
/// macros), except those only its patterns bind: the names generated parameters (`seed`,
/// `d<arg>`) must not take, lest they shadow a function or constant the body calls (`let a =
/// seed(x);`). Locals are renamed in generated code, so a `let dx = ..;` keeps `x`'s tangent
/// named `dx`; a name bound by a pattern and also called (`dx(..)`) is avoided.
pub fn body_idents(item: &syn::ItemFn) -> Vec<String> {
    struct Bound(Vec<String>, Vec<String>);
    impl<'ast> syn::visit::Visit<'ast> for Bound {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func {
                if let Some(id) = p.path.get_ident() {
                    self.1.push(id.to_string());
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    let mut bound = Bound(Vec::new(), Vec::new());
    syn::visit::Visit::visit_block(&mut bound, &item.block);
    let (bound, called) = (bound.0, bound.1);
    all_idents(item)
        .into_iter()
        .filter(|n| !bound.contains(n) || called.contains(n))
        .collect()
}

/// Every identifier in the body's tokens.
fn all_idents(item: &syn::ItemFn) -> Vec<String> {
    fn walk(ts: proc_macro2::TokenStream, out: &mut Vec<String>) {
        for t in ts {
            match t {
                proc_macro2::TokenTree::Ident(i) => {
                    let s = i.to_string();
                    if !out.contains(&s) {
                        out.push(s);
                    }
                }
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(quote::ToTokens::to_token_stream(&item.block), &mut out);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn body_idents_skip_locals_but_not_what_the_body_calls() {
        let f: syn::ItemFn = syn::parse_quote! {
            fn f(x: f64) -> f64 {
                let dx = 0.5;
                let dy = seed(x) + dz(dx) + K;
                let dz = 1.0;
                println!("{}", STEP);
                dy * dz
            }
        };
        let names = super::body_idents(&f);
        for taken in ["seed", "dz", "K", "STEP", "println"] {
            assert!(
                names.iter().any(|n| n == taken),
                "{taken} missing from {names:?}"
            );
        }
        for free in ["dx", "dy"] {
            assert!(!names.iter().any(|n| n == free), "{free} in {names:?}");
        }
    }

    use super::*;
    use std::collections::HashMap;

    /// Every hygienic name the macro mints, for functions whose variables carry adversarial
    /// names (spelt like generated ones), is minted for one owner only. The families by form:
    /// emitter locals `__ad_<word><n>`, lowering's variables `__ad_<word>_<n>`, renamed locals
    /// `<name>__<id>`, tangents `__ad_d_<generated name>` (`__ad_dp_` for arguments whose own
    /// name contains `__`), adjoints `__ad_b<id>_<name>`, gradient buffers `__ad_g_<arg>_0`.
    /// (Arguments' own names and the public `d<arg>`/`seed` names have the user's span, so
    /// they cannot meet these.)
    #[test]
    fn generated_names_have_one_owner_each() {
        let whats = [
            "a", "b", "c", "d", "dp", "dr", "g", "i", "k", "n", "p", "s", "t", "acc", "arr", "brk",
            "if", "l", "ret", "seq", "tup",
        ];
        let users = [
            "x", "c", "d", "g", "x__2", "x__2__3", "__ad_c_5", "__ad_c5", "d_x", "dp_x", "b3_x",
            "g_x", "_", "x_",
        ];
        let mut owners: HashMap<String, String> = HashMap::new();
        let mut mint = |name: Ident, owner: String| {
            if let Some(other) = owners.insert(name.to_string(), owner.clone()) {
                assert_eq!(other, owner, "`{name}` minted twice");
            }
        };
        for w in whats {
            for n in 0..40 {
                mint(local(w, n), format!("emitter local {w} {n}"));
                let v = Var {
                    name: synthetic(w, n),
                    mutable: false,
                    shape: crate::ir::Shape::Scalar,
                    origin: VarOrigin::Synthetic,
                    ty: None,
                    active: true,
                    row: None,
                };
                let owner = format!("lowering variable {w} #{n}");
                mint(var(&v, n), owner.clone());
                mint(tangent(&v, n), format!("tangent of {owner}"));
                mint(adjoint(&var(&v, n), n), format!("adjoint of variable #{n}"));
            }
        }
        for u in users {
            let name = Ident::new(u, Span::call_site());
            mint(grad_buffer(&name), format!("gradient buffer of {u}"));
            for id in 0..40 {
                for origin in [VarOrigin::Param(0), VarOrigin::Local, VarOrigin::LoopIndex] {
                    let v = Var {
                        name: name.clone(),
                        mutable: false,
                        shape: crate::ir::Shape::Scalar,
                        origin: origin.clone(),
                        ty: None,
                        active: true,
                        row: None,
                    };
                    // A function has one argument of each name, whatever its number.
                    let owner = if origin == VarOrigin::Param(0) {
                        format!("argument {u}")
                    } else {
                        mint(var(&v, id), format!("local {u} #{id}"));
                        format!("local {u} #{id}")
                    };
                    mint(tangent(&v, id), format!("tangent of {owner}"));
                    // One variable per number: its adjoint is named after the number.
                    mint(
                        adjoint(&var(&v, id), id),
                        format!("adjoint of variable #{id}"),
                    );
                }
            }
        }
    }
}
