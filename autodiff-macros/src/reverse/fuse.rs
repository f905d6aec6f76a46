//! Loop fusion for reductions (emission): takes the plan of `analysis/fusion.rs`, gives the
//! top-level block with the planned loops fused: each one a single loop of the forward sweep
//! whose iteration runs its forward code, then its reverse code (no tape, no second pass; values
//! the reverse reads are the iteration's own), with the adjoints declared and the tail's reverse
//! run where the region starts, so that each sum's adjoint is known when its loop runs.
//!
//! The analysis decides from the IR; the one fact it leaves to the code is that the tail's
//! reverse reads no value the region computes (a rule's partial may read a value, `s` in
//! `s * s`, or not, `2.0 * s`): checked here on the names the ops print. When it fails, emission
//! starts again without fusion (`Emitter::unfused`).

use super::*;
use crate::analysis::fusion::Plan;
use std::collections::BTreeMap;

/// Where the region starts in the top-level forward code, and the tail's reverse (last
/// statement first), run there.
pub(super) struct Hoist {
    pub(super) at: usize,
    pub(super) tail_rev: Vec<Op>,
}

/// The analysis's report as the `AUTODIFF_DUMP_IR` section prints it.
pub(super) fn report_text(report: &[(String, Option<String>)]) -> String {
    if report.is_empty() {
        return "no top-level `for` loop".into();
    }
    report
        .iter()
        .map(|(name, why)| match why {
            None => format!("loop over `{name}`: fused\n"),
            Some(w) => format!("loop over `{name}`: not fused ({w})\n"),
        })
        .collect()
}

