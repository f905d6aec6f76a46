//! Assignments in forward mode: takes `place = value` or `place op= value` (a variable or an
//! element), gives the ops that update the value and, for an active place, its tangent.

use super::*;

impl Forward<'_> {
    pub(super) fn assign(
        &mut self,
        place: &Place,
        op: Option<BinOp>,
        value: &Expr,
        pre: &mut Vec<Op>,
    ) -> Vec<Op> {
        let v = place.var();
        let mut name = self.name(v);
        let mut tangent = self.tangent(v);
        if !self.var_active(v) {
            let place = match place {
                Place::Var(_) => quote!(#name),
                Place::Index(_, idx) => match self.view_elem(v, idx) {
                    Some(w) => w.primal(),
                    None => {
                        let i = self.primal(idx);
                        quote!(#name[#i])
                    }
                },
            };
            let value = self.primal(value);
            return vec![Op::Assign { place, op, value }];
        }
        let index = match place {
            Place::Var(_) => None,
            Place::Index(_, idx) => {
                let i = self.fresh("i");
                let ip = match self.view_elem(v, idx) {
                    Some(w) => {
                        name = w.view;
                        tangent = w.tangent.unwrap_or(tangent);
                        w.index
                    }
                    None => self.primal(idx),
                };
                pre.push(let_pair(quote!(#i), ip, None));
                Some(i)
            }
        };
        let slot = Slot {
            var: name,
            tangent,
            index,
        };
        let shape = match place {
            Place::Var(_) => self.f.vars[v].shape.clone(),
            Place::Index(..) => Shape::Scalar,
        };
        let val = self.expr(value, pre);
        if let Some(op) = op {
            let rhs = self.dual_of(val);
            let temp = self.fresh("f");
            let tests = matches!(op, BinOp::Mul | BinOp::Div | BinOp::Rem);
            let fast = self.fast(&rhs) || tests && self.lanes.is_none() && !self.impure;
            return vec![Op::Update {
                slot,
                op,
                rhs,
                temp,
                fast,
            }];
        }
        if let Val::Plain(p) = val {
            let like = slot.primal();
            return vec![Op::Set {
                slot,
                value: p,
                tangent: Tan::Zeros { shape, like },
            }];
        }
        let (p, tt) = self.pair_of(val, &shape, pre);
        let a = self.fresh("a");
        let b = self.fresh("b");
        vec![
            let_pair(quote!(#a), p, Some((quote!(#b), Tan::Expr(tt)))),
            Op::Set {
                slot,
                value: quote!(#a),
                tangent: Tan::Expr(quote!(#b)),
            },
        ]
    }
}
