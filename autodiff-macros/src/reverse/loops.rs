//! Loops: takes a `for` loop, gives both sweeps of it, with adjoint windows and slice views
//! planned from the loop body's access patterns.

use super::*;

impl Emitter<'_> {
    /// The adjoint windows the access table (`analysis/access.rs`) gives the loop over
    /// `index`, with their slots named (none for a sequence an enclosing loop already windows).
    pub(super) fn plan_windows(&mut self, index: VarId) -> Vec<(VarId, Window)> {
        let access = self.access;
        let Some(plan) = access.get(&index) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for w in &plan.windows {
            if self.windows.contains_key(&w.var) {
                continue;
            }
            let slots = (w.lo..=w.hi).map(|_| self.fresh("w")).collect();
            out.push((
                w.var,
                Window {
                    index,
                    lo: w.lo,
                    hi: w.hi,
                    slots,
                    guarded: w.guarded,
                },
            ));
        }
        out
    }

    /// `view[k]` for `base[index]` when a slice view of `base` covers this access.
    pub(super) fn view_elem(&self, base: VarId, index: &Expr, adjoint: bool) -> Option<ViewElem> {
        let view = if adjoint {
            self.adj_views.get(&base)?
        } else {
            self.views.get(&base)?
        };
        let (inv, c) = affine_split(index, view.index, &self.scope)?;
        if !inv.same(&view.inv) {
            return None;
        }
        Some(ViewElem {
            view: view.name.clone(),
            index: self.uname(view.index),
            start: view.start.clone(),
            k: (c - view.lo) as usize,
        })
    }

    /// `view_elem`, printed.
    pub(super) fn view_access(
        &self,
        base: VarId,
        index: &Expr,
        adjoint: bool,
    ) -> Option<TokenStream> {
        self.view_elem(base, index, adjoint)
            .map(|v| v.to_token_stream())
    }

    /// The slice views the access table (`analysis/access.rs`) gives the loop over `index`,
    /// named, indexed from `a`: the view declarations for the forward loop and for the reverse
    /// loop.
    pub(super) fn plan_views(
        &mut self,
        index: VarId,
        a: &syn::Ident,
    ) -> (Vec<PlannedView>, Vec<PlannedView>) {
        let access = self.access;
        let mut prim = Vec::new();
        let mut adj = Vec::new();
        let Some(plan) = access.get(&index) else {
            return (prim, adj);
        };
        for v in &plan.views {
            let make = |me: &mut Self| SliceView {
                name: me.fresh("vw"),
                index,
                inv: v.acc.inv.clone(),
                inv_expr: v.acc.inv_expr.clone(),
                start: a.clone(),
                lo: v.lo,
            };
            if v.prim {
                prim.push((v.var, make(self), v.hi));
            }
            if v.adj {
                adj.push((v.var, make(self), v.hi));
            }
        }
        (prim, adj)
    }

    /// `let name = if a < b { &arr[lo..hi] } else { &arr[0..0] };`, or, where the declaration
    /// runs under `if a < b` already (`guarded`), `let name = &arr[lo..hi];`: a length rustc
    /// then knows in the loop, so it removes the loop's bounds checks (a `select` of two lengths
    /// hides it).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn view_decl(
        &self,
        arr: TokenStream,
        view: &SliceView,
        hi: i64,
        inv: Option<TokenStream>,
        b: &TokenStream,
        mutable: bool,
        guarded: bool,
    ) -> Op {
        let (n, a) = (&view.name, &view.start);
        let shift = |base: TokenStream, c: i64| -> TokenStream {
            let m = c.unsigned_abs() as usize;
            let base = match &inv {
                Some(e) => quote!(#e + #base),
                None => base,
            };
            if c >= 0 {
                quote!(#base + #m)
            } else {
                quote!(#base - #m)
            }
        };
        let lo_t = shift(quote!(#a), view.lo);
        let hi_t = shift(quote!(#b), hi);
        let value = if guarded {
            if mutable {
                quote!(&mut #arr[#lo_t..#hi_t])
            } else {
                quote!(&#arr[#lo_t..#hi_t])
            }
        } else if mutable {
            quote!(if #a < #b { &mut #arr[#lo_t..#hi_t] } else { &mut #arr[0..0] })
        } else {
            quote!(if #a < #b { &#arr[#lo_t..#hi_t] } else { &#arr[0..0] })
        };
        Op::Let {
            pat: quote!(#n),
            value,
        }
    }

    /// The window slot for `base[index]`, when `base` has a window over this index.
    pub(super) fn window_slot(&self, base: VarId, index: &Expr) -> Option<syn::Ident> {
        let win = self.windows.get(&base)?;
        let c = affine_offset(index, win.index)?;
        (win.lo..=win.hi).contains(&c).then(|| win.slot(c).clone())
    }

    /// A loop body's sweeps, its values saved once an iteration on one tape of tuples.
    pub(super) fn loop_body(&mut self, body: &[R]) -> BlockOut {
        let mut b = self.block(body, Level::Loop);
        let mut n = self.n;
        let unused = program::combine_tapes(&mut b.fwd, &mut b.pops, || {
            n += 1;
            names::local("k", n)
        });
        self.n = n;
        self.sites
            .retain(|s| !matches!(s, Site::Tape(t) if unused.contains(t)));
        b
    }

    pub(super) fn for_loop(
        &mut self,
        var: VarId,
        range: &Range,
        body: &[R],
        brk: Option<VarId>,
        level: Level,
        out: &mut BlockOut,
    ) {
        let Range::Bounds {
            start,
            end,
            inclusive,
            rev,
            step,
        } = range;
        let simple = simple_for(range, body, brk);
        // A fused loop (`fuse.rs`) runs once, in the forward sweep, each iteration's reverse
        // right after its forward code.
        let fused = simple && self.fused.contains(&var);
        let i = self.uname(var);
        if simple {
            let s = self.decision(start, level, out);
            let e = self.decision(end, level, out);
            let st = step.as_ref().map(|st| self.decision(st, level, out));
            let windows = if step.is_none() {
                self.plan_windows(var)
            } else {
                Vec::new()
            };
            let saved: Vec<(VarId, Option<Window>)> = windows
                .into_iter()
                .map(|(w, win)| (w, self.windows.insert(w, win)))
                .collect();
            // The views index relative to the loop's start, bound once before each loop.
            let vstart = self.fresh("va");
            let (fs, fe) = (self.fwd_expr(start), self.fwd_expr(end));
            let mut fwd_decls = vec![Op::Let {
                pat: quote!(#vstart),
                value: fs,
            }];
            let mut rev_decls = vec![Op::Let {
                pat: quote!(#vstart),
                value: s.clone(),
            }];
            // Slice views (only for plain ascending or descending `a..b` loops).
            let (pviews, aviews) = if step.is_none() && !*inclusive {
                self.plan_views(var, &vstart)
            } else {
                (Vec::new(), Vec::new())
            };
            // A reverse loop (not fused) with views runs, with its declarations, under
            // `if start < end`, where each view is a plain slice (`view_decl`).
            let has_views = !pviews.is_empty() || !aviews.is_empty();
            let guard_rev = !fused && has_views;
            for (arr, view, hi) in &pviews {
                let inv = view.inv_expr.as_ref().map(|x| self.fwd_expr(x));
                let n = self.uname(*arr);
                fwd_decls.push(self.view_decl(
                    quote!(#n),
                    view,
                    *hi,
                    inv.clone(),
                    &fe,
                    false,
                    false,
                ));
                rev_decls.push(self.view_decl(quote!(#n), view, *hi, inv, &e, false, guard_rev));
            }
            // The reverse's own declarations after these (the adjoint views).
            let shared_decls = 1 + pviews.len();
            for (arr, view, hi) in &aviews {
                let inv = view.inv_expr.as_ref().map(|x| self.fwd_expr(x));
                let b = self.adj(*arr);
                rev_decls.push(self.view_decl(quote!(#b), view, *hi, inv, &e, true, guard_rev));
            }
            let saved_views: Vec<_> = pviews
                .into_iter()
                .map(|(arr, v, _)| (arr, self.views.insert(arr, v)))
                .collect();
            // Windowed adjoints load and store their slots through their view.
            let win_views: HashMap<VarId, SliceView> = aviews
                .iter()
                .filter(|(arr, _, _)| self.windows.contains_key(arr))
                .map(|(arr, v, _)| (*arr, v.clone()))
                .collect();
            let saved_adj: Vec<_> = aviews
                .into_iter()
                .map(|(arr, v, _)| (arr, self.adj_views.insert(arr, v)))
                .collect();
            let pending_from = self.nested_reserve.len();
            let mut b = self.loop_body(body);
            let inner = self.nested_reserve.split_off(pending_from);
            for (arr, old) in saved_views {
                self.views.remove(&arr);
                if let Some(o) = old {
                    self.views.insert(arr, o);
                }
            }
            for (arr, old) in saved_adj {
                self.adj_views.remove(&arr);
                if let Some(o) = old {
                    self.adj_views.insert(arr, o);
                }
            }
            let mut wins = Vec::new();
            for (w, old) in saved {
                if let Some(win) = self.windows.remove(&w) {
                    wins.push((w, win));
                }
                if let Some(o) = old {
                    self.windows.insert(w, o);
                }
            }
            let r = self.fwd_range(range);
            let fused_head = fused.then(|| self.fused_iteration(&mut b));
            let rr = crate::codegen::primal::range_tokens(&s, &e, *inclusive, *rev, st.as_ref());
            // Tapes written and read by index (`regions.rs`): not in a fused loop (its tapes are
            // slots), nor with a step or bounds evaluated again at a cost.
            let mut rev_after = Vec::new();
            let mut region_decls = Vec::new();
            if !fused && step.is_none() && !regions::bounds_call(range) {
                for rg in self.tape_regions(&mut b, &i, &vstart, &r, &rr) {
                    region_decls.extend(rg.fwd_decls);
                    rev_decls.extend(rg.rev_decls);
                    rev_after.extend(rg.rev_after);
                }
            }
            fwd_decls.extend(self.reserve_tapes(range, &r, &b.fwd, level, true, inner));
            fwd_decls.extend(region_decls);
            if fused {
                // One loop in the forward direction: the reverse's views are declared with the
                // forward's, and its body runs after the forward body of the same iteration.
                fwd_decls.extend(rev_decls.drain(shared_decls..));
                rev_decls = fwd_decls;
            } else {
                fwd_decls.push(Op::For {
                    var: quote!(#i),
                    range: r.clone(),
                    body: std::mem::take(&mut b.fwd),
                });
                out.fwd.push(Op::Block(fwd_decls));
            }
            // The loop over the indices of the reverse: backwards, or forwards when fused.
            let (rev_range, rev_push): (TokenStream, &mut Vec<Op>) = match &fused_head {
                Some(_) => (r.clone(), &mut out.fwd),
                None => (quote!(#rr.rev()), &mut out.rev),
            };
            let mut iteration_head = fused_head.unwrap_or_default();
            if wins.is_empty() {
                iteration_head.extend(b.reverse());
                rev_decls.push(Op::For {
                    var: quote!(#i),
                    range: rev_range,
                    body: iteration_head,
                });
                rev_decls.extend(rev_after);
                rev_push.push(guard_block(rev_decls, guard_rev, quote!(#vstart < #e)));
            } else {
                // The reverse loop runs downwards unless the forward one ran upwards (`.rev()`);
                // a fused loop runs the way the forward one does.
                let down = if fused { *rev } else { !*rev };
                let rt = names::rt();
                let last = self.fresh("last");
                let nonempty = if *inclusive {
                    quote!(#vstart <= #e)
                } else {
                    quote!(#vstart < #e)
                };
                // The first index the reverse loop visits.
                let first_i = match (down, *inclusive) {
                    (true, true) => quote!(#e),
                    (true, false) => quote!(#e - 1),
                    (false, _) => quote!(#vstart),
                };
                let mut decl = Vec::new();
                let mut load_all = Vec::new();
                let mut load_new = Vec::new();
                let mut store_shift = Vec::new();
                let mut flush = Vec::new();
                for (w, win) in &wins {
                    // An adding window (`addwin.rs`): its slots start at zero and are added
                    // into the elements leaving them; not in a fused loop.
                    let adds = !fused && self.adding_window(body, *w, win);
                    let b = self.adj(*w);
                    let view = win_views.get(w);
                    // The adjoint of element `at + c`, through the view when there is one.
                    let elem = |at: &TokenStream, c: i64| -> TokenStream {
                        match view {
                            Some(v) => {
                                let (n, k) = (&v.name, (c - v.lo) as usize);
                                quote!(#n[(#at - #vstart) + #k])
                            }
                            None => {
                                let m = c.unsigned_abs() as usize;
                                if c >= 0 {
                                    quote!(#b[#at + #m])
                                } else {
                                    quote!(#b[#at - #m])
                                }
                            }
                        }
                    };
                    let here = quote!(#i);
                    let start_i = quote!(#last);
                    // Guarded windows: the element `at + c` may not exist (its accesses were
                    // conditional); a missing element loads as zero and is never stored.
                    let guarded_ix = |at: &TokenStream, c: i64| -> TokenStream {
                        let m = c.unsigned_abs() as usize;
                        if c >= 0 {
                            quote!(::core::option::Option::Some(#at + #m))
                        } else {
                            quote!(#at.checked_sub(#m))
                        }
                    };
                    let load = |sl: &syn::Ident, at: &TokenStream, c: i64| -> Op {
                        let value = if win.guarded {
                            let ix = guarded_ix(at, c);
                            quote!(match #ix {
                                ::core::option::Option::Some(k) if k < #b.len() => #b[k],
                                _ => #rt::zero(),
                            })
                        } else {
                            elem(at, c)
                        };
                        Op::Set {
                            place: quote!(#sl),
                            value,
                        }
                    };
                    let store = |sl: &syn::Ident, at: &TokenStream, c: i64| -> Op {
                        if adds {
                            addwin::add_into(elem(at, c), sl)
                        } else if win.guarded {
                            let ix = guarded_ix(at, c);
                            Op::Code(quote!(if let ::core::option::Option::Some(k) = #ix {
                                if k < #b.len() { #b[k] = #sl; }
                            }))
                        } else {
                            Op::Set {
                                place: elem(at, c),
                                value: quote!(#sl),
                            }
                        }
                    };
                    for c in win.lo..=win.hi {
                        let sl = win.slot(c);
                        decl.push(Op::Let {
                            pat: quote!(mut #sl),
                            value: quote!(#rt::zero()),
                        });
                        if !adds {
                            load_all.push(load(sl, &start_i, c));
                        }
                    }
                    let (enter, leave) = if down {
                        (win.lo, win.hi)
                    } else {
                        (win.hi, win.lo)
                    };
                    let (se, sl_leave) = (win.slot(enter), win.slot(leave));
                    load_new.push(if adds {
                        Op::Set {
                            place: quote!(#se),
                            value: quote!(#rt::zero()),
                        }
                    } else {
                        load(se, &here, enter)
                    });
                    store_shift.push(store(sl_leave, &here, leave));
                    // Shift towards the leaving end.
                    let cs: Vec<i64> = (win.lo..=win.hi).collect();
                    let shift = |a: &syn::Ident, bb: &syn::Ident| Op::Set {
                        place: quote!(#a),
                        value: quote!(#bb),
                    };
                    if down {
                        for k in (1..cs.len()).rev() {
                            store_shift.push(shift(win.slot(cs[k]), win.slot(cs[k - 1])));
                        }
                    } else {
                        for k in 0..cs.len().saturating_sub(1) {
                            store_shift.push(shift(win.slot(cs[k]), win.slot(cs[k + 1])));
                        }
                    }
                    // After the loop, the slots that did not leave still hold elements of the
                    // last iteration's neighbours: after the final shift, slot c holds element
                    // last + c - 1 (downwards) or last + c + 1 (upwards).
                    for c in win.lo..=win.hi {
                        if c == enter {
                            continue;
                        }
                        let e = if down { c - 1 } else { c + 1 };
                        flush.push(store(win.slot(c), &start_i, e));
                    }
                }
                // The slots are filled before the first iteration (the first iteration's reload
                // of the entering slot reads the same, untouched value).
                let mut ops = rev_decls;
                ops.extend(decl);
                ops.push(Op::Let {
                    pat: quote!(mut #last),
                    value: quote!(if #nonempty { #first_i } else { #vstart }),
                });
                ops.push(Op::If {
                    cond: nonempty.clone(),
                    then: load_all,
                    els: None,
                });
                let mut body = iteration_head;
                body.extend(load_new);
                body.push(Op::Set {
                    place: quote!(#last),
                    value: quote!(#i),
                });
                body.extend(b.reverse());
                body.extend(store_shift);
                ops.push(Op::For {
                    var: quote!(#i),
                    range: rev_range,
                    body,
                });
                ops.push(Op::If {
                    cond: nonempty,
                    then: flush,
                    els: None,
                });
                ops.extend(rev_after);
                rev_push.push(guard_block(ops, guard_rev, quote!(#vstart < #e)));
            }
        } else {
            // Record the trip count; the index is saved per iteration if the reverse needs it.
            let cnt = self.fresh("n");
            let pending_from = self.nested_reserve.len();
            let mut b = self.loop_body(body);
            // Nested tapes are reserved only for loops without early exit.
            self.nested_reserve.truncate(pending_from);
            if self.saves.needed.contains(&var) {
                self.needed_now.insert(var);
                let site = Site::Tape(self.fresh("t"));
                self.sites.push(site.clone());
                b.fwd.insert(
                    0,
                    Op::Save {
                        site: site.clone(),
                        value: quote!(#i),
                        fill: None,
                    },
                );
                b.pops.insert(
                    0,
                    Op::Restore {
                        name: i.clone(),
                        site,
                    },
                );
            }
            let r = self.fwd_range(range);
            out.fwd
                .extend(self.reserve_tapes(range, &r, &b.fwd, level, false, Vec::new()));
            let body = self.counted_body(&cnt, std::mem::take(&mut b.fwd), brk);
            out.fwd.push(Op::Let {
                pat: quote!(mut #cnt: usize),
                value: quote!(0),
            });
            out.fwd.push(Op::For {
                var: quote!(#i),
                range: r,
                body,
            });
            let count = self.save(quote!(#cnt), level, out, None);
            out.rev.push(Op::For {
                var: quote!(_),
                range: quote!(0..#count),
                body: b.reverse(),
            });
        }
    }
}

impl Emitter<'_> {
    /// `tape.reserve(trip count)` for each tape the loop body `fwd` pushes at most once per
    /// iteration, so that a tape grows once per call instead of doubling its way up (a function
    /// called in a time loop allocates its tapes once, not once per doubling), when the range
    /// can be evaluated again for its length (no calls in its bounds). A loop inside loops
    /// reserves nothing itself (a reserve per outer iteration measured slower than doubling):
    /// when it has no early exit (`whole`, a simple loop) and its bounds read only arguments and top-level
    /// immutable values (not an enclosing loop's index), its tapes, and those of the loops nested
    /// in it the same way (`inner`), go up to the enclosing loop with their count per iteration
    /// multiplied by this loop's trip count, and the outermost loop reserves them all. Only
    /// loops at the top of the body are counted (`straight_tapes`): a loop under a branch may not
    /// run, and its bounds need not be valid (`1..n - 1` with `n == 0`) when it does not.
    fn reserve_tapes(
        &mut self,
        range: &Range,
        r: &TokenStream,
        fwd: &[Op],
        level: Level,
        whole: bool,
        inner: Vec<(syn::Ident, TokenStream)>,
    ) -> Vec<Op> {
        let Range::Bounds {
            start, end, step, ..
        } = range;
        let calls = super::regions::bounds_call(range);
        let mut reads = Vec::new();
        for e in [Some(start), Some(end), step.as_ref()]
            .into_iter()
            .flatten()
        {
            e.reads(&mut reads);
        }
        let mut tapes = Vec::new();
        program::tapes_pushed_once(fwd, &mut tapes);
        let mut straight = Vec::new();
        program::straight_tapes(fwd, &mut straight);
        let inner: Vec<(syn::Ident, TokenStream)> = inner
            .into_iter()
            .filter(|(t, _)| straight.contains(t) && !tapes.contains(t))
            .collect();
        let rt = names::rt();
        let steps = quote!(#rt::range_steps(#r));
        if level == Level::Loop {
            let hoistable = whole
                && !calls
                && reads
                    .iter()
                    .all(|v| self.stable(*v) && !self.scope.rebound.contains(v));
            if hoistable {
                for t in tapes {
                    self.nested_reserve.push((t, steps.clone()));
                }
                for (t, per) in inner {
                    self.nested_reserve
                        .push((t, quote!(#steps.saturating_mul(#per))));
                }
            }
            return Vec::new();
        }
        // This loop's own tape regions are sized by their `resize` (`regions.rs`), which
        // reserves what it needs: a `reserve` before it measured 4% slower on the RK4 fit.
        // (Inside loops they still go up to the outermost loop's reservation above.)
        let mut own_regions = Vec::new();
        program::region_tapes(fwd, &mut own_regions);
        tapes.retain(|t| !own_regions.contains(t));
        if calls || (tapes.is_empty() && inner.is_empty()) {
            return Vec::new();
        }
        let n = self.fresh("trips");
        let mut ops = vec![Op::Let {
            pat: quote!(#n),
            value: steps,
        }];
        ops.extend(tapes.into_iter().map(|t| Op::Code(quote!(#t.reserve(#n);))));
        // The inner bounds are evaluated only when the body runs at least once.
        let nested: Vec<Op> = inner
            .into_iter()
            .map(|(t, per)| Op::Code(quote!(#t.reserve(#n.saturating_mul(#per));)))
            .collect();
        if !nested.is_empty() {
            ops.push(Op::If {
                cond: quote!(#n > 0),
                then: nested,
                els: None,
            });
        }
        ops
    }
}

/// The block of a reverse loop: `{ ops }`, or, `guarded`, `{ let va = start; if va < end { rest } }`
/// (the first op binds the views' start; the loop, its views, windows and tape slices run only
/// when the range is not empty, which is when the loop would run at all: with an empty range the
/// loop body, the window loads and flushes (under the same test) and the tape slices (of length
/// zero, a `truncate` to the same length) do nothing).
fn guard_block(mut ops: Vec<Op>, guarded: bool, nonempty: TokenStream) -> Op {
    if !guarded || ops.is_empty() {
        return Op::Block(ops);
    }
    let rest = ops.split_off(1);
    ops.push(Op::If {
        cond: nonempty,
        then: rest,
        els: None,
    });
    Op::Block(ops)
}
