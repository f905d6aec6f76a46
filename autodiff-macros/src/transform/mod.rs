//! Transformations of the IR: exit normalisation (which keeps the meaning) and the generic copy
//! for second order (`lift`); loop fusion and checkpointing will live here.

pub mod lift;
pub mod normalize;
pub mod peel;
