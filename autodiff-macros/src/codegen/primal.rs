//! The primal printer: takes an IR expression and a way to name variables, gives the Rust
//! expression computing its value (the reverse sweep names variables by the values it saved).

use crate::ir::*;
use crate::names;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use std::cell::Cell;

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
    /// Whether a variable's name is itself a `&mut` reference (an in-out argument): `&r` is
    /// then printed `&*r` (`&&mut [T; N]` does not coerce to `&[T]`).
    pub reborrow: Option<&'a dyn Fn(VarId) -> bool>,
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
            ExprKind::Len(v) => {
                let b = (self.name)(*v);
                quote_spanned!(span=> #b.len())
            }
            // A field of a struct held whole, read through a check of what lowering took it
            // for (a float, or an integer a `let` annotation named), spanned at the field.
            ExprKind::Member {
                base,
                members,
                shape,
            } => {
                let (b, rt) = ((self.name)(*base), names::rt());
                let read = match shape {
                    Shape::Scalar => quote_spanned!(span=> float_read),
                    _ => quote_spanned!(span=> constant_read),
                };
                quote_spanned!(span=> #rt::#read(&#b #members))
            }
            ExprKind::ElemConst { seq, one } => {
                let (b, rt) = ((self.name)(*seq), names::rt());
                let f = if *one {
                    quote!(one_elem)
                } else {
                    quote!(zero_elem)
                };
                quote_spanned!(span=> #rt::#f(&#b[..]))
            }
            ExprKind::CopySeq(v, to) => copy_seq(&(self.name)(*v), *to),
            // `&mut *r` for an argument that is itself a `&mut` reference.
            ExprKind::MutRef(v, true, None) => {
                let b = (self.name)(*v);
                quote_spanned!(span=> &mut *#b)
            }
            ExprKind::MutRef(v, false, None) => {
                let b = (self.name)(*v);
                quote_spanned!(span=> &mut #b)
            }
            ExprKind::MutRef(v, _, Some(r)) => {
                let b = (self.name)(*v);
                let s = r.start.as_ref().map(|s| self.expr(s));
                let e = r.end.as_ref().map(|e| self.expr(e));
                let borrow = if r.inclusive {
                    quote_spanned!(span=> &mut #b[#s..=#e])
                } else {
                    quote_spanned!(span=> &mut #b[#s..#e])
                };
                borrowed_row(borrow, r.array.as_ref(), true)
            }
            ExprKind::SubSlice {
                base,
                start,
                end,
                inclusive,
                array,
            } => {
                let b = (self.name)(*base);
                let s = start.as_ref().map(|s| self.expr(s));
                let e = end.as_ref().map(|e| self.expr(e));
                let borrow = if *inclusive {
                    quote_spanned!(span=> &#b[#s..=#e])
                } else {
                    quote_spanned!(span=> &#b[#s..#e])
                };
                borrowed_row(borrow, array.as_ref(), false)
            }
            ExprKind::Poison => quote!(()),
            ExprKind::Ref(inner) if matches!(inner.kind, ExprKind::Var(v) if self.reborrow.is_some_and(|r| r(v))) =>
            {
                let x = self.expr(inner);
                quote_spanned!(span=> &*#x)
            }
            _ => {
                let kids: Vec<TokenStream> =
                    e.children().into_iter().map(|c| self.expr(c)).collect();
                compose(e, &kids)
            }
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
        let st = step.as_ref().map(|st| self.expr(st));
        range_tokens(
            &self.expr(start),
            &self.expr(end),
            *inclusive,
            *rev,
            st.as_ref(),
        )
    }
}

/// Names variables as the generated code does ([`names::var`]).
pub fn var_name(vars: &[Var]) -> impl Fn(VarId) -> TokenStream + '_ {
    move |v| names::var(&vars[v], v).to_token_stream()
}

/// A pass-through macro statement (`assert!`, `println!`) in a block that binds the user's names
/// of the variables it mentions (`visible`, resolved by lowering) to their generated names.
pub fn macro_stmt(m: &TokenStream, visible: &[VarId], vars: &[Var]) -> TokenStream {
    let binds = visible.iter().map(|&id| {
        let var = &vars[id];
        let (user, u) = (&var.name, names::var(var, id));
        match (&var.shape, &var.row) {
            (Shape::Scalar | Shape::Int | Shape::Bool, _) => quote!(let #user = #u;),
            // A nested array, flattened: seen as rows again.
            (_, Some(c)) => {
                let rt = names::rt();
                quote!(let #user = #rt::rows::<_, #c>(&#u[..]);)
            }
            _ => quote!(let #user = &#u;),
        }
    });
    quote!({ #(#binds)* #m; })
}

/// The conversion `form` applied to the value `x` (the forward sweep applies it to a value and
/// to its tangent alike).
pub fn convert(form: &CastForm, ty: &syn::Type, x: &TokenStream, span: Span) -> TokenStream {
    let e = match form {
        CastForm::As => return quote_spanned!(span=> (#x as #ty)),
        CastForm::Call { func, suffix } => quote_spanned!(span=> #func(#x) #suffix),
        CastForm::Method(tokens) => quote_spanned!(span=> (#x) #tokens),
    };
    // A target lowering knows is written down: generated code binds converted values to
    // `let`s of their own, where `x.into()` or `nalgebra::convert(x)` would have nothing left
    // to infer their type from.
    let inferred = match form {
        CastForm::Call { func, suffix } => {
            suffix.is_empty()
                && func
                    .clone()
                    .into_iter()
                    .last()
                    .is_some_and(|t| t.to_string() == "convert")
        }
        CastForm::Method(tokens) => tokens.to_string().replace(' ', "") == ".into()",
        CastForm::As => false,
    };
    if !inferred || matches!(ty, syn::Type::Infer(_)) {
        quote_spanned!(span=> (#e))
    } else {
        quote_spanned!(span=> ::core::convert::identity::<#ty>(#e))
    }
}

thread_local! {
    /// The function being expanded has a type parameter bounded by nalgebra's `RealField` (or
    /// `ComplexField`): see `compose`'s `Method` case. Set by `codegen::expand` per function.
    static REAL_FIELD: Cell<bool> = const { Cell::new(false) };
}

/// Records whether the function being expanded has a `RealField`-bounded type parameter.
pub fn set_real_field_generic(generics: &syn::Generics) {
    let bounded = |b: &syn::TypeParamBound| match b {
        syn::TypeParamBound::Trait(t) => t
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "RealField" || s.ident == "ComplexField"),
        _ => false,
    };
    let in_params = generics.type_params().any(|p| p.bounds.iter().any(bounded));
    let in_where = generics.where_clause.as_ref().is_some_and(|w| {
        w.predicates.iter().any(|p| match p {
            syn::WherePredicate::Type(t) => t.bounds.iter().any(bounded),
            _ => false,
        })
    });
    REAL_FIELD.with(|c| c.set(in_params || in_where));
}

/// An operation applied to its operands, already printed in `Expr::children` order: the part of
/// printing shared by the primal printer and the reverse sweep's recomputation. Leaves (`Lit`,
/// `Var`, `Opaque`, `Index`, `Len`, `CopySeq`, `SubSlice`) are printed by the callers.
pub fn compose(e: &Expr, kids: &[TokenStream]) -> TokenStream {
    let span = e.span;
    let k = |i: usize| kids.get(i).cloned().unwrap_or_default();
    match &e.kind {
        ExprKind::Binary { op, .. } => {
            let (l, r, o) = (k(0), k(1), binop_tokens(*op));
            quote_spanned!(span=> (#l #o #r))
        }
        ExprKind::Unary { op, .. } => {
            let x = k(0);
            match op {
                UnOp::Neg => quote_spanned!(span=> (-#x)),
                UnOp::Not => quote_spanned!(span=> (!#x)),
            }
        }
        ExprKind::Cast { ty, form, .. } => convert(form, ty, &k(0), span),
        ExprKind::Method { recv, method, .. } => {
            // `Float::exp(x)`, not `x.exp()`: every float method of the table is one of
            // `num_traits::Float`'s, and a type parameter bounded by nalgebra's `RealField` too
            // (the companions add `Float`) has two `exp` methods. A literal receiver takes its
            // type from the other operands (`Float::min(0.5, x)`). `min`, `max`, `clamp`,
            // `abs` and `signum` are integer methods too, and lowering cannot always tell an
            // integer receiver (`idx[0].min(2)`) from a float one: they stay method calls
            // unless the function has a `RealField` type parameter.
            let (r, a) = (k(0), &kids[1.min(kids.len())..]);
            let rt = names::rt();
            let int_too = matches!(
                method.to_string().as_str(),
                "min" | "max" | "clamp" | "abs" | "signum"
            );
            if int_too && !recv.is_untyped_constant() && !REAL_FIELD.with(Cell::get) {
                return quote_spanned!(span=> #r.#method(#(#a),*));
            }
            let args = std::iter::once(&r).chain(a);
            quote_spanned!(span=> #rt::Float::#method(#(#args),*))
        }
        ExprKind::PlainMethod {
            method, turbofish, ..
        } => {
            let (r, a) = (k(0), &kids[1.min(kids.len())..]);
            quote_spanned!(span=> #r.#method #turbofish (#(#a),*))
        }
        ExprKind::Call { func, .. } => quote_spanned!(span=> #func(#(#kids),*)),
        ExprKind::PlainCall { func, suffix, .. } => {
            quote_spanned!(span=> #func(#(#kids),*) #suffix)
        }
        ExprKind::Tuple(_) => quote_spanned!(span=> (#(#kids,)*)),
        ExprKind::Array(_) => quote_spanned!(span=> [#(#kids),*]),
        ExprKind::ArrayRepeat { len, .. } => {
            let x = k(0);
            quote_spanned!(span=> [#x; #len])
        }
        ExprKind::VecRepeat { .. } => {
            let (x, n) = (k(0), k(1));
            quote_spanned!(span=> ::std::vec![#x; #n])
        }
        ExprKind::VecList(_) => quote_spanned!(span=> ::std::vec![#(#kids),*]),
        ExprKind::VecNew { capacity } => match capacity {
            None => quote_spanned!(span=> ::std::vec::Vec::new()),
            Some(_) => {
                let c = k(0);
                quote_spanned!(span=> ::std::vec::Vec::with_capacity(#c))
            }
        },
        ExprKind::Field { index, .. } => {
            let b = k(0);
            let i = syn::Index::from(*index as usize);
            quote_spanned!(span=> #b.#i)
        }
        ExprKind::Ref(_) => {
            let x = k(0);
            quote_spanned!(span=> &#x)
        }
        // The identity, named so that the generated code reads like the source.
        ExprKind::StopGradient(_) => {
            let (x, rt) = (k(0), names::rt());
            quote_spanned!(span=> #rt::stop_gradient(#x))
        }
        ExprKind::Fixed(..) => k(0),
        // Leaves: printed by the callers.
        _ => quote!(()),
    }
}

/// `let x: T = *x;` for a float argument by reference (`let __ad_ref_x = x; let mut x: T =
/// *__ad_ref_x;` for `&mut`, which the companions write back at every exit).
pub fn scalar_ref_rebind(p: &Param) -> Option<TokenStream> {
    let n = &p.name;
    // A field argument's type is not written anywhere (`lower/structs.rs`): inferred.
    let ty = p.elem_ty.as_ref().map(|t| quote!(: #t));
    Some(match p.scalar_ref()? {
        false => quote!(let #n #ty = *#n;),
        true => {
            let r = names::param_ref(n, false);
            quote!(let #r = #n; let mut #n #ty = *#r;)
        }
    })
}

/// `*__ad_ref_x = x;`: a `&mut` float argument's value written back through its reference (a
/// float field of a lent struct: into the struct, `self.k = k;`).
pub fn scalar_ref_write_back(p: &Param) -> Option<TokenStream> {
    if let Some(back) = super::lend::write_back(p) {
        return Some(back);
    }
    if p.scalar_ref()? {
        let n = &p.name;
        let r = names::param_ref(n, false);
        Some(quote!(*#r = #n;))
    } else {
        None
    }
}

/// The type annotation of a pattern, rebuilt from its names' annotations (`_` where a name has
/// none; `(f64, _)` for a tuple), or `None` when no name has one.
pub fn pat_type(vars: &[Var], pat: &Pat) -> Option<TokenStream> {
    match pat {
        Pat::Wild => None,
        Pat::Bind(v) => match &vars[*v].ty {
            Some(ty) if vars[*v].origin == VarOrigin::Local => Some(quote!(#ty)),
            _ => None,
        },
        Pat::Tuple(ps) => {
            let tys: Vec<Option<TokenStream>> = ps.iter().map(|p| pat_type(vars, p)).collect();
            if tys.iter().all(Option::is_none) {
                return None;
            }
            let items = tys.into_iter().map(|t| t.unwrap_or_else(|| quote!(_)));
            Some(quote!((#(#items,)*)))
        }
    }
}

/// A copy of the sequence named `b`: `[T; N]` from an array or a reference to one, or `Vec<T>`.
pub fn copy_seq(b: &TokenStream, to: CopyTo) -> TokenStream {
    let rt = names::rt();
    match to {
        CopyTo::Array => quote!(#rt::copy_array(&#b)),
        CopyTo::Vec => quote!(::std::borrow::ToOwned::to_owned(&#b[..])),
        CopyTo::Struct(true) => quote!(::core::clone::Clone::clone(#b)),
        CopyTo::Struct(false) => quote!(::core::clone::Clone::clone(&#b)),
    }
}

/// `(s..e)` or `(s..=e)`, then `.rev()`, then `.step_by(step)`.
pub fn range_tokens(
    s: &TokenStream,
    e: &TokenStream,
    inclusive: bool,
    rev: bool,
    step: Option<&TokenStream>,
) -> TokenStream {
    let mut t = if inclusive {
        quote!((#s..=#e))
    } else {
        quote!((#s..#e))
    };
    if rev {
        t = quote!(#t.rev());
    }
    if let Some(st) = step {
        t = quote!(#t.step_by(#st));
    }
    t
}

/// A borrowed sub-slice (`&v[a..b]`, `&mut v[a..b]`) as it is passed: as is; for a row of a
/// nested array, as an array of the row's length (`row::<_, N>(&v[a..b])`), which a callee
/// taking `&[T; N]` needs and one taking `&[T]` accepts by coercion; for a whole nested array, as
/// rows again (`rows::<_, C>(&v[..])`).
pub fn borrowed_row(
    borrow: TokenStream,
    array: Option<&crate::ir::Nesting>,
    mutable: bool,
) -> TokenStream {
    use crate::ir::Nesting;
    let rt = crate::names::rt();
    match (array, mutable) {
        (None, _) => borrow,
        (Some(Nesting::Row(n)), false) => quote!(#rt::row::<_, #n>(#borrow)),
        (Some(Nesting::Row(n)), true) => quote!(#rt::row_mut::<_, #n>(#borrow)),
        (Some(Nesting::Rows(c)), false) => quote!(#rt::rows::<_, #c>(#borrow)),
        (Some(Nesting::Rows(c)), true) => quote!(#rt::rows_mut::<_, #c>(#borrow)),
    }
}
