//! Transformations of the IR: exit normalisation (which keeps the meaning), loop peeling of
//! guarded neighbour reads (`peel`, also exact), buffer rotation for forward mode (`rotate`, exact
//! under its conditions) and the generic copy for second order (`lift`).

pub mod fission;
pub mod lift;
pub mod normalize;
pub mod peel;
pub mod rotate;
