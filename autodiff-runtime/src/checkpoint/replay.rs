//! The binomial schedule as a recorder and a replay the caller drives: takes the states of a loop
//! the caller runs itself (`record` before each step), gives back, one at a time, the actions of
//! the reverse sweep (`Step(j)`: run primal step `j` on the working state; `Adjoint(j)`: run the
//! step adjoint of step `j` on it), loading stored states into the caller's working state and
//! storing new ones from it as the schedule needs.
//!
//! This is what `#[checkpoint]` loops compile to (the working state is the loop's own variable),
//! and what [`forward`](super::forward) and [`Trajectory::reverse`](super::Trajectory::reverse)
//! run on.

use super::{binomial, Schedule, Stats};

/// The forward sweep's side of a checkpointed loop: call [`Recorder::record`] with the state
/// before each step, in order, then [`Recorder::replay`] for the reverse sweep.
///
/// ```
/// use autodiff_runtime::checkpoint::{Action, Recorder, Schedule};
///
/// // x_{j+1} = x_j² for four steps; the derivative of x_4 with respect to x_0.
/// let (n, mut x) = (4, 1.1_f64);
/// let mut rec = Recorder::new(n, Schedule::binomial(2));
/// for _ in 0..n {
///     rec.record(&x);
///     x = x * x;
/// }
/// let (mut replay, mut adjoint) = (rec.replay(), 1.0);
/// while let Some(action) = replay.next(&mut x) {
///     match action {
///         Action::Step(_) => x = x * x,
///         Action::Adjoint(_) => adjoint *= 2.0 * x,
///     }
/// }
/// assert!((adjoint - 16.0 * 1.1_f64.powi(15)).abs() < 1e-12);
/// assert!(replay.stats().peak_states <= 2);
/// ```
#[derive(Clone, Debug)]
pub struct Recorder<S> {
    steps: usize,
    budget: usize,
    /// Steps recorded so far (the index of the next step).
    at: usize,
    /// Where the first descent of the schedule puts snapshots, in order (consumed from the front).
    places: std::collections::VecDeque<usize>,
    stack: Vec<(usize, S)>,
    /// The state before the last step, when no snapshot holds it: the reverse sweep starts there.
    last: Option<S>,
    stats: Stats,
}

/// What the reverse sweep does next, from [`Replay::next`] and [`Replay::next_elems`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum Action {
    /// Run primal step `j` on the working state (which holds the state before step `j`).
    Step(usize),
    /// Run the adjoint of step `j`: the working state holds the state before step `j` (and may be
    /// overwritten); the adjoint after step `j` becomes the adjoint before it.
    Adjoint(usize),
}

impl<S: Clone> Recorder<S> {
    /// A recorder for `steps` steps on `schedule` ([`Schedule::StoreAll`] keeps every state).
    ///
    /// # Panics
    /// If `schedule` is `Binomial { snapshots: 0 }`.
    pub fn new(steps: usize, schedule: Schedule) -> Recorder<S> {
        let budget = match schedule {
            Schedule::StoreAll => steps.max(1),
            Schedule::Binomial { snapshots } => {
                assert!(
                    snapshots >= 1,
                    "binomial checkpointing needs at least one snapshot"
                );
                snapshots
            }
        };
        // The first descent, exactly as the reverse sweep would take it from the initial state.
        let mut places = std::collections::VecDeque::new();
        if steps > 0 {
            places.push_back(0);
            let mut top = 0;
            while steps - top > 1 && places.len() < budget {
                top += binomial::split(steps - top, budget - places.len() + 1);
                places.push_back(top);
            }
        }
        Recorder {
            steps,
            budget,
            at: 0,
            places,
            stack: Vec::new(),
            last: None,
            stats: Stats {
                steps,
                ..Stats::default()
            },
        }
    }

    /// Records the state before the next step (the first call gets the initial state). Call it
    /// exactly once before each of the `steps` steps.
    ///
    /// # Panics
    /// If called more than `steps` times.
    pub fn record(&mut self, state: &S) {
        self.record_from(state);
    }

    /// Starts the reverse sweep.
    ///
    /// # Panics
    /// If [`Recorder::record`] was not called once for every step.
    pub fn replay(self) -> Replay<S> {
        assert_eq!(
            self.at, self.steps,
            "a checkpointed loop recorded {} of its {} steps",
            self.at, self.steps
        );
        Replay {
            hi: self.steps,
            budget: self.budget,
            cursor: None,
            pending: None,
            stack: self.stack,
            spare: Vec::new(),
            last: self.last,
            work_at: None,
            stats: self.stats,
        }
    }

    fn record_from<W: Work<S> + ?Sized>(&mut self, state: &W) {
        let j = self.at;
        assert!(
            j < self.steps,
            "a checkpointed loop recorded too many steps"
        );
        self.at += 1;
        self.stats.primal_steps += 1;
        if self.places.front() == Some(&j) {
            self.places.pop_front();
            self.stack.push((j, state.copy()));
            self.stats.states_stored += 1;
            self.stats.peak_states = self.stats.peak_states.max(self.stack.len());
        } else if j + 1 == self.steps {
            self.last = Some(state.copy());
        }
    }
}

