//! Loop fusion for reductions (legality): takes the normalised body `R` of a function, gives the
//! top-level `for` loops whose reverse can run in the forward sweep, fused with the loop itself
//! (one pass: each iteration runs its forward code, then its reverse code, with the adjoints of
//! its sum accumulators already known), and the statements around them whose reverse code moves.
//! The reverse emitter (`reverse/fuse.rs`) prints the plan; ARCHITECTURE.md ("Loop fusion")
//! states the conditions checked here.
//!
//! A *reduction loop* is a top-level `for` loop over a range, without early exit, whose body
//! writes only variables declared in the body and *accumulators*: scalar (or integer) variables
//! declared outside it, written only as `s = s + e`, `s = e + s` or `s = s - e` (what `s += e`
//! and `s -= e` normalise to) with `e` not reading `s`, and read nowhere else in the body.
//! Its iterations then meet only in the sums; the adjoint of an accumulator passes through each
//! iteration unchanged.
//!
//! A *region* is a suffix of the body from a reduction loop on: reduction loops, and between and
//! after them simple statements (`let`s and assignments of non-sequence variables, no `&mut`
//! calls). The unfused reverse sweep runs the region's reverse code last statement first; the
//! fused program runs it in this order instead:
//! 1. the reverse of the statements after the last loop (the *tail*), before the region's forward
//!    code (it must read no value the region computes: checked by the emitter on the code);
//! 2. each loop's reverse inside the loop, in forward order of the loops;
//! 3. the reverse of the statements between loops (*deferred*), with the rest of the reverse sweep.
//!
//! Moving reverse code is exact when the two pieces whose order changes commute: the reverse of a
//! loop reads its accumulators' adjoints and adds into the adjoints of the other outside variables
//! it reads; a statement's reverse reads (and, for an assignment, zeroes) the adjoint of what it
//! writes and adds into the adjoints of what it reads. Additions commute with additions, reads
//! with reads. The pairs whose order changes are (loop, later loop), (deferred statement, earlier
//! loop), (hoisted statement, later loop) and (hoisted statement, later deferred statement); one
//! check, `commute`, decides them all.

use crate::ir::*;
use crate::transform::normalize::R;
use std::collections::{BTreeMap, BTreeSet};

/// Which top-level statements fuse, as indices into the normalised body.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// The first statement of the region (a reduction loop).
    pub start: usize,
    /// The reduction loops of the region, fused.
    pub loops: BTreeSet<usize>,
    /// The last fused loop.
    pub last: usize,
    /// The statements of the region whose reverse runs before the region (the tail, and
    /// statements between loops that commute with the loops after them); the other statements
    /// between loops are deferred.
    pub hoisted: BTreeSet<usize>,
}

/// What a reduction loop touches outside itself.
#[derive(Debug, Clone)]
struct LoopFx {
    /// Accumulators (their adjoints are read).
    sums: BTreeSet<VarId>,
    /// Other outside variables the body reads (their adjoints are added into).
    reads: BTreeSet<VarId>,
    /// Scratch sequences (`analysis/scratch.rs`): filled by each iteration before it reads
    /// them; the reverse of an iteration zeroes the adjoint of what it filled.
    scratch: BTreeSet<VarId>,
}

/// What a simple statement touches.
#[derive(Debug, Clone)]
struct StmtFx {
    /// Variables bound or assigned (their adjoints are read, or taken).
    writes: BTreeSet<VarId>,
    /// Variables read (their adjoints are added into).
    reads: BTreeSet<VarId>,
}

enum Top {
    Loop(LoopFx),
    Stmt(StmtFx),
    /// Anything else, with why it does not fuse.
    Other(String),
}

