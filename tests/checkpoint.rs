//! Checkpointed reverse sweeps (`autodiff_runtime::checkpoint`): takes time-stepping loops whose
//! step is a `#[differentiate]` function on `&mut [T]` or a `&mut self` method of a
//! `#[derive(Differentiable)]` struct, in f32 and f64; gives checks that the binomial schedule's
//! gradient equals the store-every-state gradient bit for bit and the whole loop written as one
//! `#[differentiate]` function to rounding, for many step counts and snapshot budgets (one step,
//! a prime number, fewer steps than snapshots, one snapshot); that it runs as many primal steps
//! and stores as many states as the schedule says, reverses each step once, in order, on the
//! right state; and that the gradient matches central differences.
#![allow(clippy::needless_range_loop)]

use autodiff_runtime::checkpoint::{self, Schedule, Stats};
use autodiff_runtime::{differentiate, Differentiable};
use std::cell::Cell;

/// The snapshot budgets to try for `n` steps: the edge cases and the default.
fn budgets(n: usize) -> Vec<usize> {
    let sqrt = match Schedule::sqrt(n) {
        Schedule::Binomial { snapshots } => snapshots,
        Schedule::StoreAll => unreachable!(),
    };
    let mut b = vec![1, 2, 3, 7, sqrt, n.saturating_sub(1).max(1), n, n + 5];
    b.sort_unstable();
    b.dedup();
    b
}

/// The step counts to try: one step, small ones, primes, more steps than any budget above.
const STEP_COUNTS: [usize; 8] = [1, 2, 3, 5, 13, 64, 97, 331];

/// Asserts the counts of a run on `schedule`: as many primal steps as the schedule says (and as
/// `calls` saw), one adjoint step each, at most the schedule's states stored at once.
fn assert_counts(stats: &Stats, schedule: Schedule, n: usize, calls: usize) {
    assert_eq!(stats.steps, n);
    assert_eq!(
        stats.primal_steps, calls,
        "{schedule:?}, {n} steps: counted calls"
    );
    assert_eq!(
        stats.primal_steps as u128,
        schedule.primal_steps(n),
        "{schedule:?}, {n} steps: primal steps"
    );
    assert_eq!(stats.adjoint_steps, n);
    assert_eq!(
        stats.peak_states,
        schedule.stored_states(n),
        "{schedule:?}, {n} steps: peak states"
    );
    if let Schedule::Binomial { snapshots } = schedule {
        assert!(stats.peak_states <= snapshots);
        // Each step runs at most `r` times, the forward sweep's run included (plus the last).
        let r = schedule.repetitions(n) as u128;
        assert!(stats.primal_steps as u128 <= r * n as u128 + 1);
    }
}

