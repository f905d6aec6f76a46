//! Checkpointed reverse sweeps through time-stepping loops: takes a number of steps, a
//! [`Schedule`] (store every state, or binomial checkpointing with a budget of snapshots), an
//! initial state (anything `Clone`: a `Vec`, a `#[derive(Differentiable)]` struct), a primal step
//! and a step adjoint in the in-out convention of generated `_vjp`s; gives the final state, then
//! the adjoint of the initial state and [`Stats`] (primal steps run, states stored at once).
//!
//! A loop `for j in 0..n { step(j, &mut x) }` is reversed by calling the step's adjoint for
//! `j = n - 1, ..., 0`, each on the state *before* step `j`. Storing every such state costs `n`
//! states; [`Schedule::Binomial`] stores at most `s` and recomputes the others from the nearest
//! snapshot on Griewank's binomial schedule (revolve), whose number of primal steps is the least
//! any schedule with `s` snapshots can take: about `r n` for the least `r` with
//! `C(s + r, s) ≥ n` (with `s = ⌈√n⌉`, `r ≤ 3` for every `n`, and fewer than `2.5 n` primal
//! steps; see `binomial.rs`).
//!
//! The step adjoint has the convention of a generated `step_vjp` of an in-place step: it gets
//! the step index, the state before the step (which it may overwrite: generated `_vjp`s leave
//! the state after the step there) and the adjoint, which holds the adjoint of the state after
//! the step on entry and must hold the adjoint of the state before it on exit. Adjoints of
//! parameters the step reads (a stiffness `k`, a time step `dt`) accumulate wherever the closure
//! puts them: it captures `&mut dk`.
//!
//! ```
//! use autodiff_runtime::checkpoint::{self, Schedule};
//! use autodiff_runtime::differentiate;
//!
//! /// One explicit Euler step of a damped oscillator, in place.
//! #[differentiate]
//! fn step(s: &mut [f64], k: f64) {
//!     let v = s[1] - 0.01 * (k * s[0] + 0.1 * s[1]);
//!     s[0] += 0.01 * v;
//!     s[1] = v;
//! }
//!
//! let (n, k) = (1_000, 2.0);
//! // Forward: the final state; only ⌈√n⌉ = 32 states are kept.
//! let (end, tape) = checkpoint::forward(n, Schedule::sqrt(n), vec![1.0, 0.0], |_, s| step(s, k));
//! // The loss x(T)² seeds the adjoint of the final state...
//! let mut adjoint = vec![2.0 * end[0], 0.0];
//! let mut dk = 0.0;
//! // ...which the reverse sweep turns into the adjoint of the initial state (and of k).
//! let stats = tape.reverse(&mut adjoint, |_, s, ds| step_vjp(s, k, ds, &mut dk));
//! assert!(stats.peak_states <= 32 && stats.adjoint_steps == n);
//! # let _ = dk;
//! ```

mod binomial;
mod replay;

pub use replay::{Action, Recorder, Replay};

/// Which states the forward sweep keeps for the reverse sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// Every state before a step: `n` states, `n` primal steps (the reference).
    StoreAll,
    /// At most `snapshots` states (at least 1: the initial state), the others recomputed on the
    /// binomial schedule: [`Schedule::primal_steps`] primal steps, the least possible.
    Binomial {
        /// The most states stored at once, the initial one included.
        snapshots: usize,
    },
}

impl Schedule {
    /// Binomial checkpointing with at most `snapshots` stored states.
    ///
    /// # Panics
    /// If `snapshots` is 0 (the initial state must be kept).
    pub fn binomial(snapshots: usize) -> Schedule {
        assert!(
            snapshots >= 1,
            "binomial checkpointing needs at least one snapshot"
        );
        Schedule::Binomial { snapshots }
    }

    /// The default budget: `⌈√steps⌉` snapshots (at least 1), so memory grows like `√n`, each
    /// step runs at most three times (`C(s + 3, 3) ≥ s² ≥ n`) and a gradient runs fewer than
    /// `2.5 n` primal steps (`3 n − C(s + 3, 2) + 1` when three runs are needed).
    pub fn sqrt(steps: usize) -> Schedule {
        let mut s = (steps as f64).sqrt() as usize;
        while (s as u128) * (s as u128) < steps as u128 {
            s += 1;
        }
        Schedule::binomial(s.max(1))
    }

    /// As many snapshots as fit in `budget_bytes` when one state takes `state_bytes` (at least
    /// one): a memory budget.
    pub fn within(budget_bytes: usize, state_bytes: usize) -> Schedule {
        Schedule::binomial((budget_bytes / state_bytes.max(1)).max(1))
    }

