//! What the reverse sweep keeps: takes the normalised statements, what the sweep can read by name
//! and the variables with an adjoint, gives the immutable variables declared in loops or branches
//! whose values the sweep reads (`needed`) and the mutable top-level sequences kept in restore
//! mode (`restore`), what the reverse code of each statement reads and which of its reads are
//! copied before it (`reads`, keyed by expression id), and which needed `let`s are recomputed
//! rather than saved (`recompute`): the tables the reverse emitter reads, decided once before
//! emission with the predicates of `reads.rs`.

use crate::analysis::activity::expr_active;
use crate::analysis::reads::{
    call_live, decision_recomputable, mark, recomputable, snap_sites, SnapSite,
};
use crate::analysis::scope::{Level, Scope};
use crate::ir::*;
use crate::transform::normalize::R;
use std::collections::{BTreeSet, HashMap};

/// The saves table the reverse emitter reads (it decides nothing of this itself).
pub(crate) struct Saves<'b> {
    /// Immutable variables declared in loops or branches whose values the reverse sweep reads.
    pub(crate) needed: BTreeSet<VarId>,
    /// Mutable top-level sequences kept in restore mode.
    pub(crate) restore: BTreeSet<VarId>,
    /// Per expression whose reverse code reads values, keyed by its root's id (the value of a
    /// `let`, an assignment or a push, a call writing through `&mut`): what it reads.
    pub(crate) reads: HashMap<ExprId, StmtReads<'b>>,
    /// The needed immutable `let`s in loops and branches: recomputed at the start of their
    /// block's reverse (`true`) or saved, with the variables the recomputation keeps in turn.
    pub(crate) recompute: HashMap<VarId, (bool, Vec<VarId>)>,
    /// The values steering control flow the reverse sweep reads (a condition, a scrutinee, a
    /// `for` loop's bounds), by id: recomputed there (`true`: no call of a differentiated
    /// function, only stable reads) or saved.
    pub(crate) decisions: HashMap<ExprId, bool>,
    /// Whether the table is consistent: no sequence beyond `restore` is worth restoring once
    /// the reads are counted with `restore` known, and no two roots share an id. Otherwise the
    /// expansion reports an internal error.
    pub(crate) consistent: bool,
}

/// What the reverse code of one statement's expression reads.
pub(crate) struct StmtReads<'b> {
    /// The nodes whose values the rules read (`mark`).
    pub(crate) nodes: BTreeSet<ExprId>,
    /// The reads among them the reverse sweep cannot find by name, in the order it computes
    /// them (`snap_sites`, with the restored sequences known).
    pub(crate) sites: Vec<SnapSite<'b>>,
    /// Where the copy of each site comes from (same order; unused for `SnapSite::Needed`).
    pub(crate) from: Vec<CopyFrom<'b>>,
}

/// Where the copy of a read the reverse of a statement reads comes from.
#[derive(Clone, Copy)]
pub(crate) enum CopyFrom<'b> {
    /// Saved before this statement.
    Saved,
    /// The copy saved for the read with this id: the same read earlier in this statement
    /// (`s * s` saves `s` once), or in an earlier statement of the same block whose variable
    /// no statement since may have written (`ir::writes`).
    Copy(ExprId),
    /// The element at this index of the whole copy saved for the read with this id (`s[0]` for
    /// `y[0]` after `y` was saved whole for `g(&y)`).
    Element(ExprId, &'b Expr),
}

/// A copy saved earlier in the block being walked: of variable `var` whole (`index` `None`) or
/// of its element `var[index]`, saved for the read with id `read`.
struct SavedCopy<'b> {
    var: VarId,
    index: Option<&'b Expr>,
    read: ExprId,
}

/// The variable and index of a read that a saved copy can stand for: a whole variable, or an
/// element whose index reads only values the reverse sweep can name (no element reads, no
/// calls), so that the index means the same at every statement of the block and can be
/// computed again in the reverse sweep.
fn copy_key<'e>(scope: &Scope, read: &'e Expr) -> Option<(VarId, Option<&'e Expr>)> {
    match &read.kind {
        ExprKind::Var(v) => Some((*v, None)),
        ExprKind::Index { base, index } => {
            let mut plain = true;
            index.visit(&mut |n| match &n.kind {
                ExprKind::Lit(_) | ExprKind::Binary { .. } | ExprKind::Unary { .. } => {}
                ExprKind::Var(v) => plain &= scope.stable(*v),
                _ => plain = false,
            });
            plain.then_some((*base, Some(&**index)))
        }
        _ => None,
    }
}

