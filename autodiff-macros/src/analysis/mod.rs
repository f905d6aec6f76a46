//! Analyses: take the IR, give facts about it (which variables are active, ...) that the
//! transformations and emitters read; none of them changes the IR or prints code.

pub(crate) mod access;
pub mod activity;
pub(crate) mod fusion;
pub(crate) mod reads;
pub(crate) mod saves;
pub(crate) mod scope;
pub mod usefulness;
