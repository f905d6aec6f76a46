//! Parts of `benches/overhead.rs` beside its first three problems: the heat-equation and
//! Runge-Kutta problems' inputs (`pde_ode`), the two-variable functions against num-dual
//! (`small`), and the counting allocator behind the peak-heap table (`peak_heap`).

pub mod pde_ode;
pub mod peak_heap;
pub mod small;