/// The saves table of `body`. `scope` restores nothing yet; `acc` holds the variables with a
/// (possibly) nonzero adjoint; `checkpoints` the `#[checkpoint]` loops (which keep nothing of
/// this kind: `reverse/checkpoint.rs`). Two walks: the first counts reads and writes to decide
/// the restored sequences, the second finds what each statement reads with them known.
pub(crate) fn saves<'b>(
    body: &'b [R],
    scope: &Scope,
    acc: &BTreeSet<VarId>,
    checkpoints: &std::collections::BTreeMap<VarId, crate::ir::Checkpoint>,
) -> Saves<'b> {
    let first = walk(body, scope, acc, checkpoints);
    // The counts do not depend on the restored set: a read of a restored sequence is no longer
    // counted, and nothing else changes.
    let restore = restore_set(scope, &first.reads_w, &first.writes_w, &first.swaps);
    let scope = Scope {
        restore,
        ..scope.clone()
    };
    let w = walk(body, &scope, acc, checkpoints);
    let consistent = !w.clash
        && restore_set(&scope, &w.reads_w, &w.writes_w, &w.swaps).is_subset(&scope.restore);
    let mut needed = w.needed;
    // The index of an element write is computed in the reverse sweep when the element's adjoint
    // or its restored value is located there.
    for (ix, useful, v) in &w.indices {
        if *useful || scope.restore.contains(v) {
            val_names(&scope, ix, &mut needed);
        }
    }
    // A needed `let` recomputed in the reverse sweep needs what it reads: one round per link of
    // a chain (`let a = x[i]; let b = a * 2.0;` ...).
    let mut recompute = HashMap::new();
    loop {
        let before = needed.len();
        for (var, init) in &w.lets {
            if needed.contains(var) {
                let r = recomputable(&scope, init);
                needed.extend(r.1.iter().copied());
                recompute.insert(*var, r);
            }
        }
        if needed.len() == before {
            break;
        }
    }
    Saves {
        needed,
        restore: scope.restore.clone(),
        reads: w.reads,
        decisions: w.decisions,
        recompute,
        consistent,
    }
}

/// One walk over `body` with `scope`.
fn walk<'s, 'a, 'b>(
    body: &'b [R],
    scope: &'s Scope<'a>,
    acc: &'s BTreeSet<VarId>,
    checkpoints: &'s std::collections::BTreeMap<VarId, crate::ir::Checkpoint>,
) -> Walk<'s, 'a, 'b> {
    let mut walk = Walk {
        scope,
        acc,
        checkpoints,
        depth: 0,
        needed: BTreeSet::new(),
        reads_w: HashMap::new(),
        writes_w: HashMap::new(),
        lets: Vec::new(),
        indices: Vec::new(),
        reads: HashMap::new(),
        copies: Vec::new(),
        decisions: HashMap::new(),
        clash: false,
        swaps: Vec::new(),
    };
    walk.block(body, Level::Top);
    walk
}

