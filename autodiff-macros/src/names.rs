//! Every identifier the generated code introduces comes from here. Generated locals use
//! `Span::mixed_site()` so they can never capture or shadow a user's variable.

use crate::ir::{Var, VarId, VarOrigin};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

/// The one path generated code uses to reach the runtime.
pub fn rt() -> TokenStream {
    quote!(::autodiff_runtime::__private)
}

/// A hygienic generated local of an emitter: `__ad_<what><n>`.
pub fn local(what: &str, n: usize) -> Ident {
    format_ident!("__ad_{}{}", what, n, span = Span::mixed_site())
}

/// A variable the IR itself introduces (lowering's temporaries, normalisation's flags), named
/// after its `VarId`: `__ad_<what>_<id>`. The `_` before the number keeps these apart from the
/// emitters' [`local`]s, whose counters are independent.
pub fn synthetic(what: &str, id: VarId) -> Ident {
    format_ident!("__ad_{}_{}", what, id, span = Span::mixed_site())
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

/// The tangent (forward mode) of a user variable, shadowed together with it.
pub fn tangent(name: &Ident) -> Ident {
    format_ident!("__ad_d_{}", strip_raw(name), span = Span::mixed_site())
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

fn strip_raw(i: &Ident) -> String {
    let s = i.to_string();
    s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lowering's variables and the emitters' temporaries are numbered by independent counters
    /// (`synthetic("c", n)` for chain temporaries, `local("c", n)` for forward mode's cast
    /// temporaries): their names must never meet, whatever the numbers.
    #[test]
    fn synthetic_variables_and_emitter_locals_never_collide() {
        let whats = [
            "c", "i", "acc", "tup", "k", "if", "brk", "ret", "a", "b", "g", "s", "t",
        ];
        let mut synth = std::collections::HashSet::new();
        for w in whats {
            for n in 0..200 {
                synth.insert(synthetic(w, n).to_string());
            }
        }
        for w in whats {
            for n in 0..200 {
                assert!(!synth.contains(&local(w, n).to_string()), "{}", local(w, n));
            }
        }
    }
}