/// The fusion plan of a normalised body, and, for each top-level `for` loop (by its index
/// variable's name), why it is not fused (`None` when it is). `ret` is the output variable;
/// regions start at statement `from` or later (the emitter asks again with a later start when
/// the tail's reverse of a plan reads a value of its region).
pub(crate) fn plan(
    body: &[R],
    vars: &[Var],
    ret: VarId,
    checkpoints: &BTreeMap<VarId, Checkpoint>,
    from: usize,
) -> (Option<Plan>, Vec<(String, Option<String>)>) {
    let mut tops: Vec<Top> = body
        .iter()
        .map(|s| classify(s, vars, ret, checkpoints))
        .collect();
    // A scratch sequence's value after the loop is not its value in the unfused program (each
    // fused iteration's reverse restores it): nothing after the loop may mention it.
    for (k, t) in tops.iter_mut().enumerate() {
        if let Top::Loop(l) = t {
            let later = l.scratch.iter().find(|a| {
                body[k + 1..]
                    .iter()
                    .any(|s| super::scratch::stmt_mentions(s, **a))
            });
            if let Some(a) = later {
                let n = vars[*a].name.to_string();
                *t = Top::Other(format!(
                    "the body fills `{n}`, which a statement after the loop uses"
                ));
            }
        }
    }
    let loop_name = |k: usize| match &body[k] {
        R::For { var, .. } => vars[*var].name.to_string(),
        _ => String::new(),
    };
    let mut report: BTreeMap<usize, Option<String>> = BTreeMap::new();
    for (k, t) in tops.iter().enumerate() {
        if let (R::For { .. }, Top::Other(why)) = (&body[k], t) {
            report.insert(k, Some(why.clone()));
        }
    }
    let loops: Vec<usize> = (0..tops.len())
        .filter(|k| matches!(tops[*k], Top::Loop(_)))
        .collect();
    let finish = |report: BTreeMap<usize, Option<String>>| -> Vec<(String, Option<String>)> {
        report.into_iter().map(|(k, w)| (loop_name(k), w)).collect()
    };
    let Some(&last) = loops.last() else {
        return (None, finish(report));
    };
    // The tail: simple statements only.
    if let Some(k) = (last + 1..tops.len()).find(|k| !matches!(tops[*k], Top::Stmt(_))) {
        let why = match &tops[k] {
            Top::Other(w) => format!("a later statement is not a simple one ({w})"),
            _ => "a later loop is not a reduction loop".to_string(),
        };
        for l in &loops {
            report.insert(*l, Some(format!("not in a fusible region: {why}")));
        }
        return (None, finish(report));
    }
    let mut chosen = None;
    for &start in loops.iter().filter(|k| **k >= from) {
        match region_ok(&tops, start, last, vars) {
            Ok(hoisted) => {
                chosen = Some((start, hoisted));
                break;
            }
            Err(why) => {
                report.insert(start, Some(why));
            }
        }
    }
    let Some((start, hoisted)) = chosen else {
        return (None, finish(report));
    };
    for k in loops.iter().filter(|k| **k < from) {
        report.insert(
            *k,
            Some("its region's reverse reads a value the region computes".into()),
        );
    }
    let fused: BTreeSet<usize> = loops.iter().copied().filter(|k| *k >= start).collect();
    for k in &fused {
        report.insert(*k, None);
    }
    let plan = Plan {
        start,
        loops: fused,
        last,
        hoisted,
    };
    (Some(plan), finish(report))
}

/// Whether the region `start..` (loops up to `last`, simple statements after it) fuses, and
/// which of its statements are hoisted.
fn region_ok(
    tops: &[Top],
    start: usize,
    last: usize,
    vars: &[Var],
) -> Result<BTreeSet<usize>, String> {
    let mut hoisted: BTreeSet<usize> = (last + 1..tops.len()).collect();
    let mut deferred = BTreeSet::new();
    for k in start..=last {
        match &tops[k] {
            Top::Loop(l) => {
                for earlier in &tops[start..k] {
                    if let Top::Loop(e) = earlier {
                        commute_loops(e, l, vars)?;
                    }
                }
            }
            Top::Stmt(s) => {
                // Hoisted: its reverse now runs before that of the loops after it.
                let later = tops[k + 1..=last].iter().try_for_each(|t| match t {
                    Top::Loop(l) => commute_stmt(s, l, vars),
                    _ => Ok(()),
                });
                // Deferred: its reverse now runs after that of the loops before it.
                let earlier = tops[start..k].iter().try_for_each(|t| match t {
                    Top::Loop(l) => commute_stmt(s, l, vars),
                    _ => Ok(()),
                });
                match (earlier, later) {
                    (Ok(()), _) => {
                        deferred.insert(k);
                    }
                    (_, Ok(())) => {
                        hoisted.insert(k);
                    }
                    (Err(w), _) => return Err(w),
                }
            }
            Top::Other(w) => return Err(format!("a later statement is not simple ({w})")),
        }
    }
    // A hoisted statement's reverse now runs before that of a later deferred one.
    for &h in &hoisted {
        for &d in deferred.range(h + 1..) {
            if let (Top::Stmt(a), Top::Stmt(b)) = (&tops[h], &tops[d]) {
                commute(a.adj(), b.adj(), vars, |n| {
                    format!("statements between the loops depend on each other through {n}")
                })?;
            }
        }
    }
    Ok(hoisted)
}