/// The mutable top-level `Vec`s whose saved reads outnumber their writes (both weighted by loop
/// depth): restoring costs one save per write, saving the reads one per read. Two buffers an
/// exchange swaps (`swaps`, `R::Swap`) are restored together or not at all, decided on their
/// reads and writes summed: the reverse sweep undoes the exchange by exchanging back (no save),
/// which gives each its old contents only if the other's writes since were undone too.
pub(crate) fn restore_set(
    scope: &Scope,
    reads_w: &HashMap<VarId, f64>,
    writes_w: &HashMap<VarId, f64>,
    swaps: &[(VarId, VarId)],
) -> BTreeSet<VarId> {
    let eligible = |v: VarId| {
        let var = &scope.vars[v];
        scope.top.contains(&v)
            && var.mutable
            && matches!(var.shape, Shape::Seq(SeqKind::Vec))
            && !matches!(var.origin, VarOrigin::Param(_))
    };
    let r = |v: VarId| reads_w.get(&v).copied().unwrap_or(0.0);
    let w = |v: VarId| writes_w.get(&v).copied().unwrap_or(0.0);
    let mut out = BTreeSet::new();
    for v in reads_w.keys() {
        if eligible(*v) && w(*v) <= r(*v) {
            out.insert(*v);
        }
    }
    // Buffers exchanged, as groups (one buffer may be exchanged with several): all or none.
    let mut groups: Vec<BTreeSet<VarId>> = Vec::new();
    for &(a, b) in swaps {
        let hit: Vec<usize> = (0..groups.len())
            .filter(|g| groups[*g].contains(&a) || groups[*g].contains(&b))
            .collect();
        let mut merged: BTreeSet<VarId> = [a, b].into_iter().collect();
        for g in hit.into_iter().rev() {
            merged.extend(groups.swap_remove(g));
        }
        groups.push(merged);
    }
    for g in groups {
        let all = g.iter().all(|v| eligible(*v))
            && g.iter().map(|v| w(*v)).sum::<f64>() <= g.iter().map(|v| r(*v)).sum::<f64>()
            && g.iter().any(|v| r(*v) > 0.0);
        for v in g {
            if all {
                out.insert(v);
            } else {
                out.remove(&v);
            }
        }
    }
    out
}

/// The immutable variables declared in loops or branches that `Emitter::val` names when it
/// computes `e` with nothing saved for it: it stops at reads it saves (a sequence it cannot
/// name) and at leaves.
fn val_names(scope: &Scope, e: &Expr, out: &mut BTreeSet<VarId>) {
    match &e.kind {
        ExprKind::Var(v) => {
            if !scope.stable_at_stmt(*v) && !scope.vars[*v].mutable {
                out.insert(*v);
            }
        }
        ExprKind::Index { base, index } => {
            if scope.stable_at_stmt(*base) {
                val_names(scope, index, out);
            }
        }
        ExprKind::Member { base, .. } => {
            if !scope.stable_at_stmt(*base) && !scope.vars[*base].mutable {
                out.insert(*base);
            }
        }
        ExprKind::SubSlice {
            base, start, end, ..
        } => {
            if scope.stable_at_stmt(*base) {
                for x in [start, end].into_iter().flatten() {
                    val_names(scope, x, out);
                }
            }
        }
        ExprKind::Lit(_)
        | ExprKind::Opaque { .. }
        | ExprKind::ElemConst { .. }
        | ExprKind::Len(_)
        | ExprKind::CopySeq(..)
        | ExprKind::Poison => {}
        _ => {
            for k in e.children() {
                val_names(scope, k, out);
            }
        }
    }
}

