//! Adding windows: adjoint windows over a sequence the loop body never writes (see
//! ARCHITECTURE.md, "Adding windows").
//!
//! A window over `b[i + lo ..= i + hi]` carries each element's adjoint from one iteration to the
//! next in local slots. Loaded where it enters and stored where it leaves, the element `i + lo`
//! is read and the element `i + hi` written in the same iteration, through one slice: rustc's
//! vectorized copy of the loop checks that the two ranges do not overlap, they always do, and
//! the scalar copy runs. When the loop body never writes `b`, its reverse only adds into `b̄`
//! (a statement's reverse reads and zeroes the adjoint of what it writes, and adds into those of
//! what it reads), so an element's slot can start at zero where the element enters, without
//! the load, and be added into the element where it leaves: each iteration then reads and
//! writes one element of `b̄`, the one leaving, and no iteration reads what another wrote.

use super::*;

impl Emitter<'_> {
    /// Whether the window `win` over `w`'s adjoint, in the reverse loop of a loop with this
    /// `body`, is an adding window: two offsets or more (with one, the element entering is the
    /// one leaving and nothing is gained), no conditional access (whose loads and stores check
    /// that the element exists), and `w` written nowhere in the body, so that the body's reverse
    /// only adds into `w̄[i + c]`, through the window's slots.
    pub(super) fn adding_window(&self, body: &[R], w: VarId, win: &Window) -> bool {
        if win.hi <= win.lo || win.guarded {
            return false;
        }
        let mut written = Vec::new();
        for s in body {
            s.writes(self.vars, &mut written);
        }
        !written.contains(&w)
    }
}

/// `elem += slot`, the store of an adding window's slot into the element leaving it.
pub(super) fn add_into(elem: TokenStream, slot: &syn::Ident) -> Op {
    let rt = names::rt();
    Op::Code(quote!(#rt::accumulate(&mut #elem, &#slot);))
}