fn name_list(set: &BTreeSet<VarId>, vars: &[Var]) -> String {
    set.iter()
        .map(|v| format!("`{}`", vars[*v].name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a piece of the region's reverse code does to adjoints: reads (`read`), sets to zero
/// (`zeroed`) or adds into (`added`). A loop reads its sums' adjoints and adds into those of the
/// other outside variables it reads; a statement reads and zeroes the adjoints of what it writes
/// and adds into those of what it reads.
struct AdjFx<'a> {
    read: &'a BTreeSet<VarId>,
    zeroed: &'a BTreeSet<VarId>,
    added: &'a BTreeSet<VarId>,
}

impl LoopFx {
    fn adj(&self) -> AdjFx<'_> {
        AdjFx {
            read: &self.sums,
            zeroed: &self.scratch,
            added: &self.reads,
        }
    }
}

impl StmtFx {
    fn adj(&self) -> AdjFx<'_> {
        AdjFx {
            read: &self.writes,
            zeroed: &self.writes,
            added: &self.reads,
        }
    }
}

/// Whether two pieces of reverse code can run in either order: `Err(why(names))` with the
/// variables whose adjoints they share other than by two reads or two additions (which
/// commute); the one check behind every reordering fusion makes (loop and loop, statement and
/// loop, hoisted and deferred statement).
fn commute(
    a: AdjFx<'_>,
    b: AdjFx<'_>,
    vars: &[Var],
    why: impl FnOnce(String) -> String,
) -> Result<(), String> {
    let mut shared = BTreeSet::new();
    for (x, y) in [(&a, &b), (&b, &a)] {
        for v in x.zeroed {
            if y.read.contains(v) || y.zeroed.contains(v) || y.added.contains(v) {
                shared.insert(*v);
            }
        }
        shared.extend(x.read.intersection(y.added).copied());
    }
    if shared.is_empty() {
        Ok(())
    } else {
        Err(why(name_list(&shared, vars)))
    }
}

/// Loops `a` before `b`: `b`'s reverse used to run first.
fn commute_loops(a: &LoopFx, b: &LoopFx, vars: &[Var]) -> Result<(), String> {
    commute(a.adj(), b.adj(), vars, |n| {
        format!("one loop reads the sum {n} of another")
    })
}

/// Whether the reverse of statement `s` and of loop `l` can run in either order.
fn commute_stmt(s: &StmtFx, l: &LoopFx, vars: &[Var]) -> Result<(), String> {
    commute(s.adj(), l.adj(), vars, |n| {
        format!("a statement between loops writes or reads {n}, which a loop reads or sums")
    })
}

fn classify(s: &R, vars: &[Var], ret: VarId, checkpoints: &BTreeMap<VarId, Checkpoint>) -> Top {
    match s {
        R::For {
            var,
            range,
            body,
            brk,
        } => match reduction_loop(*var, range, body, *brk, vars, ret, checkpoints) {
            Ok(fx) => Top::Loop(fx),
            Err(why) => Top::Other(why),
        },
        R::Let { pat, init } => {
            let mut ws = Vec::new();
            pat.vars(&mut ws);
            if ws.iter().any(|v| matches!(vars[*v].shape, Shape::Seq(_))) {
                return Top::Other("a sequence is declared".into());
            }
            if init.as_ref().is_some_and(|e| !e.mut_borrows().is_empty()) {
                return Top::Other("a call writes through `&mut`".into());
            }
            let mut rs = Vec::new();
            if let Some(e) = init {
                e.reads(&mut rs);
            }
            Top::Stmt(StmtFx {
                writes: ws.into_iter().collect(),
                reads: rs.into_iter().collect(),
            })
        }
        R::Assign {
            place: Place::Var(v),
            value,
        } if !matches!(vars[*v].shape, Shape::Seq(_)) && value.mut_borrows().is_empty() => {
            let mut rs = Vec::new();
            value.reads(&mut rs);
            Top::Stmt(StmtFx {
                writes: [*v].into_iter().collect(),
                reads: rs.into_iter().collect(),
            })
        }
        R::Macro(..) => Top::Stmt(StmtFx {
            writes: BTreeSet::new(),
            reads: BTreeSet::new(),
        }),
        R::Assign { .. } => Top::Other("a sequence is written".into()),
        R::Push { .. } => Top::Other("a push".into()),
        R::Eval(_) => Top::Other("an expression statement".into()),
        R::If { .. } | R::Match { .. } => Top::Other("a branch".into()),
        R::While { .. } => Top::Other("a `while` or `loop`".into()),
        R::Exit(_) => Top::Other("an exit".into()),
        R::Swap(..) => Top::Other("buffers are exchanged".into()),
    }
}

