//! Ragged sequences: takes arguments whose rows may have different lengths (`&[Vec<T>]`,
//! `&mut [Vec<T>]`, `&Vec<Vec<T>>`, `&mut Vec<Vec<T>>`, `Vec<Vec<T>>`, `T` a float) and the code
//! that reads and writes them, gives the same code over one flat row-major sequence plus an
//! integer argument of its own holding the row offsets (`off`, `rows + 1` of them, bound by the
//! public companions, `codegen/nested.rs`): `m[i][j]` is `m[off[i] + j]`, a row `m[i]` is the
//! view `m[off[i]..off[i + 1]]` (a slice where it is passed on), `m.iter()` iterates over such
//! views (`ISeq::Rows`), `m.len()` is `off.len() - 1`, `m[i].len()` is `off[i + 1] - off[i]`.
//! Everything after lowering sees a flat sequence and an integer sequence only.
//!
//! A ragged variable is never used whole: its flat form would mean something else (its length,
//! its elements), so every use other than indexing and iterating over rows is reported
//! (`check_ragged_uses`). Locals and outputs holding rows of rows are reported where they are
//! written.

use super::build::{bin, int_lit};
use super::chains::ISeq;
use super::*;

impl Lowerer<'_> {
    /// A ragged argument type as its flat form and element type: `&[Vec<T>]` and `&Vec<Vec<T>>`
    /// are `&[T]`, with `&mut` kept, `Vec<Vec<T>>` is `Vec<T>`. `None` for any other type.
    pub(super) fn ragged_type(&self, ty: &syn::Type) -> Option<(syn::Type, syn::Type)> {
        let span = ty.span();
        match ty {
            syn::Type::Reference(r) => {
                let elem = match &*r.elem {
                    syn::Type::Slice(s) => self.float_vec(&s.elem)?,
                    t => self.vec_of_vecs(t)?,
                };
                let (lt, m) = (&r.lifetime, &r.mutability);
                Some((syn::parse_quote_spanned!(span=> &#lt #m [#elem]), elem))
            }
            syn::Type::Paren(p) => self.ragged_type(&p.elem),
            syn::Type::Group(g) => self.ragged_type(&g.elem),
            t => {
                let elem = self.vec_of_vecs(t)?;
                Some((
                    syn::parse_quote_spanned!(span=> ::std::vec::Vec<#elem>),
                    elem,
                ))
            }
        }
    }

    /// `Vec<T>` with `T` a float: `T`.
    fn float_vec(&self, t: &syn::Type) -> Option<syn::Type> {
        match t {
            syn::Type::Paren(p) => self.float_vec(&p.elem),
            syn::Type::Path(_) if matches!(self.classify(t), TypeClass::Seq(SeqKind::Vec)) => {
                seq_elem(t)
            }
            _ => None,
        }
    }

    /// `Vec<Vec<T>>` with `T` a float: `T`.
    fn vec_of_vecs(&self, t: &syn::Type) -> Option<syn::Type> {
        let syn::Type::Path(tp) = t else {
            return None;
        };
        let last = tp.path.segments.last()?;
        if last.ident != "Vec" {
            return None;
        }
        let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
            return None;
        };
        match a.args.first()? {
            syn::GenericArgument::Type(inner) => self.float_vec(inner),
            _ => None,
        }
    }

    /// A ragged argument (`m: &[Vec<T>]`...): the flat sequence the body works on, with a
    /// field argument of its own for the row offsets. `None` for any other argument.
    pub(super) fn ragged_param(
        &mut self,
        i: usize,
        pt: &syn::PatType,
        name: &syn::Ident,
        mutable: bool,
        selected: bool,
    ) -> Option<Param> {
        let (flat, elem) = self.ragged_type(&pt.ty)?;
        let (shape, elem_ty, inout) = self.param_shape(&flat, selected, name);
        let elem_ty = elem_ty.or(Some(elem));
        let var = self.new_var(
            name.clone(),
            mutable || inout,
            shape.clone(),
            VarOrigin::Param(i),
            Some(flat.clone()),
        );
        self.bind(name, var);
        let id = crate::names::synthetic("off", self.vars.len());
        let off_ty: syn::Type = syn::parse_quote!(&[usize]);
        let off = self.new_var(
            id.clone(),
            false,
            Shape::Other,
            VarOrigin::Param(2000 + i),
            Some(off_ty.clone()),
        );
        self.ragged.insert(var, off);
        self.ragged_fields
            .push(Param::pass_through(off, id, off_ty));
        let row = ArrayLen::of_items(0);
        Some(Param {
            var,
            name: name.clone(),
            ty: flat,
            active: selected && shape.is_float(),
            shape,
            elem_ty,
            inout,
            nest: Some(Nest {
                ty: (*pt.ty).clone(),
                row,
                ragged: Some(off),
            }),
            strukt: None,
            field: None,
            na: None,
        })
    }

    /// `off[e]` of the row offsets `off`.
    fn offset_at(off: VarId, e: Expr) -> Expr {
        let span = e.span;
        Expr::new(
            ExprKind::Index {
                base: off,
                index: Box::new(e),
            },
            span,
        )
    }

    /// Row `i` of a ragged variable `v` as a view `v[off[i]..off[i + 1]]` (`i` lowered).
    pub(super) fn ragged_view(&mut self, v: VarId, i: Expr, out: &mut Vec<Stmt>) -> Option<View> {
        let off = *self.ragged.get(&v)?;
        let span = i.span;
        // The index is read twice (start and end): bound to a name when it calls a function.
        let i = if i.has_call() { self.once(i, out) } else { i };
        let start = Self::offset_at(off, i.clone());
        let end = Self::offset_at(off, bin(BinOp::Add, i, int_lit(1, span)));
        Some(View {
            base: v,
            offset: start.clone(),
            len: bin(BinOp::Sub, end, start),
            mutable: false,
            row: None,
        })
    }

    /// The rows of a ragged variable iterated (`m.iter()`, `for r in m`).
    pub(super) fn ragged_rows(&self, v: VarId) -> Option<ISeq> {
        let off = *self.ragged.get(&v)?;
        Some(ISeq::Rows {
            var: v,
            offsets: off,
            mutable: false,
        })
    }

    /// The number of rows of a ragged variable, `off.len() - 1`.
    pub(super) fn ragged_len(off: VarId, span: Span) -> Expr {
        bin(
            BinOp::Sub,
            Expr::new(ExprKind::Len(off), span),
            int_lit(1, span),
        )
    }

    /// Whether `v` is a ragged variable (not a view of one).
    pub(super) fn is_ragged(&self, v: VarId) -> bool {
        self.ragged.contains_key(&v)
    }

    /// A method of a ragged variable `m` or of a row `m[i]`: `m.len()`, `m[i].len()`,
    /// `m[i].to_vec()`; any other method of `m` itself is reported. `None`: not a method of
    /// either (row methods such as `iter` are chain sources, lowered by `chains.rs`).
    pub(super) fn ragged_method(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Expr> {
        let span = m.span();
        let name = m.method.to_string();
        if let syn::Expr::Index(ix) = strip_parens(&m.receiver) {
            let v = self.var_of_path(&ix.expr)?;
            if !self.is_ragged(v) || matches!(&*ix.index, syn::Expr::Range(_)) {
                return None;
            }
            return match name.as_str() {
                "len" | "is_empty" if m.args.is_empty() => {
                    let i = self.expr(&ix.index, out);
                    let view = self.ragged_view(v, i, out)?;
                    Some(match name.as_str() {
                        "len" => view.len,
                        _ => bin(BinOp::Eq, view.len, int_lit(0, span)),
                    })
                }
                "to_vec" | "to_owned" if m.args.is_empty() => Some(self.view_to_vec(m, out)),
                _ => None,
            };
        }
        let v = self.var_of_path(&m.receiver)?;
        let off = *self.ragged.get(&v)?;
        Some(match name.as_str() {
            "len" if m.args.is_empty() => Self::ragged_len(off, span),
            "is_empty" if m.args.is_empty() => bin(
                BinOp::Eq,
                Expr::new(ExprKind::Len(off), span),
                int_lit(1, span),
            ),
            // Chain sources (`iter`, `iter_mut`...) are lowered by the chain they start.
            _ if super::chains::ADAPTORS.contains(&name.as_str()) => return None,
            _ => self.poison(
                &m.method,
                &format!("the method `{name}` of a sequence of `Vec`s (yet)"),
                "index rows and elements (`m[i]`, `m[i][j]`, `m[i].len()`, `m.len()`), iterate over the \
                 rows (`for r in m.iter()`), or write a loop",
            ),
        })
    }

    /// `m[i] = ..` with `m` ragged: reported (`true`) — a whole row is not assigned.
    pub(super) fn ragged_row_assign(&mut self, a: &syn::ExprAssign) -> bool {
        let syn::Expr::Index(ix) = strip_parens(&a.left) else {
            return false;
        };
        if !self
            .var_of_path(&ix.expr)
            .is_some_and(|v| self.is_ragged(v))
        {
            return false;
        }
        self.diag.unsupported_at(
            &a.left,
            "assigning a whole row of a sequence of `Vec`s",
            "write its elements (`m[i][j] = ..`, or `for (j, y) in m[i].iter_mut().enumerate()`)",
        );
        true
    }

    /// A `let` whose type or value is rows of `Vec`s. `let [mut] m[: Vec<Vec<T>>] = vec![vec![e;
    /// c]; r];` (rows of one length) becomes flat storage and its offsets, lowered as
    /// `let rr: usize = r; let rc: usize = c; let m = vec![e; rr * rc];` and `let off:
    /// Vec<usize> = ragged::rect_offsets(rr, rc);`, `m` then ragged like an argument; so does
    /// `let m2 = m.clone();` (or `to_vec()`) of a ragged variable, sharing its offsets. Any other
    /// such `let` (`Vec::new()` then pushed rows, `vec![vec![..], ..]`) is reported. `true`:
    /// handled (lowered or reported).
    pub(super) fn ragged_local(
        &mut self,
        pat: &syn::Pat,
        ty: Option<&syn::Type>,
        init: Option<&syn::Expr>,
        out: &mut Vec<Stmt>,
    ) -> bool {
        if let (syn::Pat::Ident(pi), Some(e)) = (pat, init) {
            if pi.by_ref.is_none() && pi.subpat.is_none() {
                if let Some(src) = self.ragged_copy_source(e) {
                    if ty.is_none_or(|t| self.vec_of_vecs(t).is_some()) {
                        self.ragged_copy(pi, src, e, out);
                        return true;
                    }
                }
            }
        }
        let at: &dyn ToTokens = match (ty, init) {
            (Some(t), _) if self.ragged_type(t).is_some() => t,
            (_, Some(e)) if vec_of_vecs_literal(e) => e,
            _ => return false,
        };
        if let (syn::Pat::Ident(pi), Some(e)) = (pat, init) {
            let elem = match ty {
                Some(t) => self.vec_of_vecs(t).map(Some),
                None => Some(None),
            };
            if let (Some(elem), Some((x, c, r)), None, None) =
                (elem, rect_literal(e), &pi.by_ref, &pi.subpat)
            {
                self.ragged_rect(pi, elem, (x, c, r), out);
                return true;
            }
        }
        self.diag.unsupported_at(
            at,
            "local variables holding rows of `Vec`s other than `vec![vec![x; cols]; rows]` or a \
             copy of rows (`m.to_vec()`) (yet)",
            "build the rows with `vec![vec![0.0; cols]; rows]` and write their elements, keep \
             the data flat (`let m = vec![0.0; rows * cols];`, `m[i * cols + j]`), or take the \
             rows as an argument (`m: &[Vec<f64>]`, `m: &mut [Vec<f64>]`)",
        );
        if let syn::Pat::Ident(pi) = pat {
            self.poisoned_names.push(pi.ident.to_string());
        }
        true
    }

    /// `let m = vec![vec![x; c]; r];`: see [`Self::ragged_local`].
    fn ragged_rect(
        &mut self,
        pi: &syn::PatIdent,
        elem: Option<syn::Type>,
        (x, c, r): (syn::Expr, syn::Expr, syn::Expr),
        out: &mut Vec<Stmt>,
    ) {
        let n = self.vars.len();
        let (rr, rc) = (
            crate::names::synthetic("rrows", n),
            crate::names::synthetic("rcols", n),
        );
        let off = crate::names::synthetic("roff", n);
        let (m, name) = (&pi.mutability, &pi.ident);
        let rt = crate::names::rt();
        let ty = elem.map(|t| quote::quote!(: ::std::vec::Vec<#t>));
        let stmts: [syn::Stmt; 4] = [
            syn::parse_quote_spanned!(r.span()=> let #rr: usize = #r;),
            syn::parse_quote_spanned!(c.span()=> let #rc: usize = #c;),
            syn::parse_quote_spanned!(pi.span()=> let #m #name #ty = vec![#x; #rr * #rc];),
            syn::parse_quote!(let #off: ::std::vec::Vec<usize> = #rt::ragged::rect_offsets(#rr, #rc);),
        ];
        for st in &stmts {
            if let syn::Stmt::Local(l) = st {
                self.local(l, out);
            }
        }
        if let (Some(v), Some(o)) = (
            self.lookup(&name.to_string()),
            self.lookup(&off.to_string()),
        ) {
            self.ragged.insert(v, o);
        }
    }

    /// The ragged variable `e` copies whole (`m.clone()`, `m.to_vec()`, `m.to_owned()`).
    fn ragged_copy_source(&self, e: &syn::Expr) -> Option<VarId> {
        let syn::Expr::MethodCall(mc) = strip_parens(e) else {
            return None;
        };
        if !mc.args.is_empty()
            || !matches!(
                mc.method.to_string().as_str(),
                "clone" | "to_vec" | "to_owned"
            )
        {
            return None;
        }
        self.var_of_path(&mc.receiver)
            .filter(|v| self.is_ragged(*v))
    }

    /// `let m2 = m.clone();` of a ragged `m`: the flat storage copied (`m.to_vec()`), the
    /// offsets shared (they never change).
    fn ragged_copy(&mut self, pi: &syn::PatIdent, src: VarId, e: &syn::Expr, out: &mut Vec<Stmt>) {
        let off = self.ragged[&src];
        let (m, name) = (&pi.mutability, &pi.ident);
        let from = &self.vars[src].name;
        let st: syn::Stmt = syn::parse_quote_spanned!(e.span()=> let #m #name = #from.to_vec(););
        // The copy is lowered from the flat storage: the source is not ragged for this read.
        self.ragged.remove(&src);
        if let syn::Stmt::Local(l) = &st {
            self.local(l, out);
        }
        self.ragged.insert(src, off);
        if let Some(v) = self.lookup(&name.to_string()) {
            self.ragged.insert(v, off);
        }
    }

    /// The argument of its own an output holding rows of `Vec`s (`-> Vec<Vec<T>>`) writes its
    /// row offsets into (`&mut Vec<usize>`, after the function's arguments in the inner
    /// companions; the public ones give the rows back from it, `codegen/nested.rs`).
    pub(super) fn ragged_output_rows(&mut self) -> VarId {
        let id = crate::names::synthetic("orows", self.vars.len());
        let ty: syn::Type = syn::parse_quote!(&mut ::std::vec::Vec<usize>);
        let var = self.new_var(
            id.clone(),
            false,
            Shape::Other,
            VarOrigin::Param(4000),
            Some(ty.clone()),
        );
        self.ragged_fields.push(Param::pass_through(var, id, ty));
        var
    }

    /// The value of a function giving rows of `Vec`s: its tail names a ragged local or a copy of
    /// rows (`m`), whose offsets a statement at the end of the body writes into the output's
    /// `rows` argument. Any other value is reported.
    pub(super) fn ragged_output(
        &mut self,
        rows: VarId,
        body: &mut Vec<Stmt>,
        tail: Option<&Expr>,
        span: Span,
    ) {
        let m = match tail.map(|t| &t.kind) {
            Some(ExprKind::Var(v)) if self.is_ragged(*v) => *v,
            _ => {
                self.diag.unsupported(
                    tail.map_or(span, |t| t.span),
                    "this value of a function giving rows of `Vec`s (`Vec<Vec<T>>`): it must \
                     end its body naming a local built by `vec![vec![x; cols]; rows]` or a copy \
                     of rows (`m.to_vec()`) (yet)",
                    "build the rows in a local (`let mut out = vec![vec![0.0; cols]; rows];`), \
                     write their elements, and end the body with `out`",
                );
                return;
            }
        };
        let off = self.ragged[&m];
        let rt = crate::names::rt();
        let (rows_name, off_name) = (&self.vars[rows].name, &self.vars[off].name);
        let tokens = quote::quote!(#rt::ragged::set_rows(#rows_name, &#off_name));
        body.push(Stmt::Macro(tokens, vec![off]));
    }

    /// After lowering: every use of a ragged variable other than through its rows and elements
    /// (read whole, copied, borrowed whole, passed on, assigned, pushed to, named in a macro)
    /// is reported: its flat form would mean something else.
    pub(super) fn check_ragged_uses(&mut self, body: &[Stmt], tail: Option<&Expr>) {
        if self.ragged.is_empty() {
            return;
        }
        let ragged = &self.ragged;
        let mut whole: Vec<(Span, VarId)> = Vec::new();
        let mut check = |e: &Expr| match &e.kind {
            ExprKind::Var(v)
            | ExprKind::CopySeq(v, _)
            | ExprKind::MutRef(v, _, None)
            | ExprKind::Len(v)
                if ragged.contains_key(v) =>
            {
                whole.push((e.span, *v))
            }
            ExprKind::SubSlice {
                base,
                start: None,
                end: None,
                ..
            } if ragged.contains_key(base) => whole.push((e.span, *base)),
            _ => {}
        };
        // `let c = m.to_vec();` into another ragged variable sharing `m`'s offsets: a copy of
        // the rows, not a whole use (`ragged_copy`).
        let mut copies: Vec<*const Expr> = Vec::new();
        visit_stmt_list(body, &mut |x: &Stmt| {
            if let Stmt::Let {
                pat: Pat::Bind(t),
                init: Some(e),
            } = x
            {
                if let ExprKind::CopySeq(src, _) = &e.kind {
                    if ragged.get(t).is_some_and(|o| ragged.get(src) == Some(o)) {
                        copies.push(e);
                    }
                }
            }
        });
        for s in body {
            walk_stmt_exprs(s, &mut |e| {
                if !copies.contains(&(e as *const Expr)) {
                    e.visit(&mut check)
                }
            });
        }
        if let Some(t) = tail {
            t.visit(&mut check);
        }
        let mut written: Vec<(Span, VarId)> = Vec::new();
        visit_stmt_list(body, &mut |x: &Stmt| match x {
            Stmt::Push { vec, value } if ragged.contains_key(vec) => {
                written.push((value.span, *vec))
            }
            Stmt::Assign {
                place: Place::Var(v),
                value,
                ..
            } if ragged.contains_key(v) => written.push((value.span, *v)),
            Stmt::Macro(tokens, vars) => {
                if let Some(v) = vars.iter().find(|v| ragged.contains_key(v)) {
                    let span = tokens
                        .clone()
                        .into_iter()
                        .next()
                        .map_or_else(Span::call_site, |t| t.span());
                    written.push((span, *v));
                }
            }
            _ => {}
        });
        let mut seen = std::collections::HashSet::new();
        for (span, v) in whole {
            if !seen.insert(format!("{span:?}")) {
                continue;
            }
            let name = self.vars[v].name.to_string();
            self.diag.unsupported(
                span,
                &format!(
                    "using `{name}`, a sequence of `Vec`s, whole here (passed on, copied, \
                     compared or bound to another name) (yet)"
                ),
                &format!(
                    "use its rows and elements (`{name}[i]`, `&{name}[i]`, `{name}[i][j]`, \
                     `{name}.len()`, `for r in {name}.iter()`)"
                ),
            );
        }
        for (span, v) in written {
            let name = self.vars[v].name.to_string();
            self.diag.unsupported(
                span,
                &format!(
                    "changing the rows of `{name}`, a sequence of `Vec`s, or naming it in a \
                     macro (the macro sees its elements, not its rows)"
                ),
                &format!(
                    "write its elements (`{name}[i][j] = ..`); to print or assert, copy what you \
                     need into a local first (`let n = {name}.len();`)"
                ),
            );
        }
    }
}

/// Whether `e` builds rows of `Vec`s as far as syntax shows: `vec![vec![..]; n]`,
/// `vec![vec![..], ..]`.
fn vec_of_vecs_literal(e: &syn::Expr) -> bool {
    let syn::Expr::Macro(m) = strip_parens(e) else {
        return false;
    };
    if !m.mac.path.is_ident("vec") {
        return false;
    }
    // `vec![elem; n]` first: `elem; n` does not parse as a list.
    let first = match m.mac.parse_body::<VecRepeat>() {
        Ok(rep) => Some(rep.elem),
        Err(_) => m
            .mac
            .parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            )
            .ok()
            .and_then(|items| items.into_iter().next()),
    };
    matches!(first, Some(syn::Expr::Macro(inner)) if inner.mac.path.is_ident("vec"))
}

/// `vec![vec![x; c]; r]`: `(x, c, r)`.
fn rect_literal(e: &syn::Expr) -> Option<(syn::Expr, syn::Expr, syn::Expr)> {
    let syn::Expr::Macro(m) = strip_parens(e) else {
        return None;
    };
    if !m.mac.path.is_ident("vec") {
        return None;
    }
    let outer = m.mac.parse_body::<VecRepeat>().ok()?;
    let syn::Expr::Macro(inner) = strip_parens(&outer.elem) else {
        return None;
    };
    if !inner.mac.path.is_ident("vec") {
        return None;
    }
    let row = inner.mac.parse_body::<VecRepeat>().ok()?;
    Some((row.elem, row.len, outer.len))
}

/// `elem; len` inside `vec![..]`.
struct VecRepeat {
    elem: syn::Expr,
    len: syn::Expr,
}

impl syn::parse::Parse for VecRepeat {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let elem: syn::Expr = input.parse()?;
        let _: syn::Token![;] = input.parse()?;
        let len: syn::Expr = input.parse()?;
        Ok(VecRepeat { elem, len })
    }
}