/// One walk over the statements in emission order, seeing what the emitter's statements see.
struct Walk<'s, 'a, 'b> {
    scope: &'s Scope<'a>,
    acc: &'s BTreeSet<VarId>,
    checkpoints: &'s std::collections::BTreeMap<VarId, crate::ir::Checkpoint>,
    depth: i32,
    needed: BTreeSet<VarId>,
    reads_w: HashMap<VarId, f64>,
    writes_w: HashMap<VarId, f64>,
    /// Immutable single-variable `let`s in loops or branches, with their initialisers.
    lets: Vec<(VarId, &'b Expr)>,
    /// Indices of element writes: the index, whether the write is useful, the sequence.
    indices: Vec<(&'b Expr, bool, VarId)>,
    /// What each prepared expression reads, by its root's id.
    reads: HashMap<ExprId, StmtReads<'b>>,
    /// Copies saved earlier in the block being walked, oldest first.
    copies: Vec<SavedCopy<'b>>,
    /// Decisions recomputed (`true`) or saved, by id.
    decisions: HashMap<ExprId, bool>,
    /// Two prepared roots or decisions shared an id.
    clash: bool,
    /// The buffers each exchange (`R::Swap`) exchanges.
    swaps: Vec<(VarId, VarId)>,
}

impl<'b> Walk<'_, '_, 'b> {
    fn live(&self, v: VarId) -> bool {
        self.scope.vars[v].active && self.acc.contains(&v)
    }

    fn active(&self, e: &Expr) -> bool {
        expr_active(self.scope.vars, e)
    }

    fn write(&mut self, v: VarId) {
        *self.writes_w.entry(v).or_insert(0.0) += 8f64.powi(self.depth);
    }

    /// What `Emitter::prepare` finds for `e`.
    fn prepare(&mut self, e: &'b Expr) {
        let mut nodes = BTreeSet::new();
        mark(self.scope.vars, e, false, &mut nodes);
        let mut sites = Vec::new();
        snap_sites(self.scope, e, &nodes, &mut sites);
        let w = 8f64.powi(self.depth);
        for site in sites.iter().copied() {
            let counted = match site {
                SnapSite::Needed(v) => {
                    self.needed.insert(v);
                    None
                }
                SnapSite::Copy { counted, .. } => counted,
                SnapSite::OwnedVar { var, .. } => Some(var),
                SnapSite::OwnedSlice(_) => None,
            };
            if let Some(v) = counted {
                *self.reads_w.entry(v).or_insert(0.0) += w;
            }
        }
        let from = self.copies_from(&sites);
        self.clash |= e.id == ExprId::NONE;
        self.clash |= self
            .reads
            .insert(e.id, StmtReads { nodes, sites, from })
            .is_some();
    }

    /// Where each site's copy comes from, noting the copies saved here for later statements.
    fn copies_from(&mut self, sites: &[SnapSite<'b>]) -> Vec<CopyFrom<'b>> {
        // The reads saved for this statement: the read, whether its copy is owned.
        let mut saved: Vec<(&'b Expr, bool)> = Vec::new();
        let mut from = Vec::new();
        for site in sites {
            let (read, owned) = match *site {
                SnapSite::Needed(_) => {
                    from.push(CopyFrom::Saved);
                    continue;
                }
                SnapSite::Copy { read, .. } => (read, false),
                SnapSite::OwnedVar { read, .. } => (read, true),
                SnapSite::OwnedSlice(read) => (read, true),
            };
            if let Some((r, _)) = saved.iter().find(|(r, o)| *o == owned && r.same(read)) {
                from.push(CopyFrom::Copy(r.id));
                continue;
            }
            if let Some(f) = self.earlier_copy(read) {
                from.push(f);
                continue;
            }
            from.push(CopyFrom::Saved);
            saved.push((read, owned));
            // An owned copy of a sub-slice is not the whole sequence.
            if owned && !matches!(read.kind, ExprKind::Var(_)) {
                continue;
            }
            if let Some((var, index)) = copy_key(self.scope, read) {
                self.copies.push(SavedCopy {
                    var,
                    index,
                    read: read.id,
                });
            }
        }
        from
    }

    /// The copy saved earlier in this block that serves the read `read`, if any: the same read,
    /// or an element of a whole copy whose index the reverse sweep can compute.
    fn earlier_copy(&self, read: &'b Expr) -> Option<CopyFrom<'b>> {
        let (var, index) = copy_key(self.scope, read)?;
        let same = |c: &&SavedCopy| {
            c.var == var
                && match (c.index, index) {
                    (None, None) => true,
                    (Some(a), Some(b)) => a.same(b),
                    _ => false,
                }
        };
        if let Some(c) = self.copies.iter().find(same) {
            return Some(CopyFrom::Copy(c.read));
        }
        let index = index?;
        let whole = self
            .copies
            .iter()
            .find(|c| c.var == var && c.index.is_none())?;
        Some(CopyFrom::Element(whole.read, index))
    }

    /// Drops the saved copies statement `s` may have made stale: those of the variables it
    /// writes (`R::writes`), all of them after a statement with blocks or a call writing through
    /// `&mut`.
    fn forget_copies(&mut self, s: &R) {
        let mut written = Vec::new();
        s.writes(self.scope.vars, &mut written);
        self.copies.retain(|c| !written.contains(&c.var));
        match s {
            R::Let { init: Some(e), .. } | R::Eval(e) if !e.mut_borrows().is_empty() => {
                self.copies.clear()
            }
            R::Let { .. }
            | R::Eval(_)
            | R::Exit(_)
            | R::Assign { .. }
            | R::Push { .. }
            | R::Swap(..) => {}
            R::Macro(..) | R::If { .. } | R::Match { .. } | R::For { .. } | R::While { .. } => {
                self.copies.clear()
            }
        }
    }

    /// Whether the reverse sweep recomputes the decision `e` or reads it saved.
    fn decide(&mut self, e: &Expr) {
        let recomputed = decision_recomputable(self.scope, e);
        self.clash |= e.id == ExprId::NONE;
        self.clash |= self.decisions.insert(e.id, recomputed).is_some();
    }

    fn block(&mut self, stmts: &'b [R], level: Level) {
        // Copies saved by the enclosing block are not this block's to reuse.
        let outer = std::mem::take(&mut self.copies);
        for s in stmts {
            self.stmt(s, level);
            self.forget_copies(s);
        }
        self.copies = outer;
    }

    fn loop_body(&mut self, body: &'b [R]) {
        self.depth += 1;
        self.block(body, Level::Loop);
        self.depth -= 1;
    }

    fn stmt(&mut self, s: &'b R, level: Level) {
        match s {
            R::Let { init: Some(e), .. } | R::Eval(e) if !e.mut_borrows().is_empty() => {
                let mut vs = Vec::new();
                if let R::Let { pat, .. } = s {
                    pat.vars(&mut vs);
                }
                for v in e.mut_borrows() {
                    // A call's write cannot be undone element by element: never restored.
                    self.writes_w.insert(v, f64::INFINITY);
                }
                if call_live(self.scope.vars, self.acc, &vs, e) {
                    self.prepare(e);
                }
            }
            R::Let {
                pat,
                init: Some(init),
            } => {
                let mut vs = Vec::new();
                pat.vars(&mut vs);
                if vs.iter().any(|v| self.live(*v)) && self.active(init) {
                    self.prepare(init);
                }
                if let (Level::Branch | Level::Loop, Pat::Bind(v)) = (level, pat) {
                    if !self.scope.vars[*v].mutable {
                        self.lets.push((*v, init));
                    }
                }
            }
            R::Assign { place, value } => {
                let v = place.var();
                self.write(v);
                let useful = self.live(v);
                if let Place::Index(_, ix) = place {
                    self.indices.push((ix, useful, v));
                }
                if useful && self.active(value) {
                    self.prepare(value);
                }
            }
            R::Push { vec, value } => {
                self.write(*vec);
                if self.live(*vec) {
                    self.prepare(value);
                }
            }
            R::If { cond, then, els } => {
                self.decide(cond);
                self.block(then, level.branch());
                self.block(els, level.branch());
            }
            R::Match { scrut, arms } => {
                self.decide(scrut);
                for (_, b) in arms {
                    self.block(b, level.branch());
                }
            }
            R::For {
                var, range, body, ..
            } => {
                let Range::Bounds {
                    start, end, step, ..
                } = range;
                for e in [Some(start), Some(end), step.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    self.decide(e);
                }
                match self.checkpoints.get(var) {
                    // The state is written by the call; the steps are recomputed, nothing is
                    // saved.
                    Some(spec) => {
                        self.writes_w.insert(spec.state, f64::INFINITY);
                    }
                    None => self.loop_body(body),
                }
            }
            R::While { body, .. } => self.loop_body(body),
            // Undone by exchanging back (when restored), never element by element: both
            // buffers restored or neither (`restore_set`).
            // Not a write to count: its reverse exchanges back, saving nothing.
            R::Swap(a, b) => self.swaps.push((*a, *b)),
            R::Let { init: None, .. } | R::Eval(_) | R::Macro(..) | R::Exit(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::normalized;
    use std::collections::BTreeSet;
    use syn::parse_quote;

    /// The saved sets of `item`, by variable name: (needed, restore).
    fn sets(item: syn::ItemFn) -> (BTreeSet<String>, BTreeSet<String>) {
        let (f, vars, ret, body) = normalized(item);
        let (scope, acc) = crate::analysis::scope::scope_of(&f, &vars, ret, &body);
        let s = super::saves(&body, &scope, &acc, &Default::default());
        let names = |set: &BTreeSet<usize>| set.iter().map(|v| vars[*v].name.to_string()).collect();
        (names(&s.needed), names(&s.restore))
    }

    #[test]
    fn a_recomputed_let_needs_what_it_reads() {
        let (needed, restore) = sets(parse_quote! {
            fn f(x: &[f64], n: usize) -> f64 {
                let mut s = 0.0;
                for i in 0..n {
                    let a = x[i] * 2.0;
                    let b = a + 1.0;
                    s = s + b.sin();
                }
                s
            }
        });
        // `sin` reads `b`; `b` is recomputed from `a`, so `a` is kept too (the chain). `i` is
        // rebound by the reverse loop and `x` is an argument: neither is kept.
        let want: BTreeSet<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        assert_eq!(needed, want);
        assert!(restore.is_empty(), "{restore:?}");
    }

    #[test]
    fn a_stopped_value_keeps_nothing() {
        let body = |stop: bool| -> syn::ItemFn {
            let e: syn::Expr = if stop {
                parse_quote!(stop_gradient(b))
            } else {
                parse_quote!(b)
            };
            parse_quote! {
                fn f(x: &[f64], n: usize) -> f64 {
                    let mut s = 0.0;
                    for i in 0..n {
                        let a = x[i] * x[i];
                        let b = a.sin();
                        s = s + #e + x[i];
                    }
                    s
                }
            }
        };
        // The adjoint of `b` flows through `sin`, which reads `a`.
        let (needed, _) = sets(body(false));
        let want: BTreeSet<String> = ["a"].iter().map(|s| s.to_string()).collect();
        assert_eq!(needed, want);
        // Stopped, no adjoint reaches `b`, and the sums read no values: nothing is kept.
        let (needed, restore) = sets(body(true));
        assert!(
            needed.is_empty() && restore.is_empty(),
            "{needed:?} {restore:?}"
        );
    }

    #[test]
    fn a_sequence_read_more_than_written_is_restored() {
        let (_, restore) = sets(parse_quote! {
            fn f(x: f64, n: usize) -> f64 {
                let mut v = vec![x; n];
                let mut s = 0.0;
                for i in 0..n {
                    s = s + v[i] * v[i];
                }
                v[0] = x * 2.0;
                s + v[0]
            }
        });
        assert!(restore.contains("v"), "{restore:?}");
        let (_, restore) = sets(parse_quote! {
            fn f(x: f64, n: usize) -> f64 {
                let mut v = vec![x; n];
                for i in 0..n {
                    v[i] = x * 2.0;
                }
                v[0] * v[1]
            }
        });
        assert!(restore.is_empty(), "{restore:?}");
    }

    #[test]
    fn a_read_of_an_element_reads_the_whole_copy_saved_before() {
        let (f, vars, ret, body) = normalized(parse_quote! {
            fn f(x: f64) -> f64 {
                let mut y = [x, 2.0 * x];
                let a = h(&y);
                let b = y[0] * y[1];
                y[0] = a + b;
                let c = y[0] * y[1];
                c
            }
        });
        let (scope, acc) = crate::analysis::scope::scope_of(&f, &vars, ret, &body);
        let s = super::saves(&body, &scope, &acc, &Default::default());
        let init = |name: &str| {
            body.iter()
                .find_map(|r| match r {
                    crate::transform::normalize::R::Let {
                        pat: crate::ir::Pat::Bind(v),
                        init: Some(e),
                    } if vars[*v].name == name => Some(e.id),
                    _ => None,
                })
                .expect("no such let")
        };
        let from = |name: &str| -> Vec<String> {
            s.reads[&init(name)]
                .from
                .iter()
                .map(|f| match f {
                    super::CopyFrom::Saved => "saved".to_string(),
                    super::CopyFrom::Copy(_) => "copy".to_string(),
                    super::CopyFrom::Element(..) => "element".to_string(),
                })
                .collect()
        };
        // `y` is saved whole for the call; `b`'s reads are elements of that copy.
        assert_eq!(from("a"), ["saved"]);
        assert_eq!(from("b"), ["element", "element"]);
        // `y[0] = ..` made the copy stale: `c`'s reads are saved again, `y[1]` too.
        assert_eq!(from("c"), ["saved", "saved"]);
    }
}
