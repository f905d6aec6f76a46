//! The overhead benchmark's problems as the binaries `overhead.rs` (times) and `overhead_heap.rs`
//! (peak heap bytes) see them: `common` (variant type and names, inputs' helpers, tables), `large`
//! (the first three problems' inputs and the list of all large problems), `pde_ode` (the
//! heat-equation and Runge-Kutta problems' inputs), `small` (the two-variable functions against
//! num-dual), `peers` (the files `benches/peers/overhead.py` reads).

pub mod common;
pub mod large;
pub mod pde_ode;
pub mod peers;
pub mod small;
