//! The arithmetic of binomial checkpointing (Griewank 1992; Griewank & Walther, "Algorithm 799:
//! revolve", ACM TOMS 26(1), 2000): takes a number of steps `l` and of snapshots `s` (the one
//! holding the start included), gives the repetition number, the optimal place of the next
//! snapshot and the least number of forward steps a reversal can take.
//!
//! The model: step `j` maps state `x_j` to `x_{j+1}`; reversing step `j` needs `x_j` in the
//! working state (the step adjoint recomputes the step itself); `x_0` is in a snapshot, and at
//! most `s` snapshots exist at once. With `β(s, r) = C(s + r, s)` and `r` the least integer with
//! `β(s, r) ≥ l` (the *repetition number*: no step is advanced more than `r` times), the least
//! number of forward steps is
//!
//! ```text
//! t(l, s) = r l − β(s + 1, r − 1)        (t(1, s) = 0, t(l, 1) = l (l − 1) / 2)
//! ```
//!
//! and it is reached by putting the next snapshot at `x_m` and reversing the steps after `m`
//! with `s − 1` snapshots, then those before it with `s`, for any `m` with
//! `β(s, r − 2) ≤ m ≤ β(s, r − 1)` and `β(s − 1, r − 1) ≤ l − m ≤ β(s − 1, r)`: then
//! `m + t(m, s) + t(l − m, s − 1) = r l − β(s + 1, r − 2) − β(s, r − 1) = t(l, s)` by Pascal's
//! rule. The two ranges always meet (`β(s, r − 1) < l ≤ β(s, r) = β(s, r − 1) + β(s − 1, r)`).

/// `min(β(s, r), cap)` with `β(s, r) = C(s + r, s)`; `β(s, r) = 0` for `r < 0` is the caller's.
pub(crate) fn beta(s: usize, r: usize, cap: usize) -> usize {
    let mut b: u128 = 1;
    for i in 1..=r as u128 {
        // C(s + i, i) = C(s + i - 1, i - 1) (s + i) / i, exact; increasing in i.
        b = b * (s as u128 + i) / i;
        if b >= cap as u128 {
            return cap;
        }
    }
    (b as usize).min(cap)
}

/// The repetition number: the least `r` with `β(s, r) ≥ l` (`s ≥ 1`).
pub(crate) fn repetitions(l: usize, s: usize) -> usize {
    let mut r = 0;
    let mut b: u128 = 1; // β(s, r)
    while b < l as u128 {
        r += 1;
        b = b * (s as u128 + r as u128) / r as u128;
    }
    r
}

/// Where to put the next snapshot when `l ≥ 2` steps are left to reverse from a snapshot and
/// `s ≥ 2` snapshots may exist (that one included): `m` steps ahead, `1 ≤ m < l`, the largest
/// optimal place (see the module docs), so the steps after it, reversed first, are fewest.
pub(crate) fn split(l: usize, s: usize) -> usize {
    debug_assert!(l >= 2 && s >= 2);
    let r = repetitions(l, s);
    let m = beta(s, r - 1, l).min(l - beta(s - 1, r - 1, l));
    debug_assert!(m >= 1 && m < l);
    m
}

/// `t(l, s)`: the least number of forward steps that reverse `l` steps with `s ≥ 1` snapshots,
/// the first forward sweep included (saturating at `u128::MAX`, which no real count reaches).
pub(crate) fn forward_steps(l: usize, s: usize) -> u128 {
    if l <= 1 {
        return 0;
    }
    let r = repetitions(l, s);
    (r as u128 * l as u128) - beta(s + 1, r - 1, usize::MAX) as u128
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `t(l, s)` by dynamic programming over every split, independent of the closed form.
    fn brute_force(lmax: usize, smax: usize) -> Vec<Vec<u128>> {
        // t[s][l]
        let mut t = vec![vec![0u128; lmax + 1]; smax + 1];
        for (l, t1) in t[1].iter_mut().enumerate() {
            *t1 = (l as u128) * (l as u128).saturating_sub(1) / 2;
        }
        for s in 2..=smax {
            for l in 2..=lmax {
                t[s][l] = (1..l)
                    .map(|m| m as u128 + t[s][m] + t[s - 1][l - m])
                    .min()
                    .unwrap();
            }
        }
        t
    }

    #[test]
    fn closed_form_and_split_are_optimal() {
        let (lmax, smax) = (90, 9);
        let t = brute_force(lmax, smax);
        for s in 1..=smax {
            for l in 1..=lmax {
                assert_eq!(forward_steps(l, s), t[s][l], "t({l}, {s})");
                if s >= 2 && l >= 2 {
                    let m = split(l, s);
                    assert_eq!(
                        m as u128 + t[s][m] + t[s - 1][l - m],
                        t[s][l],
                        "split of ({l}, {s}) at {m}"
                    );
                }
            }
        }
    }

    #[test]
    fn binomials_and_repetitions() {
        assert_eq!(beta(3, 2, usize::MAX), 10);
        assert_eq!(beta(317, 2, usize::MAX), 50_721);
        assert_eq!(beta(317, 3, 100_000), 100_000);
        assert_eq!(beta(5, 0, usize::MAX), 1);
        assert_eq!(repetitions(100_000, 317), 3);
        assert_eq!(repetitions(1, 1), 0);
        assert_eq!(repetitions(7, 1), 6);
        // 100,000 steps with 317 snapshots: fewer than 2.5 forward steps a step.
        assert_eq!(forward_steps(100_000, 317), 300_000 - 51_040);
        // One snapshot: every step from the start again.
        assert_eq!(forward_steps(1_000, 1), 499_500);
        // As many snapshots as steps: one forward sweep to the last state.
        assert_eq!(forward_steps(50, 50), 49);
        // Huge budgets do not overflow.
        assert_eq!(split(10, usize::MAX / 2), 1);
        assert_eq!(
            forward_steps(usize::MAX / 4, usize::MAX / 4),
            (usize::MAX / 4 - 1) as u128
        );
    }
}