/// The effects of a reduction loop, or why the loop is not one.
fn reduction_loop(
    index: VarId,
    range: &Range,
    body: &[R],
    brk: Option<VarId>,
    vars: &[Var],
    ret: VarId,
    checkpoints: &BTreeMap<VarId, Checkpoint>,
) -> Result<LoopFx, String> {
    let Range::Bounds {
        inclusive, step, ..
    } = range;
    if *inclusive && step.is_some() {
        return Err("an inclusive range with a step (the trip count is recorded)".into());
    }
    if checkpoints.contains_key(&index) {
        return Err("a `#[checkpoint]` loop".into());
    }
    if brk.is_some_and(|b| sets(body, b)) {
        return Err("the loop can exit early".into());
    }
    let mut local = BTreeSet::new();
    local.insert(index);
    declared(body, &mut local);
    let mut walk = Walk {
        vars,
        ret,
        local: &local,
        checkpoints,
        sums: BTreeMap::new(),
        reads: BTreeMap::new(),
        scratch: BTreeSet::new(),
        why: None,
    };
    walk.stmts(body);
    if let Some(w) = walk.why {
        return Err(w);
    }
    let Walk {
        sums,
        reads,
        scratch,
        ..
    } = walk;
    for a in &scratch {
        super::scratch::check(*a, body, vars)?;
    }
    if sums.is_empty() {
        return Err("no sum reduction".into());
    }
    // Each accumulator is read only as the left operand of its own updates.
    for (s, n) in &sums {
        if reads.get(s).copied().unwrap_or(0) != *n {
            return Err(format!(
                "the sum `{}` is read other than by its own updates",
                vars[*s].name
            ));
        }
    }
    let sums_set: BTreeSet<VarId> = sums.keys().copied().collect();
    let reads_set = reads
        .keys()
        .copied()
        .filter(|v| !local.contains(v) && !sums_set.contains(v) && !scratch.contains(v))
        .collect();
    Ok(LoopFx {
        sums: sums_set,
        reads: reads_set,
        scratch,
    })
}

/// Whether any statement of `body` assigns `flag`.
pub(crate) fn sets(body: &[R], flag: VarId) -> bool {
    body.iter().any(|s| match s {
        R::Assign {
            place: Place::Var(v),
            ..
        } => *v == flag,
        R::If { then, els, .. } => sets(then, flag) || sets(els, flag),
        R::Match { arms, .. } => arms.iter().any(|(_, b)| sets(b, flag)),
        R::For { body, .. } | R::While { body, .. } => sets(body, flag),
        _ => false,
    })
}

/// The variables declared anywhere in `body` (`let`s and inner loop indices).
pub(crate) fn declared(body: &[R], out: &mut BTreeSet<VarId>) {
    for s in body {
        match s {
            R::Let { pat, .. } => {
                let mut vs = Vec::new();
                pat.vars(&mut vs);
                out.extend(vs);
            }
            R::If { then, els, .. } => {
                declared(then, out);
                declared(els, out);
            }
            R::Match { arms, .. } => arms.iter().for_each(|(_, b)| declared(b, out)),
            R::For { var, body, .. } => {
                out.insert(*var);
                declared(body, out);
            }
            R::While { body, .. } => declared(body, out),
            _ => {}
        }
    }
}

struct Walk<'a> {
    vars: &'a [Var],
    ret: VarId,
    local: &'a BTreeSet<VarId>,
    checkpoints: &'a BTreeMap<VarId, Checkpoint>,
    /// Accumulators, with the number of updates.
    sums: BTreeMap<VarId, usize>,
    /// Every variable read, with the number of reads.
    reads: BTreeMap<VarId, usize>,
    /// Outside sequences whose elements the body writes (checked as scratch afterwards).
    scratch: BTreeSet<VarId>,
    why: Option<String>,
}

