//! Blocks and control flow: takes normalised statements, gives each block's forward code, the
//! pops and recomputations that start its reverse, and its reverse code.

use super::*;

impl Emitter<'_> {
    // ------------------------------------------------------------------ blocks

    pub(super) fn block(&mut self, stmts: &[R], level: Level) -> BlockOut {
        let mut out = BlockOut::new();
        let mut declared = Vec::new();
        for s in stmts {
            if let R::Let { pat, .. } = s {
                pat.vars(&mut declared);
            }
            self.stmt(s, level, &mut out);
        }
        let zeros = self.adjoint_zeros(declared, level, &mut out);
        out.pops.extend(zeros);
        out
    }

    /// Adjoints of the active variables declared in a block, zero at the start of its reverse
    /// (a sequence's zero is shaped like its value at the end of `out.fwd`, saved there).
    pub(super) fn adjoint_zeros(
        &mut self,
        declared: Vec<VarId>,
        level: Level,
        out: &mut BlockOut,
    ) -> Vec<Op> {
        let rt = names::rt();
        let mut zeros = Vec::new();
        for v in declared {
            if !self.vars[v].active || !self.acc.contains(&v) {
                continue;
            }
            let b = self.adj(v);
            if self.vars[v].shape == Shape::Scalar {
                zeros.push(Op::Zero { name: b });
                continue;
            }
            let init = match &self.vars[v].shape {
                Shape::Seq(SeqKind::Array(n)) => {
                    let n = n.tokens();
                    quote!([#rt::zero(); #n])
                }
                Shape::Seq(_) | Shape::Struct => {
                    // Shaped like the final value: recorded at the end of the forward block.
                    let name = self.uname(v);
                    let z = match self.vars[v].shape {
                        Shape::Struct => quote!(#rt::zero_tangent(&#name)),
                        _ => quote!(#rt::zero_tangent(&#name[..])),
                    };
                    let s = self.save(z, level, out, None);
                    quote!(#s)
                }
                s => zero_adjoint(s),
            };
            zeros.push(Op::Let {
                pat: quote!(mut #b),
                value: init,
            });
        }
        zeros
    }

    pub(super) fn stmt(&mut self, s: &R, level: Level, out: &mut BlockOut) {
        match s {
            R::Let { pat, init: Some(e) } if !e.mut_borrows().is_empty() => {
                self.mut_call_stmt(Some(pat), e, level, out)
            }
            R::Eval(e) if !e.mut_borrows().is_empty() => self.mut_call_stmt(None, e, level, out),
            R::Let { pat, init } => self.let_stmt(pat, init.as_ref(), level, out),
            R::Assign { place, value } => self.assign(place, value, level, out),
            R::Push { vec, value } => {
                let name = self.uname(*vec);
                let v = self.fwd_expr(value);
                let restored = self.scope.restore.contains(vec);
                let live = self.vars[*vec].active && self.acc.contains(vec);
                if restored && !live {
                    out.fwd.push(Op::Code(quote!(#name.push(#v);)));
                    out.rev.push(Op::Code(quote!(#name.pop();)));
                } else if live {
                    let pos = if restored {
                        self.fresh("s")
                    } else {
                        self.save(quote!(#name.len()), level, out, None)
                    };
                    let mut rev = Vec::new();
                    let mut cx = StmtCx::new(level);
                    self.prepare(value, &mut cx, out);
                    out.fwd.push(Op::Code(quote!(#name.push(#v);)));
                    let b = self.adj(*vec);
                    let g = self.fresh("g");
                    let rt = names::rt();
                    if restored {
                        rev.push(Op::Code(quote!(#name.pop();)));
                        rev.push(Op::Let {
                            pat: quote!(#pos),
                            value: quote!(#name.len()),
                        });
                    }
                    rev.push(Op::Take {
                        g: g.clone(),
                        place: Adj::Elem(b, quote!(#pos)),
                        zero: quote!(#rt::zero()),
                    });
                    self.backprop(value, quote!(#g), &mut cx, &mut rev);
                    out.rev.push(Op::Block(rev));
                } else {
                    out.fwd.push(Op::Code(quote!(#name.push(#v);)));
                }
            }
            R::Eval(e) => {
                let v = self.fwd_expr(e);
                out.fwd.push(Op::Let {
                    pat: quote!(_),
                    value: v,
                });
            }
            R::Macro(m, visible) => out.fwd.push(Op::Code(crate::codegen::primal::macro_stmt(
                m, visible, self.vars,
            ))),
            R::If { cond, then, els } => {
                let c_fwd = self.evaluated_once(cond, out);
                let c = self.decision_of(cond, c_fwd.clone(), level, out);
                let mut t = self.block(then, level.branch());
                let mut e = self.block(els, level.branch());
                out.fwd.push(Op::If {
                    cond: c_fwd,
                    then: std::mem::take(&mut t.fwd),
                    els: Some(std::mem::take(&mut e.fwd)),
                });
                out.rev.push(Op::If {
                    cond: c,
                    then: t.reverse(),
                    els: Some(e.reverse()),
                });
            }
            R::Match { scrut, arms } => {
                let sc_fwd = self.evaluated_once(scrut, out);
                let sc = self.decision_of(scrut, sc_fwd.clone(), level, out);
                let mut fa = Vec::new();
                let mut ra = Vec::new();
                for (pat, body) in arms {
                    let mut b = self.block(body, level.branch());
                    fa.push((quote!(#pat), std::mem::take(&mut b.fwd)));
                    ra.push((quote!(#pat), b.reverse()));
                }
                out.fwd.push(Op::Match {
                    scrut: sc_fwd,
                    arms: fa,
                });
                out.rev.push(Op::Match {
                    scrut: sc,
                    arms: ra,
                });
            }
            R::For {
                var,
                range,
                body,
                brk,
            } => {
                let checkpointed = match self.f.checkpoints.get(var) {
                    Some(spec) => self.checkpoint_loop(*var, range, body, spec, level, out),
                    None => false,
                };
                if !checkpointed {
                    self.for_loop(*var, range, body, *brk, level, out)
                }
            }
            R::While { cond, body, brk } => {
                let cnt = self.fresh("n");
                let pending_from = self.nested_reserve.len();
                let mut b = self.loop_body(body);
                // No trip count is known before a `while`: nothing nested is reserved.
                self.nested_reserve.truncate(pending_from);
                let head = match cond {
                    Some(c) => {
                        let c = self.fwd_expr(c);
                        quote!(while #c)
                    }
                    None => quote!(loop),
                };
                let body = self.counted_body(&cnt, std::mem::take(&mut b.fwd), *brk);
                out.fwd.push(Op::Let {
                    pat: quote!(mut #cnt: usize),
                    value: quote!(0),
                });
                out.fwd.push(Op::Loop { head, body });
                let count = self.save(quote!(#cnt), level, out, None);
                out.rev.push(Op::For {
                    var: quote!(_),
                    range: quote!(0..#count),
                    body: b.reverse(),
                });
            }
            R::Exit(_) => {}
            R::Swap(a, b) => self.exchange(*a, *b, out),
        }
    }

    /// Buffers exchanged (`R::Swap`, `transform/rotate.rs`): the forward sweep swaps them; the
    /// reverse swaps their adjoints (an exchange is its own transpose), and swaps the values
    /// back when they are restored (both are, or neither: `saves::restore_set`), so that the
    /// element restores before it in the reverse sweep land in the buffers they were saved from.
    fn exchange(&mut self, a: VarId, b: VarId, out: &mut BlockOut) {
        let (ua, ub) = (self.uname(a), self.uname(b));
        out.fwd
            .push(Op::Code(quote!(::core::mem::swap(&mut #ua, &mut #ub);)));
        let mut rev = Vec::new();
        if self.scope.restore.contains(&a) || self.scope.restore.contains(&b) {
            rev.push(Op::Code(quote!(::core::mem::swap(&mut #ua, &mut #ub);)));
        }
        // Usefulness makes both useful or neither (`analysis/usefulness.rs`).
        let useful = |v: VarId| self.vars[v].active && self.acc.contains(&v);
        if useful(a) || useful(b) {
            let (da, db) = (self.adj_used(a), self.adj_used(b));
            rev.push(Op::Code(quote!(::core::mem::swap(&mut #da, &mut #db);)));
        }
        if !rev.is_empty() {
            out.rev.push(Op::Block(rev));
        }
    }

    /// The forward body of a loop whose trip count the reverse sweep replays: `cnt += 1;`, the
    /// body, and the exit when the body set the loop's break flag.
    pub(super) fn counted_body(
        &self,
        cnt: &syn::Ident,
        body: Vec<Op>,
        brk: Option<VarId>,
    ) -> Vec<Op> {
        let mut ops = vec![Op::Code(quote!(#cnt += 1;))];
        ops.extend(body);
        if let Some(f) = brk {
            let f = self.uname(f);
            ops.push(Op::If {
                cond: quote!(#f),
                then: vec![Op::Code(quote!(break;))],
                els: None,
            });
        }
        ops
    }
}
