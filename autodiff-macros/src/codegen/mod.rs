//! Code generation shared by both modes: takes the IR and the emitted bodies, gives tokens:
//! the primal printer, and the expansion (signatures, the gradient struct, stubs, the dump).

mod copies;
pub mod dump;
pub mod expand;
mod hvp;
mod jacobian;
pub(crate) mod lend;
mod na;
mod nested;
pub mod primal;
mod split;
mod structs;
pub(crate) mod vector;
