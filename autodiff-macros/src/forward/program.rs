//! The forward (tangent) program: takes what the forward emitter decided (primals declared and
//! written together with their tangents, active scalars evaluated on `Dual` numbers, calls of
//! other functions' `_jvp`, the value and tangent returned), gives it as data: `Op`s printed to
//! tokens by `tokens` on `Dual` numbers (the body of `<f>_jvp`) or on `DualN` numbers (the body
//! of `<f>_jvpn`), and to text by `print` (the `AUTODIFF_DUMP_IR` dump).
//!
//! Expressions and patterns inside ops are tokens printed by the primal printer; what forward
//! mode itself adds (which tangent is declared or written, from which tangent expression, which
//! `Dual` evaluation gives a value and its tangent at once) is structured.

use crate::codegen::primal::binop_tokens;
use crate::ir::{BinOp, Shape};
use crate::names;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::Ident;

/// One statement of the forward program.
pub(super) enum Op {
    /// Code run as printed: the function's nested items, `break`, `continue`, pass-through
    /// macros.
    Code(TokenStream),
    /// `let pat = value; let tpat = tangent;`: a primal declared together with its tangent.
    /// Either half may be absent: an inactive binding has no tangent; an argument's tangent and
    /// a buffer of zeros lent to a call have no primal.
    Let {
        primal: Option<Bind<TokenStream>>,
        tangent: Option<Bind<Tan>>,
    },
    /// `place = value; tplace = tangent;`: an active place written with its tangent.
    Set {
        slot: Slot,
        value: TokenStream,
        tangent: Tan,
    },
    /// `place = value;` or `place op= value;`: a place without a tangent written.
    Assign {
        place: TokenStream,
        op: Option<BinOp>,
        value: TokenStream,
    },
    /// `let temp = Dual::new(place, tplace) op rhs; place = temp.re; tplace = temp.eps;`: the
    /// compound assignment `place op= rhs` of an active place, evaluated on `Dual` (`fast`: as
    /// `Op::Dual`'s).
    Update {
        slot: Slot,
        op: BinOp,
        rhs: DualExpr,
        temp: Ident,
        fast: bool,
    },
    /// `let name = expr;` (the statement's own tokens spanned by `span`): an active scalar
    /// evaluated once on `Dual` numbers, its value `name.re` and its tangent `name.eps`. With
    /// `fast` (`<f>_jvp` only), evaluated on `Fast` numbers first, without the strong zero's
    /// tests, and again on `Dual` only where that tangent is NaN:
    /// `let name = { let r = expr on Fast; if r.ok() { r.dual() } else { expr on Dual } };` (the runtime's `fast.rs` says why
    /// the result is the same).
    Dual {
        name: Ident,
        expr: DualExpr,
        span: Span,
        fast: bool,
    },
    /// `let (out, tout) = path(primals.., tangents..);`: a call of a differentiated function's
    /// `_jvp`, giving the call's value and tangent (`let _ = ..` for a call statement, whose
    /// effect is what it writes through `&mut` arguments and their tangents).
    CallJvp {
        outs: Option<(Ident, Ident)>,
        path: TokenStream,
        primals: Vec<TokenStream>,
        tangents: Vec<TokenStream>,
        span: Span,
        /// The callee's `_jvp` is known pure (`registry::pure_jvp`): running it twice is
        /// running it once (`whole.rs`).
        pure: bool,
    },
    /// `vec.push(value); tvec.push(tangent);` (no tangent pushed onto an inactive `Vec`).
    Push {
        vec: Ident,
        value: TokenStream,
        tangent: Option<(Ident, TokenStream)>,
    },
    /// `{ ops }`
    Block(Vec<Op>),
    /// `if cond { then } else { els }` (no `else` when `els` is `None`).
    If {
        cond: TokenStream,
        then: Vec<Op>,
        els: Option<Vec<Op>>,
    },
    /// `match scrut { pat => { body } .. }`
    Match {
        scrut: TokenStream,
        arms: Vec<(TokenStream, Vec<Op>)>,
    },
    /// `'label: for var in range { body }`
    For {
        label: Option<syn::Lifetime>,
        var: Ident,
        range: TokenStream,
        body: Vec<Op>,
    },
    /// `'label: while cond { body }`
    While {
        label: Option<syn::Lifetime>,
        cond: TokenStream,
        body: Vec<Op>,
    },
    /// `'label: loop { body }`
    Loop {
        label: Option<syn::Lifetime>,
        body: Vec<Op>,
    },
    /// `return { .. (value, tangent) };` (`return ();` without a value; `return` and `;`
    /// spanned by `span`).
    Return {
        output: Option<OutputPair>,
        span: Span,
    },
    /// The function's value and tangent, `{ .. (value, tangent) }`: the tail of the body.
    Output(OutputPair),
}