    /// The number of primal steps a gradient through `steps` steps runs on this schedule (the
    /// forward sweep to the final state included): `steps` for [`Schedule::StoreAll`];
    /// `t(steps, s) + 1` for [`Schedule::Binomial`], where `t` is the least number of forward
    /// steps that reverse `steps` steps with `s` snapshots (Griewank & Walther), and the one
    /// more is the last step, whose result only the seed reads.
    pub fn primal_steps(&self, steps: usize) -> u128 {
        match *self {
            _ if steps == 0 => 0,
            Schedule::StoreAll => steps as u128,
            Schedule::Binomial { snapshots } => binomial::forward_steps(steps, snapshots) + 1,
        }
    }

    /// The most states stored at once for `steps` steps (not counting the working state the
    /// steps run on and the final state): `steps`, or `min(snapshots, steps)`.
    pub fn stored_states(&self, steps: usize) -> usize {
        match *self {
            Schedule::StoreAll => steps,
            Schedule::Binomial { snapshots } => snapshots.min(steps),
        }
    }

    /// The repetition number: the most times any one step runs during the reverse sweep's
    /// recomputations and the forward sweep together (1 when every state is stored).
    pub fn repetitions(&self, steps: usize) -> usize {
        match *self {
            Schedule::StoreAll => usize::from(steps > 0),
            Schedule::Binomial { snapshots } => binomial::repetitions(steps, snapshots).max(1),
        }
    }
}

/// What a gradient through the loop ran and stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// The number of steps `n`.
    pub steps: usize,
    /// Calls of the primal step, the forward sweep's included.
    pub primal_steps: usize,
    /// Calls of the step adjoint (`n`).
    pub adjoint_steps: usize,
    /// The most states stored at once (the working state and the final state not counted).
    pub peak_states: usize,
    /// States copied into storage, over the whole run.
    pub states_stored: usize,
}

/// The forward sweep's record, from [`forward`]: the stored states and the step that recomputes
/// the others; [`Trajectory::reverse`] runs the reverse sweep.
pub struct Trajectory<S, F> {
    recorder: Recorder<S>,
    step: F,
}

/// Runs `steps` primal steps from `initial`, keeping what `schedule` says; gives the final state
/// and the [`Trajectory`] to reverse. `step(j, &mut x)` turns the state before step `j` into the
/// state after it.
///
/// # Panics
/// If `schedule` is `Binomial { snapshots: 0 }`.
pub fn forward<S: Clone, F: FnMut(usize, &mut S)>(
    steps: usize,
    schedule: Schedule,
    initial: S,
    mut step: F,
) -> (S, Trajectory<S, F>) {
    let mut recorder = Recorder::new(steps, schedule);
    let mut x = initial;
    for j in 0..steps {
        recorder.record(&x);
        step(j, &mut x);
    }
    (x, Trajectory { recorder, step })
}

impl<S: Clone, F: FnMut(usize, &mut S)> Trajectory<S, F> {
    /// The reverse sweep: `adjoint` goes in holding the adjoint of the final state and comes out
    /// holding that of the initial state. `step_adjoint(j, &mut x, &mut a)` gets the state before
    /// step `j` in `x` (which it may overwrite) and turns the adjoint after step `j` in `a` into the
    /// adjoint before it (a generated `step_vjp` of an in-place step does exactly that), and is
    /// called for `j = n - 1` down to `0`, once each. `A` may be unsized: a slice `&mut [f64]`
    /// lent by the caller's own adjoint buffer. Gives what the whole run took.
    pub fn reverse<A: ?Sized>(
        self,
        adjoint: &mut A,
        mut step_adjoint: impl FnMut(usize, &mut S, &mut A),
    ) -> Stats {
        let Trajectory { recorder, mut step } = self;
        let mut replay = recorder.replay();
        if let Some(mut work) = replay.working_state() {
            while let Some(action) = replay.next(&mut work) {
                match action {
                    Action::Step(j) => step(j, &mut work),
                    Action::Adjoint(j) => step_adjoint(j, &mut work, adjoint),
                }
            }
        }
        replay.stats()
    }
}

/// [`forward`], a seed from the final state, then [`Trajectory::reverse`], in one call:
/// `seed(&final)` gives a value (a loss) and the adjoint of the final state; the result is the
/// value, the adjoint of the initial state and the [`Stats`].
pub fn adjoint<S: Clone, A, T>(
    steps: usize,
    schedule: Schedule,
    initial: S,
    step: impl FnMut(usize, &mut S),
    seed: impl FnOnce(&S) -> (T, A),
    step_adjoint: impl FnMut(usize, &mut S, &mut A),
) -> (T, A, Stats) {
    let (last, trajectory) = forward(steps, schedule, initial, step);
    let (value, mut a) = seed(&last);
    drop(last);
    let stats = trajectory.reverse(&mut a, step_adjoint);
    (value, a, stats)
}
