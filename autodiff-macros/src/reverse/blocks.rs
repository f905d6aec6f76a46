//! Blocks and control flow: takes normalised statements, gives each block's forward code, the
//! pops and recomputations that start its reverse, and its reverse code.

use super::*;

impl Emitter<'_> {
    // ------------------------------------------------------------------ blocks

    pub(super) fn block(&mut self, stmts: &[R], level: Level) -> BlockOut {
        let mut out = BlockOut {
            fwd: Vec::new(),
            rev: Vec::new(),
            pops: Vec::new(),
        };
        let mut declared = Vec::new();
        for s in stmts {
            if let R::Let { pat, .. } = s {
                pat.vars(&mut declared);
            }
            self.stmt(s, level, &mut out);
        }
        // Adjoints of the active variables declared here, zero at the start of the reverse.
        let rt = names::rt();
        let mut zeros = Vec::new();
        for v in declared {
            if !self.vars[v].active || !self.acc.contains(&v) {
                continue;
            }
            let b = self.adj(v);
            let init = match &self.vars[v].shape {
                Shape::Seq(SeqKind::Array(n)) => {
                    let n = n.tokens();
                    quote!([#rt::zero(); #n])
                }
                Shape::Seq(_) => {
                    // Shaped like the final value: recorded at the end of the forward block.
                    let name = self.uname(v);
                    let z = quote!(#rt::zeros_like_slice(&#name[..]));
                    let s = self.save(z, level, &mut out, None);
                    quote!(#s)
                }
                Shape::Tuple(items) => {
                    let z = items.iter().map(tuple_zero_item);
                    quote!((#(#z,)*))
                }
                _ => quote!(#rt::zero()),
            };
            zeros.push(quote!(let mut #b = #init;));
        }
        out.pops.extend(zeros);
        out
    }

    pub(super) fn stmt(&mut self, s: &R, level: Level, out: &mut BlockOut) {
        match s {
            R::Let { pat, init } => self.let_stmt(pat, init.as_ref(), level, out),
            R::Assign { place, value } => self.assign(place, value, level, out),
            R::Push { vec, value } => {
                let name = self.uname(*vec);
                let v = self.fwd_expr(value);
                let wt = self.weight();
                *self.writes_w.entry(*vec).or_insert(0.0) += wt;
                let restored = self.restore.contains(vec);
                let live = self.vars[*vec].active && self.acc.contains(vec);
                if restored && !live {
                    out.fwd.push(quote!(#name.push(#v);));
                    out.rev.push(quote!(#name.pop();));
                } else if live {
                    let pos = if restored {
                        self.fresh("s")
                    } else {
                        self.save(quote!(#name.len()), level, out, None)
                    };
                    let mut rev = Vec::new();
                    let mut cx = StmtCx::new(level);
                    self.prepare(value, &mut cx, out);
                    out.fwd.push(quote!(#name.push(#v);));
                    let b = self.adj(*vec);
                    let g = self.fresh("g");
                    let rt = names::rt();
                    if restored {
                        rev.push(quote!(#name.pop(); let #pos = #name.len();));
                    }
                    rev.push(quote!(let #g = #b[#pos]; #b[#pos] = #rt::zero();));
                    self.backprop(value, quote!(#g), &mut cx, &mut rev);
                    out.rev.push(quote!({ #(#rev)* }));
                } else {
                    out.fwd.push(quote!(#name.push(#v);));
                }
            }
            R::Eval(e) => {
                let v = self.fwd_expr(e);
                out.fwd.push(quote!(let _ = #v;));
            }
            R::Macro(m, visible) => out
                .fwd
                .push(crate::codegen::primal::macro_stmt(m, visible, self.vars)),
            R::If { cond, then, els } => {
                let c = self.decision(cond, level, out);
                let c_fwd = self.fwd_expr(cond);
                let t = self.block(then, Level::Nested);
                let e = self.block(els, Level::Nested);
                let (tf, ef) = (&t.fwd, &e.fwd);
                out.fwd.push(quote!(if #c_fwd { #(#tf)* } else { #(#ef)* }));
                let (tp, ep) = (&t.pops, &e.pops);
                let (tr, er) = (t.rev.iter().rev(), e.rev.iter().rev());
                out.rev
                    .push(quote!(if #c { #(#tp)* #(#tr)* } else { #(#ep)* #(#er)* }));
            }
            R::Match { scrut, arms } => {
                let sc = self.decision(scrut, level, out);
                let sc_fwd = self.fwd_expr(scrut);
                let mut fa = Vec::new();
                let mut ra = Vec::new();
                for (pat, body) in arms {
                    let b = self.block(body, Level::Nested);
                    let bf = &b.fwd;
                    fa.push(quote!(#pat => { #(#bf)* }));
                    let bp = &b.pops;
                    let br = b.rev.iter().rev();
                    ra.push(quote!(#pat => { #(#bp)* #(#br)* }));
                }
                out.fwd.push(quote!(match #sc_fwd { #(#fa)* }));
                out.rev.push(quote!(match #sc { #(#ra)* }));
            }
            R::For {
                var,
                range,
                body,
                brk,
            } => self.for_loop(*var, range, body, *brk, level, out),
            R::While { cond, body, brk } => {
                let cnt = self.fresh("n");
                let b = self.loop_body(body);
                let bf = &b.fwd;
                let check = brk.map(|f| {
                    let f = self.uname(f);
                    quote!(if #f { break; })
                });
                let head = match cond {
                    Some(c) => {
                        let c = self.fwd_expr(c);
                        quote!(while #c)
                    }
                    None => quote!(loop),
                };
                out.fwd.push(quote! {
                    let mut #cnt: usize = 0;
                    #head { #cnt += 1; #(#bf)* #check }
                });
                let count = self.save(quote!(#cnt), level, out, None);
                let bp = &b.pops;
                let br = b.rev.iter().rev();
                out.rev.push(quote!(for _ in 0..#count { #(#bp)* #(#br)* }));
            }
            R::Exit(_) => {}
        }
    }
}
