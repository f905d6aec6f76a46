//! LSTM: takes an ADBench LSTM instance (parameters, initial state, a sequence of bit vectors),
//! gives its loss written once under `#[differentiate]` and a hand-written gradient with the
//! generated `_vjp`'s shape.
//!
//! ADBench's toy model: every weight is diagonal (products are element-wise), the forget and
//! output gates read the layer's input, the input gate and the candidate its previous hidden
//! state. Per step `t < c - 1`, with `x = seq_t ⊙ w_in` entering layer 0 and each layer's new
//! hidden state entering the next:
//!
//! ```text
//! f = σ(x Wf + bf)   i = σ(h Wi + bi)   o = σ(x Wo + bo)   g = tanh(h Wc + bc)
//! s ← s f + i g      h ← o tanh(s)      x ← h
//! y = x w_out + b_out,  total += Σ_j seq_{t+1,j} (y_j - log(Σ_k exp(y_k) + 2))
//! ```
//!
//! and the loss is `-total / ((c - 1) b)`. The `+ 2` and the missing max-shift are ADBench's.

use super::io::LstmInput;
use autodiff_runtime::differentiate;

/// The logistic function.
#[differentiate]
pub fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// ADBench's LSTM loss; `state` is the initial state (copied, not changed).
#[differentiate(wrt(main_params, extra_params))]
pub fn lstm_objective(
    l: usize,
    c: usize,
    b: usize,
    main_params: &[f64],
    extra_params: &[f64],
    state: &[f64],
    sequence: &[f64],
) -> f64 {
    let mut hs = state.to_vec();
    let mut x = vec![0.0; b];
    let mut y = vec![0.0; b];
    let mut total = 0.0;
    for t in 0..c - 1 {
        for j in 0..b {
            x[j] = sequence[t * b + j] * extra_params[j];
        }
        for layer in 0..l {
            let w = 8 * b * layer;
            let (h_at, s_at) = (2 * b * layer, 2 * b * layer + b);
            for j in 0..b {
                let h = hs[h_at + j];
                let forget = sigmoid(x[j] * main_params[w + j] + main_params[w + 4 * b + j]);
                let input = sigmoid(h * main_params[w + b + j] + main_params[w + 5 * b + j]);
                let output =
                    sigmoid(x[j] * main_params[w + 2 * b + j] + main_params[w + 6 * b + j]);
                let change = (h * main_params[w + 3 * b + j] + main_params[w + 7 * b + j]).tanh();
                let s = hs[s_at + j] * forget + input * change;
                hs[s_at + j] = s;
                hs[h_at + j] = output * s.tanh();
                x[j] = hs[h_at + j];
            }
        }
        let mut sum_exp = 0.0;
        for j in 0..b {
            y[j] = x[j] * extra_params[b + j] + extra_params[2 * b + j];
            sum_exp += y[j].exp();
        }
        let lse = (sum_exp + 2.0).ln();
        for j in 0..b {
            total += sequence[(t + 1) * b + j] * (y[j] - lse);
        }
    }
    -total / ((c - 1) * b) as f64
}

/// [`lstm_objective`] of an instance.
pub fn objective(m: &LstmInput) -> f64 {
    lstm_objective(
        m.l,
        m.c,
        m.b,
        &m.main_params,
        &m.extra_params,
        &m.state,
        &m.sequence,
    )
}

/// Values one cell keeps for the reverse sweep: its input, previous hidden and cell states, the
/// four gates and `tanh` of the new cell state.
#[derive(Clone, Copy, Default)]
struct Cell {
    x: f64,
    h: f64,
    s: f64,
    forget: f64,
    input: f64,
    output: f64,
    change: f64,
    tanh_s: f64,
}

