//! Which parameters of the functions differentiated so far are active: takes each lowered
//! function (its name, whether it is a method, its parameters and `wrt(...)`), keeps them for
//! the rest of the compilation of the crate (the macro runs in one process per crate, expanding
//! items in source order), and gives a later caller the callee's real calling convention: a
//! callee declared with `wrt(...)` takes tangents and adjoints for its `wrt` parameters only, so
//! each argument at a parameter it leaves out becomes `ExprKind::Fixed` (its value passed alone;
//! an active value there is reported by activity analysis).
//!
//! A callee the registry does not know (defined later in the crate, in another crate, a
//! hand-written rule) keeps the documented convention (a tangent for every float argument), as
//! does a name registered twice with different parameters. Nothing here can fail a build: a
//! poisoned lock is recovered (the map is only ever replaced whole, entry by entry).

use crate::diag::Diag;
use crate::ir::{visit_exprs_mut, Expr, ExprKind, FixedArg, Function};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

/// A registered function's parameters.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Entry {
    /// Each parameter as written (`self` first for a method): its name, and whether the
    /// companions take a tangent and adjoint for it.
    params: Vec<(String, bool)>,
    /// The names in `wrt(...)`, in the order written; `None` without `wrt`.
    wrt: Option<Vec<String>>,
    /// The function gives a struct (`-> State`): a caller binding its value holds a struct
    /// whole (`lower/struct_calls.rs`).
    struct_out: bool,
}

#[derive(Clone, Debug)]
enum Known {
    One(Entry),
    /// Registered twice with different parameters: unknown.
    Ambiguous,
}

/// (name, is a method) → what is known about it.
type Map = HashMap<(String, bool), Known>;

static REGISTRY: Mutex<Option<Map>> = Mutex::new(None);

/// What the companions of a registered function are known to do, for later callers: whether
/// its `_jvp` is pure (`record_pure_jvp`) and which kinds of infinite partials its reverse sweep
/// can meet (`record_edges`). A name recorded twice keeps the weaker facts of the two.
#[derive(Clone, Copy, Default)]
struct Facts {
    /// `Some(pure)` once its `_jvp` is emitted.
    pure_jvp: Option<bool>,
    /// `Some(edges)` once its `_vjp` is emitted.
    edges: Option<Edges>,
}

/// Which kinds of infinite or NaN partials a function's computation can meet, itself and through
/// its calls (`primitives::Edge`): what `reverse::edges::scale_fn` decides the product of its reverse
/// sweep from. A call of a function whose facts are unknown counts as singular.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Edges {
    pub singular: bool,
    pub pole: bool,
    pub selects: bool,
}

impl Edges {
    fn join(self, o: Edges) -> Edges {
        Edges {
            singular: self.singular || o.singular,
            pole: self.pole || o.pole,
            selects: self.selects || o.selects,
        }
    }
}

/// (name, is a method) → what is known about its companions.
static FACTS: Mutex<Option<HashMap<(String, bool), Facts>>> = Mutex::new(None);

/// Updates the facts of `f` (registered under its name) with `update`.
fn with_facts(f: &Function, update: impl FnOnce(&mut Facts)) {
    let sig = &f.item.sig;
    let key = (sig.ident.to_string(), sig.receiver().is_some());
    let mut guard = FACTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    update(
        guard
            .get_or_insert_with(HashMap::new)
            .entry(key)
            .or_default(),
    );
}

/// The facts of the function a call of `func` with `n` arguments refers to, if known.
fn facts(func: &syn::Path, n: usize) -> Option<Facts> {
    let (key, _) = lookup_key(func, n)?;
    let guard = FACTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    guard.as_ref()?.get(&key).copied()
}

fn lock() -> MutexGuard<'static, Option<Map>> {
    // A panic elsewhere while the lock was held cannot leave an entry half written (entries are
    // inserted whole), so a poisoned lock is taken as it is.
    REGISTRY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Records `f` (lowered, its parameters known). Only a function whose parameters all lowered is
/// recorded.
pub fn record(f: &Function, wrt: Option<&[syn::Ident]>) {
    let sig = &f.item.sig;
    if f.params.len() != sig.inputs.len() {
        return;
    }
    let method = sig
        .inputs
        .iter()
        .any(|a| matches!(a, syn::FnArg::Receiver(_)));
    let entry = Entry {
        params: f
            .params
            .iter()
            .map(|p| (p.name.to_string(), p.active))
            .collect(),
        wrt: wrt.map(|w| w.iter().map(|n| n.to_string()).collect()),
        struct_out: f.output.strukt.is_some(),
    };
    let key = (sig.ident.to_string(), method);
    let mut guard = lock();
    let map = guard.get_or_insert_with(HashMap::new);
    let known = match map.get(&key) {
        None => Known::One(entry),
        Some(Known::One(e)) if *e == entry => return,
        Some(_) => Known::Ambiguous,
    };
    map.insert(key, known);
}

