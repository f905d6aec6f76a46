//! Losses: takes predictions and targets, gives the mean squared error and the cross-entropy of
//! logits (integer labels, or one-hot / probability rows), each as a forward kernel returning the
//! loss, a JVP returning `(loss, d_loss)` and a VJP accumulating into the predictions' adjoint.
//! Both are means (over elements for MSE, over rows for cross-entropy); an empty input gives NaN
//! (a mean of nothing).

use super::isa::{dispatch, Arith, Isa, Job};
use super::mat::{MatMut, MatRef};
use super::real::Real;
use super::softmax::{check_row_major, check_same_shape, row, row_dot, row_lse, row_softmax};

fn same_len(what: &str, a: &str, la: usize, b: &str, lb: usize) {
    assert!(
        la == lb,
        "kernels::{what}: length mismatch: {a} has {la} elements, {b} has {lb}"
    );
}

struct Mse<'a, T> {
    pred: &'a [T],
    target: &'a [T],
    d_pred: Option<&'a [T]>,
}

impl<T: Real> Job for Mse<'_, T> {
    type Out = (T, T);
    #[inline(always)]
    fn run<A: Arith>(self, _: Isa) -> (T, T) {
        let n = T::from(self.pred.len()).expect("length fits the float type");
        let mut acc = [T::zero(); 16];
        let mut dacc = [T::zero(); 16];
        let d_pred = self.d_pred.unwrap_or(self.pred);
        for (k, ((&p, &t), &dp)) in self.pred.iter().zip(self.target).zip(d_pred).enumerate() {
            let r = p - t;
            acc[k % 16] = A::madd(r, r, acc[k % 16]);
            dacc[k % 16] = A::madd(r, dp, dacc[k % 16]);
        }
        let sum = acc.iter().fold(T::zero(), |s, &v| s + v);
        let dsum = dacc.iter().fold(T::zero(), |s, &v| s + v);
        let loss = sum / n;
        let d = if self.d_pred.is_some() {
            T::c(2.0) * dsum / n
        } else {
            T::zero()
        };
        (loss, d)
    }
}

/// Mean squared error: `Σ (pred[i] - target[i])² / n`.
///
/// # Panics
///
/// If the lengths differ.
pub fn mse<T: Real>(pred: &[T], target: &[T]) -> T {
    same_len("mse", "pred", pred.len(), "target", target.len());
    dispatch(Mse {
        pred,
        target,
        d_pred: None,
    })
    .0
}

/// JVP of [`mse`] along `d_pred` (the target is a constant): `(loss, 2 Σ (pred - target) d_pred /
/// n)`.
///
/// # Panics
///
/// If the lengths differ.
pub fn mse_jvp<T: Real>(pred: &[T], target: &[T], d_pred: &[T]) -> (T, T) {
    same_len("mse_jvp", "pred", pred.len(), "target", target.len());
    same_len("mse_jvp", "pred", pred.len(), "d_pred", d_pred.len());
    dispatch(Mse {
        pred,
        target,
        d_pred: Some(d_pred),
    })
}

/// VJP of [`mse`]: `pred_bar[i] += loss_bar * 2 (pred[i] - target[i]) / n` (the target's adjoint,
/// if wanted, is the negative of this contribution).
///
/// # Panics
///
/// If the lengths differ.
pub fn mse_vjp<T: Real>(pred: &[T], target: &[T], loss_bar: T, pred_bar: &mut [T]) {
    same_len("mse_vjp", "pred", pred.len(), "target", target.len());
    same_len("mse_vjp", "pred", pred.len(), "pred_bar", pred_bar.len());
    struct MseVjp<'a, T>(&'a [T], &'a [T], T, &'a mut [T]);
    impl<T: Real> Job for MseVjp<'_, T> {
        type Out = ();
        #[inline(always)]
        fn run<A: Arith>(self, _: Isa) {
            let MseVjp(pred, target, loss_bar, pred_bar) = self;
            let n = T::from(pred.len()).expect("length fits the float type");
            let g = T::c(2.0) * loss_bar / n;
            for (pb, (&p, &t)) in pred_bar.iter_mut().zip(pred.iter().zip(target)) {
                *pb = A::madd(g, p - t, *pb);
            }
        }
    }
    dispatch(MseVjp(pred, target, loss_bar, pred_bar))
}