/// The same chain in f32 and f64: a step on a flat slice `[x.., v..]`, the whole loop as one
/// differentiated function, and the same as methods on a struct.
macro_rules! suite {
    ($m:ident, $t:ident, $rtol:expr, $fd_h:expr, $fd_tol:expr) => {
        mod $m {
            use super::*;

            /// Masses on springs between two walls, with a cubic spring term and damping.
            #[differentiate]
            fn step(s: &mut [$t], k: $t) {
                let n = s.len() / 2;
                for i in 0..n {
                    let left = if i == 0 { 0.0 } else { s[i - 1] };
                    let right = if i + 1 == n { 0.0 } else { s[i + 1] };
                    let f = k * (left + right - 2.0 * s[i]) - 0.3 * s[i].powi(3) - 0.05 * s[n + i];
                    s[n + i] += 0.05 * f;
                }
                for i in 0..n {
                    s[i] += 0.05 * s[n + i];
                }
            }

            /// `steps` of `step`, written out as one loop: the un-checkpointed reference.
            #[differentiate]
            fn simulate(s: &mut [$t], k: $t, steps: usize) {
                let n = s.len() / 2;
                for _ in 0..steps {
                    for i in 0..n {
                        let left = if i == 0 { 0.0 } else { s[i - 1] };
                        let right = if i + 1 == n { 0.0 } else { s[i + 1] };
                        let f =
                            k * (left + right - 2.0 * s[i]) - 0.3 * s[i].powi(3) - 0.05 * s[n + i];
                        s[n + i] += 0.05 * f;
                    }
                    for i in 0..n {
                        s[i] += 0.05 * s[n + i];
                    }
                }
            }

            /// A misfit of the final state.
            #[differentiate]
            fn loss(s: &[$t]) -> $t {
                let mut l = 0.0;
                for i in 0..s.len() {
                    let w = (i + 1) as $t;
                    l += w * (s[i] - 0.1).powi(2) + 0.1 * s[i].sin();
                }
                l
            }

            fn start(n: usize) -> Vec<$t> {
                (0..2 * n)
                    .map(|i| 0.5 * ((i * 7 + 3) as $t).sin())
                    .collect()
            }

            const K: $t = 1.3;

            /// Loss, gradient with respect to the initial state and to `k`, counts.
            fn by_driver(s0: &[$t], n: usize, schedule: Schedule) -> ($t, Vec<$t>, $t, Stats) {
                let calls = Cell::new(0);
                let mut dk = 0.0;
                let (l, ds, stats) = checkpoint::adjoint(
                    n,
                    schedule,
                    s0.to_vec(),
                    |_, s: &mut Vec<$t>| {
                        calls.set(calls.get() + 1);
                        step(s, K)
                    },
                    |end| {
                        let (l, g) = loss_grad(end);
                        (l, g.s)
                    },
                    |_, s, ds| step_vjp(s, K, ds, &mut dk),
                );
                assert_counts(&stats, schedule, n, calls.get());
                (l, ds, dk, stats)
            }

            /// The same from the whole loop's generated `simulate_vjp`.
            fn by_whole_loop(s0: &[$t], n: usize) -> ($t, Vec<$t>, $t) {
                let mut end = s0.to_vec();
                simulate(&mut end, K, n);
                let (l, g) = loss_grad(&end);
                let (mut ds, mut dk) = (g.s, 0.0);
                simulate_vjp(&mut s0.to_vec(), K, n, &mut ds, &mut dk);
                (l, ds, dk)
            }

            fn assert_rounding(a: &[$t], b: &[$t], what: &str) {
                let scale = b.iter().fold(0.0 as $t, |m, x| m.max(x.abs()));
                for i in 0..a.len() {
                    assert!(
                        (a[i] - b[i]).abs() <= $rtol * scale,
                        "{what}[{i}]: {} against {} (scale {scale})",
                        a[i],
                        b[i]
                    );
                }
            }

            #[test]
            fn slice_step_equals_store_all_and_whole_loop() {
                for n in STEP_COUNTS {
                    let s0 = start(3);
                    let (l_all, g_all, dk_all, _) = by_driver(&s0, n, Schedule::StoreAll);
                    let (l_ref, g_ref, dk_ref) = by_whole_loop(&s0, n);
                    assert_rounding(&[l_all], &[l_ref], "loss");
                    assert_rounding(&g_all, &g_ref, "gradient");
                    assert_rounding(&[dk_all], &[dk_ref], "dk");
                    for s in budgets(n) {
                        let (l, g, dk, _) = by_driver(&s0, n, Schedule::binomial(s));
                        // The same operations on the same states: the same bits.
                        assert_eq!(
                            (l, &g, dk),
                            (l_all, &g_all, dk_all),
                            "{n} steps, {s} snapshots"
                        );
                    }
                }
            }

            /// The two phases by hand, the adjoint in a buffer of the caller's (a slice).
            #[test]
            fn adjoint_in_a_borrowed_slice() {
                let (n, s0) = (29, start(3));
                let (_, g, dk_want, _) = by_driver(&s0, n, Schedule::StoreAll);
                let (end, tape) = checkpoint::forward(
                    n,
                    Schedule::binomial(4),
                    s0.clone(),
                    |_, s: &mut Vec<$t>| step(s, K),
                );
                let mut buffer = [0.0 as $t; 6];
                loss_vjp(&end, &mut buffer, 1.0);
                let mut dk = 0.0;
                let stats = tape.reverse(&mut buffer[..], |_, s, ds| step_vjp(s, K, ds, &mut dk));
                assert_eq!((&buffer[..], dk), (&g[..], dk_want));
                assert_eq!(stats.peak_states, 4);
            }

            #[test]
            fn no_steps_gives_the_seed_back() {
                for schedule in [Schedule::StoreAll, Schedule::binomial(3)] {
                    let s0 = start(2);
                    let (l, g, dk, stats) = by_driver(&s0, 0, schedule);
                    let (l0, g0) = loss_grad(&s0);
                    assert_eq!((l, g, dk), (l0, g0.s, 0.0));
                    assert_eq!(stats.primal_steps + stats.peak_states, 0);
                }
            }

            #[test]
            fn many_steps_default_budget() {
                let n = 10_007; // prime
                let s0 = start(2);
                let (l_all, g_all, dk_all, all) = by_driver(&s0, n, Schedule::StoreAll);
                let (l, g, dk, stats) = by_driver(&s0, n, Schedule::sqrt(n));
                assert_eq!((l, &g, dk), (l_all, &g_all, dk_all));
                assert_eq!((all.peak_states, stats.peak_states), (n, 101));
                // 101 snapshots: C(101 + 2, 2) = 5253 < n ≤ C(104, 3), three repetitions.
                assert_eq!(stats.primal_steps, 3 * n - 5356 + 1);
            }

            #[test]
            fn gradient_matches_central_differences() {
                let (n, s) = (40, 4);
                let s0 = start(2);
                let (_, g, dk, _) = by_driver(&s0, n, Schedule::binomial(s));
                let dir: Vec<$t> = (0..s0.len())
                    .map(|i| ((i * 5 + 1) % 3) as $t - 1.0)
                    .collect();
                let dir_k: $t = 0.7;
                let at = |h: $t| {
                    let mut x: Vec<$t> = s0.iter().zip(&dir).map(|(a, d)| a + h * d).collect();
                    simulate(&mut x, K + h * dir_k, n);
                    loss(&x)
                };
                let h: $t = $fd_h;
                let fd = (at(h) - at(-h)) / (2.0 * h);
                let ad = g.iter().zip(&dir).map(|(a, b)| a * b).sum::<$t>() + dk * dir_k;
                assert!(
                    (ad - fd).abs() <= $fd_tol * fd.abs().max(1.0),
                    "{ad} against {fd}"
                );
            }

            // ---------------------------------------------------------------------------------
            // The same chain as a struct, stepped by a `&mut self` method

            // The fields' type is named through an alias declared here: a field type written
            // `$t` has the hygiene of this macro's caller, and the derive writes `self` at the
            // field types, which then does not resolve to the receiver (E0424).
            pub type Float = $t;

            #[derive(Differentiable, Clone, Debug, PartialEq)]
            pub struct Chain {
                pub x: Vec<Float>,
                pub v: Vec<Float>,
                pub k: Float,
            }

            impl Chain {
                /// One step of length `dt`, in place.
                #[differentiate]
                fn advance(&mut self, dt: $t) {
                    let n = self.x.len();
                    for i in 0..n {
                        let left = if i == 0 { 0.0 } else { self.x[i - 1] };
                        let right = if i + 1 == n { 0.0 } else { self.x[i + 1] };
                        let f = self.k * (left + right - 2.0 * self.x[i])
                            - 0.3 * self.x[i].powi(3)
                            - 0.05 * self.v[i];
                        self.v[i] += dt * f;
                    }
                    for i in 0..n {
                        self.x[i] += dt * self.v[i];
                    }
                }

                /// `steps` steps written out as one loop.
                #[differentiate]
                fn run(&mut self, dt: $t, steps: usize) {
                    let n = self.x.len();
                    for _ in 0..steps {
                        for i in 0..n {
                            let left = if i == 0 { 0.0 } else { self.x[i - 1] };
                            let right = if i + 1 == n { 0.0 } else { self.x[i + 1] };
                            let f = self.k * (left + right - 2.0 * self.x[i])
                                - 0.3 * self.x[i].powi(3)
                                - 0.05 * self.v[i];
                            self.v[i] += dt * f;
                        }
                        for i in 0..n {
                            self.x[i] += dt * self.v[i];
                        }
                    }
                }

                #[differentiate]
                fn energy(&self) -> $t {
                    let mut e = 0.0;
                    for i in 0..self.x.len() {
                        e += 0.5 * self.v[i] * self.v[i] + self.k * self.x[i] * self.x[i];
                    }
                    e
                }
            }

            fn chain() -> Chain {
                let s = start(3);
                Chain {
                    x: s[..3].to_vec(),
                    v: s[3..].to_vec(),
                    k: 0.9,
                }
            }

            const DT: $t = 0.04;

            /// Energy, its gradient with respect to the initial chain and to `dt`, counts.
            fn chain_by_driver(n: usize, schedule: Schedule) -> ($t, ChainTangent, $t, Stats) {
                let calls = Cell::new(0);
                let mut ddt = 0.0;
                let (e, g, stats) = checkpoint::adjoint(
                    n,
                    schedule,
                    chain(),
                    |_, c: &mut Chain| {
                        calls.set(calls.get() + 1);
                        c.advance(DT)
                    },
                    |end| end.energy_grad(),
                    |_, c, dc| c.advance_vjp(DT, dc, &mut ddt),
                );
                assert_counts(&stats, schedule, n, calls.get());
                (e, g, ddt, stats)
            }

            #[test]
            fn struct_method_step_equals_store_all_and_whole_loop() {
                for n in STEP_COUNTS {
                    // The reference: `run_vjp` over the whole loop.
                    let mut end = chain();
                    end.run(DT, n);
                    let (e_ref, mut g_ref) = end.energy_grad();
                    let mut ddt_ref = 0.0;
                    chain().run_vjp(DT, n, &mut g_ref, &mut ddt_ref);

                    let (e_all, g_all, ddt_all, _) = chain_by_driver(n, Schedule::StoreAll);
                    assert_rounding(&[e_all], &[e_ref], "energy");
                    assert_rounding(&g_all.x, &g_ref.x, "x");
                    assert_rounding(&g_all.v, &g_ref.v, "v");
                    assert_rounding(&[g_all.k, ddt_all], &[g_ref.k, ddt_ref], "k, dt");
                    for s in budgets(n) {
                        let (e, g, ddt, _) = chain_by_driver(n, Schedule::binomial(s));
                        assert_eq!(
                            (e, &g, ddt),
                            (e_all, &g_all, ddt_all),
                            "{n} steps, {s} snapshots"
                        );
                    }
                }
            }
        }
    };
}