impl Emitter<'_> {
    /// The function's block with the loops of `plan` fused; the top-level adjoints are declared
    /// in `pops`, which the caller places at `Hoist::at` with the tail's reverse.
    pub(super) fn fused_block(&mut self, stmts: &[R], plan: &Plan) -> (BlockOut, Hoist) {
        let mut out = BlockOut::new();
        let mut declared = Vec::new();
        for s in stmts {
            if let R::Let { pat, .. } = s {
                pat.vars(&mut declared);
            }
        }
        let mut at = 0;
        let mut tail_rev = Vec::new();
        let mut written = BTreeSet::new();
        for (k, s) in stmts.iter().enumerate() {
            if k == plan.start {
                // No statement from here on resizes a sequence: a sequence's zero adjoint taken
                // here is shaped like its final value.
                let zeros = self.adjoint_zeros(std::mem::take(&mut declared), Level::Top, &mut out);
                out.pops.extend(zeros);
                at = out.fwd.len();
            }
            if k >= plan.start {
                stmt_writes(s, &mut written);
            }
            if plan.loops.contains(&k) {
                if let R::For { var, .. } = s {
                    self.fused.insert(*var);
                }
                let before = out.rev.len();
                self.stmt(s, Level::Top, &mut out);
                if out.rev.len() != before {
                    self.unfused = true;
                }
            } else if plan.hoisted.contains(&k) {
                let mut o = BlockOut::new();
                self.stmt(s, Level::Top, &mut o);
                out.fwd.extend(o.fwd);
                tail_rev.extend(o.rev);
                if !o.pops.is_empty() {
                    self.unfused = true;
                }
            } else {
                self.stmt(s, Level::Top, &mut out);
            }
        }
        // The tail's reverse runs before the region's forward code: it may read no name the
        // region binds or assigns.
        let mut region: BTreeSet<String> =
            written.iter().map(|v| self.uname(*v).to_string()).collect();
        let_names(&out.fwd[at..], &mut region);
        // Copies of a variable the region does not change (a hoisted statement's save of a
        // value computed before the region) are taken where the region starts instead: same
        // value, and the tail's reverse can read them.
        let moved = early_copies(&mut out.fwd, at, &mut region);
        at += moved;
        tail_rev.reverse();
        let printed = quote!(#(#tail_rev)*);
        if crate::ir::token_names(&printed, false)
            .iter()
            .any(|n| region.contains(n))
        {
            self.unfused = true;
        }
        (out, Hoist { at, tail_rev })
    }

    /// The head of a fused loop's iteration: the body's forward code, with the saves its reverse
    /// reads turned into per-iteration locals. Saves outside nested loops become `Option` slots
    /// declared at the top of the iteration (dropped, with their restore, when the forward code
    /// already binds the name the restore would); recomputations of values the forward code
    /// bound at the top of the iteration are dropped.
    pub(super) fn fused_iteration(&mut self, b: &mut BlockOut) -> Vec<Op> {
        let fwd = std::mem::take(&mut b.fwd);
        let bound: Vec<(String, String)> = fwd
            .iter()
            .filter_map(|op| match op {
                Op::Let { pat, value } => Some((pat.to_string(), value.to_string())),
                _ => None,
            })
            .collect();
        // Saves whose restore rebinds the very name saved: the forward code's binding serves.
        let mut same_name: Vec<syn::Ident> = Vec::new();
        for op in &b.pops {
            if let Op::Restore {
                name,
                site: Site::Tape(t),
            } = op
            {
                let saved_as_is = fwd.iter().any(|f| {
                    matches!(f, Op::Save { site: Site::Tape(u), value, .. }
                        if u == t && *name == value.to_string())
                });
                if saved_as_is {
                    same_name.push(t.clone());
                }
            }
        }
        let fwd: Vec<Op> = fwd
            .into_iter()
            .filter(
                |op| !matches!(op, Op::Save { site: Site::Tape(t), .. } if same_name.contains(t)),
            )
            .collect();
        let pops = std::mem::take(&mut b.pops);
        b.pops = pops
            .into_iter()
            .filter(|op| match op {
                Op::Restore {
                    site: Site::Tape(t),
                    ..
                } => !same_name.contains(t),
                Op::Let { pat, value } => {
                    let key = (pat.to_string(), value.to_string());
                    !bound.contains(&key)
                }
                _ => true,
            })
            .collect();
        let mut once = Vec::new();
        program::tapes_pushed_once(&fwd, &mut once);
        let mut fwd = fwd;
        to_slots(&mut fwd, &once);
        to_slots(&mut b.pops, &once);
        to_slots(&mut b.rev, &once);
        self.sites.retain(|s| match s {
            Site::Tape(t) => !once.contains(t) && !same_name.contains(t),
            Site::Slot(_) => true,
        });
        let mut head: Vec<Op> = once
            .iter()
            .map(|t| Op::Let {
                pat: quote!(mut #t),
                value: quote!(::core::option::Option::None),
            })
            .collect();
        head.extend(fwd);
        head
    }
}

/// Turns the tapes `tapes` into slots in `ops` (their saves and restores).
fn to_slots(ops: &mut [Op], tapes: &[syn::Ident]) {
    let fix = |site: &mut Site| {
        if let Site::Tape(t) = site {
            if tapes.contains(t) {
                *site = Site::Slot(t.clone());
            }
        }
    };
    for op in ops {
        match op {
            Op::Save { site, .. } | Op::Restore { site, .. } | Op::RestoreTuple { site, .. } => {
                fix(site)
            }
            Op::Block(b) | Op::For { body: b, .. } | Op::Loop { body: b, .. } => to_slots(b, tapes),
            Op::If { then, els, .. } => {
                to_slots(then, tapes);
                if let Some(e) = els {
                    to_slots(e, tapes);
                }
            }
            Op::Match { arms, .. } => arms.iter_mut().for_each(|(_, b)| to_slots(b, tapes)),
            _ => {}
        }
    }
}

/// Moves to `at` the top-level copies `let c = v;` of `out[at..]` whose value `v` (one name) is
/// not in `region` (bound or assigned in the region) and whose name is bound once there; gives
/// how many moved and takes their names out of `region`.
fn early_copies(ops: &mut Vec<Op>, at: usize, region: &mut BTreeSet<String>) -> usize {
    let single = |t: &TokenStream| -> Option<String> {
        let mut it = t.clone().into_iter();
        match (it.next(), it.next()) {
            (Some(proc_macro2::TokenTree::Ident(i)), None) => Some(i.to_string()),
            _ => None,
        }
    };
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut each = BTreeSet::new();
    for op in &ops[at..] {
        each.clear();
        let_names(std::slice::from_ref(op), &mut each);
        for n in &each {
            *counts.entry(n.clone()).or_insert(0) += 1;
        }
    }
    let movable = |op: &Op| match op {
        Op::Let { pat, value } => match (single(pat), single(value)) {
            (Some(c), Some(v)) => !region.contains(&v) && counts.get(&c) == Some(&1),
            _ => false,
        },
        _ => false,
    };
    let (early, rest): (Vec<Op>, Vec<Op>) = ops.drain(at..).partition(|op| movable(op));
    for op in &early {
        if let Op::Let { pat, .. } = op {
            region.remove(&pat.to_string());
        }
    }
    let n = early.len();
    ops.extend(early);
    ops.extend(rest);
    n
}

/// The names every `let` in `ops` binds, nested blocks included.
fn let_names(ops: &[Op], out: &mut BTreeSet<String>) {
    for op in ops {
        match op {
            Op::Let { pat, .. } => {
                out.extend(program::bound_names(pat).iter().map(|n| n.to_string()))
            }
            Op::Restore { name, .. } | Op::Take { g: name, .. } | Op::Zero { name } => {
                out.insert(name.to_string());
            }
            Op::Rule { outs, .. } => out.extend(outs.iter().map(|n| n.to_string())),
            Op::Block(b) | Op::For { body: b, .. } | Op::Loop { body: b, .. } => let_names(b, out),
            Op::If { then, els, .. } => {
                let_names(then, out);
                if let Some(e) = els {
                    let_names(e, out);
                }
            }
            Op::Match { arms, .. } => arms.iter().for_each(|(_, b)| let_names(b, out)),
            _ => {}
        }
    }
}

/// The variables a statement binds or assigns, nested blocks included.
fn stmt_writes(s: &R, out: &mut BTreeSet<VarId>) {
    match s {
        R::Let { pat, .. } => {
            let mut vs = Vec::new();
            pat.vars(&mut vs);
            out.extend(vs);
        }
        R::Assign { place, .. } => {
            out.insert(place.var());
        }
        R::Push { vec, .. } => {
            out.insert(*vec);
        }
        R::Eval(e) => out.extend(e.mut_borrows()),
        R::If { then, els, .. } => {
            then.iter().for_each(|s| stmt_writes(s, out));
            els.iter().for_each(|s| stmt_writes(s, out));
        }
        R::Match { arms, .. } => arms
            .iter()
            .for_each(|(_, b)| b.iter().for_each(|s| stmt_writes(s, out))),
        R::For { var, body, .. } => {
            out.insert(*var);
            body.iter().for_each(|s| stmt_writes(s, out));
        }
        R::While { body, .. } => body.iter().for_each(|s| stmt_writes(s, out)),
        R::Swap(a, b) => out.extend([*a, *b]),
        R::Macro(..) | R::Exit(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::analysed;
    use syn::parse_quote;

    /// The two sweeps of `item`'s adjoint program, printed.
    fn sweeps(item: syn::ItemFn) -> (String, String) {
        let f = analysed(item);
        let mut diag = crate::diag::Diag::default();
        let mut dump = crate::codegen::dump::IrDump::default();
        let s = super::super::adjoint_program(&f, &mut diag, &mut dump, true).expect("a program");
        let text = |ops: &[super::Op]| super::super::program::print(ops);
        (text(&s.fwd), text(&s.rev))
    }

    #[test]
    fn a_fused_loop_runs_once_and_saves_nothing() {
        let (fwd, rev) = sweeps(parse_quote! {
            fn f(x: &[f64], c: f64) -> f64 {
                let k = c * c;
                let mut s = 0.0;
                for i in 0..x.len() {
                    let a = (k * x[i]).exp();
                    if a > 1.0 {
                        s += a * x[i];
                    }
                }
                s
            }
        });
        // One loop, in the forward sweep, ascending; the reverse sweep only has `k`'s statement.
        assert_eq!(fwd.matches("for ").count(), 1, "{fwd}");
        assert!(!rev.contains("for "), "{rev}");
        assert!(
            !fwd.contains("tape") && !rev.contains("tape"),
            "{fwd}\n{rev}"
        );
        // The adjoints are declared, and the tail's reverse runs, before the loop.
        let seed = fwd.find("= seed").expect("seed");
        let take = fwd.find("take").expect("take");
        assert!(seed < take && take < fwd.find("for ").unwrap(), "{fwd}");
    }

    #[test]
    fn the_rosenbrock_benchmark_fuses_with_its_adjoint_window() {
        // The body of `benches/problems/generated.rs::rosenbrock`.
        let (fwd, rev) = sweeps(parse_quote! {
            fn rosenbrock(x: &[f64], n: usize) -> f64 {
                let mut s = 0.0;
                for i in 0..n - 1 {
                    let t = x[i + 1] - x[i] * x[i];
                    let u = 1.0 - x[i];
                    s += 100.0 * t * t + u * u;
                }
                s
            }
        });
        assert_eq!(fwd.matches("for ").count(), 1, "{fwd}");
        assert!(!rev.contains("for "), "{rev}");
        // The window slots of `dx[i]` and `dx[i + 1]`, loaded and stored through the adjoint
        // view, and the loop running upwards (no `.rev()`).
        assert!(fwd.contains("set __ad_w1 = __ad_w2"), "{fwd}");
        assert!(fwd.contains("& mut __ad_b0_x"), "{fwd}");
        assert!(!fwd.contains(".rev()"), "{fwd}");
    }

    #[test]
    fn a_tail_reading_the_sum_keeps_the_loop_unfused() {
        let (fwd, rev) = sweeps(parse_quote! {
            fn f(x: &[f64]) -> f64 {
                let mut s = 0.0;
                for i in 0..x.len() {
                    s += x[i].sin();
                }
                s * s
            }
        });
        assert!(rev.contains("for "), "{rev}");
        assert!(!fwd.contains("seed"), "{fwd}");
    }

    #[test]
    fn a_statement_reading_a_sum_moves_the_region_after_it() {
        let (fwd, rev) = sweeps(parse_quote! {
            fn f(x: &[f64]) -> f64 {
                let mut a = 0.0;
                for i in 0..x.len() {
                    a += x[i];
                }
                let c = a * a;
                let mut b = 0.0;
                for j in 0..x.len() {
                    b += x[j].cos();
                }
                b + c
            }
        });
        // `i` runs forwards and backwards; `j` is fused.
        assert_eq!(fwd.matches("for ").count(), 2, "{fwd}");
        assert_eq!(rev.matches("for ").count(), 1, "{rev}");
        assert!(rev.contains("for i__"), "{rev}");
    }
}