/// The target of a cross-entropy: one class index per row, or one probability row per row.
#[derive(Clone, Copy)]
enum Target<'a, T> {
    Labels(&'a [usize]),
    Probs(MatRef<'a, T>),
}

impl<T: Real> Target<'_, T> {
    /// `Σ_j t[i][j] v[j]` and `Σ_j t[i][j]` for row `i` (strong zero: `t = 0` ignores `v`).
    #[inline(always)]
    fn weigh(&self, i: usize, v: &[T]) -> (T, T) {
        match self {
            Target::Labels(l) => (v[l[i]], T::one()),
            Target::Probs(t) => {
                let (mut s, mut w) = (T::zero(), T::zero());
                for (&tv, &vv) in row(t, i).iter().zip(v) {
                    if tv != T::zero() {
                        s = s + tv * vv;
                        w = w + tv;
                    }
                }
                (s, w)
            }
        }
    }
}

struct Ce<'a, T> {
    logits: MatRef<'a, T>,
    target: Target<'a, T>,
    d_logits: Option<MatRef<'a, T>>,
}

impl<T: Real> Job for Ce<'_, T> {
    type Out = (T, T);
    #[inline(always)]
    fn run<A: Arith>(self, _: Isa) -> (T, T) {
        let Ce {
            logits,
            target,
            d_logits,
        } = self;
        let mut p = vec![T::zero(); logits.cols];
        let (mut loss, mut dloss) = (T::zero(), T::zero());
        for i in 0..logits.rows {
            let xi = row(&logits, i);
            let lse = row_lse::<T, A>(xi, &mut p);
            // Σ_j t_j (lse - x_j) = w lse - Σ_j t_j x_j
            let (tx, w) = target.weigh(i, xi);
            loss = loss + (w * lse - tx);
            if let Some(d) = &d_logits {
                let di = row(d, i);
                row_softmax::<T, A>(xi, &mut p);
                let (td, w) = target.weigh(i, di);
                dloss = dloss + (w * row_dot::<T, A>(&p, di) - td);
            }
        }
        let n = T::from(logits.rows).expect("row count fits the float type");
        (loss / n, dloss / n)
    }
}

struct CeVjp<'a, T> {
    logits: MatRef<'a, T>,
    target: Target<'a, T>,
    loss_bar: T,
    logits_bar: MatMut<'a, T>,
}

impl<T: Real> Job for CeVjp<'_, T> {
    type Out = ();
    #[inline(always)]
    fn run<A: Arith>(self, _: Isa) {
        let CeVjp {
            logits,
            target,
            loss_bar,
            mut logits_bar,
        } = self;
        let n = T::from(logits.rows).expect("row count fits the float type");
        let g = loss_bar / n;
        let mut p = vec![T::zero(); logits.cols];
        for i in 0..logits.rows {
            row_softmax::<T, A>(row(&logits, i), &mut p);
            let xb = logits_bar.row_mut(i);
            match target {
                Target::Labels(l) => {
                    for (b, &pv) in xb.iter_mut().zip(&p) {
                        *b = A::madd(g, pv, *b);
                    }
                    xb[l[i]] = xb[l[i]] - g;
                }
                Target::Probs(t) => {
                    let ti = row(&t, i);
                    let w = ti.iter().fold(T::zero(), |s, &v| s + v);
                    for (b, (&pv, &tv)) in xb.iter_mut().zip(p.iter().zip(ti)) {
                        *b = A::madd(g, w * pv - tv, *b);
                    }
                }
            }
        }
    }
}

fn check_labels<T>(what: &str, logits: &MatRef<'_, T>, labels: &[usize]) {
    check_row_major(what, "logits", logits);
    assert!(
        labels.len() == logits.rows,
        "kernels::{what}: {} labels for {} rows of logits",
        labels.len(),
        logits.rows
    );
    if let Some((i, &l)) = labels.iter().enumerate().find(|&(_, &l)| l >= logits.cols) {
        panic!(
            "kernels::{what}: label {l} of row {i} is out of range ({} classes)",
            logits.cols
        );
    }
}

fn check_probs<T>(what: &str, logits: &MatRef<'_, T>, name: &str, t: &MatRef<'_, T>) {
    check_row_major(what, "logits", logits);
    check_row_major(what, name, t);
    assert!(
        t.rows == logits.rows && t.cols == logits.cols,
        "kernels::{what}: shapes do not agree: logits are {} x {}, {name} is {} x {}",
        logits.rows,
        logits.cols,
        t.rows,
        t.cols
    );
}

