//! Forward mode: takes the analysed IR, gives the body of `<f>_jvp`. Every active variable gets a
//! tangent companion that is declared, shadowed and assigned together with it; active scalar
//! expressions are evaluated on `Dual` numbers, so the derivative rules are the runtime's and this
//! emitter knows no calculus. The emitter builds the forward program (`program.rs`) as data, which
//! one printer turns into tokens and the `AUTODIFF_DUMP_IR` dump shows as text.

use crate::analysis::activity::expr_active;
use crate::codegen::dump::IrDump;
use crate::codegen::primal::{convert, copy_seq, var_name, Printer};
use crate::ir::shape_of;
use crate::ir::*;
use crate::methods::{self, Arity};
use crate::names;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};

mod assign;
mod calls;
mod fast;
mod lanes;
mod patterns;
mod peel;
mod program;
mod structs;
#[cfg(test)]
mod tests;
mod views;
mod whole;

use program::{Bind, DualExpr, Op, OutputPair, Slot, Tan};

/// A value during emission.
enum Val {
    /// Inactive: just the primal expression.
    Plain(TokenStream),
    /// An active scalar as an expression of type `Dual<T>`.
    Dual(DualExpr),
    /// An active value of any shape: primal and tangent expressions (already cheap to repeat).
    Pair(TokenStream, TokenStream),
    /// A tuple whose components are emitted separately.
    Tuple(Vec<Val>),
}

pub struct Forward<'a> {
    f: &'a Function,
    n: usize,
    /// For `<f>_jvpn`: the name of its const generic parameter `N`, the number of tangents
    /// carried per scalar (`None` for `<f>_jvp`).
    lanes: Option<&'a syn::Ident>,
    /// The slice views of the loops whose bodies are being emitted (`views.rs`).
    views: Vec<views::View>,
    /// The statement being emitted evaluates an inactive expression that may have an effect
    /// (a call): its `Dual` evaluations get no fast path, which could evaluate it twice.
    impure: bool,
    /// Some statement so far was `impure`: the whole body gets no fast path (`whole.rs`), which
    /// would evaluate it twice.
    any_impure: bool,
}

/// The body of `f_jvp`; the forward program is added to `dump`. Whether that `_jvp` is pure is
/// recorded for later callers (`registry::record_pure_jvp`).
pub fn emit_body(f: &Function, dump: &mut IrDump) -> TokenStream {
    let (program, peeled, impure) = forward_program_peeled(f, None);
    if !peeled.is_empty() {
        dump.section("loops peeled and buffers rotated (forward mode)", || {
            peeled.join("\n")
        });
    }
    dump.section("forward program (forward mode)", || {
        program::print(&program)
    });
    let (body, pure) = whole::body(f, &program, impure);
    crate::registry::record_pure_jvp(f, pure);
    body
}

/// The body of `f_jvpn`, `N` tangents per scalar (`lanes` names the const parameter `N`): the
/// same forward program on `DualN` numbers, with `zero_lanes` zeros, conversions applied to each
/// tangent, and calls of other functions' `_jvpn`. The program is added to `dump`.
pub fn emit_lanes_body(f: &Function, lanes: &syn::Ident, dump: &mut IrDump) -> TokenStream {
    let (program, _, _) = forward_program_peeled(f, Some(lanes));
    dump.section(
        "forward program over N tangents (vector forward mode)",
        || program::print(&program),
    );
    program::tokens(&program, program::Lanes::Many(lanes))
}

/// The body of `f_jvp` as a forward program.
#[cfg(test)]
fn forward_program(f: &Function) -> Vec<Op> {
    forward_program_peeled(f, None).0
}

/// The body of `f_jvp` (or of `f_jvpn`, with `lanes`) as a forward program, from `f` with its
/// loops peeled (`peel.rs`), the loops peeled, and whether some statement is impure
/// (`Forward::any_impure`).
type Peeled = (Vec<Op>, Vec<String>, bool);

