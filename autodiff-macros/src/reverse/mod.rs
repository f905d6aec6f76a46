//! Reverse mode: takes the analysed IR, gives the body of `<f>_vjp`: a forward sweep (the primal
//! computation, saving what the reverse sweep will need) followed by a reverse sweep (statements
//! in reverse order, adjoints propagated with the runtime's partial-derivative rules).
//!
//! Steps:
//! 1. `normalize`: `return`/`break`/`continue` become assignments and flags, so that every block
//!    runs to its end (the rest of a block after a conditional exit moves into the non-exiting
//!    branches). Compound assignments become plain ones. Nested plain blocks are flattened (every
//!    variable gets a unique name, so scopes do not matter).
//! 2. `Emitter`: one recursive pass per block gives its forward code and its reverse code. A value
//!    the reverse sweep needs is recomputed when everything it reads is still there (arguments,
//!    top-level immutable `let`s, loop indices), and otherwise saved at its statement: as a local
//!    at the top level, in a per-site `Option` slot inside branches outside loops (a branch runs
//!    at most once per call), on a per-site stack (`Vec`) inside loops. Each slot or stack is
//!    read at the start of the reverse of the block that saved it, so saves and reads pair up.
//!    What is kept, restored, copied before each statement and recomputed is decided before,
//!    once, by `analysis/saves.rs`, and the loops' windows and views by `analysis/access.rs`;
//!    the pass runs once, reads those tables, and checks that it named exactly the values kept.

use crate::analysis::activity::expr_active;
use crate::diag::Diag;
use crate::ir::shape_of;
use crate::ir::*;
use crate::methods::{self, Arity, Linearity};
use crate::names;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use std::collections::{BTreeSet, HashMap};

mod addwin;
mod backprop;
mod blocks;
mod checkpoint;
mod edges;
mod fuse;
mod loops;
mod mutcalls;
mod program;
mod regions;
mod stmts;
mod values;

use crate::analysis::access::{self as plan, affine_offset, affine_split, LoopAccess};
use crate::analysis::reads::{binop_needs, call_live, SnapSite};
use crate::analysis::saves::{self, CopyFrom};
use crate::analysis::scope::{scope_of, simple_for, Level, Scope};
use crate::codegen::dump::IrDump;
use crate::transform::normalize::{normalize, R};
use program::{Adj, Op, Site, ViewElem};
use values::StmtCx;

struct BlockOut {
    fwd: Vec<Op>,
    /// Reverse code of each statement, in forward order (reversed when assembled).
    rev: Vec<Op>,
    /// Code to run at the start of this block's reverse: pops, recomputations, adjoint zeros.
    pops: Vec<Op>,
}

impl BlockOut {
    fn new() -> Self {
        BlockOut {
            fwd: Vec::new(),
            rev: Vec::new(),
            pops: Vec::new(),
        }
    }

    /// This block's reverse sweep: its pops, then the statements' reverse code, last first.
    fn reverse(self) -> Vec<Op> {
        let mut ops = self.pops;
        ops.extend(self.rev.into_iter().rev());
        ops
    }
}