/// Cross-entropy of logits against class labels, averaged over rows:
/// `Σ_i (logsumexp(logits[i]) - logits[i][labels[i]]) / rows`.
///
/// # Panics
///
/// If `logits` is transposed, `labels.len() != logits.rows()`, or a label is `>= logits.cols()`.
pub fn cross_entropy_labels<T: Real>(logits: MatRef<'_, T>, labels: &[usize]) -> T {
    check_labels("cross_entropy_labels", &logits, labels);
    dispatch(Ce {
        logits,
        target: Target::Labels(labels),
        d_logits: None,
    })
    .0
}

/// JVP of [`cross_entropy_labels`] along `d_logits`: `(loss, Σ_i (<p_i, d_i> - d_i[labels[i]]) /
/// rows)` with `p = softmax(logits)`.
///
/// # Panics
///
/// As [`cross_entropy_labels`], or if the shapes of `logits` and `d_logits` differ.
pub fn cross_entropy_labels_jvp<T: Real>(
    logits: MatRef<'_, T>,
    labels: &[usize],
    d_logits: MatRef<'_, T>,
) -> (T, T) {
    check_labels("cross_entropy_labels_jvp", &logits, labels);
    check_probs("cross_entropy_labels_jvp", &logits, "d_logits", &d_logits);
    dispatch(Ce {
        logits,
        target: Target::Labels(labels),
        d_logits: Some(d_logits),
    })
}

/// VJP of [`cross_entropy_labels`]: `logits_bar[i] += loss_bar (p_i - onehot(labels[i])) / rows`.
///
/// # Panics
///
/// As [`cross_entropy_labels`], or if the shapes of `logits` and `logits_bar` differ.
pub fn cross_entropy_labels_vjp<T: Real>(
    logits: MatRef<'_, T>,
    labels: &[usize],
    loss_bar: T,
    logits_bar: MatMut<'_, T>,
) {
    check_labels("cross_entropy_labels_vjp", &logits, labels);
    check_same_shape(
        "cross_entropy_labels_vjp",
        &logits,
        "logits_bar",
        &logits_bar,
    );
    dispatch(CeVjp {
        logits,
        target: Target::Labels(labels),
        loss_bar,
        logits_bar,
    })
}

/// Cross-entropy of logits against one-hot (or any probability) rows, averaged over rows:
/// `Σ_i Σ_j targets[i][j] (logsumexp(logits[i]) - logits[i][j]) / rows`; entries with
/// `targets[i][j] == 0` contribute 0 even where `logits[i][j] = -inf`.
///
/// # Panics
///
/// If a view is transposed or the shapes of `logits` and `targets` differ.
pub fn cross_entropy_onehot<T: Real>(logits: MatRef<'_, T>, targets: MatRef<'_, T>) -> T {
    check_probs("cross_entropy_onehot", &logits, "targets", &targets);
    dispatch(Ce {
        logits,
        target: Target::Probs(targets),
        d_logits: None,
    })
    .0
}

/// JVP of [`cross_entropy_onehot`] along `d_logits` (the targets are constants):
/// `(loss, Σ_i (w_i <p_i, d_i> - <t_i, d_i>) / rows)`, `w_i = Σ_j t[i][j]`.
///
/// # Panics
///
/// If a view is transposed or the shapes differ.
pub fn cross_entropy_onehot_jvp<T: Real>(
    logits: MatRef<'_, T>,
    targets: MatRef<'_, T>,
    d_logits: MatRef<'_, T>,
) -> (T, T) {
    check_probs("cross_entropy_onehot_jvp", &logits, "targets", &targets);
    check_probs("cross_entropy_onehot_jvp", &logits, "d_logits", &d_logits);
    dispatch(Ce {
        logits,
        target: Target::Probs(targets),
        d_logits: Some(d_logits),
    })
}

/// VJP of [`cross_entropy_onehot`]: `logits_bar[i] += loss_bar (w_i p_i - t_i) / rows`,
/// `w_i = Σ_j t[i][j]` (1 for one-hot rows).
///
/// # Panics
///
/// If a view is transposed or the shapes differ.
pub fn cross_entropy_onehot_vjp<T: Real>(
    logits: MatRef<'_, T>,
    targets: MatRef<'_, T>,
    loss_bar: T,
    logits_bar: MatMut<'_, T>,
) {
    check_probs("cross_entropy_onehot_vjp", &logits, "targets", &targets);
    check_same_shape(
        "cross_entropy_onehot_vjp",
        &logits,
        "logits_bar",
        &logits_bar,
    );
    dispatch(CeVjp {
        logits,
        target: Target::Probs(targets),
        loss_bar,
        logits_bar,
    })
}