impl Walk<'_> {
    fn fail(&mut self, why: String) {
        if self.why.is_none() {
            self.why = Some(why);
        }
    }

    fn expr(&mut self, e: &Expr) {
        let mut rs = Vec::new();
        e.reads(&mut rs);
        for v in rs {
            *self.reads.entry(v).or_insert(0) += 1;
        }
        for v in e.mut_borrows() {
            if !self.local.contains(&v) {
                let n = self.vars[v].name.to_string();
                self.fail(format!("a call writes `{n}` through `&mut`"));
            }
        }
    }

    fn stmts(&mut self, body: &[R]) {
        for s in body {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &R) {
        match s {
            R::Let { init, .. } => {
                if let Some(e) = init {
                    self.expr(e)
                }
            }
            R::Assign { place, value } => {
                if let Place::Index(_, ix) = place {
                    self.expr(ix);
                }
                self.expr(value);
                let v = place.var();
                if self.local.contains(&v) {
                    return;
                }
                let name = self.vars[v].name.to_string();
                let scalar = matches!(self.vars[v].shape, Shape::Scalar | Shape::Int);
                match place {
                    Place::Var(s)
                        if scalar
                            && *s != self.ret
                            && self.vars[*s].mutable
                            && accumulated_term(*s, value).is_some() =>
                    {
                        *self.sums.entry(*s).or_insert(0) += 1;
                    }
                    Place::Index(a, _) if matches!(self.vars[*a].shape, Shape::Seq(_)) => {
                        self.scratch.insert(*a);
                    }
                    _ => self.fail(format!(
                        "the body writes `{name}`, declared outside it, other than by `+=`/`-=` \
                         of a value not reading it"
                    )),
                }
            }
            R::Push { vec, value } => {
                self.expr(value);
                if !self.local.contains(vec) {
                    let n = self.vars[*vec].name.to_string();
                    self.fail(format!("the body pushes onto `{n}`, declared outside it"));
                }
            }
            R::Eval(e) => self.expr(e),
            R::Macro(_, vs) => {
                for v in vs {
                    *self.reads.entry(*v).or_insert(0) += 1;
                }
            }
            R::If { cond, then, els } => {
                self.expr(cond);
                self.stmts(then);
                self.stmts(els);
            }
            R::Match { scrut, arms } => {
                self.expr(scrut);
                for (_, b) in arms {
                    self.stmts(b);
                }
            }
            R::For {
                var, range, body, ..
            } => {
                if self.checkpoints.contains_key(var) {
                    self.fail("the body holds a `#[checkpoint]` loop".into());
                }
                let Range::Bounds {
                    start, end, step, ..
                } = range;
                self.expr(start);
                self.expr(end);
                if let Some(st) = step {
                    self.expr(st);
                }
                self.stmts(body);
            }
            R::While { cond, body, .. } => {
                if let Some(c) = cond {
                    self.expr(c);
                }
                self.stmts(body);
            }
            R::Exit(_) => self.fail("an exit in the body".into()),
            R::Swap(..) => self.fail("the body exchanges buffers".into()),
        }
    }
}

/// The term `e` when `value` is `s + e`, `e + s` or `s - e` with `e` not reading `s`: `s = value`
/// accumulates into `s` (loop fusion's sums; `transform/fission.rs`'s counters).
pub(crate) fn accumulated_term(s: VarId, value: &Expr) -> Option<&Expr> {
    let ExprKind::Binary { op, lhs, rhs } = &value.kind else {
        return None;
    };
    let is_s = |e: &Expr| matches!(e.kind, ExprKind::Var(v) if v == s);
    let reads_s = |e: &Expr| {
        let mut rs = Vec::new();
        e.reads(&mut rs);
        rs.contains(&s)
    };
    match op {
        BinOp::Add if is_s(lhs) && !reads_s(rhs) => Some(rhs),
        BinOp::Add if is_s(rhs) && !reads_s(lhs) => Some(lhs),
        BinOp::Sub if is_s(lhs) && !reads_s(rhs) => Some(rhs),
        _ => None,
    }
}

#[cfg(test)]
#[path = "fusion_tests.rs"]
mod tests;
