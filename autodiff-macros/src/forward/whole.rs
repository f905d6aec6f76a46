//! The fast path of a whole `<f>_jvp` body: takes the forward program, gives the body that runs
//! it once with every `fast` evaluation on the runtime's `Fast` numbers and no test anywhere
//! (`Lanes::Unchecked`), keeps that result unless some scalar of its output tangent is NaN, and
//! otherwise runs it again with every evaluation on `Dual` (`Lanes::Strong`):
//!
//! ```text
//! { let r = (move || -> (Out, Out) { unchecked body })();
//!   if whole_ok(&r) { return r; } strong_path(); }
//! strong body
//! ```
//!
//! The result is `Dual`'s bit for bit, as for one statement (the runtime's `fast.rs`): values
//! are computed by the same code on both paths, so every branch, loop trip, index, comparison,
//! `max`/`min` choice and integer conversion (all of which look at values only) is the same; a
//! tangent is computed from tangents by products with partials, sums and sign changes only, so a
//! term that is NaN in plain arithmetic (the only terms a strong zero replaces) makes every
//! tangent computed from it NaN, up to the output's. A NaN tangent that never reaches the output
//! changes nothing the function gives. So an output tangent without NaN had no such term on its
//! way, and every tangent that reached it is the one `Dual` computes.
//!
//! Only where a second run is the first one again: every argument is copied into the closure
//! (`move`) and the copy is `Copy` (floats, integers, `bool`, arrays of them, shared references
//! to those and to slices and `Vec`s of them), so a body that writes or moves an argument leaves
//! the strong run the caller's; no `&mut` argument (its tangent is written in place); no
//! statement with an effect (`Forward::impure`: a plain call, a macro); no type parameter; an
//! output of floats (a float, an array or `Vec` of floats, tuples of those); a loop with a fast
//! evaluation inside (`has_fast`); no call of another function's `_jvp` (`calls`). Anything else keeps the per-statement fast path (`fast.rs`).

use super::program::{tokens, Lanes, Op};
use crate::ir::Function;
use crate::names;
use proc_macro2::TokenStream;
use quote::quote;

/// The body of `<f>_jvp` for the forward program `ops` (`impure`: some statement of it is).
pub(super) fn body(f: &Function, ops: &[Op], impure: bool) -> TokenStream {
    if impure || !eligible(f) || !ops.iter().any(|o| has_fast(o, false)) || ops.iter().any(calls) {
        return tokens(ops, Lanes::One);
    }
    let (r, rt, out) = (names::whole_result(), names::rt(), &f.output.ty);
    let (fast, strong) = (tokens(ops, Lanes::Unchecked), tokens(ops, Lanes::Strong));
    quote! {
        {
            let #r = (move || -> (#out, #out) { #fast })();
            if #rt::whole_ok(&#r) {
                return #r;
            }
            #rt::strong_path();
        }
        #strong
    }
}

/// Whether `f`'s `_jvp` can run its body twice (the module docs).
fn eligible(f: &Function) -> bool {
    let sig = &f.item.sig;
    let out = &f.output;
    sig.receiver().is_none()
        && sig.generics.type_params().next().is_none()
        && !out.is_unit()
        && out.nest.is_none()
        && out.na.is_none()
        && out.strukt.is_none()
        && float_out(&out.ty)
        && f.params.iter().all(|p| {
            p.field.is_none()
                && p.strukt.is_none()
                && p.na.is_none()
                && p.nest.is_none()
                && !p.inout
                && copy_arg(&p.ty)
        })
}

/// Whether `op` (or an op inside it) evaluates something on `Fast` numbers inside a loop
/// (`looped`: `op` is in one). A body without such a loop keeps the per-statement fast path: its
/// few tests cost less than the second body, which makes it a worse candidate for inlining into
/// its callers (measured: the RK4 problem's `lotka_volterra`, ARCHITECTURE.md).
fn has_fast(op: &Op, looped: bool) -> bool {
    let any = |b: &[Op], l: bool| b.iter().any(|o| has_fast(o, l));
    match op {
        Op::Dual { fast, .. } | Op::Update { fast, .. } => *fast && looped,
        Op::For { body: b, .. } | Op::While { body: b, .. } | Op::Loop { body: b, .. } => {
            any(b, true)
        }
        Op::Block(b) => any(b, looped),
        Op::If { then, els, .. } => any(then, looped) || els.iter().any(|e| any(e, looped)),
        Op::Match { arms, .. } => arms.iter().any(|(_, b)| any(b, looped)),
        Op::Return { output, .. } => output.iter().any(|o| any(&o.pre, looped)),
        Op::Output(o) => any(&o.pre, looped),
        Op::Code(_)
        | Op::Let { .. }
        | Op::Set { .. }
        | Op::Assign { .. }
        | Op::CallJvp { .. }
        | Op::Push { .. } => false,
    }
}

