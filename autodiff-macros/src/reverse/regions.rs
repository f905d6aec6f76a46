//! Tape regions: takes a simple `for` loop's body, once emitted, gives the body with the tapes it
//! pushes exactly once an iteration written by index into a region of the tape sized before the
//! loop, and read back by index in the reverse loop, instead of a `push` and a `pop` per
//! iteration.
//!
//! A `push` keeps the tape's length in memory from one iteration to the next (the grow path is a
//! call that takes the whole `Vec`), a store-to-load chain that also keeps the loop from
//! vectorizing: on the spring chain's force loop the forward sweep took 79 µs with a push an
//! iteration and 37 µs writing the same values by index. Legal when (checked here and by the
//! caller, `loops.rs`):
//! 1. the loop is a simple `for` over `a..b` or `a..=b` (either direction, no `step_by`) that
//!    cannot exit early, and is not fused: every iteration runs its body to the end, so the
//!    body's top-level save runs exactly once an iteration, `range_steps` times in all, and the
//!    reverse loop visits the same indices, so `i - a` names one region element per iteration
//!    in both sweeps (a bijection onto `0..trips`, whatever the order);
//! 2. the loop's bounds make no call (`range_steps` evaluates them again, before the loop runs
//!    and before the reverse loop runs, as the reservations do);
//! 3. the tape is the body's own (a fresh site), saved once, at the body's top level (not in a
//!    branch or nested loop, which may run another number of times), and read once, at the
//!    start of the body's reverse (a tape of tuples, `combine_tapes`, or a single save);
//! 4. every value on it has a value of its type that can be written before the loop runs
//!    (`Op::Save::fill`: `zero()` for a float, `[zero(); N]` for an array of floats, a tuple of
//!    those: `reverse::fill_of`), so the region can be sized with
//!    `resize` (no `unsafe`, no `Default` bound on values the macro cannot see the types of);
//!    these values are `Copy`, so the reverse reads them by index without moving out.
//!
//! Nested loops work unchanged: the inner loop's region is sized (within the room the outermost
//! loop reserved) and filled by each run of the inner loop, read back and truncated by the
//! matching run of its reverse, which the LIFO order of the sweeps pairs up.

use super::*;

/// A tape the loop writes by region: the declarations before the forward loop, those before
/// the reverse loop, and the truncation after it.
pub(super) struct Region {
    pub(super) fwd_decls: Vec<Op>,
    pub(super) rev_decls: Vec<Op>,
    pub(super) rev_after: Vec<Op>,
}

impl Emitter<'_> {
    /// Rewrites the body `b` of the loop over `i` (bound `va` = its start in both sweeps) so that
    /// each tape it saves once an iteration at its top level, with a fill value, is written and
    /// read by index; `fwd_range` and `rev_range` are the loop's ranges in each sweep, evaluated
    /// again for their trip counts. The caller checked conditions 1 and 2 above.
    pub(super) fn tape_regions(
        &mut self,
        b: &mut BlockOut,
        i: &syn::Ident,
        va: &syn::Ident,
        fwd_range: &TokenStream,
        rev_range: &TokenStream,
    ) -> Vec<Region> {
        let rt = names::rt();
        let mut out = Vec::new();
        let candidates: Vec<(syn::Ident, TokenStream)> = b
            .fwd
            .iter()
            .filter_map(|op| match op {
                Op::Save {
                    site: Site::Tape(t),
                    fill: Some(fill),
                    ..
                } => Some((t.clone(), fill.clone())),
                _ => None,
            })
            .collect();
        for (t, fill) in candidates {
            let mut saves = Vec::new();
            program::tapes_saved(&b.fwd, &t, &mut saves);
            let pops_here = b.pops.iter().filter(|op| restores(op, &t)).count();
            let mut pops_all = 0;
            program::count_restores(&b.pops, &t, &mut pops_all);
            program::count_restores(&b.rev, &t, &mut pops_all);
            if saves.len() != 1 || pops_here != 1 || pops_all != 1 {
                continue;
            }
            let (base, region) = (self.fresh("tb"), self.fresh("rg"));
            let at = quote!(#region[(#i - #va) as usize]);
            for op in b.fwd.iter_mut() {
                if let Op::Save {
                    site: Site::Tape(u),
                    ..
                } = op
                {
                    if *u != t {
                        continue;
                    }
                    let Op::Save { value, .. } =
                        std::mem::replace(op, Op::Code(TokenStream::new()))
                    else {
                        continue;
                    };
                    *op = Op::SaveAt {
                        tape: t.clone(),
                        place: at.clone(),
                        value,
                    };
                }
            }
            for op in b.pops.iter_mut() {
                if !restores(op, &t) {
                    continue;
                }
                let pat = match op {
                    Op::Restore { name, .. } => quote!(#name),
                    Op::RestoreTuple { names, .. } => quote!((#(#names,)*)),
                    _ => continue,
                };
                *op = Op::Let {
                    pat,
                    value: at.clone(),
                };
            }
            out.push(Region {
                fwd_decls: vec![
                    Op::Let {
                        pat: quote!(#base),
                        value: quote!(#t.len()),
                    },
                    Op::Code(quote!(#t.resize(#base + #rt::range_steps(#fwd_range), #fill);)),
                    Op::Let {
                        pat: quote!(#region),
                        value: quote!(&mut #t[#base..]),
                    },
                ],
                rev_decls: vec![
                    Op::Let {
                        pat: quote!(#base),
                        value: quote!(#t.len() - #rt::range_steps(#rev_range)),
                    },
                    Op::Let {
                        pat: quote!(#region),
                        value: quote!(&#t[#base..]),
                    },
                ],
                rev_after: vec![Op::Code(quote!(#t.truncate(#base);))],
            });
        }
        out
    }
}

/// Whether `op` reads back the values saved on tape `t`.
fn restores(op: &Op, t: &syn::Ident) -> bool {
    matches!(op, Op::Restore { site: Site::Tape(u), .. } | Op::RestoreTuple { site: Site::Tape(u), .. } if u == t)
}

/// Whether a loop's bounds make a call (or hold syntax the macro does not see into): then they
/// are not evaluated again for a trip count.
pub(super) fn bounds_call(range: &Range) -> bool {
    let Range::Bounds {
        start, end, step, ..
    } = range;
    let mut calls = false;
    for e in [Some(start), Some(end), step.as_ref()]
        .into_iter()
        .flatten()
    {
        e.visit(&mut |x| {
            calls |= matches!(
                x.kind,
                ExprKind::Call { .. }
                    | ExprKind::PlainCall { .. }
                    | ExprKind::PlainMethod { .. }
                    | ExprKind::Opaque { .. }
            )
        });
    }
    calls
}