suite!(in_f64, f64, 1e-12, 1e-6, 1e-7);
suite!(in_f32, f32, 2e-5, 1e-2, 1e-2);

// -------------------------------------------------------------------------------------------
// The schedule itself, on a step that records what it is given

/// A state that knows which step it is at, and the adjoint calls in order: each step adjoint must
/// get `x_j` for step `j`, `j` from `n - 1` down to 0.
#[test]
fn every_step_is_reversed_once_in_order_on_its_own_state() {
    for n in 0..=70 {
        let mut schedules = vec![Schedule::StoreAll];
        schedules.extend(
            (1..=9)
                .chain([n, n + 1])
                .filter(|&s| s >= 1)
                .map(Schedule::binomial),
        );
        for schedule in schedules {
            let calls = Cell::new(0usize);
            // The state: the step it is at and a value that depends on every step before it.
            let (end, tape) = checkpoint::forward(n, schedule, (0usize, 1.0f64), |j, x| {
                assert_eq!(x.0, j, "step {j} run on the state of step {}", x.0);
                calls.set(calls.get() + 1);
                *x = (j + 1, x.1 * 1.5 + j as f64);
            });
            assert_eq!(end.0, n);
            let mut reversed = Vec::new();
            let mut adj = n;
            let stats = tape.reverse(&mut adj, |j, x, a| {
                assert_eq!((x.0, *a), (j, j + 1), "{schedule:?}, {n} steps");
                // The value is that of the forward run (no state mixed up).
                let mut want = 1.0;
                for i in 0..j {
                    want = want * 1.5 + i as f64;
                }
                assert_eq!(x.1, want);
                x.0 = usize::MAX; // scratch: the driver must not read it again
                *a = j;
                reversed.push(j);
            });
            assert_eq!(adj, 0);
            assert_eq!(reversed, (0..n).rev().collect::<Vec<_>>());
            assert_counts(&stats, schedule, n, calls.get());
        }
    }
}

