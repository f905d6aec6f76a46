//! The product the reverse sweep multiplies adjoints by partials with: takes a function's IR and
//! the facts recorded about its callees (`registry::edges`), gives `scale_strong` or `scale` and
//! whether its poles' products take the strong zero anyway (`Emitter::pole_strong`), and records
//! the function's own facts for its callers.

use crate::ir::*;
use crate::names;

/// Which product of adjoint and partial the reverse sweep uses. The strong zero (a zero factor
/// wins over an infinite or NaN one) only changes a result when some factor is infinite or NaN
/// while the output is finite: a partial of a singular primitive (`sqrt` at 0...), or a pole
/// (`ln` at 0) whose infinite value a selector (`max`, `min`, `clamp`) turns finite again.
/// Elsewhere the check would cost a compare per product in the hottest loops for nothing. A
/// call counts as the primitives of its callee, itself and through its own calls, when the
/// callee was differentiated earlier in the crate (`registry::edges`: the same decision as if
/// its body were written inline), and as singular otherwise (a hand-written rule's derivative
/// may be infinite anywhere). The edges found are recorded for this function's own callers.
pub(super) fn scale_fn(f: &Function) -> (syn::Ident, bool) {
    use crate::primitives::Edge;
    use crate::registry::Edges;
    let mut found = Edges::default();
    let note = |edge: Edge, found: &mut Edges| match edge {
        Edge::Singular => found.singular = true,
        Edge::Pole => found.pole = true,
        Edge::Selects => found.selects = true,
        Edge::Smooth => {}
    };
    let mut look = |e: &Expr| {
        e.visit(&mut |n| match &n.kind {
            ExprKind::Method { method, .. } => {
                if let Some(r) = crate::methods::float_method(&method.to_string()) {
                    note(r.edge, &mut found)
                }
            }
            ExprKind::Binary { op, .. } => note(crate::methods::binop_edge(*op), &mut found),
            ExprKind::Call { func, args, .. } => match crate::registry::edges(func, args.len()) {
                Some(e) => {
                    found.singular |= e.singular;
                    found.pole |= e.pole;
                    found.selects |= e.selects;
                }
                None => note(Edge::Singular, &mut found),
            },
            _ => {}
        })
    };
    walk_exprs(&f.body, &mut look);
    if let Some(t) = &f.tail {
        look(t);
    }
    crate::registry::record_edges(f, found);
    let strong = found.singular || (found.pole && found.selects);
    let name = if strong { "scale_strong" } else { "scale" };
    // A caller that cuts off the value of a callee with one float output passes it a zero seed
    // and skips its `_vjp` (`backprop::zero_seed_guard`); one that cuts off one output of
    // several passes a seed zero in part, so such a callee takes the strong zero itself where
    // an infinite partial can meet it, at its poles' products.
    let several =
        !matches!(f.output.shape, Shape::Scalar) || f.params.iter().any(|p| p.inout && p.active);
    let pole_strong = !strong && found.pole && several;
    (names::runtime_item(name), pole_strong)
}