/// `let pat = init;` (`let pat;` without `init`).
pub(super) struct Bind<T> {
    /// The pattern as declared (with `mut` and the type where the program needs them).
    pub(super) pat: TokenStream,
    pub(super) init: Option<T>,
}

/// An active place and its tangent place: a variable (`x__3`, `__ad_d_x__3`) or an element of
/// both at one index bound before (`x__3[__ad_i1]`, `__ad_d_x__3[__ad_i1]`).
pub(super) struct Slot {
    pub(super) var: Ident,
    pub(super) tangent: Ident,
    pub(super) index: Option<Ident>,
}

impl Slot {
    /// The primal place.
    pub(super) fn primal(&self) -> TokenStream {
        place(&self.var, self.index.as_ref())
    }

    /// The tangent place.
    pub(super) fn tangent(&self) -> TokenStream {
        place(&self.tangent, self.index.as_ref())
    }
}

fn place(name: &Ident, index: Option<&Ident>) -> TokenStream {
    match index {
        None => quote!(#name),
        Some(i) => quote!(#name[#i]),
    }
}

/// A tangent a place or binding gets.
pub(super) enum Tan {
    /// A tangent expression as printed: a tangent variable, `name.eps` of a `Dual`, a call's
    /// tangent, tangents gathered in an array, tuple or borrow like their primals.
    Expr(TokenStream),
    /// Zeros shaped like `like`, a value of shape `shape` (`zeros`): a value with no derivative
    /// written into an active place.
    Zeros { shape: Shape, like: TokenStream },
    /// The runtime's `zero_tangent(&value)`, shaped like `value` by its type.
    ZeroTangent(TokenStream),
}

/// An active scalar expression evaluated on `Dual` numbers: the runtime's operators and float
/// methods on `Dual` carry the tangent (the rules are the runtime's, forward mode has none).
pub(super) enum DualExpr {
    /// `Dual::constant(value)`: an inactive value lifted (its tangent is zero).
    Constant { value: TokenStream, span: Span },
    /// `Dual::new(value, tangent)`: an active value with its tangent.
    New {
        value: TokenStream,
        tangent: TokenStream,
        span: Span,
    },
    /// An inactive operand used as it is: `a * 2.0` on `Dual`, the integer exponent of `powi`.
    Plain(TokenStream),
    /// Component `k` of a pair of `Dual`s bound by an `Op::Dual` (`sin_cos`): `name.k`.
    Part { name: Ident, k: usize },
    /// `(lhs op rhs)`
    Binary {
        lhs: Box<DualExpr>,
        op: BinOp,
        rhs: Box<DualExpr>,
        span: Span,
    },
    /// `(-operand)`
    Neg { operand: Box<DualExpr>, span: Span },
    /// `recv.method(args..)`: a float method of `Dual`.
    Method {
        recv: Box<DualExpr>,
        method: Ident,
        args: Vec<DualExpr>,
        span: Span,
    },
}

/// The value and tangent a function gives: `{ pre (value, tangent) }`, the ops evaluating them
/// first.
pub(super) struct OutputPair {
    pub(super) pre: Vec<Op>,
    pub(super) value: TokenStream,
    pub(super) tangent: TokenStream,
}

// ---------------------------------------------------------------------------------- tokens

/// How the program is printed: on `Dual` numbers with one tangent per scalar (`<f>_jvp`), or on
/// `DualN` numbers with `N` tangents per scalar, `N` the const generic parameter named here
/// (`<f>_jvpn`, `codegen/vector.rs`). Only the dual type and the zero tangents differ; the ops
/// are the same.
#[derive(Clone, Copy)]
pub(super) enum Lanes<'a> {
    One,
    Many(&'a Ident),
    /// `Fast` numbers: the fast path of a `fast` `Op::Dual` (a `DualExpr` printed so).
    Fast,
    /// `<f>_jvp`'s whole body on the fast path (`emit_body`): as `One`, but a `fast` evaluation
    /// is on `Fast` numbers only, with no test of its tangent (the output's is tested instead).
    Unchecked,
    /// `<f>_jvp`'s whole body again where the fast one's output tangent is NaN: as `One`, but a
    /// `fast` evaluation is on `Dual` only.
    Strong,
}

impl Lanes<'_> {
    /// The dual number type: `Dual`, or `DualN::<_, N>`.
    fn dual(self) -> TokenStream {
        let rt = names::rt();
        match self {
            Lanes::One | Lanes::Unchecked | Lanes::Strong => quote!(#rt::Dual),
            Lanes::Many(n) => quote!(#rt::DualN::<_, #n>),
            Lanes::Fast => quote!(#rt::Fast),
        }
    }

    /// Zero tangents shaped like the value `v`: `zero_tangent(&v)`, or `zero_lanes::<_, N>(&v)`
    /// (`[T; N]` per scalar of `v`).
    fn zero(self, v: &TokenStream) -> TokenStream {
        let rt = names::rt();
        match self {
            Lanes::One | Lanes::Fast | Lanes::Unchecked | Lanes::Strong => {
                quote!(#rt::zero_tangent(&#v))
            }
            Lanes::Many(n) => quote!(#rt::zero_lanes::<_, #n>(&#v)),
        }
    }
}

/// A part of the program printed with the given `Lanes`.
pub(super) struct In<'a, T>(pub(super) &'a T, pub(super) Lanes<'a>);

/// The tokens of `ops`.
pub(super) fn tokens(ops: &[Op], lanes: Lanes) -> TokenStream {
    let ops = ops.iter().map(|o| In(o, lanes));
    quote!(#(#ops)*)
}

impl ToTokens for In<'_, DualExpr> {
    fn to_tokens(&self, out: &mut TokenStream) {
        let k = self.1;
        let sub = |d: &DualExpr| In(d, k).into_token_stream();
        out.extend(match self.0 {
            DualExpr::Constant { value, span } => {
                let d = k.dual();
                quote_spanned!(*span=> #d::constant(#value))
            }
            DualExpr::New {
                value,
                tangent,
                span,
            } => {
                let d = k.dual();
                quote_spanned!(*span=> #d::new(#value, #tangent))
            }
            DualExpr::Plain(t) => t.clone(),
            DualExpr::Part { name, k: i } => {
                let i = syn::Index::from(*i);
                match k {
                    // The pair was evaluated on `Dual`.
                    Lanes::Fast => {
                        let d = k.dual();
                        quote!(#d::new(#name.#i.re, #name.#i.eps))
                    }
                    _ => quote!(#name.#i),
                }
            }
            DualExpr::Binary { lhs, op, rhs, span } => {
                let (l, o, r) = (sub(lhs), binop_tokens(*op), sub(rhs));
                quote_spanned!(*span=> (#l #o #r))
            }
            DualExpr::Neg { operand, span } => {
                let x = sub(operand);
                quote_spanned!(*span=> (-#x))
            }
            DualExpr::Method {
                recv,
                method,
                args,
                span,
            } => {
                let r = sub(recv);
                let a = args.iter().map(sub);
                quote_spanned!(*span=> #r.#method(#(#a),*))
            }
        })
    }
}

impl ToTokens for In<'_, Tan> {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend(match self.0 {
            Tan::Expr(t) => t.clone(),
            Tan::Zeros { shape, like } => zeros(shape, like, self.1),
            Tan::ZeroTangent(v) => self.1.zero(v),
        })
    }
}

impl ToTokens for In<'_, OutputPair> {
    fn to_tokens(&self, out: &mut TokenStream) {
        let OutputPair {
            pre,
            value,
            tangent,
        } = self.0;
        let pre = tokens(pre, self.1);
        out.extend(quote!({ #pre (#value, #tangent) }));
    }
}

/// `let pat = init;` (`let pat;` without `init`), the initialiser printed by `init`.
fn bind<T>(b: &Bind<T>, init: impl Fn(&T) -> TokenStream) -> TokenStream {
    let pat = &b.pat;
    match &b.init {
        Some(v) => {
            let v = init(v);
            quote!(let #pat = #v;)
        }
        None => quote!(let #pat;),
    }
}

fn label(l: &Option<syn::Lifetime>) -> Option<TokenStream> {
    l.as_ref().map(|l| quote!(#l:))
}

impl ToTokens for Op {
    /// The op printed on `Dual` numbers (`<f>_jvp`).
    fn to_tokens(&self, out: &mut TokenStream) {
        In(self, Lanes::One).to_tokens(out)
    }
}

impl ToTokens for In<'_, Op> {
    fn to_tokens(&self, out: &mut TokenStream) {
        let k = self.1;
        let body = |ops: &[Op]| tokens(ops, k);
        out.extend(match self.0 {
            Op::Code(t) => t.clone(),
            Op::Let { primal, tangent } => {
                let p = primal.as_ref().map(|b| bind(b, Clone::clone));
                let t = tangent
                    .as_ref()
                    .map(|b| bind(b, |t| In(t, k).into_token_stream()));
                quote!(#p #t)
            }
            Op::Set {
                slot,
                value,
                tangent,
            } => {
                let (p, t, tan) = (slot.primal(), slot.tangent(), In(tangent, k));
                quote!(#p = #value; #t = #tan;)
            }
            Op::Assign { place, op, value } => {
                let o = op.map(compound_tokens).unwrap_or_else(|| quote!(=));
                quote!(#place #o #value;)
            }
            Op::Update {
                slot,
                op,
                rhs,
                temp,
                fast,
            } => {
                let (p, t) = (slot.primal(), slot.tangent());
                let (o, d, r) = (binop_tokens(*op), k.dual(), In(rhs, k));
                let e = quote!(#d::new(#p, #t) #o #r);
                let e = match k {
                    Lanes::One if *fast => {
                        let (f, r) = (Lanes::Fast.dual(), In(rhs, Lanes::Fast));
                        fast_or(quote!(#f::new(#p, #t) #o #r), e)
                    }
                    Lanes::Unchecked if *fast => {
                        let (f, r) = (Lanes::Fast.dual(), In(rhs, Lanes::Fast));
                        quote!((#f::new(#p, #t) #o #r).dual())
                    }
                    _ => e,
                };
                quote!(let #temp = #e; #p = #temp.re; #t = #temp.eps;)
            }
            Op::Dual {
                name,
                expr,
                span,
                fast,
            } => {
                let e = In(expr, k);
                match k {
                    Lanes::One if *fast => {
                        let f = fast_or(
                            In(expr, Lanes::Fast).into_token_stream(),
                            e.into_token_stream(),
                        );
                        quote_spanned!(*span=> let #name = #f;)
                    }
                    Lanes::Unchecked if *fast => {
                        let f = In(expr, Lanes::Fast);
                        quote_spanned!(*span=> let #name = (#f).dual();)
                    }
                    _ => quote_spanned!(*span=> let #name = #e;),
                }
            }
            Op::CallJvp {
                outs,
                path,
                primals,
                tangents,
                span,
                ..
            } => match outs {
                Some((out, tout)) => {
                    quote_spanned!(*span=> let (#out, #tout) = #path(#(#primals,)* #(#tangents),*);)
                }
                None => quote_spanned!(*span=> let _ = #path(#(#primals,)* #(#tangents),*);),
            },
            Op::Push {
                vec,
                value,
                tangent,
            } => match tangent {
                Some((tvec, t)) => quote!(#vec.push(#value); #tvec.push(#t);),
                None => quote!(#vec.push(#value);),
            },
            Op::Block(ops) => {
                let b = body(ops);
                quote!({ #b })
            }
            Op::If { cond, then, els } => {
                let t = body(then);
                match els {
                    Some(e) => {
                        let e = body(e);
                        quote!(if #cond { #t } else { #e })
                    }
                    None => quote!(if #cond { #t }),
                }
            }
            Op::Match { scrut, arms } => {
                let arms = arms.iter().map(|(p, b)| {
                    let b = body(b);
                    quote!(#p => { #b })
                });
                quote!(match #scrut { #(#arms)* })
            }
            Op::For {
                label: l,
                var,
                range,
                body: b,
            } => {
                let (l, b) = (label(l), body(b));
                quote!(#l for #var in #range { #b })
            }
            Op::While {
                label: l,
                cond,
                body: b,
            } => {
                let (l, b) = (label(l), body(b));
                quote!(#l while #cond { #b })
            }
            Op::Loop { label: l, body: b } => {
                let (l, b) = (label(l), body(b));
                quote!(#l loop { #b })
            }
            Op::Return { output, span } => {
                let r = match output {
                    Some(o) => In(o, k).into_token_stream(),
                    None => quote!(()),
                };
                quote_spanned!(*span=> return #r;)
            }
            Op::Output(o) => In(o, k).into_token_stream(),
        })
    }
}

/// `{ let r = fast; if r.ok() { r.dual() } else { strong_path(); strong } }`: the fast result,
/// or where its tangent is NaN the `Dual` one (the runtime's `fast.rs`).
fn fast_or(fast: TokenStream, strong: TokenStream) -> TokenStream {
    let (r, rt) = (names::fast_result(), names::rt());
    quote!({
        let #r = #fast;
        if #r.ok() {
            #r.dual()
        } else {
            #rt::strong_path();
            #strong
        }
    })
}

/// `=` or `+=`, `-=`...
fn compound_tokens(op: BinOp) -> TokenStream {
    match op {
        BinOp::Add => quote!(+=),
        BinOp::Sub => quote!(-=),
        BinOp::Mul => quote!(*=),
        BinOp::Div => quote!(/=),
        BinOp::Rem => quote!(%=),
        BinOp::BitAnd => quote!(&=),
        BinOp::BitOr => quote!(|=),
        BinOp::BitXor => quote!(^=),
        BinOp::Shl => quote!(<<=),
        BinOp::Shr => quote!(>>=),
        _ => quote!(=),
    }
}

/// Zeros shaped like `e` (an expression that can be borrowed): the runtime's `zero_tangent` (or
/// `zero_lanes`), which rustc picks by `e`'s type. The macro only steps into tuples, whose
/// components that are not floats may be of types the runtime does not know.
fn zeros(shape: &Shape, e: &TokenStream, lanes: Lanes) -> TokenStream {
    match shape {
        // Not a float: carries no derivative; `()` stands in for its tangent.
        s if !s.is_float() => quote!(()),
        Shape::Tuple(items) => {
            // Components that are not floats carry no derivative: `()` stands in for them.
            let parts = items.iter().enumerate().map(|(i, s)| {
                if !s.is_float() {
                    return quote!(());
                }
                let ix = syn::Index::from(i);
                zeros(s, &quote!(#e.#ix), lanes)
            });
            quote!((#(#parts,)*))
        }
        _ => lanes.zero(e),
    }
}

// ---------------------------------------------------------------------------------- text

/// The forward program as indented text, one op a line: what `AUTODIFF_DUMP_IR` shows after the
/// adjoint program. A primal and its tangent are shown on one line; `Dual` evaluations, calls of
/// `_jvp` and zero tangents are named as such; code is printed as is.
pub(super) fn print(ops: &[Op]) -> String {
    let mut out = String::new();
    print_into(ops, 0, &mut out);
    out
}

fn print_into(ops: &[Op], depth: usize, out: &mut String) {
    let ind = "    ".repeat(depth);
    let line = |out: &mut String, s: String| {
        out.push_str(&ind);
        out.push_str(&s);
        out.push('\n');
    };
    for op in ops {
        match op {
            Op::Code(t) => line(out, format!("code {t}")),
            Op::Let { primal, tangent } => {
                let mut parts = Vec::new();
                if let Some(p) = primal {
                    parts.push(match &p.init {
                        Some(v) => format!("let {} = {v}", p.pat),
                        None => format!("let {}", p.pat),
                    });
                }
                if let Some(t) = tangent {
                    parts.push(match &t.init {
                        Some(v) => format!("tangent {} = {}", t.pat, tan_text(v)),
                        None => format!("tangent {}", t.pat),
                    });
                }
                line(out, parts.join("; "))
            }
            Op::Set {
                slot,
                value,
                tangent,
            } => line(
                out,
                format!(
                    "set {} = {value}; tangent {} = {}",
                    slot.primal(),
                    slot.tangent(),
                    tan_text(tangent)
                ),
            ),
            Op::Assign { place, op, value } => {
                let o = op.map(compound_tokens).unwrap_or_else(|| quote!(=));
                line(out, format!("set {place} {o} {value}"))
            }
            Op::Update {
                slot,
                op,
                rhs,
                temp,
                ..
            } => line(
                out,
                format!(
                    "update ({}, {}) {}= {} on dual {temp}",
                    slot.primal(),
                    slot.tangent(),
                    binop_tokens(*op),
                    dual_text(rhs)
                ),
            ),
            Op::Dual {
                name, expr, fast, ..
            } => {
                let how = if *fast {
                    "dual (fast path first)"
                } else {
                    "dual"
                };
                line(out, format!("{how} {name} = {}", dual_text(expr)))
            }
            Op::CallJvp {
                outs,
                path,
                primals,
                tangents,
                ..
            } => {
                let bind = match outs {
                    Some((o, tout)) => format!("({o}, {tout})"),
                    None => "_".to_string(),
                };
                line(
                    out,
                    format!(
                        "{bind} = jvp {path}({}; tangents {})",
                        list(primals),
                        list(tangents)
                    ),
                )
            }
            Op::Push {
                vec,
                value,
                tangent,
            } => line(
                out,
                match tangent {
                    Some((tvec, t)) => format!("push {vec} <- {value}; tangent {tvec} <- {t}"),
                    None => format!("push {vec} <- {value}"),
                },
            ),
            Op::Block(b) => nested(out, &ind, "{".into(), b, depth),
            Op::If { cond, then, els } => {
                line(out, format!("if {cond} {{"));
                print_into(then, depth + 1, out);
                if let Some(e) = els {
                    line(out, "} else {".into());
                    print_into(e, depth + 1, out);
                }
                line(out, "}".into());
            }
            Op::Match { scrut, arms } => {
                line(out, format!("match {scrut} {{"));
                for (p, b) in arms {
                    line(out, format!("    {p} => {{"));
                    print_into(b, depth + 2, out);
                    line(out, "    }".into());
                }
                line(out, "}".into());
            }
            Op::For {
                label: l,
                var,
                range,
                body,
            } => nested(
                out,
                &ind,
                format!("{}for {var} in {range} {{", label_text(l)),
                body,
                depth,
            ),
            Op::While {
                label: l,
                cond,
                body,
            } => nested(
                out,
                &ind,
                format!("{}while {cond} {{", label_text(l)),
                body,
                depth,
            ),
            Op::Loop { label: l, body } => {
                nested(out, &ind, format!("{}loop {{", label_text(l)), body, depth)
            }
            Op::Return { output, .. } => match output {
                Some(o) => output_text(out, &ind, "return", o, depth),
                None => line(out, "return ()".into()),
            },
            Op::Output(o) => output_text(out, &ind, "output", o, depth),
        }
    }
}

/// `head`, the ops of `body` one level deeper, `}`.
fn nested(out: &mut String, ind: &str, head: String, body: &[Op], depth: usize) {
    out.push_str(&format!("{ind}{head}\n"));
    print_into(body, depth + 1, out);
    out.push_str(&format!("{ind}}}\n"));
}

fn output_text(out: &mut String, ind: &str, what: &str, o: &OutputPair, depth: usize) {
    if o.pre.is_empty() {
        out.push_str(&format!("{ind}{what} ({}, {})\n", o.value, o.tangent));
        return;
    }
    out.push_str(&format!("{ind}{what} {{\n"));
    print_into(&o.pre, depth + 1, out);
    out.push_str(&format!("{ind}    ({}, {})\n{ind}}}\n", o.value, o.tangent));
}

fn label_text(l: &Option<syn::Lifetime>) -> String {
    l.as_ref().map(|l| format!("{l}: ")).unwrap_or_default()
}

fn list(items: &[TokenStream]) -> String {
    let items: Vec<String> = items.iter().map(|t| t.to_string()).collect();
    items.join(", ")
}

fn tan_text(t: &Tan) -> String {
    match t {
        Tan::Expr(t) => t.to_string(),
        Tan::Zeros { like, .. } | Tan::ZeroTangent(like) => format!("zeros like {like}"),
    }
}

/// A `Dual` expression as text: `dual(value, tangent)`, `const(value)`, operators and methods.
fn dual_text(d: &DualExpr) -> String {
    match d {
        DualExpr::Constant { value, .. } => format!("const({value})"),
        DualExpr::New { value, tangent, .. } => format!("dual({value}, {tangent})"),
        DualExpr::Plain(t) => t.to_string(),
        DualExpr::Part { name, k } => format!("{name}.{k}"),
        DualExpr::Binary { lhs, op, rhs, .. } => format!(
            "({} {} {})",
            dual_text(lhs),
            binop_tokens(*op),
            dual_text(rhs)
        ),
        DualExpr::Neg { operand, .. } => format!("(-{})", dual_text(operand)),
        DualExpr::Method {
            recv, method, args, ..
        } => {
            let args: Vec<String> = args.iter().map(dual_text).collect();
            format!("{}.{method}({})", dual_text(recv), args.join(", "))
        }
    }
}