fn forward_program_peeled(f: &Function, lanes: Option<&syn::Ident>) -> Peeled {
    // Buffers copied whole every iteration exchanged instead (`transform/rotate.rs`).
    let (rotated, mut report) = match crate::transform::rotate::rotated(f) {
        Some(r) => (Some(r.f), r.lines),
        None => (None, Vec::new()),
    };
    let f = rotated.as_ref().unwrap_or(f);
    match peel::peeled(f) {
        Some((g, lines)) => {
            let (ops, impure) = forward_program_in(&g, lanes);
            report.extend(lines);
            (ops, report, impure)
        }
        None => {
            let (ops, impure) = forward_program_in(f, lanes);
            (ops, report, impure)
        }
    }
}

/// The body of `f_jvp` (or of `f_jvpn`, with `lanes`) as a forward program, and whether some
/// statement of it is impure.
fn forward_program_in(f: &Function, lanes: Option<&syn::Ident>) -> (Vec<Op>, bool) {
    let mut fw = Forward {
        f,
        n: 0,
        lanes,
        views: Vec::new(),
        impure: false,
        any_impure: false,
    };
    let mut out = Vec::new();
    // Floats by reference are worked on by value (`let x: f64 = *x;`).
    for p in f.body_params() {
        out.extend(crate::codegen::primal::scalar_ref_rebind(p).map(Op::Code));
    }
    let lend = crate::codegen::lend::binding_order(f);
    for p in lend.into_iter().filter(|p| p.active) {
        let t = names::tangent(&f.vars[p.var], p.var);
        let d = fw.param_tangent_name(p);
        let m = f.vars[p.var].mutable.then(|| quote!(mut));
        let lent = crate::codegen::lend::lent_root(f, p);
        let init = match p.scalar_ref() {
            // A field of a struct lent whole: through the struct's tangent (`codegen/lend.rs`).
            _ if lent.is_some() => {
                let base = lent.map(|r| fw.tangent(r.var).to_token_stream());
                crate::codegen::lend::shadow_init(p, &base.unwrap_or_default())
            }
            Some(false) => quote!(*#d),
            Some(true) => {
                let r = names::param_ref(&p.name, true);
                out.push(Op::Code(quote!(let #r = #d;)));
                quote!(*#r)
            }
            // A `Vec` by value whose tangent (the caller's `&[T]`) would be written or moved
            // into a variable that is: an owned copy.
            None if owned_tangent(f, p) => {
                let m = quote!(mut);
                out.push(tangent_let(
                    quote!(#m #t),
                    Tan::Expr(quote!(::std::borrow::ToOwned::to_owned(&#d[..]))),
                ));
                continue;
            }
            None => structs::by_value_param_tangent(p, &d).unwrap_or_else(|| quote!(#d)),
        };
        out.push(tangent_let(quote!(#m #t), Tan::Expr(init)));
    }
    // An argument left out of `wrt(...)` that is assigned active values (`mut y: f64`) starts
    // with a zero tangent.
    for p in f
        .body_params()
        .filter(|p| !p.active && f.vars[p.var].active)
    {
        let t = names::tangent(&f.vars[p.var], p.var);
        let n = &p.name;
        out.push(tangent_let(quote!(mut #t), Tan::ZeroTangent(quote!(#n))));
    }
    out.extend(f.items.iter().cloned().map(Op::Code));
    out.extend(fw.stmts(&f.body));
    out.extend(fw.write_back());
    if let Some(tail) = &f.tail {
        out.push(Op::Output(fw.output_pair(tail)));
    }
    (out, fw.any_impure)
}

/// Whether argument `p`, a `Vec` taken by value, is written or moved whole (`let mut w = w;`,
/// `v = w`): its tangent must then be an owned `Vec`, not the caller's slice.
fn owned_tangent(f: &Function, p: &Param) -> bool {
    // `Vec<[T; C]>` and `Vec<Vec<T>>` by value are flat `Vec<T>`s here, like a `Vec<T>`.
    let by_value = !matches!(p.ty, syn::Type::Reference(_));
    by_value
        && p.field.is_none()
        && p.shape == Shape::Seq(SeqKind::Vec)
        && (f.vars[p.var].mutable || f.moves(p.var))
}

/// `let pat = tangent;`: a tangent declared without a primal.
fn tangent_let(pat: TokenStream, tangent: Tan) -> Op {
    Op::Let {
        primal: None,
        tangent: Some(Bind {
            pat,
            init: Some(tangent),
        }),
    }
}

/// `let pat = value; let tpat = tangent;` (no tangent binding when `tangent` is `None`).
fn let_pair(pat: TokenStream, value: TokenStream, tangent: Option<(TokenStream, Tan)>) -> Op {
    Op::Let {
        primal: Some(Bind {
            pat,
            init: Some(value),
        }),
        tangent: tangent.map(|(pat, t)| Bind { pat, init: Some(t) }),
    }
}

impl<'a> Forward<'a> {
    pub fn param_tangent_name(&self, p: &Param) -> syn::Ident {
        let taken = self.f.taken_names();
        names::shadow_param(&p.name, &taken)
    }

    /// The name of a variable in the generated code.
    fn name(&self, v: VarId) -> syn::Ident {
        names::var(&self.f.vars[v], v)
    }

    /// The tangent of a variable in the generated code.
    fn tangent(&self, v: VarId) -> syn::Ident {
        names::tangent(&self.f.vars[v], v)
    }

    fn fresh(&mut self, what: &str) -> syn::Ident {
        self.n += 1;
        names::local(what, self.n)
    }

    /// The primal printer, element accesses through the slice views of the loops being emitted.
    fn printer<'p>(
        &'p self,
        name: &'p dyn Fn(VarId) -> TokenStream,
        reborrow: &'p dyn Fn(VarId) -> bool,
        hook: &'p dyn Fn(VarId, &Expr) -> Option<TokenStream>,
    ) -> Printer<'p> {
        Printer {
            name,
            index: (!self.views.is_empty()).then_some(hook),
            reborrow: Some(reborrow),
        }
    }

    fn primal(&self, e: &Expr) -> TokenStream {
        let name = var_name(&self.f.vars);
        let reborrow = |v: VarId| self.f.vars[v].by_mut_ref();
        let hook = |b: VarId, ix: &Expr| self.view_elem(b, ix).map(|v| v.primal());
        self.printer(&name, &reborrow, &hook).expr(e)
    }

    fn range(&self, r: &Range) -> TokenStream {
        let name = var_name(&self.f.vars);
        let reborrow = |v: VarId| self.f.vars[v].by_mut_ref();
        let hook = |b: VarId, ix: &Expr| self.view_elem(b, ix).map(|v| v.primal());
        self.printer(&name, &reborrow, &hook).range(r)
    }

    fn var_active(&self, v: VarId) -> bool {
        self.f.vars[v].active
    }

    fn active(&self, e: &Expr) -> bool {
        expr_active(&self.f.vars, e)
    }

    fn shape(&self, e: &Expr) -> Shape {
        shape_of(&self.f.vars, e)
    }

    // ------------------------------------------------------------------ values

    fn dual_of(&mut self, v: Val) -> DualExpr {
        match v {
            Val::Plain(p) => DualExpr::Constant {
                value: p,
                span: Span::call_site(),
            },
            Val::Dual(d) => d,
            Val::Pair(p, t) => DualExpr::New {
                value: p,
                tangent: t,
                span: Span::call_site(),
            },
            Val::Tuple(items) => {
                // A tuple used as a scalar cannot happen in well-typed code; keep the first.
                let first = items.into_iter().next().unwrap_or(Val::Plain(quote!(())));
                self.dual_of(first)
            }
        }
    }

    /// Primal and tangent expressions for a value of the given shape.
    fn pair_of(&mut self, v: Val, shape: &Shape, pre: &mut Vec<Op>) -> (TokenStream, TokenStream) {
        match v {
            Val::Plain(p) => {
                // Zeros are made before the value can be moved into a tuple.
                let t = self.fresh("p");
                let zt = self.fresh("z");
                let zeros = Tan::Zeros {
                    shape: shape.clone(),
                    like: quote!(#t),
                };
                pre.push(let_pair(quote!(#t), p, Some((quote!(#zt), zeros))));
                (quote!(#t), quote!(#zt))
            }
            Val::Dual(d) => {
                let t = self.fresh("f");
                pre.push(Op::Dual {
                    name: t.clone(),
                    fast: self.fast(&d),
                    expr: d,
                    span: Span::call_site(),
                });
                (quote!(#t.re), quote!(#t.eps))
            }
            Val::Pair(p, t) => (p, t),
            Val::Tuple(items) => {
                let shapes = match shape {
                    Shape::Tuple(s) if s.len() == items.len() => s.clone(),
                    _ => vec![Shape::Scalar; items.len()],
                };
                let mut ps = Vec::new();
                let mut ts = Vec::new();
                for (item, s) in items.into_iter().zip(&shapes) {
                    let (p, t) = self.pair_of(item, s, pre);
                    ps.push(p);
                    ts.push(t);
                }
                (quote!((#(#ps,)*)), quote!((#(#ts,)*)))
            }
        }
    }

    fn expr(&mut self, e: &Expr, pre: &mut Vec<Op>) -> Val {
        if !self.active(e) {
            self.impure |= fast::effects(&self.f.vars, e);
            return Val::Plain(self.primal(e));
        }
        let span = e.span;
        match &e.kind {
            ExprKind::Var(v) => {
                let name = &self.name(*v);
                let t = self.tangent(*v);
                match self.f.vars[*v].shape {
                    Shape::Scalar => Val::Dual(DualExpr::New {
                        value: quote!(#name),
                        tangent: quote!(#t),
                        span,
                    }),
                    _ => Val::Pair(quote!(#name), quote!(#t)),
                }
            }
            ExprKind::Index { base, index } => {
                let (name, t, idx) = match self.view_elem(*base, index) {
                    Some(v) => (
                        v.view,
                        v.tangent.unwrap_or_else(|| self.tangent(*base)),
                        v.index,
                    ),
                    None => (self.name(*base), self.tangent(*base), self.primal(index)),
                };
                let i = self.fresh("i");
                pre.push(let_pair(quote!(#i), idx, None));
                Val::Dual(DualExpr::New {
                    value: quote_spanned!(span=> #name[#i]),
                    tangent: quote_spanned!(span=> #t[#i]),
                    span,
                })
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.expr(lhs, pre);
                let b = self.expr(rhs, pre);
                // `c * x` and `c + x` of an inactive `c` as `x * c`, `x + c` (the same value:
                // IEEE `*` and `+` commute): `Dual op T` takes one product for the tangent where
                // `Dual::constant(c) op x` takes two and a sum. Only for operands whose
                // evaluation has no effect, so the order does not matter.
                let simple = matches!(
                    lhs.kind,
                    ExprKind::Lit(_) | ExprKind::Var(_) | ExprKind::Opaque { .. }
                );
                let (lhs, rhs) = match (a, b) {
                    (Val::Plain(a), b @ (Val::Dual(_) | Val::Pair(..)))
                        if simple && matches!(op, BinOp::Add | BinOp::Mul) =>
                    {
                        (self.dual_of(b), DualExpr::Plain(a))
                    }
                    (Val::Plain(a), b) => (DualExpr::Constant { value: a, span }, self.dual_of(b)),
                    (a, Val::Plain(b)) => (self.dual_of(a), DualExpr::Plain(b)),
                    (a, b) => (self.dual_of(a), self.dual_of(b)),
                };
                Val::Dual(DualExpr::Binary {
                    lhs: Box::new(lhs),
                    op: *op,
                    rhs: Box::new(rhs),
                    span,
                })
            }
            ExprKind::Unary { expr, .. } => {
                let a = self.expr(expr, pre);
                let a = self.dual_of(a);
                Val::Dual(DualExpr::Neg {
                    operand: Box::new(a),
                    span,
                })
            }
            ExprKind::Cast { expr, ty, form } => {
                // The value and its tangent converted alike: the derivative of a conversion
                // between float types is one, rounded to the target type.
                let a = self.expr(expr, pre);
                let a = self.dual_of(a);
                let t = self.fresh("c");
                pre.push(Op::Dual {
                    name: t.clone(),
                    fast: self.fast(&a),
                    expr: a,
                    span: Span::call_site(),
                });
                let tangent = self.convert_tangent(form, ty, quote!(#t.eps), span);
                Val::Dual(DualExpr::New {
                    value: convert(form, ty, &quote!(#t.re), span),
                    tangent,
                    span,
                })
            }
            ExprKind::Method { recv, method, args } => {
                let rule = methods::float_method(&method.to_string());
                let r = self.expr(recv, pre);
                let r = self.dual_of(r);
                let mut a = Vec::new();
                for (k, arg) in args.iter().enumerate() {
                    let v = self.expr(arg, pre);
                    let int_arg =
                        matches!(rule.as_ref().map(|r| r.arity), Some(Arity::PowI)) && k == 0;
                    a.push(match v {
                        Val::Plain(p) if int_arg => DualExpr::Plain(p),
                        other => self.dual_of(other),
                    });
                }
                let call = DualExpr::Method {
                    recv: Box::new(r),
                    method: method.clone(),
                    args: a,
                    span,
                };
                if matches!(rule.map(|r| r.arity), Some(Arity::SinCos)) {
                    let t = self.fresh("sc");
                    pre.push(Op::Dual {
                        name: t.clone(),
                        expr: call,
                        span,
                        fast: false,
                    });
                    let part = |k| Val::Dual(DualExpr::Part { name: t.clone(), k });
                    return Val::Tuple(vec![part(0), part(1)]);
                }
                Val::Dual(call)
            }
            ExprKind::Call { func, args, .. } => {
                let (p, t) = self.call(func, args, span, pre);
                Val::Pair(p, t)
            }
            ExprKind::Tuple(items) => Val::Tuple(items.iter().map(|i| self.expr(i, pre)).collect()),
            ExprKind::Array(items) | ExprKind::VecList(items) => {
                let mut ps = Vec::new();
                let mut ts = Vec::new();
                for i in items {
                    let v = self.expr(i, pre);
                    let (p, t) = self.pair_of(v, &Shape::Scalar, pre);
                    ps.push(p);
                    ts.push(t);
                }
                if matches!(e.kind, ExprKind::Array(_)) {
                    Val::Pair(quote!([#(#ps),*]), quote!([#(#ts),*]))
                } else {
                    Val::Pair(quote!(::std::vec![#(#ps),*]), quote!(::std::vec![#(#ts),*]))
                }
            }
            ExprKind::ArrayRepeat { elem, len } => {
                let v = self.expr(elem, pre);
                let (p, t) = self.pair_of(v, &Shape::Scalar, pre);
                Val::Pair(quote!([#p; #len]), quote!([#t; #len]))
            }
            ExprKind::VecRepeat { elem, len } => {
                let v = self.expr(elem, pre);
                let (p, t) = self.pair_of(v, &Shape::Scalar, pre);
                let n = self.fresh("n");
                let l = self.primal(len);
                pre.push(let_pair(quote!(#n), l, None));
                Val::Pair(quote!(::std::vec![#p; #n]), quote!(::std::vec![#t; #n]))
            }
            ExprKind::CopySeq(v, to @ CopyTo::Struct(_)) => self.struct_clone(*v, *to),
            ExprKind::CopySeq(v, to) => {
                let name = &self.name(*v);
                let t = self.tangent(*v);
                Val::Pair(copy_seq(&quote!(#name), *to), copy_seq(&quote!(#t), *to))
            }
            ExprKind::Field { base, index } => {
                let b = self.expr(base, pre);
                let i = *index as usize;
                match b {
                    Val::Tuple(mut items) if i < items.len() => items.swap_remove(i),
                    other => {
                        let shape = self.shape(base);
                        let (p, t) = self.pair_of(other, &shape, pre);
                        let ix = syn::Index::from(i);
                        let elem_shape = match &shape {
                            Shape::Tuple(s) => s.get(i).cloned().unwrap_or(Shape::Scalar),
                            _ => Shape::Scalar,
                        };
                        if elem_shape == Shape::Scalar {
                            Val::Dual(DualExpr::New {
                                value: quote!(#p.#ix),
                                tangent: quote!(#t.#ix),
                                span: Span::call_site(),
                            })
                        } else {
                            Val::Pair(quote!(#p.#ix), quote!(#t.#ix))
                        }
                    }
                }
            }
            ExprKind::Ref(inner) => {
                let v = self.expr(inner, pre);
                let shape = self.shape(inner);
                let (p, t) = self.pair_of(v, &shape, pre);
                // An in-out argument is a `&mut` reference already, and so is its tangent when
                // it is the caller's (the argument is in `wrt`).
                match inner.kind {
                    ExprKind::Var(r) if self.f.vars[r].by_mut_ref() => {
                        let lent = self.f.vars[r].active
                            && self.f.body_params().any(|q| q.var == r && q.active);
                        let t = if lent { quote!(&*#t) } else { quote!(&#t) };
                        Val::Pair(quote!(&*#p), t)
                    }
                    _ => Val::Pair(quote!(&#p), quote!(&#t)),
                }
            }
            ExprKind::Member { base, members, .. } => self.member(e, *base, members, span),
            ExprKind::SubSlice {
                base,
                start,
                end,
                inclusive,
                array,
            } => {
                let name = &self.name(*base);
                let t = self.tangent(*base);
                let s = start.as_ref().map(|s| self.bind_int(s, pre));
                let en = end.as_ref().map(|x| self.bind_int(x, pre));
                let (p, t) = if *inclusive {
                    (quote!(&#name[#s..=#en]), quote!(&#t[#s..=#en]))
                } else {
                    (quote!(&#name[#s..#en]), quote!(&#t[#s..#en]))
                };
                let row = |b| crate::codegen::primal::borrowed_row(b, array.as_ref(), false);
                Val::Pair(row(p), row(t))
            }
            // Never active.
            ExprKind::Lit(_)
            | ExprKind::Opaque { .. }
            | ExprKind::Len(_)
            | ExprKind::ElemConst { .. }
            | ExprKind::PlainCall { .. }
            | ExprKind::PlainMethod { .. }
            | ExprKind::VecNew { .. }
            | ExprKind::StopGradient(_)
            | ExprKind::Fixed(..)
            | ExprKind::Poison => Val::Plain(self.primal(e)),
            // Only an argument of a call, lent by `call_args`.
            ExprKind::MutRef(..) => Val::Plain(self.primal(e)),
        }
    }

    fn bind_int(&mut self, e: &Expr, pre: &mut Vec<Op>) -> TokenStream {
        let n = self.fresh("n");
        let v = self.primal(e);
        pre.push(let_pair(quote!(#n), v, None));
        quote!(#n)
    }

    // ------------------------------------------------------------------ statements

    fn stmts(&mut self, b: &Block) -> Vec<Op> {
        let mut out = Vec::new();
        for s in &b.stmts {
            self.stmt(s, &mut out);
        }
        out
    }

    /// The ops of one statement: the values it evaluates first, then the statement itself.
    fn stmt(&mut self, s: &Stmt, out: &mut Vec<Op>) {
        let outer = std::mem::replace(&mut self.impure, false);
        self.stmt_ops(s, out);
        self.any_impure |= self.impure || fast::stmt_effects(&self.f.vars, s);
        self.impure = outer;
    }

    fn stmt_ops(&mut self, s: &Stmt, out: &mut Vec<Op>) {
        let mut pre = Vec::new();
        let main = match s {
            Stmt::Let { pat, init, .. } => self.let_stmt(pat, init.as_ref(), &mut pre),
            Stmt::Assign {
                place, op, value, ..
            } => self.assign(place, *op, value, &mut pre),
            Stmt::Push { vec, value, .. } => {
                let name = self.name(*vec);
                let (value, tangent) = if self.var_active(*vec) {
                    let v = self.expr(value, &mut pre);
                    let (p, t) = self.pair_of(v, &Shape::Scalar, &mut pre);
                    (p, Some((self.tangent(*vec), t)))
                } else {
                    (self.primal(value), None)
                };
                vec![Op::Push {
                    vec: name,
                    value,
                    tangent,
                }]
            }
            Stmt::Eval(e) if !e.mut_borrows().is_empty() && self.active(e) => self.call_stmt(e),
            Stmt::Eval(e) => vec![let_pair(quote!(_), self.primal(e), None)],
            Stmt::If { cond, then, els } => vec![Op::If {
                cond: self.primal(cond),
                then: self.stmts(then),
                els: els.as_ref().map(|e| self.stmts(e)),
            }],
            Stmt::Match { scrut, arms } => {
                let scrut = self.primal(scrut);
                let arms = arms
                    .iter()
                    .map(|a| (a.pat.to_token_stream(), self.stmts(&a.body)))
                    .collect();
                vec![Op::Match { scrut, arms }]
            }
            Stmt::For {
                var,
                range,
                body,
                label,
            } => match self.plan_views(*var, range, body) {
                Some((mut decls, range, views)) => {
                    let k = views.len();
                    self.views.extend(views);
                    let body = self.stmts(body);
                    self.views.truncate(self.views.len() - k);
                    decls.push(Op::For {
                        label: label.clone(),
                        var: self.name(*var),
                        range,
                        body,
                    });
                    vec![Op::Block(decls)]
                }
                None => vec![Op::For {
                    label: label.clone(),
                    var: self.name(*var),
                    range: self.range(range),
                    body: self.stmts(body),
                }],
            },
            Stmt::While { cond, body, label } => vec![Op::While {
                label: label.clone(),
                cond: self.primal(cond),
                body: self.stmts(body),
            }],
            Stmt::Loop { body, label } => vec![Op::Loop {
                label: label.clone(),
                body: self.stmts(body),
            }],
            Stmt::Break { label, span } => vec![Op::Code(quote_spanned!(*span=> break #label;))],
            Stmt::Continue { label, span } => {
                vec![Op::Code(quote_spanned!(*span=> continue #label;))]
            }
            Stmt::Return { value, span } => {
                let mut ops = self.write_back();
                ops.push(Op::Return {
                    output: value.as_ref().map(|v| self.output_pair(v)),
                    span: *span,
                });
                ops
            }
            Stmt::Block(b) => vec![Op::Block(self.stmts(b))],
            Stmt::Macro(m, visible) => vec![Op::Code(crate::codegen::primal::macro_stmt(
                m,
                visible,
                &self.f.vars,
            ))],
        };
        // A call lending a struct whose fields the body uses: the fields synced around it.
        let lent = match s {
            Stmt::Eval(e) | Stmt::Let { init: Some(e), .. } => {
                crate::codegen::lend::lent_by(self.f, &self.f.vars, e)
            }
            _ => None,
        };
        if let Some(v) = lent {
            out.extend(self.lend_sync(v, true));
        }
        out.extend(pre);
        out.extend(main);
        if let Some(v) = lent {
            out.extend(self.lend_sync(v, false));
        }
    }
    /// `(value, tangent)` of the function's output, with the ops evaluating them.
    fn output_pair(&mut self, e: &Expr) -> OutputPair {
        let outer = std::mem::replace(&mut self.impure, false);
        let mut pre = Vec::new();
        let shape = self.f.output.shape.clone();
        let v = self.expr(e, &mut pre);
        let (value, tangent) = self.pair_of(v, &shape, &mut pre);
        self.any_impure |= self.impure;
        self.impure = outer;
        OutputPair {
            pre,
            value,
            tangent,
        }
    }
}

/// `path::g` -> `path::g_<suffix>` (generic arguments kept).
pub fn companion_path(func: &syn::Path, suffix: &str) -> TokenStream {
    let mut p = func.clone();
    if let Some(last) = p.segments.last_mut() {
        last.ident = names::companion(&last.ident, suffix);
    }
    p.to_token_stream()
}
