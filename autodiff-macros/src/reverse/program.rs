//! The adjoint program: takes what the reverse emitter decided (forward-sweep code and saves, the
//! reverse sweep's pops, adjoint updates, rule calls, calls of other functions' `_vjp`, loops with
//! adjoint windows), gives it as data: `Op`s that later passes can inspect and rewrite, printed
//! to tokens by `ToTokens` and to text by `print` (the `AUTODIFF_DUMP_IR` dump).
//!
//! Expressions inside ops are tokens printed by the primal printer; what the adjoint program
//! itself adds (where a value is saved, which adjoint place is read, zeroed or accumulated into,
//! which rule gives which partials) is structured. Adjoint places are compared as data (`Adj`),
//! never as printed text.

use crate::names;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// One statement of the adjoint program.
pub(super) enum Op {
    /// Code the sweep runs as printed: primal statements of the forward sweep, recomputations.
    Code(TokenStream),
    /// `let pat = value;` (`pat` with `mut` and a type where the program needs them).
    Let {
        pat: TokenStream,
        value: TokenStream,
    },
    /// `place = value;`
    Set {
        place: TokenStream,
        value: TokenStream,
    },
    /// A value saved in a loop or branch for the reverse sweep: `tape.push(value);` or
    /// `slot = Some(value);`. `fill`: a value of the same type that can be written anywhere
    /// (`zero()` for a float), when there is one: a loop may then size a region of the tape
    /// before it runs and save by index (`SaveAt`).
    Save {
        site: Site,
        value: TokenStream,
        fill: Option<TokenStream>,
    },
    /// `place = value;`: a value saved into a region of `tape` that the loop around it sized
    /// before running (`place` is `region[k]`, `k` the iteration's offset from the loop's start;
    /// `reverse/loops.rs`, "tape regions").
    SaveAt {
        tape: syn::Ident,
        place: TokenStream,
        value: TokenStream,
    },
    /// `let name = pop(&mut tape);` or `let name = unslot(slot);`: the value saved by the
    /// matching `Save`.
    Restore { name: syn::Ident, site: Site },
    /// `let (a, b, ..) = pop(&mut tape);`: the values a loop body saved on its one tape of
    /// tuples (`combine_tapes`); `unslot(slot)` once a fused loop made the tape a slot.
    RestoreTuple { names: Vec<syn::Ident>, site: Site },
    /// `let mut name = zero();`: the adjoint of a scalar declared in a block, zero where the
    /// block's reverse starts (`first_contributions` turns its first accumulation into `name =
    /// value;` when nothing reads it before).
    Zero { name: syn::Ident },
    /// `let g = place; place = zero;`: the adjoint of a place the statement wrote is consumed.
    Take {
        g: syn::Ident,
        place: Adj,
        zero: TokenStream,
    },
    /// `accumulate(&mut place, &value);`, or `place = value;` when the statement just zeroed `place`
    /// (`first`): `0.0 + g` is not `g` in IEEE arithmetic, so rustc could not drop the addition.
    Acc {
        place: Adj,
        value: TokenStream,
        first: bool,
    },
    /// `acc_slice(&mut target, &value[..]);`: a sequence adjoint accumulated elementwise.
    AccSlice {
        target: TokenStream,
        value: TokenStream,
    },
    /// `let (p0, p1, ..) = rules::rule(args..);`: the partials of one primitive (one output:
    /// `let p0 = ..`).
    Rule {
        outs: Vec<syn::Ident>,
        rule: syn::Ident,
        args: Vec<TokenStream>,
    },
    /// `let _ = path(args.., seed);`: the reverse of a call of a differentiated function.
    CallVjp {
        path: TokenStream,
        args: Vec<TokenStream>,
        seed: TokenStream,
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
    /// `for var in range { body }` (`var` is `_` for a replayed trip count).
    For {
        var: TokenStream,
        range: TokenStream,
        body: Vec<Op>,
    },
    /// `head { body }`: a `while cond` or `loop` of the forward sweep.
    Loop { head: TokenStream, body: Vec<Op> },
}

/// The tapes `ops` (a loop body's forward code) push at most once per run: saves outside nested
/// loops (branches run at most once). A loop can reserve room for its trip count in them.
pub(super) fn tapes_pushed_once(ops: &[Op], out: &mut Vec<syn::Ident>) {
    for op in ops {
        match op {
            Op::Save {
                site: Site::Tape(t),
                ..
            }
            | Op::SaveAt { tape: t, .. }
                if !out.contains(t) =>
            {
                out.push(t.clone())
            }
            Op::Block(b) => tapes_pushed_once(b, out),
            Op::If { then, els, .. } => {
                tapes_pushed_once(then, out);
                if let Some(e) = els {
                    tapes_pushed_once(e, out);
                }
            }
            Op::Match { arms, .. } => arms.iter().for_each(|(_, b)| tapes_pushed_once(b, out)),
            _ => {}
        }
    }
}

/// The tapes `ops` writes by index at their own level (`Op::SaveAt`: tape regions), not those
/// of nested loops.
pub(super) fn region_tapes(ops: &[Op], out: &mut Vec<syn::Ident>) {
    for op in ops {
        match op {
            Op::SaveAt { tape, .. } if !out.contains(tape) => out.push(tape.clone()),
            Op::Block(b) => region_tapes(b, out),
            _ => {}
        }
    }
}

/// Every op of `ops`, nested ones included, in order.
pub(super) fn visit(ops: &[Op], f: &mut impl FnMut(&Op)) {
    for op in ops {
        f(op);
        match op {
            Op::Block(b) | Op::For { body: b, .. } | Op::Loop { body: b, .. } => visit(b, f),
            Op::If { then, els, .. } => {
                visit(then, f);
                if let Some(e) = els {
                    visit(e, f);
                }
            }
            Op::Match { arms, .. } => arms.iter().for_each(|(_, b)| visit(b, f)),
            _ => {}
        }
    }
}

/// The saves on tape `t` anywhere in `ops` (their values).
pub(super) fn tapes_saved(ops: &[Op], t: &syn::Ident, out: &mut Vec<TokenStream>) {
    visit(ops, &mut |op| match op {
        Op::Save {
            site: Site::Tape(u),
            value,
            ..
        }
        | Op::SaveAt { tape: u, value, .. }
            if u == t =>
        {
            out.push(value.clone())
        }
        _ => {}
    });
}

/// Adds to `n` the number of reads of tape `t` anywhere in `ops`.
pub(super) fn count_restores(ops: &[Op], t: &syn::Ident, n: &mut usize) {
    visit(ops, &mut |op| {
        if matches!(op, Op::Restore { site: Site::Tape(u), .. } | Op::RestoreTuple { site: Site::Tape(u), .. } if u == t)
        {
            *n += 1;
        }
    });
}

/// The tapes pushed at most once an iteration by the `for` loops `ops` runs outside branches
/// (each run of `ops` runs those loops), nested ones too: the tapes whose pushes trip counts can
/// bound before `ops` runs.
pub(super) fn straight_tapes(ops: &[Op], out: &mut Vec<syn::Ident>) {
    for op in ops {
        match op {
            Op::Block(b) => straight_tapes(b, out),
            Op::For { body, .. } => {
                tapes_pushed_once(body, out);
                straight_tapes(body, out);
            }
            _ => {}
        }
    }
}

/// One tape per loop: the tapes a loop body (`fwd`, its reverse's start `pops`) pushes at its own
/// level, exactly once per iteration (a body runs to its end once entered), become one tape of
/// tuples. Each value is bound to a local (`locals`, one per save, in order) where it was saved,
/// and the tuple is pushed at the end of the body; the reverse pops it where the first of the
/// separate pops stood. Returns the tapes no longer used (the first one carries the tuples).
pub(super) fn combine_tapes(
    fwd: &mut Vec<Op>,
    pops: &mut Vec<Op>,
    mut local: impl FnMut() -> syn::Ident,
) -> Vec<syn::Ident> {
    // Top-level saves on tapes, each with exactly one pop in this block's reverse start.
    let mut tapes: Vec<syn::Ident> = Vec::new();
    for op in fwd.iter() {
        if let Op::Save {
            site: Site::Tape(t),
            ..
        } = op
        {
            let pops_of = pops
                .iter()
                .filter(|p| matches!(p, Op::Restore { site: Site::Tape(u), .. } if u == t))
                .count();
            if pops_of == 1 && !tapes.contains(t) {
                tapes.push(t.clone());
            }
        }
    }
    // A tape saved twice at this level (none today) keeps its own pushes.
    tapes.retain(|t| {
        fwd.iter()
            .filter(|op| matches!(op, Op::Save { site: Site::Tape(u), .. } if u == t))
            .count()
            == 1
    });
    if tapes.len() < 2 {
        return Vec::new();
    }
    let mut locals = Vec::new();
    let mut fills = Some(Vec::new());
    for op in fwd.iter_mut() {
        let is_ours = matches!(op, Op::Save { site: Site::Tape(t), .. } if tapes.contains(t));
        if !is_ours {
            continue;
        }
        let Op::Save { value, fill, .. } = std::mem::replace(op, Op::Code(TokenStream::new()))
        else {
            continue;
        };
        match (fill, &mut fills) {
            (Some(f), Some(fs)) => fs.push(f),
            _ => fills = None,
        }
        let k = local();
        *op = Op::Let {
            pat: quote!(#k),
            value,
        };
        locals.push(k);
    }
    let first = tapes[0].clone();
    fwd.push(Op::Save {
        site: Site::Tape(first.clone()),
        value: quote!((#(#locals,)*)),
        fill: fills.map(|fs| quote!((#(#fs,)*))),
    });
    // The names the reverse binds, in the order of the saves.
    let mut names = Vec::new();
    for t in &tapes {
        for p in pops.iter() {
            if let Op::Restore {
                name,
                site: Site::Tape(u),
            } = p
            {
                if u == t {
                    names.push(name.clone());
                }
            }
        }
    }
    // A name restored twice (a value saved under its variable's name by two sites, as a
    // `#[checkpoint]` loop's inputs and a kept `let`: the same immutable value) is bound once:
    // the tuple pattern cannot bind it twice.
    for i in 0..names.len() {
        if names[i + 1..].contains(&names[i]) {
            names[i] = local();
        }
    }
    let at = pops
        .iter()
        .position(|p| matches!(p, Op::Restore { site: Site::Tape(u), .. } if tapes.contains(u)))
        .unwrap_or(0);
    pops.retain(|p| !matches!(p, Op::Restore { site: Site::Tape(u), .. } if tapes.contains(u)));
    pops.insert(
        at,
        Op::RestoreTuple {
            names,
            site: Site::Tape(first),
        },
    );
    tapes.into_iter().skip(1).collect()
}

/// First contributions assigned: in every op list of `ops` (nested ones included), a scalar
/// adjoint declared zero (`Op::Zero`) whose first mention after its declaration is an
/// accumulation into it, `acc(&mut b, &v)` with `v` not naming `b`, reached through plain blocks
/// only (no branch or loop between: that accumulation runs, exactly once, whenever the
/// declaration does), has that accumulation printed `b = v;`: `0.0 + v` is `v` up to the sign of
/// a zero (`0.0 + -0.0` is `0.0`), the addition is one instruction rustc must keep (IEEE), and
/// every later contribution still adds. Names are unique in the program, so a mention found
/// by name is one of this variable.
pub(super) fn first_contributions(ops: &mut [Op]) {
    for k in 0..ops.len() {
        let (head, rest) = ops.split_at_mut(k + 1);
        match &mut head[k] {
            Op::Zero { name } => {
                let name = name.clone();
                first_use(rest, &name);
            }
            Op::Block(b) | Op::For { body: b, .. } | Op::Loop { body: b, .. } => {
                first_contributions(b)
            }
            Op::If { then, els, .. } => {
                first_contributions(then);
                if let Some(e) = els {
                    first_contributions(e);
                }
            }
            Op::Match { arms, .. } => arms.iter_mut().for_each(|(_, b)| first_contributions(b)),
            _ => {}
        }
    }
}

/// What `first_use` found: `name` not mentioned in the ops, or its first mention handled (made
/// an assignment, or one that must stay as it is).
#[derive(PartialEq)]
enum Use {
    Unseen,
    Done,
}

/// Makes the first mention of `name` in `ops` an assignment when it is an accumulation into it
/// reached through plain blocks (see `first_contributions`).
fn first_use(ops: &mut [Op], name: &syn::Ident) -> Use {
    for op in ops {
        match op {
            Op::Acc {
                place: Adj::Var(b),
                value,
                first,
            } if b == name => {
                if !mentions(value.clone(), name) {
                    *first = true;
                }
                return Use::Done;
            }
            Op::Block(b) => {
                if first_use(b, name) == Use::Done {
                    return Use::Done;
                }
            }
            other => {
                if mentions(other.to_token_stream(), name) {
                    return Use::Done;
                }
            }
        }
    }
    Use::Unseen
}

/// Whether `tokens` hold the identifier `name`.
fn mentions(tokens: TokenStream, name: &syn::Ident) -> bool {
    use proc_macro2::TokenTree;
    tokens.into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == *name,
        TokenTree::Group(g) => mentions(g.stream(), name),
        _ => false,
    })
}

/// Where a value saved inside a loop or branch waits for the reverse sweep (top-level values are
/// plain `let`s). Both are declared empty at the start of the function.
#[derive(Clone)]
pub(super) enum Site {
    /// A stack (`Vec`) for a site inside a loop, which runs any number of times: pushed in the
    /// forward sweep, popped in the reverse, so pushes and pops pair up last in, first out.
    Tape(syn::Ident),
    /// An `Option` local for a site inside branches but outside every loop, which runs at most
    /// once per call: set in the forward sweep, moved out in the reverse (no heap allocation).
    Slot(syn::Ident),
}

impl Site {
    /// The local the site is kept in.
    pub(super) fn ident(&self) -> &syn::Ident {
        match self {
            Site::Tape(t) | Site::Slot(t) => t,
        }
    }
}

/// An adjoint place the reverse sweep reads, zeroes or accumulates into.
#[derive(Clone)]
pub(super) enum Adj {
    /// The adjoint variable of a variable (`__ad_b_x__3`).
    Var(syn::Ident),
    /// An element of a sequence adjoint, `b[index]`, the index printed (other spellings of the
    /// index may name the same element, so this place is never known to be another one).
    Elem(syn::Ident, TokenStream),
    /// A slot of an adjoint window: the adjoint of `b[i + c]` held in a local during a loop.
    Slot(syn::Ident),
    /// An element of an adjoint slice view, `view[(i - start) + k]`.
    View(ViewElem),
    /// A component of a tuple adjoint, `b.k`.
    Field(syn::Ident, u32),
    /// A field of a struct's adjoint, `b.x.y` (the derived tangent has the struct's field
    /// names); the whole `b` names it too, so it is never known to be another place.
    Member(syn::Ident, TokenStream),
}

impl Adj {
    /// Whether no other spelling can name the same place (so "just zeroed" is exact).
    pub(super) fn unaliased(&self) -> bool {
        !matches!(self, Adj::Elem(..) | Adj::Member(..))
    }

    /// Whether `self` and `other` are known to be the same place: the same variable adjoint,
    /// window slot, view element or tuple component. Elements `b[i]` are never known to be the
    /// same as anything (`b[i]` and `b[1]` may or may not be).
    pub(super) fn same_place(&self, other: &Adj) -> bool {
        match (self, other) {
            (Adj::Var(a), Adj::Var(b)) | (Adj::Slot(a), Adj::Slot(b)) => a == b,
            (Adj::View(a), Adj::View(b)) => a == b,
            (Adj::Field(a, i), Adj::Field(b, j)) => a == b && i == j,
            _ => false,
        }
    }
}

/// `view[(index - start) + k]`: an element of a slice view taken before a loop over `index`
/// starting at `start`.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct ViewElem {
    pub(super) view: syn::Ident,
    pub(super) index: syn::Ident,
    pub(super) start: syn::Ident,
    pub(super) k: usize,
}

impl ToTokens for ViewElem {
    fn to_tokens(&self, out: &mut TokenStream) {
        let (n, i, a, k) = (&self.view, &self.index, &self.start, self.k);
        out.extend(quote!(#n[(#i - #a) + #k]));
    }
}

impl ToTokens for Adj {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend(match self {
            Adj::Var(b) | Adj::Slot(b) => quote!(#b),
            Adj::Elem(b, i) => quote!(#b[#i]),
            Adj::View(v) => quote!(#v),
            Adj::Field(b, k) => {
                let ix = syn::Index::from(*k as usize);
                quote!(#b.#ix)
            }
            Adj::Member(b, m) => quote!(#b #m),
        })
    }
}

fn block(ops: &[Op]) -> TokenStream {
    quote!(#(#ops)*)
}

impl ToTokens for Op {
    fn to_tokens(&self, out: &mut TokenStream) {
        let rt = names::rt();
        out.extend(match self {
            Op::Code(t) => t.clone(),
            Op::Let { pat, value } => quote!(let #pat = #value;),
            Op::Zero { name } => quote!(let mut #name = #rt::zero();),
            Op::Set { place, value } => quote!(#place = #value;),
            Op::Save {
                site: Site::Tape(t),
                value,
                ..
            } => quote!(#t.push(#value);),
            Op::Save {
                site: Site::Slot(k),
                value,
                ..
            } => quote!(#k = ::core::option::Option::Some(#value);),
            Op::SaveAt { place, value, .. } => quote!(#place = #value;),
            Op::Restore {
                name,
                site: Site::Tape(t),
            } => quote!(let #name = #rt::pop(&mut #t);),
            Op::Restore {
                name,
                site: Site::Slot(k),
            } => quote!(let #name = #rt::unslot(#k);),
            Op::RestoreTuple {
                names,
                site: Site::Tape(t),
            } => quote!(let (#(#names,)*) = #rt::pop(&mut #t);),
            Op::RestoreTuple {
                names,
                site: Site::Slot(k),
            } => quote!(let (#(#names,)*) = #rt::unslot(#k);),
            Op::Take { g, place, zero } => quote!(let #g = #place; #place = #zero;),
            Op::Acc {
                place,
                value,
                first: true,
            } => quote!(#place = #value;),
            Op::Acc { place, value, .. } => quote!(#rt::accumulate(&mut #place, &#value);),
            Op::AccSlice { target, value } => quote!(#rt::acc_slice(#target, &#value[..]);),
            Op::Rule { outs, rule, args } => {
                let lhs = match outs.as_slice() {
                    [one] => quote!(#one),
                    many => quote!((#(#many),*)),
                };
                quote!(let #lhs = #rt::rules::#rule(#(#args),*);)
            }
            Op::CallVjp { path, args, seed } => quote!(let _ = #path(#(#args,)* #seed);),
            Op::Block(ops) => {
                let b = block(ops);
                quote!({ #b })
            }
            Op::If { cond, then, els } => {
                let t = block(then);
                match els {
                    Some(e) => {
                        let e = block(e);
                        quote!(if #cond { #t } else { #e })
                    }
                    None => quote!(if #cond { #t }),
                }
            }
            Op::Match { scrut, arms } => {
                let arms = arms.iter().map(|(p, b)| {
                    let b = block(b);
                    quote!(#p => { #b })
                });
                quote!(match #scrut { #(#arms)* })
            }
            Op::For { var, range, body } => {
                let b = block(body);
                quote!(for #var in #range { #b })
            }
            Op::Loop { head, body } => {
                let b = block(body);
                quote!(#head { #b })
            }
        })
    }
}

/// The adjoint program as indented text, one op a line: what `AUTODIFF_DUMP_IR` shows after the
/// passes' IR. Saves, pops, takes and accumulations are named as such; code is printed as is.
pub(super) fn print(ops: &[Op]) -> String {
    let mut out = String::new();
    print_into(ops, 0, &mut out);
    out
}

/// A site as the dump names it: `tape t3`, `slot slot4`.
fn site_text(site: &Site) -> String {
    match site {
        Site::Tape(t) => format!("tape {t}"),
        Site::Slot(k) => format!("slot {k}"),
    }
}

fn print_into(ops: &[Op], depth: usize, out: &mut String) {
    let ind = "    ".repeat(depth);
    for op in ops {
        let mut line = |s: String| {
            out.push_str(&ind);
            out.push_str(&s);
            out.push('\n');
        };
        match op {
            Op::Code(t) => line(format!("code {t}")),
            Op::Let { pat, value } => line(format!("let {pat} = {value}")),
            Op::Zero { name } => line(format!("adjoint {name} = zero")),
            Op::Set { place, value } => line(format!("set {place} = {value}")),
            Op::Save { site, value, .. } => line(format!("save {} <- {value}", site_text(site))),
            Op::SaveAt { tape, place, value } => {
                line(format!("save region of tape {tape}: {place} <- {value}"))
            }
            Op::Restore { name, site } => line(format!("restore {name} <- {}", site_text(site))),
            Op::RestoreTuple { names, site } => {
                let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
                line(format!(
                    "restore ({}) <- {}",
                    names.join(", "),
                    site_text(site)
                ))
            }
            Op::Take { g, place, zero } => line(format!(
                "take {g} <- adjoint {} (then {zero})",
                place.to_token_stream()
            )),
            Op::Acc {
                place,
                value,
                first,
            } => {
                let how = if *first { "=" } else { "+=" };
                line(format!("adjoint {} {how} {value}", place.to_token_stream()))
            }
            Op::AccSlice { target, value } => {
                line(format!("adjoint {target} += {value} (elementwise)"))
            }
            Op::Rule { outs, rule, args } => {
                let outs: Vec<String> = outs.iter().map(|o| o.to_string()).collect();
                let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                line(format!(
                    "partials ({}) = rule {rule}({})",
                    outs.join(", "),
                    args.join(", ")
                ))
            }
            Op::CallVjp { path, args, seed } => {
                let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                line(format!("vjp {path}({}; seed {seed})", args.join(", ")))
            }
            Op::Block(b) => {
                line("{".into());
                print_into(b, depth + 1, out);
                out.push_str(&format!("{ind}}}\n"));
                continue;
            }
            Op::If { cond, then, els } => {
                line(format!("if {cond} {{"));
                print_into(then, depth + 1, out);
                if let Some(e) = els {
                    out.push_str(&format!("{ind}}} else {{\n"));
                    print_into(e, depth + 1, out);
                }
                out.push_str(&format!("{ind}}}\n"));
                continue;
            }
            Op::Match { scrut, arms } => {
                line(format!("match {scrut} {{"));
                for (p, b) in arms {
                    out.push_str(&format!("{ind}    {p} => {{\n"));
                    print_into(b, depth + 2, out);
                    out.push_str(&format!("{ind}    }}\n"));
                }
                out.push_str(&format!("{ind}}}\n"));
                continue;
            }
            Op::For { var, range, body } => {
                line(format!("for {var} in {range} {{"));
                print_into(body, depth + 1, out);
                out.push_str(&format!("{ind}}}\n"));
                continue;
            }
            Op::Loop { head, body } => {
                line(format!("{head} {{"));
                print_into(body, depth + 1, out);
                out.push_str(&format!("{ind}}}\n"));
                continue;
            }
        }
    }
}

/// The names a `let` pattern binds (`mut x`, `(a, mut b)`, `x: f64`): every identifier before a
/// type annotation, keywords and `_` aside.
pub(super) fn bound_names(pat: &TokenStream) -> Vec<syn::Ident> {
    use proc_macro2::TokenTree;
    let mut out = Vec::new();
    for t in pat.clone() {
        match t {
            TokenTree::Punct(p) if p.as_char() == ':' => break,
            TokenTree::Ident(i) if i != "mut" && i != "ref" && i != "_" => out.push(i),
            TokenTree::Group(g) => out.extend(bound_names(&g.stream())),
            _ => {}
        }
    }
    out
}