impl<T: Clone> Recorder<Vec<T>> {
    /// [`Recorder::record`] for a state held in a slice (a `&mut [T]` argument): stored as `Vec`s.
    pub fn record_elems(&mut self, state: &[T]) {
        self.record_from(state);
    }
}

/// The reverse sweep of a recorded loop: call [`Replay::next`] with the working state until it
/// gives `None`, running each [`Action`] it gives. The working state's contents on entry do not
/// matter; on exit they are unspecified.
#[derive(Clone, Debug)]
pub struct Replay<S> {
    /// The first step not yet reversed.
    hi: usize,
    budget: usize,
    /// While reversing the steps from the topmost snapshot: the end of those left.
    cursor: Option<usize>,
    /// A state to bring the working state to, and what then.
    pending: Option<(usize, Goal)>,
    stack: Vec<(usize, S)>,
    /// Buffers of popped snapshots, reused for new ones.
    spare: Vec<S>,
    last: Option<S>,
    /// The step whose state the working state holds (`None`: unknown or used as scratch).
    work_at: Option<usize>,
    stats: Stats,
}

#[derive(Clone, Copy, Debug)]
enum Goal {
    Store,
    Adjoint,
}

impl<S: Clone> Replay<S> {
    /// The next action, with `work` the working state (loaded and stored as the schedule needs).
    pub fn next(&mut self, work: &mut S) -> Option<Action> {
        self.next_on(work)
    }

    /// What the whole run (forward sweep included) took so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// A working state for [`Replay::next`] when the loop's own state is not at hand: a copy of
    /// a recorded state (`None` for a loop of no steps).
    pub fn working_state(&self) -> Option<S> {
        self.last
            .clone()
            .or_else(|| self.stack.last().map(|(_, s)| s.clone()))
    }

    fn next_on<W: Work<S> + ?Sized>(&mut self, work: &mut W) -> Option<Action> {
        if let Some(last) = self.last.take() {
            work.load(&last);
            self.work_at = Some(self.hi - 1);
            self.spare.push(last);
        }
        loop {
            if let Some((target, goal)) = self.pending {
                let (top, snapshot) = self.stack.last().expect("the initial snapshot");
                let at = match self.work_at {
                    Some(at) if *top <= at && at <= target => at,
                    _ => {
                        work.load(snapshot);
                        *top
                    }
                };
                if at < target {
                    self.work_at = Some(at + 1);
                    self.stats.primal_steps += 1;
                    return Some(Action::Step(at));
                }
                self.work_at = Some(at);
                self.pending = None;
                match goal {
                    Goal::Store => {
                        let x = match self.spare.pop() {
                            Some(mut x) => {
                                work.copy_into(&mut x);
                                x
                            }
                            None => work.copy(),
                        };
                        self.stack.push((target, x));
                        self.stats.states_stored += 1;
                        self.stats.peak_states = self.stats.peak_states.max(self.stack.len());
                    }
                    Goal::Adjoint => {
                        self.work_at = None;
                        self.stats.adjoint_steps += 1;
                        return Some(Action::Adjoint(target));
                    }
                }
                continue;
            }
            let top = match self.stack.last() {
                Some((top, _)) => *top,
                None => return None,
            };
            if let Some(end) = self.cursor {
                if end > top {
                    self.cursor = Some(end - 1);
                    self.pending = Some((end - 1, Goal::Adjoint));
                } else {
                    // Every step from the topmost snapshot is reversed: drop it.
                    self.cursor = None;
                    self.hi = top;
                    let (_, x) = self.stack.pop().expect("the topmost snapshot");
                    self.spare.push(x);
                }
                continue;
            }
            if self.hi == 0 {
                return None;
            }
            let free = self.budget - self.stack.len();
            if self.hi - top > 1 && free > 0 {
                // Place one more snapshot on the way to `hi`.
                let mid = top + binomial::split(self.hi - top, free + 1);
                self.pending = Some((mid, Goal::Store));
            } else {
                // Reverse every step from the topmost snapshot to `hi`.
                self.cursor = Some(self.hi);
            }
        }
    }
}

impl<T: Clone> Replay<Vec<T>> {
    /// [`Replay::next`] for a working state held in a slice (a `&mut [T]` argument).
    pub fn next_elems(&mut self, work: &mut [T]) -> Option<Action> {
        self.next_on(work)
    }
}

/// A working state holding states of type `S`: the state itself, or a slice holding a `Vec`'s.
trait Work<S> {
    fn load(&mut self, from: &S);
    fn copy(&self) -> S;
    /// `copy`, into a buffer that held another state (no allocation when it fits).
    fn copy_into(&self, into: &mut S);
}

impl<S: Clone> Work<S> for S {
    fn load(&mut self, from: &S) {
        self.clone_from(from);
    }
    fn copy(&self) -> S {
        self.clone()
    }
    fn copy_into(&self, into: &mut S) {
        into.clone_from(self);
    }
}

impl<T: Clone> Work<Vec<T>> for [T] {
    fn load(&mut self, from: &Vec<T>) {
        self.clone_from_slice(from);
    }
    fn copy(&self) -> Vec<T> {
        self.to_vec()
    }
    fn copy_into(&self, into: &mut Vec<T>) {
        into.clear();
        into.extend_from_slice(self);
    }
}