/// Whether `op` (or an op inside it) calls another function's `_jvp`. Such a body keeps the
/// per-statement path: measured on the RK4 problem (four calls per step), two bodies each with
/// the calls ran slower than one with tests (the callees no longer inlined, by the look of it).
fn calls(op: &Op) -> bool {
    let any = |b: &[Op]| b.iter().any(calls);
    match op {
        Op::CallJvp { .. } => true,
        Op::For { body: b, .. } | Op::While { body: b, .. } | Op::Loop { body: b, .. } => any(b),
        Op::Block(b) => any(b),
        Op::If { then, els, .. } => any(then) || els.iter().any(|e| any(e)),
        Op::Match { arms, .. } => arms.iter().any(|(_, b)| any(b)),
        Op::Return { output, .. } => output.iter().any(|o| any(&o.pre)),
        Op::Output(o) => any(&o.pre),
        Op::Code(_)
        | Op::Let { .. }
        | Op::Set { .. }
        | Op::Assign { .. }
        | Op::Update { .. }
        | Op::Dual { .. }
        | Op::Push { .. } => false,
    }
}

/// The last identifier of a path type without generic arguments (`f64`, `usize`).
fn word(t: &syn::Type) -> Option<String> {
    match t {
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            let s = &p.path.segments[0];
            s.arguments.is_none().then(|| s.ident.to_string())
        }
        syn::Type::Paren(p) => word(&p.elem),
        syn::Type::Group(g) => word(&g.elem),
        _ => None,
    }
}

/// `f32` or `f64`.
fn float(t: &syn::Type) -> bool {
    word(t).is_some_and(|w| w == "f32" || w == "f64")
}

/// A float, integer or `bool` type.
fn scalar(t: &syn::Type) -> bool {
    const INTS: [&str; 13] = [
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
        "bool",
    ];
    float(t) || word(t).is_some_and(|w| INTS.contains(&w.as_str()))
}

/// The element type of `Vec<T>`.
fn vec_elem(t: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = t else { return None };
    let s = p.path.segments.last()?;
    if p.qself.is_some() || s.ident != "Vec" {
        return None;
    }
    match &s.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// An output whose tangent `whole_ok` reads: a float, an array or `Vec` of floats, a tuple of
/// those.
fn float_out(t: &syn::Type) -> bool {
    match t {
        syn::Type::Array(a) => float(&a.elem),
        syn::Type::Tuple(t) => {
            !t.elems.is_empty() && t.elems.len() <= 8 && t.elems.iter().all(float_out)
        }
        syn::Type::Paren(p) => float_out(&p.elem),
        _ => float(t) || vec_elem(t).is_some_and(float),
    }
}

/// An argument type that is `Copy` and whose tangent is too: a scalar, an array of scalars, a
/// shared reference to one of those or to a slice or `Vec` of scalars.
fn copy_arg(t: &syn::Type) -> bool {
    match t {
        syn::Type::Array(a) => scalar(&a.elem),
        syn::Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
            syn::Type::Slice(s) => scalar(&s.elem),
            e => copy_arg(e) || vec_elem(e).is_some_and(scalar),
        },
        syn::Type::Paren(p) => copy_arg(&p.elem),
        _ => scalar(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> syn::Type {
        syn::parse_str(s).unwrap()
    }

    /// Which argument and output types the whole-body fast path takes.
    #[test]
    fn types_taken() {
        for t in [
            "f64",
            "usize",
            "[f64; 3]",
            "&[f64]",
            "&Vec<f64>",
            "&f64",
            "&[f32; 4]",
        ] {
            assert!(copy_arg(&ty(t)), "{t}");
        }
        for t in [
            "Vec<f64>",
            "&mut [f64]",
            "&mut f64",
            "T",
            "&Vec<Vec<f64>>",
            "State",
            "&State",
            "&[[f64; 2]]",
        ] {
            assert!(!copy_arg(&ty(t)), "{t}");
        }
        for t in ["f64", "f32", "Vec<f64>", "[f64; 2]", "(f64, Vec<f64>)"] {
            assert!(float_out(&ty(t)), "{t}");
        }
        for t in ["()", "usize", "T", "Vec<Vec<f64>>", "(f64, usize)", "State"] {
            assert!(!float_out(&ty(t)), "{t}");
        }
    }
}