/// Records whether `f`'s generated `_jvp` is pure: no effect outside its arguments (no
/// macro, no plain call, calls only of functions with such a `_jvp`), so that a caller may run
/// it twice (`forward/whole.rs`).
pub fn record_pure_jvp(f: &Function, pure: bool) {
    with_facts(f, |x| x.pure_jvp = Some(x.pure_jvp.unwrap_or(pure) && pure));
}

/// Whether a call of `func` with `n` arguments is known to run a pure generated `_jvp`: a
/// function differentiated earlier in this crate, registered once, recorded pure.
pub fn pure_jvp(func: &syn::Path, n: usize) -> bool {
    facts(func, n).and_then(|x| x.pure_jvp).unwrap_or(false)
}

/// Records the edges `f`'s computation meets (its own and its callees'), once its `_vjp` is
/// emitted.
pub fn record_edges(f: &Function, edges: Edges) {
    with_facts(f, |x| {
        x.edges = Some(x.edges.map_or(edges, |e| e.join(edges)))
    });
}

/// The edges a call of `func` with `n` arguments meets inside the callee: known for a function
/// differentiated earlier in this crate, registered once; `None` otherwise.
pub fn edges(func: &syn::Path, n: usize) -> Option<Edges> {
    facts(func, n).and_then(|x| x.edges)
}

/// The registered entry a call of `func` with `n` arguments refers to, if one is known. A path
/// whose next-to-last segment names a type (`State::energy`, `Self::step`) is a method call (the
/// receiver is the first argument); any other (`g`, `physics::g`) a free function.
fn lookup(func: &syn::Path, n: usize) -> Option<Entry> {
    lookup_key(func, n).map(|(_, e)| e)
}

/// `lookup`, with the key the entry is registered under.
fn lookup_key(func: &syn::Path, n: usize) -> Option<((String, bool), Entry)> {
    let segs: Vec<&syn::PathSegment> = func.segments.iter().collect();
    let last = segs.last()?;
    let method = segs.len() >= 2
        && segs[segs.len() - 2]
            .ident
            .to_string()
            .starts_with(|c: char| c.is_ascii_uppercase());
    let key = (last.ident.to_string(), method);
    let guard = lock();
    match guard.as_ref()?.get(&key)? {
        Known::One(e) if e.params.len() == n => Some((key, e.clone())),
        _ => None,
    }
}

/// Whether a call of `func` with `n` arguments is known to give a struct (a function defined
/// earlier in the crate with a struct output, `-> State`).
pub fn gives_struct(func: &syn::Path, n: usize) -> bool {
    lookup(func, n).is_some_and(|e| e.struct_out)
}

/// Gives every call in `f` of a known function declared with `wrt(...)` that function's calling
/// convention: a float argument at a parameter left out of its `wrt` becomes `Fixed` (no tangent,
/// no adjoint). A `&mut` borrow there is reported: the callee keeps such a parameter as a
/// workspace whose final contents carry no derivative, which the caller would go on reading.
pub fn apply(f: &mut Function, diag: &mut Diag) {
    let vars = std::mem::take(&mut f.vars);
    let mut fix = |e: &mut Expr| fix_call(e, &vars, diag);
    // Every node of every statement, children first.
    visit_exprs_mut(&mut f.body.stmts, &mut fix);
    if let Some(t) = &mut f.tail {
        t.visit_mut(&mut fix);
    }
    f.vars = vars;
}

fn fix_call(e: &mut Expr, vars: &[crate::ir::Var], diag: &mut Diag) {
    let ExprKind::Call { func, args, .. } = &mut e.kind else {
        return;
    };
    let Some(entry) = lookup(func, args.len()) else {
        return;
    };
    let Some(wrt) = &entry.wrt else {
        return;
    };
    let callee = func
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let wrt = wrt.join(", ");
    for (a, (param, active)) in args.iter_mut().zip(&entry.params) {
        if *active || !crate::ir::shape_of(vars, a).is_float() {
            continue;
        }
        if let ExprKind::MutRef(v, ..) = a.kind {
            let name = &vars[v].name;
            diag.error(
                a.span,
                format!(
                    "`{callee}` is differentiated only with respect to `{wrt}` (`wrt({wrt})`), \
                     which makes its `&mut` argument `{param}` a workspace: what it leaves in \
                     `{name}` carries no derivative, and `{name}`'s own derivative would be \
                     dropped; add `{param}` to `{callee}`'s `wrt(...)`"
                ),
            );
            continue;
        }
        let span = a.span;
        let inner = std::mem::replace(a, Expr::new(ExprKind::Poison, span));
        *a = Expr::new(
            ExprKind::Fixed(
                Box::new(inner),
                Box::new(FixedArg {
                    callee: callee.clone(),
                    param: param.clone(),
                    wrt: wrt.clone(),
                }),
            ),
            span,
        );
    }
}
