//! `#[checkpoint]` loops: takes a `for` loop whose body is one call `step(.., &mut w, ..)`
//! (checked by lowering), gives its forward code (the loop as written, a runtime `Recorder`
//! keeping the state before some steps) and its reverse code (the runtime's `Replay` driving the
//! loop's own variable `w` as the working state: `Step(j)` runs the call again, `Adjoint(j)`
//! runs its `_vjp` in place on `w` with `w`'s adjoint buffer).
//!
//! Nothing else of the loop is kept: the call's other arguments read only the loop index and
//! immutable values, which the reverse sweep can name (values declared where it could not, in a
//! branch or loop the normalisation made, are saved once before the loop under their own names).
//! Like any sequence a call writes, `w` is never read by the rest of the reverse sweep, so it may
//! serve as scratch; an in-out argument gets its final contents back at the end.

use super::*;
use crate::ir::Checkpoint;

impl Emitter<'_> {
    /// Emits the checkpointed loop when its call has a reverse; false (nothing emitted) when it
    /// does not, for the plain loop.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn checkpoint_loop(
        &mut self,
        index: VarId,
        range: &Range,
        body: &[R],
        spec: &Checkpoint,
        level: Level,
        out: &mut BlockOut,
    ) -> bool {
        let w = spec.state;
        let call = match body {
            [R::Eval(e)] if e.mut_borrows() == [w] => e,
            _ => {
                self.bug = true;
                return true;
            }
        };
        let ExprKind::Call { func, args, shape } = &call.kind else {
            self.bug = true;
            return true;
        };
        if !call_live(self.vars, &self.acc, &[], call) {
            return false;
        }
        let rt = names::rt();
        let Range::Bounds {
            start,
            end,
            inclusive,
            ..
        } = range;
        let dots = if *inclusive { quote!(..=) } else { quote!(..) };
        // What the call reads that the reverse sweep could not name: saved under its own name.
        let mut reads = Vec::new();
        for a in args {
            if !matches!(a.kind, ExprKind::MutRef(..)) {
                a.reads(&mut reads);
            }
        }
        let mut named = Vec::new();
        for v in reads {
            if v != index && !self.stable(v) && !named.contains(&v) {
                let value = self.fwd_expr(&Expr::new(ExprKind::Var(v), call.span));
                let name = self.uname(v);
                self.save(value, level, out, Some(name));
                named.push(v);
            }
        }
        // The forward sweep: the loop as written, recording the state before each step.
        let (fs, fe) = (self.fwd_expr(start), self.fwd_expr(end));
        let (va, ve, n, rec) = (
            self.fresh("va"),
            self.fresh("ve"),
            self.fresh("n"),
            self.fresh("rec"),
        );
        let schedule = match &spec.snapshots {
            Some(s) => {
                let s = self.fwd_expr(s);
                quote!(#rt::checkpoint::Schedule::binomial(#s))
            }
            None => quote!(#rt::checkpoint::Schedule::sqrt(#n)),
        };
        let wn = self.uname(w);
        let var = &self.vars[w];
        let elems = matches!(var.shape, Shape::Seq(SeqKind::Slice));
        // An in-out sequence argument is a reference by name (an in-out `&mut f64` is a local
        // copy, written back at the end of the forward sweep).
        let by_ref = var.by_mut_ref();
        let (state, work) = if by_ref {
            (quote!(&*#wn), quote!(&mut *#wn))
        } else {
            (quote!(&#wn), quote!(&mut #wn))
        };
        let (record, next) = if elems {
            (quote!(record_elems), quote!(next_elems))
        } else {
            (quote!(record), quote!(next))
        };
        let i = self.uname(index);
        let step = self.fwd_expr(call);
        out.fwd.extend([
            Op::Let {
                pat: quote!(#va),
                value: fs,
            },
            Op::Let {
                pat: quote!(#ve),
                value: fe,
            },
            Op::Let {
                pat: quote!(#n),
                value: quote!(#rt::range_steps(#va #dots #ve)),
            },
            Op::Let {
                pat: quote!(mut #rec),
                value: quote!(#rt::checkpoint::Recorder::new(#n, #schedule)),
            },
            Op::For {
                var: quote!(#i),
                range: quote!(#va #dots #ve),
                body: vec![
                    Op::Code(quote!(#rec.#record(#state);)),
                    Op::Let {
                        pat: quote!(_),
                        value: step.clone(),
                    },
                ],
            },
        ]);
        let kept = self.save(quote!(#rec), level, out, None);
        // The reverse sweep: the replay's actions on `w`, the loop index bound for each step.
        let (s, e) = (
            self.decision(start, level, out),
            self.decision(end, level, out),
        );
        for v in &named {
            self.scope.top.insert(*v);
        }
        let j = self.fresh("j");
        let at = quote!(let #i = #rt::range_nth(#s #dots #e, #j););
        let mut cx = StmtCx::new(Level::Loop);
        let mut adjoint = vec![Op::Code(at.clone())];
        self.in_place = Some(w);
        self.backprop_call(
            func,
            args,
            shape,
            None,
            &HashMap::new(),
            &mut cx,
            &mut adjoint,
        );
        self.in_place = None;
        for v in &named {
            self.scope.top.remove(v);
        }
        let (replay, act) = (self.fresh("replay"), self.fresh("act"));
        let mut rev = Vec::new();
        let fin = self.fresh("fin");
        if by_ref {
            // An in-out argument: the caller sees its final contents after `_vjp` too.
            rev.push(Op::Let {
                pat: quote!(#fin),
                value: quote!(::std::borrow::ToOwned::to_owned(#state)),
            });
        }
        rev.push(Op::Let {
            pat: quote!(mut #replay),
            value: quote!(#kept.replay()),
        });
        let replayed = Op::Loop {
            head: quote!(while let ::core::option::Option::Some(#act) = #replay.#next(#work)),
            body: vec![Op::Match {
                scrut: quote!(#act),
                arms: vec![
                    (
                        quote!(#rt::checkpoint::Action::Step(#j)),
                        vec![
                            Op::Code(at),
                            Op::Let {
                                pat: quote!(_),
                                value: step,
                            },
                        ],
                    ),
                    (quote!(#rt::checkpoint::Action::Adjoint(#j)), adjoint),
                ],
            }],
        };
        if self.scope.top.contains(&w) || by_ref {
            rev.push(replayed);
        } else {
            // Declared in a block the reverse sweep is not in: a working state of its own, under
            // the same name.
            rev.push(Op::If {
                cond: quote!(let ::core::option::Option::Some(mut #wn) = #replay.working_state()),
                then: vec![replayed],
                els: None,
            });
        }
        if by_ref {
            rev.push(Op::Code(if elems {
                quote!(#wn.clone_from_slice(&#fin[..]);)
            } else {
                quote!(::core::clone::Clone::clone_from(&mut *#wn, &#fin);)
            }));
        }
        out.rev.push(Op::Block(rev));
        true
    }
}
