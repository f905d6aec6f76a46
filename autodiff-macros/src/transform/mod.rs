//! Transformations of the IR that keep its meaning: exit normalisation today; loop fusion and
//! checkpointing will live here.

pub mod normalize;