#[test]
fn schedule_constructors_and_costs() {
    assert_eq!(
        Schedule::sqrt(100_000),
        Schedule::Binomial { snapshots: 317 }
    );
    assert_eq!(Schedule::sqrt(100), Schedule::Binomial { snapshots: 10 });
    assert_eq!(Schedule::sqrt(0), Schedule::Binomial { snapshots: 1 });
    assert_eq!(
        Schedule::sqrt(usize::MAX),
        Schedule::Binomial { snapshots: 1 << 32 }
    );
    assert_eq!(
        Schedule::within(1 << 20, 1000),
        Schedule::Binomial { snapshots: 1048 }
    );
    assert_eq!(
        Schedule::within(10, 1000),
        Schedule::Binomial { snapshots: 1 }
    );
    // 100,000 steps, 317 snapshots: three repetitions, 2.49 primal steps a step.
    let s = Schedule::sqrt(100_000);
    assert_eq!(s.repetitions(100_000), 3);
    assert_eq!(s.primal_steps(100_000), 300_000 - 51_040 + 1);
    assert_eq!(s.stored_states(100_000), 317);
    assert_eq!(Schedule::StoreAll.primal_steps(100_000), 100_000);
    // The default: at most three runs of a step, fewer than 2.5 primal steps a step.
    for n in (1..2000).chain([10_007, 100_000, 1 << 20, 123_456_789]) {
        let s = Schedule::sqrt(n);
        assert!(s.repetitions(n) <= 3, "{n}");
        assert!((s.primal_steps(n) as f64) < 2.5 * n as f64, "{n}");
    }
    assert_eq!(Schedule::binomial(1).primal_steps(4), 6 + 1);
}

#[test]
#[should_panic(expected = "at least one snapshot")]
fn zero_snapshots_is_refused() {
    let _ = Schedule::binomial(0);
}