/// Hand-written reverse mode of [`lstm_objective`], with the generated `lstm_objective_vjp`'s
/// contract: returns the loss (the same arithmetic in the same order) and ADDS `seed ×` its
/// gradient into `dmain` and `dextra`. The forward sweep stores every cell's values (`Cell`,
/// `(c - 1) l b` of them) and each step's outputs; the reverse sweep carries the adjoints of the
/// hidden and cell states backwards through time.
pub fn lstm_objective_hand_vjp(
    l: usize,
    c: usize,
    b: usize,
    main_params: &[f64],
    extra_params: &[f64],
    state: &[f64],
    sequence: &[f64],
    dmain: &mut [f64],
    dextra: &mut [f64],
    seed: f64,
) -> f64 {
    let steps = c - 1;
    let mut hs = state.to_vec();
    let mut tape = vec![Cell::default(); steps * l * b];
    // Per step: the last layer's output x and the softmax weights exp(y_j) / (Σ exp(y) + 2).
    let mut top = vec![0.0; steps * b];
    let mut soft = vec![0.0; steps * b];
    let mut x = vec![0.0; b];
    let mut y = vec![0.0; b];
    let mut total = 0.0;
    for t in 0..steps {
        for j in 0..b {
            x[j] = sequence[t * b + j] * extra_params[j];
        }
        for layer in 0..l {
            let w = &main_params[8 * b * layer..8 * b * (layer + 1)];
            let cells = &mut tape[(t * l + layer) * b..(t * l + layer + 1) * b];
            let (h_state, s_state) = hs[2 * b * layer..2 * b * (layer + 1)].split_at_mut(b);
            for j in 0..b {
                let h = h_state[j];
                let forget = sigmoid(x[j] * w[j] + w[4 * b + j]);
                let input = sigmoid(h * w[b + j] + w[5 * b + j]);
                let output = sigmoid(x[j] * w[2 * b + j] + w[6 * b + j]);
                let change = (h * w[3 * b + j] + w[7 * b + j]).tanh();
                let s_old = s_state[j];
                let s = s_old * forget + input * change;
                let tanh_s = s.tanh();
                cells[j] = Cell {
                    x: x[j],
                    h,
                    s: s_old,
                    forget,
                    input,
                    output,
                    change,
                    tanh_s,
                };
                s_state[j] = s;
                h_state[j] = output * tanh_s;
                x[j] = h_state[j];
            }
        }
        let mut sum_exp = 0.0;
        for j in 0..b {
            y[j] = x[j] * extra_params[b + j] + extra_params[2 * b + j];
            sum_exp += y[j].exp();
        }
        let lse = (sum_exp + 2.0).ln();
        for j in 0..b {
            total += sequence[(t + 1) * b + j] * (y[j] - lse);
            top[t * b + j] = x[j];
            soft[t * b + j] = y[j].exp() / (sum_exp + 2.0);
        }
    }
    let loss = -total / (steps * b) as f64;

    let dtotal = -seed / (steps * b) as f64;
    let (din, rest) = dextra.split_at_mut(b);
    let (dout_w, dout_b) = rest.split_at_mut(b);
    // Adjoints of the state carried from step t + 1 back to step t.
    let mut dh_state = vec![0.0; l * b];
    let mut ds_state = vec![0.0; l * b];
    let mut dx = vec![0.0; b];
    for t in (0..steps).rev() {
        let next = &sequence[(t + 1) * b..(t + 2) * b];
        let bits: f64 = next.iter().sum();
        for j in 0..b {
            // total += Σ_j next_j (y_j - lse): ∂/∂y_j = next_j - Σ next · softmax_j.
            let dy = dtotal * (next[j] - bits * soft[t * b + j]);
            dout_w[j] += dy * top[t * b + j];
            dout_b[j] += dy;
            dx[j] = dy * extra_params[b + j];
        }
        for layer in (0..l).rev() {
            let w = &main_params[8 * b * layer..8 * b * (layer + 1)];
            let dw = &mut dmain[8 * b * layer..8 * b * (layer + 1)];
            let cells = &tape[(t * l + layer) * b..(t * l + layer + 1) * b];
            let dh = &mut dh_state[layer * b..(layer + 1) * b];
            let ds = &mut ds_state[layer * b..(layer + 1) * b];
            for j in 0..b {
                let e = cells[j];
                // The new hidden state is this layer's output (dx) and next step's state (dh).
                let dh_new = dx[j] + dh[j];
                let ds_new = ds[j] + dh_new * e.output * (1.0 - e.tanh_s * e.tanh_s);
                let da_output = dh_new * e.tanh_s * e.output * (1.0 - e.output);
                let da_forget = ds_new * e.s * e.forget * (1.0 - e.forget);
                let da_input = ds_new * e.change * e.input * (1.0 - e.input);
                let da_change = ds_new * e.input * (1.0 - e.change * e.change);
                dw[j] += da_forget * e.x;
                dw[4 * b + j] += da_forget;
                dw[b + j] += da_input * e.h;
                dw[5 * b + j] += da_input;
                dw[2 * b + j] += da_output * e.x;
                dw[6 * b + j] += da_output;
                dw[3 * b + j] += da_change * e.h;
                dw[7 * b + j] += da_change;
                ds[j] = ds_new * e.forget;
                dh[j] = da_input * w[b + j] + da_change * w[3 * b + j];
                dx[j] = da_forget * w[j] + da_output * w[2 * b + j];
            }
        }
        for j in 0..b {
            din[j] += dx[j] * sequence[t * b + j];
        }
    }
    loss
}

/// The generated gradient of an instance, flat: main then extra parameters.
pub fn generated_gradient(m: &LstmInput) -> (f64, Vec<f64>) {
    let mut grad = vec![0.0; m.params()];
    let (dm, de) = grad.split_at_mut(m.main_params.len());
    let f = lstm_objective_vjp(
        m.l,
        m.c,
        m.b,
        &m.main_params,
        &m.extra_params,
        &m.state,
        &m.sequence,
        dm,
        de,
        1.0,
    );
    (f, grad)
}

/// The hand-written gradient of an instance, flat like [`generated_gradient`].
pub fn hand_gradient(m: &LstmInput) -> (f64, Vec<f64>) {
    let mut grad = vec![0.0; m.params()];
    let (dm, de) = grad.split_at_mut(m.main_params.len());
    let f = lstm_objective_hand_vjp(
        m.l,
        m.c,
        m.b,
        &m.main_params,
        &m.extra_params,
        &m.state,
        &m.sequence,
        dm,
        de,
        1.0,
    );
    (f, grad)
}