struct Emitter<'a> {
    f: &'a Function,
    vars: &'a [Var],
    n: usize,
    /// Save sites inside loops and branches (tapes and slots), declared at the start.
    sites: Vec<Site>,
    /// The saves table (`analysis/saves.rs`): what is kept, restored, copied before each
    /// statement, recomputed. The emitter reads it and decides none of it.
    saves: &'a saves::Saves<'a>,
    /// The access table of the simple `for` loops (`analysis/access.rs`), by index variable.
    access: &'a HashMap<VarId, LoopAccess>,
    /// The immutable non-top-level variables emission named, checked against `saves.needed`.
    needed_now: BTreeSet<VarId>,
    /// Variables whose adjoint can be nonzero (the usefulness analysis): only these get an adjoint.
    acc: BTreeSet<VarId>,
    /// What the reverse sweep can read by name (with the restored sequences).
    scope: Scope<'a>,
    ret: VarId,
    /// Set when a value was needed that `prepare` did not save: an internal error.
    bug: bool,
    /// Adjoint windows of the loop being emitted: element adjoints `b[i + c]` kept in locals.
    windows: HashMap<VarId, Window>,
    /// Slice views of the loop being emitted: `arr[e + i + c]` read through a sub-slice taken
    /// once before the loop, so that rustc can drop the bounds checks (and vectorize). Primal
    /// arrays the loop does not write, and adjoint buffers.
    views: HashMap<VarId, SliceView>,
    adj_views: HashMap<VarId, SliceView>,
    /// The runtime function multiplying an adjoint by a partial: `scale_strong` (the strong
    /// zero) when an adjoint or a partial can be infinite or NaN where values are finite,
    /// `scale` (a plain product) otherwise.
    scale: syn::Ident,
    /// Whether the products of a pole primitive's partials (`ln`, division...) use the strong
    /// zero though `scale` is plain: in a function with a pole, no selector and more than one
    /// float output (an array, a tuple, `&mut` buffers), whose caller may cut off one output
    /// while another stays seeded (see `edges::scale_fn`).
    pole_strong: bool,
    /// The sequence a `#[checkpoint]` loop's `_vjp` call runs on in place (`checkpoint.rs`):
    /// lent as itself, not as a copy saved before the call.
    in_place: Option<VarId>,
    /// Tapes pushed once an iteration by simple loops nested in the loop being emitted, with the
    /// number of pushes per run of that loop's body (a product of trip counts that can be
    /// evaluated before the outermost loop): reserved there at once (`loops.rs`).
    nested_reserve: Vec<(syn::Ident, TokenStream)>,
    /// The names of the copies saved so far, by the id of the read saved: where the saves
    /// table says a later read reads an earlier copy (`CopyFrom`), the name it reads.
    copy_names: HashMap<ExprId, TokenStream>,
    /// Loop fusion (`fuse.rs`): the plan for the top-level block, and the index variables of
    /// the loops emitted fused (forward and reverse code in one loop of the forward sweep).
    fusion: Option<crate::analysis::fusion::Plan>,
    fused: BTreeSet<VarId>,
    /// Set when the fused program cannot be printed as planned: emission starts again unfused.
    unfused: bool,
}

/// A view of a sequence for one loop, with the largest offset it covers.
type PlannedView = (VarId, SliceView, i64);

/// `name = &arr[e + a + lo ..]`, read as `name[(i - a) + (c - lo)]` for `arr[e + i + c]`.
#[derive(Clone)]
struct SliceView {
    name: syn::Ident,
    index: VarId,
    /// The loop-invariant part `e`, printed (empty when there is none), and as an expression.
    inv: plan::Invariant,
    inv_expr: Option<Expr>,
    start: syn::Ident,
    lo: i64,
}

/// The adjoints of `base[i + c]`, `c` in `lo..=hi`, held in local slots while the reverse loop
/// over `i` runs: each element is loaded once when the first iteration that touches it starts and
/// stored once after the last one, instead of a read-modify-write of memory per contribution.
struct Window {
    index: VarId,
    lo: i64,
    hi: i64,
    slots: Vec<syn::Ident>,
    /// Some access is conditional: loads and stores check that the element exists.
    guarded: bool,
}

impl Window {
    fn slot(&self, c: i64) -> &syn::Ident {
        &self.slots[(c - self.lo) as usize]
    }
}

