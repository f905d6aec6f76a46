//! The fast path of a whole `<f>_jvp` body: takes the forward program, gives the body that runs
//! it once with every `fast` evaluation on the runtime's `Fast` numbers and no test anywhere
//! (`Lanes::Unchecked`), keeps that result unless some scalar of its output tangent is NaN, and
//! otherwise runs it again with every evaluation on `Dual` (`Lanes::Strong`), out of line:
//!
//! ```text
//! { let r = (move || -> (Out, Out) { unchecked body })();
//!   if whole_ok(&r) { return r; } }
//! strong_run(move || -> (Out, Out) { strong body })
//! ```
//!
//! (`strong_run` is `#[cold]` and never inlined, so `<f>_jvp` itself holds one copy of the body,
//! without tests, and stays small enough to be inlined into its callers.)
//!
//! The result is `Dual`'s bit for bit, as for one statement (the runtime's `fast.rs`): values
//! are computed by the same code on both paths, so every branch, loop trip, index, comparison,
//! `max`/`min` choice and integer conversion (all of which look at values only) is the same; a
//! tangent is computed from tangents by products with partials, sums and sign changes only, so a
//! term that is NaN in plain arithmetic (the only terms a strong zero replaces) makes every
//! tangent computed from it NaN, up to the output's. A NaN tangent that never reaches the output
//! changes nothing the function gives. So an output tangent without NaN had no such term on its
//! way, and every tangent that reached it is the one `Dual` computes. A call of another
//! function's `_jvp` gives `Dual`'s result on both runs (that `_jvp` makes the same choice
//! inside), so it is the same on both.
//!
//! Only where a second run is the first one again: every argument is copied into the closure
//! (`move`) and the copy is `Copy` (floats, integers, `bool`, arrays of them, shared references
//! to those and to slices and `Vec`s of them), so a body that writes or moves an argument leaves
//! the strong run the caller's; no `&mut` argument (its tangent is written in place); no
//! statement with an effect (`Forward::impure`: a plain call, a macro); calls only of functions
//! whose `_jvp` is known pure (`registry::pure_jvp`: differentiated earlier in the crate, with no
//! effect in their own `_jvp`), since a second run calls them again; no type parameter; an
//! output of floats (a float, an array or `Vec` of floats, tuples of those); some `fast`
//! evaluation (`has_fast`, else there is nothing to gain). Anything else keeps the per-statement
//! fast path (`fast.rs`).

use super::program::{tokens, Lanes, Op};
use crate::ir::Function;
use crate::names;
use proc_macro2::TokenStream;
use quote::quote;

/// The body of `<f>_jvp` for the forward program `ops` (`impure`: some statement of it is),
/// and whether that `_jvp` is pure (no effect outside its arguments: `registry::pure_jvp`).
pub(super) fn body(f: &Function, ops: &[Op], impure: bool) -> (TokenStream, bool) {
    let pure = !impure && ops.iter().all(pure_calls);
    if !pure || !eligible(f) || !ops.iter().any(has_fast) {
        return (tokens(ops, Lanes::One), pure);
    }
    let (r, rt, out) = (names::whole_result(), names::rt(), &f.output.ty);
    let (fast, strong) = (tokens(ops, Lanes::Unchecked), tokens(ops, Lanes::Strong));
    let body = quote! {
        {
            let #r = (move || -> (#out, #out) { #fast })();
            if #rt::whole_ok(&#r) {
                return #r;
            }
        }
        #rt::strong_run(move || -> (#out, #out) { #strong })
    };
    (body, pure)
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

/// Whether `op` (or an op inside it) evaluates something on `Fast` numbers.
fn has_fast(op: &Op) -> bool {
    let any = |b: &[Op]| b.iter().any(has_fast);
    match op {
        Op::Dual { fast, .. } | Op::Update { fast, .. } => *fast,
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
        | Op::CallJvp { .. }
        | Op::Push { .. } => false,
    }
}

/// Whether every call of another function's `_jvp` in `op` (or an op inside it) is of one known
/// pure (`Op::CallJvp::pure`).
fn pure_calls(op: &Op) -> bool {
    let all = |b: &[Op]| b.iter().all(pure_calls);
    match op {
        Op::CallJvp { pure, .. } => *pure,
        Op::For { body: b, .. } | Op::While { body: b, .. } | Op::Loop { body: b, .. } => all(b),
        Op::Block(b) => all(b),
        Op::If { then, els, .. } => all(then) && els.iter().all(|e| all(e)),
        Op::Match { arms, .. } => arms.iter().all(|(_, b)| all(b)),
        Op::Return { output, .. } => output.iter().all(|o| all(&o.pre)),
        Op::Output(o) => all(&o.pre),
        Op::Code(_)
        | Op::Let { .. }
        | Op::Set { .. }
        | Op::Assign { .. }
        | Op::Update { .. }
        | Op::Dual { .. }
        | Op::Push { .. } => true,
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
