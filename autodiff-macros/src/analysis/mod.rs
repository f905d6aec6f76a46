//! Analyses: take the IR, give facts about it that the transformations and emitters read; none
//! of them changes the IR or prints code. On the lowered IR: `activity` (which variables carry a
//! derivative). On the normalised statements `R` of the reverse sweep, each computed once into a
//! table the reverse emitter only reads: `scope` (what the sweep can name) and `usefulness`
//! (which adjoints can be nonzero), `saves` (what is kept, restored, copied, recomputed; its
//! predicates in `reads`), `access` (loop access patterns: windows, views), `fusion` (which
//! loops run fused).

pub(crate) mod access;
pub mod activity;
pub(crate) mod fusion;
pub(crate) mod reads;
pub(crate) mod saves;
pub(crate) mod scope;
pub(crate) mod scratch;
pub mod usefulness;