pub fn emit_body(f: &Function, diag: &mut Diag, dump: &mut IrDump) -> Option<TokenStream> {
    let Sweeps { mut fwd, rev, ret } = adjoint_program(f, diag, dump, true)?;
    fwd.extend(rev);
    fwd.push(Op::Code(ret));
    let program = fwd;
    dump.section("adjoint program (reverse mode)", || {
        program::print(&program)
    });
    Some(quote!(#(#program)*))
}

/// The adjoint program cut where the forward sweep ends (split mode, `codegen/split.rs`).
pub struct Split {
    /// The forward sweep: the value computed, tapes filled.
    pub fwd: TokenStream,
    /// The reverse sweep, reading the adjoint arguments `d<arg>` and the seed.
    pub rev: TokenStream,
    /// The variable holding the value after the forward sweep.
    pub ret: TokenStream,
    /// The names the forward sweep binds at its top level (and the arguments) that the reverse
    /// sweep reads or writes: what a pullback must own, and copy before each use.
    pub captured: Vec<syn::Ident>,
}

/// The adjoint program of `f` cut in two for split mode (`None` after an error).
pub fn emit_split(f: &Function, diag: &mut Diag, dump: &mut IrDump) -> Option<Split> {
    // The forward sweep runs before the seed is known: no loop is fused.
    let Sweeps { fwd, rev, ret } = adjoint_program(f, diag, dump, false)?;
    let mut bound: Vec<syn::Ident> = f.params.iter().map(|p| p.name.clone()).collect();
    for op in &fwd {
        if let Op::Let { pat, .. } = op {
            bound.extend(program::bound_names(pat));
        }
    }
    let rev_tokens = quote!(#(#rev)*);
    let used = crate::ir::token_names(&rev_tokens, false);
    let mut captured: Vec<syn::Ident> = Vec::new();
    for b in bound {
        let name = b.to_string();
        if used.contains(&name) && !captured.iter().any(|c| *c == name) {
            captured.push(b);
        }
    }
    Some(Split {
        fwd: quote!(#(#fwd)*),
        rev: rev_tokens,
        ret,
        captured,
    })
}

/// An adjoint program in its two sweeps.
struct Sweeps {
    fwd: Vec<Op>,
    rev: Vec<Op>,
    /// The value, the last statement of `f_vjp`.
    ret: TokenStream,
}

/// The body of `f_vjp` as an adjoint program (`None` after an error, reported in `diag`), with
/// reduction loops fused when `fuse` (`fuse.rs`).
fn adjoint_program(f: &Function, diag: &mut Diag, dump: &mut IrDump, fuse: bool) -> Option<Sweeps> {
    // Buffers copied whole every iteration exchanged instead (`transform/rotate.rs`), folded
    // into `R::Swap` once normalised.
    let rotation = crate::transform::rotate::rotated(f);
    let f = rotation.as_ref().map_or(f, |r| &r.f);
    let mut vars = f.vars.clone();
    let ret = vars.len();
    vars.push(Var {
        name: names::synthetic("ret", ret),
        mutable: true,
        shape: f.output.shape.clone(),
        origin: VarOrigin::Synthetic,
        ty: Some(f.output.ty.clone()),
        active: true,
        row: None,
    });
    let body = normalize(f, &mut vars, ret, diag);
    dump.section("exits normalised (reverse mode)", || {
        crate::transform::normalize::print(&vars, &body)
    });
    if diag.has_errors() {
        return None;
    }
    let mut body = body;
    if let Some(r) = &rotation {
        if crate::transform::rotate::fold_exchanges(&mut body, &r.temps) > 0 {
            dump.section("buffers rotated (reverse mode)", || {
                let mut text = r.lines.join("\n");
                text.push('\n');
                text.push_str(&crate::transform::normalize::print(&vars, &body));
                text
            });
        }
    }
    // Guarded neighbour reads: first/last iterations written out (`transform/peel.rs`).
    let peeled = crate::transform::peel::peel(&mut body, &mut vars, &f.checkpoints);
    if !peeled.is_empty() {
        crate::transform::normalize::number(&mut body);
        dump.section("loops peeled (reverse mode)", || {
            let mut text = peeled.join("\n");
            text.push('\n');
            text.push_str(&crate::transform::normalize::print(&vars, &body));
            text
        });
    }
    // Counters the statements after a loop read, computed before it (`transform/fission.rs`):
    // for fusion only.
    if fuse && f.output.shape != Shape::Struct {
        let split = crate::transform::fission::split_counters(&mut body, &mut vars);
        if !split.is_empty() {
            crate::transform::normalize::number(&mut body);
            dump.section("counters split out (reverse mode)", || {
                let mut text = split.join("\n");
                text.push('\n');
                text.push_str(&crate::transform::normalize::print(&vars, &body));
                text
            });
        }
    }
    let (scope, acc) = scope_of(f, &vars, ret, &body);
    // What must be kept, decided once before emission (`analysis/saves.rs`).
    let saves = saves::saves(&body, &scope, &acc, &f.checkpoints);
    let scope = Scope {
        restore: saves.restore.clone(),
        ..scope
    };
    // The loops' access patterns, for adjoint windows and slice views (`analysis/access.rs`).
    let access = crate::analysis::access::loop_access(&body, &scope, &acc);
    let plan_from = |from: usize, dump: &mut IrDump| {
        let (plan, report) = crate::analysis::fusion::plan(&body, &vars, ret, &f.checkpoints, from);
        dump.section("loop fusion (reverse mode)", || fuse::report_text(&report));
        plan
    };
    let (scale, pole_strong) = edges::scale_fn(f);
    let new_emitter = |fusion: Option<crate::analysis::fusion::Plan>| Emitter {
        f,
        vars: &vars,
        n: 0,
        sites: Vec::new(),
        saves: &saves,
        access: &access,
        needed_now: BTreeSet::new(),
        acc: acc.clone(),
        scope: scope.clone(),
        ret,
        bug: false,
        windows: HashMap::new(),
        views: HashMap::new(),
        adj_views: HashMap::new(),
        scale: scale.clone(),
        pole_strong,
        in_place: None,
        nested_reserve: Vec::new(),
        copy_names: HashMap::new(),
        fusion,
        fused: BTreeSet::new(),
        unfused: false,
    };
    // A struct output held whole is assigned last, after any fused region would read its seed.
    let fuse = fuse && f.output.shape != Shape::Struct;
    let mut plan = if fuse { plan_from(0, dump) } else { None };
    let (em, program) = loop {
        let start = plan.as_ref().map(|p| p.start);
        let mut em = new_emitter(plan);
        let program = em.function(&body);
        match start {
            // The tail's reverse read a value of the region: a region starting later may fuse.
            Some(start) if em.unfused => plan = plan_from(start + 1, dump),
            _ => break (em, program),
        }
    };
    // Emission must name exactly the values the analysis kept, and the analysis must agree
    // with itself (`Saves::consistent`).
    let agree = em.needed_now == saves.needed && saves.consistent;
    if !em.bug && agree {
        let mut program = program;
        program::first_contributions(&mut program.fwd);
        program::first_contributions(&mut program.rev);
        return Some(program);
    }
    diag.error(
        f.item.sig.ident.span(),
        "internal error in #[differentiate]: the reverse-mode analysis failed on this \
         function; please report it",
    );
    None
}

impl Emitter<'_> {
    fn fresh(&mut self, what: &str) -> syn::Ident {
        self.n += 1;
        names::local(what, self.n)
    }

    fn uname(&self, v: VarId) -> syn::Ident {
        names::var(&self.vars[v], v)
    }

    /// The adjoint of `v`, about to be accumulated into. Usefulness analysis declared it; a
    /// variable it missed would be an undeclared adjoint, so that is reported as a bug.
    fn adj_used(&mut self, v: VarId) -> syn::Ident {
        if !self.acc.contains(&v) {
            self.bug = true;
        }
        self.adj(v)
    }

    fn adj(&self, v: VarId) -> syn::Ident {
        names::adjoint(&self.vars[v].name, v)
    }

    fn active(&self, e: &Expr) -> bool {
        expr_active(self.vars, e)
    }

    fn shape(&self, e: &Expr) -> Shape {
        shape_of(self.vars, e)
    }

    /// Whether the reverse of a statement can read `v` by name and find the value it had when the
    /// statement ran: stable variables, and restored sequences.
    fn stable_at_stmt(&self, v: VarId) -> bool {
        self.scope.stable_at_stmt(v)
    }

    fn stable(&self, v: VarId) -> bool {
        self.scope.stable(v)
    }

    // ------------------------------------------------------------------ sites

    /// Saves `value` (forward-sweep code) for the reverse sweep of the current block: a local at
    /// the top level, a slot in branches outside loops, a stack inside loops. Returns the name
    /// the reverse sweep reads it by (bound at the start of the block's reverse).
    fn save(
        &mut self,
        value: TokenStream,
        level: Level,
        out: &mut BlockOut,
        bind_as: Option<syn::Ident>,
    ) -> syn::Ident {
        self.save_shaped(value, None, level, out, bind_as)
    }

    /// `save` of a value of shape `shape` (when known): a float's save carries `zero()` as the
    /// value a tape region is filled with before a loop writes it (`regions.rs`), an array's of
    /// floats `[zero(); N]`, a tuple's of those the tuple of theirs (`fill_of`).
    fn save_shaped(
        &mut self,
        value: TokenStream,
        shape: Option<&Shape>,
        level: Level,
        out: &mut BlockOut,
        bind_as: Option<syn::Ident>,
    ) -> syn::Ident {
        let fill = shape.and_then(fill_of);
        let s = bind_as.unwrap_or_else(|| self.fresh("s"));
        match self.site(level) {
            None => out.fwd.push(Op::Let {
                pat: quote!(#s),
                value,
            }),
            Some(site) => {
                out.fwd.push(Op::Save {
                    site: site.clone(),
                    value,
                    fill,
                });
                out.pops.push(Op::Restore {
                    name: s.clone(),
                    site,
                });
            }
        }
        s
    }

    /// A new save site for a block at `level`, declared at the start of the function (`None` at
    /// the top level, where a `let` is the site).
    fn site(&mut self, level: Level) -> Option<Site> {
        let site = match level {
            Level::Top => return None,
            Level::Branch => Site::Slot(self.fresh("slot")),
            Level::Loop => Site::Tape(self.fresh("t")),
        };
        self.sites.push(site.clone());
        Some(site)
    }

    // ------------------------------------------------------------------ printing

    /// Forward-sweep printing: unique names, `Vec`s cloned where they would be moved.
    fn fwd_expr(&self, e: &Expr) -> TokenStream {
        let name = |v: VarId| {
            let n = self.uname(v);
            quote!(#n)
        };
        let view = |base: VarId, index: &Expr| self.view_access(base, index, false);
        let reborrow = |v: VarId| self.vars[v].by_mut_ref();
        let p = crate::codegen::primal::Printer {
            name: &name,
            index: Some(&view),
            reborrow: Some(&reborrow),
        };
        match &e.kind {
            ExprKind::Var(v)
                if matches!(self.vars[*v].shape, Shape::Seq(SeqKind::Vec))
                    || self.vars[*v].by_mut_ref()
                    || self.struct_local(*v) =>
            {
                self.owned_copy(*v)
            }
            _ => p.expr(e),
        }
    }

    /// Whether `v` is a struct local held whole (`let s2 = step(s, dt);`), owned by the
    /// function: copied by `Clone` where it would be moved.
    fn struct_local(&self, v: VarId) -> bool {
        self.vars[v].shape == Shape::Struct && !matches!(self.vars[v].origin, VarOrigin::Param(_))
    }

    /// A copy of sequence `v`'s contents with `v`'s own type (`Vec`, array; a `Vec` for a
    /// `&mut [T]` argument), for a value saved where `v` itself would be moved or changed.
    fn owned_copy(&self, v: VarId) -> TokenStream {
        let n = self.uname(v);
        // (A struct lent by `&mut`, `lower/struct_mut.rs`, too: a clone of the struct.)
        let lent = self.vars[v].shape == Shape::Struct
            && matches!(&self.vars[v].ty, Some(syn::Type::Reference(_)));
        if self.vars[v].by_mut_ref() || lent {
            quote!(::std::borrow::ToOwned::to_owned(&*#n))
        } else {
            quote!(::core::clone::Clone::clone(&#n))
        }
    }

    fn fwd_range(&self, r: &Range) -> TokenStream {
        let name = |v: VarId| {
            let n = self.uname(v);
            quote!(#n)
        };
        crate::codegen::primal::Printer {
            name: &name,
            index: None,
            reborrow: None,
        }
        .range(r)
    }

    fn fwd_pat(&self, pat: &Pat) -> TokenStream {
        match pat {
            Pat::Wild => quote!(_),
            Pat::Bind(v) => {
                let n = self.uname(*v);
                let m = self.vars[*v].mutable.then(|| quote!(mut));
                // Keep the user's annotation: it may be what fixes the float type.
                match &self.vars[*v].ty {
                    Some(ty) if self.vars[*v].origin == VarOrigin::Local => quote!(#m #n: #ty),
                    _ => quote!(#m #n),
                }
            }
            Pat::Tuple(ps) => {
                // Types go on the whole pattern only (`(f64, _)` where a name has none).
                let items = ps.iter().map(|p| match p {
                    Pat::Bind(v) => {
                        let n = self.uname(*v);
                        let m = self.vars[*v].mutable.then(|| quote!(mut));
                        quote!(#m #n)
                    }
                    other => self.fwd_pat(other),
                });
                let ty = crate::codegen::primal::pat_type(self.vars, pat).map(|t| quote!(: #t));
                quote!((#(#items,)*) #ty)
            }
        }
    }

    // ------------------------------------------------------------------ whole function

    fn function(&mut self, body: &[R]) -> Sweeps {
        let rt = names::rt();
        let f = self.f;
        let mut prologue = Vec::new();
        let mut epilogue = Vec::new();
        let taken = f.taken_names();
        for p in crate::codegen::lend::binding_order(f) {
            if !p.active {
                continue;
            }
            let d = names::shadow_param(&p.name, &taken);
            let b = self.adj(p.var);
            let n = &p.name;
            let mutable = self.vars[p.var].mutable && !p.inout;
            if let Some(r) = crate::codegen::lend::lent_root(f, p) {
                // A field of a struct lent whole: its adjoint is the struct's adjoint's field,
                // a float's copied out and back (`codegen/lend.rs`).
                let base = self.adj(r.var).to_token_stream();
                prologue.push(Op::Let {
                    pat: quote!(mut #b),
                    value: crate::codegen::lend::shadow_init(p, &base),
                });
                let back = crate::codegen::lend::shadow_write_back(p, &base, &b);
                epilogue.push(Op::Code(back));
                continue;
            }
            match (&p.shape, mutable) {
                // `x: &mut f64`: its adjoint starts as the caller's seed of its final value and
                // is handed back as the adjoint of its initial value.
                (Shape::Scalar, _) if p.inout => {
                    prologue.push(Op::Let {
                        pat: quote!(mut #b),
                        value: quote!(*#d),
                    });
                    epilogue.push(Op::Code(quote!(*#d = #b;)));
                }
                // A struct taken by `&mut` and lent whole to calls (`lower/struct_mut.rs`): its
                // adjoint is the caller's buffer, which each call's `_vjp` updates in place.
                (Shape::Struct, _) if p.inout => prologue.push(Op::Let {
                    pat: quote!(#b),
                    value: quote!(&mut *#d),
                }),
                // Read-only sequences accumulate straight into the caller's buffer; an in-out
                // argument's buffer holds its final value's adjoint on entry, and the sweep turns
                // it into its initial value's adjoint in place.
                (Shape::Seq(_), false) => prologue.push(Op::Let {
                    pat: quote!(#b),
                    value: quote!(#d),
                }),
                (Shape::Seq(_), true) => {
                    prologue.push(Op::Let {
                        pat: quote!(mut #b),
                        value: quote!(#rt::zero_tangent(&#n)),
                    });
                    epilogue.push(Op::AccSlice {
                        target: quote!(&mut #d[..]),
                        value: quote!(#b),
                    });
                }
                _ => {
                    prologue.push(Op::Let {
                        pat: quote!(mut #b),
                        value: quote!(#rt::zero_tangent(&#n)),
                    });
                    epilogue.push(Op::Code(quote!(#rt::accumulate(#d, &#b);)));
                }
            }
        }
        // An argument left out of `wrt(...)` that is assigned active values (`mut y: f64`) has
        // an adjoint of its own; nothing flows out of it.
        for p in f.body_params().filter(|p| !p.active) {
            if self.vars[p.var].active && self.acc.contains(&p.var) {
                let b = self.adj(p.var);
                let n = &p.name;
                prologue.push(Op::Let {
                    pat: quote!(mut #b),
                    value: quote!(#rt::zero_tangent(&#n)),
                });
            }
        }
        let seed = names::seed(&taken);
        let ret = self.uname(self.ret);
        let bret = self.adj(self.ret);
        let (ret_init, seed_init) = match &f.output.shape {
            // A seed shorter than the output is padded with zeros (`<f>_vjp_dropped` passes `&[]`).
            Shape::Seq(SeqKind::Vec) => (
                quote!(::std::vec::Vec::new()),
                quote!(#rt::seed_vec(#seed, #ret.len())),
            ),
            // A struct held whole (`codegen/structs.rs`): no value to start from (assigned
            // once, at the end); its seed `None` in `_vjp_dropped`, then zeros like the value.
            Shape::Struct => (quote!(), quote!(#rt::struct_seed(#seed, &#ret))),
            s => (zero_adjoint(s), quote!(#seed)),
        };
        let (mut out, hoist) = match self.fusion.take() {
            Some(plan) => {
                let (out, hoist) = self.fused_block(body, &plan);
                (out, Some(hoist))
            }
            None => (self.block(body, Level::Top), None),
        };
        let items = &f.items;
        let out_ty = &f.output.ty;
        // Floats by reference are worked on by value; a `&mut` one is written back after the
        // forward sweep.
        let rebind = f
            .body_params()
            .filter_map(crate::codegen::primal::scalar_ref_rebind);
        let write_back: Vec<Op> = f
            .body_params()
            .filter_map(crate::codegen::primal::scalar_ref_write_back)
            .map(Op::Code)
            .collect();
        let mut program: Vec<Op> = rebind.map(Op::Code).collect();
        program.push(Op::Code(quote!(#(#items)*)));
        for site in &self.sites {
            let value = match site {
                Site::Tape(_) => quote!(::std::vec::Vec::new()),
                Site::Slot(_) => quote!(::core::option::Option::None),
            };
            let t = site.ident();
            program.push(Op::Let {
                pat: quote!(mut #t),
                value,
            });
        }
        program.push(match f.output.shape {
            Shape::Struct => Op::Code(quote!(let mut #ret: #out_ty;)),
            _ => Op::Let {
                pat: quote!(mut #ret: #out_ty),
                value: ret_init,
            },
        });
        let mut rev = prologue;
        if !f.output.is_unit() {
            rev.push(Op::Let {
                pat: quote!(mut #bret),
                value: seed_init,
            });
        }
        match hoist {
            None => {
                program.append(&mut out.fwd);
                rev.extend(out.reverse());
            }
            Some(h) => {
                // Fused: the adjoints are declared, and the tail's reverse run, where the region
                // starts; the reverse sweep keeps the statements before it and the deferred ones.
                let region = out.fwd.split_off(h.at);
                program.append(&mut out.fwd);
                program.append(&mut rev);
                program.append(&mut out.pops);
                program.extend(h.tail_rev);
                program.extend(region);
                rev.extend(out.rev.into_iter().rev());
            }
        }
        program.extend(write_back);
        rev.extend(epilogue);
        Sweeps {
            fwd: program,
            rev,
            ret: quote!(#ret),
        }
    }
}

/// The zero adjoint of a value of shape `s` whose size the shape tells (floats, arrays, tuples
/// of them): the one place that spells zero adjoints by shape. `()` stands in for values that
/// are not floats; a `Vec`'s length is not in its shape: an empty `Vec` (the runtime pads).
/// A value of shape `s` written without a value at hand, for a tape region's fill (`regions.rs`):
/// `zero()` for a float, `[zero(); N]` for an array of floats (the same spelling as its zero
/// adjoint), a tuple of those; `None` for any other shape.
fn fill_of(s: &Shape) -> Option<TokenStream> {
    match s {
        Shape::Scalar | Shape::Seq(SeqKind::Array(_)) => Some(zero_adjoint(s)),
        Shape::Tuple(items) if !items.is_empty() => {
            let fills = items.iter().map(fill_of).collect::<Option<Vec<_>>>()?;
            Some(quote!((#(#fills,)*)))
        }
        _ => None,
    }
}

pub(crate) fn zero_adjoint(s: &Shape) -> TokenStream {
    let rt = names::rt();
    match s {
        s if !s.is_float() => quote!(()),
        Shape::Seq(SeqKind::Array(n)) => {
            let n = n.tokens();
            quote!([#rt::zero(); #n])
        }
        Shape::Seq(_) => quote!(::std::vec::Vec::new()),
        Shape::Tuple(items) => {
            let z = items.iter().map(zero_adjoint);
            quote!((#(#z,)*))
        }
        _ => quote!(#rt::zero()),
    }
}

/// A value of a shape, for variables declared before they are assigned (`None`: no placeholder
/// can be written for this shape).
fn placeholder(s: &Shape) -> Option<TokenStream> {
    let rt = names::rt();
    Some(match s {
        Shape::Scalar => quote!(#rt::zero()),
        Shape::Int => quote!(0),
        Shape::Bool => quote!(false),
        Shape::Seq(SeqKind::Vec) => quote!(::std::vec::Vec::new()),
        Shape::Seq(SeqKind::Array(n)) => {
            let n = n.tokens();
            quote!([#rt::zero(); #n])
        }
        Shape::Tuple(items) => {
            let parts: Option<Vec<TokenStream>> = items.iter().map(placeholder).collect();
            let parts = parts?;
            quote!((#(#parts,)*))
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
