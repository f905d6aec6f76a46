//! What the reverse sweep can read by name: takes the normalised statements, gives the `Scope`
//! (variables declared at the top level, loop indices the reverse loop rebinds, the sequences
//! kept in restore mode once `saves` decided them), the variables whose adjoint can be nonzero,
//! and the `Level` of a block (where its saved values live). Shared by the saves analysis, the
//! loop access analysis and the reverse emitter.

use crate::analysis::usefulness::useful;
use crate::ir::*;
use crate::transform::normalize::R;
use std::collections::BTreeSet;

/// Where a block runs, which decides where its saved values live.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    /// The function's own block: runs once; values are saved in plain locals.
    Top,
    /// Inside branches (`if`, `match`) but outside every loop: runs at most once per call;
    /// values are saved in `Option` slots declared at the start of the function.
    Branch,
    /// Inside a loop: runs any number of times; values are saved on stacks (`Vec`).
    Loop,
}

impl Level {
    /// The level of the blocks of a branch (`if`, `match`) at this level.
    pub(crate) fn branch(self) -> Level {
        match self {
            Level::Top | Level::Branch => Level::Branch,
            Level::Loop => Level::Loop,
        }
    }
}

/// What the reverse sweep can read by name, shared by the saves analysis and the emitter.
#[derive(Clone)]
pub(crate) struct Scope<'a> {
    pub(crate) vars: &'a [Var],
    /// Variables declared at the top level (not inside loops or branches).
    pub(crate) top: BTreeSet<VarId>,
    /// Loop indices of `for` loops without early exit (the reverse loop rebinds them).
    pub(crate) rebound: BTreeSet<VarId>,
    /// Mutable top-level sequences kept up to date in the reverse sweep by restoring each
    /// overwritten element (Tapenade's strategy), instead of saving every read.
    pub(crate) restore: BTreeSet<VarId>,
}

impl Scope<'_> {
    /// Whether the reverse sweep can name `v` and find the value it had at any read.
    pub(crate) fn stable(&self, v: VarId) -> bool {
        let var = &self.vars[v];
        !var.mutable
            && (self.top.contains(&v)
                || self.rebound.contains(&v)
                || matches!(var.origin, VarOrigin::Param(_)))
    }

    /// Whether the reverse of a statement can read `v` by name and find the value it had when the
    /// statement ran: stable variables, and restored sequences.
    pub(crate) fn stable_at_stmt(&self, v: VarId) -> bool {
        self.stable(v) || self.restore.contains(&v)
    }
}

/// What the reverse sweep can read by name (nothing restored yet), and the variables whose
/// adjoint can be nonzero.
pub(crate) fn scope_of<'a>(
    f: &Function,
    vars: &'a [Var],
    ret: VarId,
    body: &[R],
) -> (Scope<'a>, BTreeSet<VarId>) {
    let mut top = BTreeSet::new();
    for p in f.body_params() {
        top.insert(p.var);
    }
    top.insert(ret);
    collect_top(body, &mut top);
    let mut rebound = BTreeSet::new();
    collect_rebound(body, &mut rebound);
    // Variables with a (possibly) nonzero adjoint: the output, the arguments, and every active
    // variable read by an assignment to one of them (backward fixpoint, "useful" variables).
    let mut acc: BTreeSet<VarId> = f
        .body_params()
        .filter(|p| p.active)
        .map(|p| p.var)
        .collect();
    acc.insert(ret);
    loop {
        let before = acc.len();
        useful(body, vars, &mut acc);
        if acc.len() == before {
            break;
        }
    }
    let scope = Scope {
        vars,
        top,
        rebound,
        restore: BTreeSet::new(),
    };
    (scope, acc)
}

fn collect_top(b: &[R], top: &mut BTreeSet<VarId>) {
    for s in b {
        if let R::Let { pat, .. } = s {
            let mut vs = Vec::new();
            pat.vars(&mut vs);
            top.extend(vs);
        }
    }
}

/// Whether the reverse sweep can walk the same indices of `for _ in range` backwards (rebinding
/// the index), rather than replaying a trip count.
pub(crate) fn simple_for(range: &Range, body: &[R], brk: Option<VarId>) -> bool {
    let Range::Bounds {
        inclusive, step, ..
    } = range;
    let breaks = brk.is_some_and(|b| body_sets(body, b));
    !(breaks || *inclusive && step.is_some())
}

/// The indices of the `for` loops the reverse sweep walks backwards (`simple_for`), anywhere in
/// `body`: the reverse loop rebinds them, so they are stable.
pub(crate) fn collect_rebound(body: &[R], out: &mut BTreeSet<VarId>) {
    for s in body {
        match s {
            R::For {
                var,
                range,
                body,
                brk,
            } => {
                if simple_for(range, body, *brk) {
                    out.insert(*var);
                }
                collect_rebound(body, out);
            }
            R::While { body, .. } => collect_rebound(body, out),
            R::If { then, els, .. } => {
                collect_rebound(then, out);
                collect_rebound(els, out);
            }
            R::Match { arms, .. } => arms.iter().for_each(|(_, b)| collect_rebound(b, out)),
            _ => {}
        }
    }
}

/// Whether any statement in `body` assigns `flag` (the loop can stop early).
pub(crate) fn body_sets(body: &[R], flag: VarId) -> bool {
    body.iter().any(|s| match s {
        R::Assign {
            place: Place::Var(v),
            ..
        } => *v == flag,
        R::If { then, els, .. } => body_sets(then, flag) || body_sets(els, flag),
        R::Match { arms, .. } => arms.iter().any(|(_, b)| body_sets(b, flag)),
        _ => false,
    })
}
