//! The benchmark problems of `benches/overhead.rs`: takes plain slices and sizes, gives each
//! problem's primal (written once, as a user would write it for `#[differentiate]`), a good
//! hand-written adjoint and a good hand-written tangent (forward mode) to measure the generated
//! `_vjp` and `_jvp` against.
//!
//! The primal functions keep to what the macro reads: f64 scalars, `&[f64]` slices, `Vec` locals
//! made by `vec![0.0; n]`, for-range loops, index reads and writes, `+=`, arithmetic, f64 methods
//! and if/else. `generated.rs` beside this file holds the same bodies under `#[differentiate]`;
//! `tests/bench_problems.rs` checks that the two copies stay identical.
//!
//! Every hand-written adjoint has the shape of the generated `_vjp`: the primal arguments, one
//! adjoint buffer per differentiated argument, the seed; it returns the value and ADDS
//! `seed * derivative` into each buffer. Each does the primal's arithmetic in the primal's order
//! (same value to the last bit) and is free only in how it arranges loops and memory, following
//! design notes section 5: one fused sweep where the iterations only meet in a sum (Rosenbrock,
//! the network's samples), adjoints of neighbouring reads carried in locals (Rosenbrock's stencil
//! window), and for the time stepping a stored trajectory swept backwards.

// Each consumer (the bench, the test) uses its own part of this module.
#![allow(dead_code)]
// The primal bodies index on purpose: loops over indices are what `#[differentiate]` reads.
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

pub mod generated;
mod heat;
mod rk4;
mod small;

pub use heat::*;
pub use rk4::*;
pub use small::*;

// ---------------------------------------------------------------------------------------------
// a. Extended Rosenbrock
// ---------------------------------------------------------------------------------------------

/// Size used by the benchmark.
pub const ROSENBROCK_N: usize = 10_000;

/// Extended Rosenbrock: sum over `i < n - 1` of `100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2`.
pub fn rosenbrock(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        s += 100.0 * t * t + u * u;
    }
    s
}

/// Hand-written adjoint of [`rosenbrock`]: returns the value and adds `seed * d/dx` into `dx`.
///
/// One fused forward loop (the terms only meet in the sum and the seed is known up front). Term
/// `i` owes an adjoint to `x[i]` and to `x[i + 1]`; the part owed to `x[i + 1]` waits in `carry`
/// and is added together with `x[i + 1]`'s own part in the next iteration, so every `dx[i]` is
/// read and written once. This is the reference of design notes section 5; splitting it into the
/// primal's sum loop and a separate gradient loop that recomputes the left neighbour's term (which
/// the compiler vectorises) measured about 0.9 of its time here.
pub fn rosenbrock_adjoint(x: &[f64], n: usize, dx: &mut [f64], seed: f64) -> f64 {
    if n < 2 {
        // No term: value and gradient are zero (the primal itself wants n >= 1).
        return 0.0;
    }
    let x = &x[..n];
    let dx = &mut dx[..n];
    let mut s = 0.0;
    let mut carry = 0.0;
    let (dx_body, dx_last) = dx.split_at_mut(n - 1);
    for (pair, d) in x.windows(2).zip(dx_body.iter_mut()) {
        let xi = pair[0];
        let t = pair[1] - xi * xi;
        let u = 1.0 - xi;
        s += 100.0 * t * t + u * u;
        let t_bar = 200.0 * seed * t;
        *d += carry - 2.0 * xi * t_bar - 2.0 * seed * u;
        carry = t_bar;
    }
    dx_last[0] += carry;
    s
}

// ---------------------------------------------------------------------------------------------
// b. Time stepping: a damped chain of nonlinear springs
// ---------------------------------------------------------------------------------------------

/// Number of masses used by the benchmark.
pub const SPRING_N: usize = 64;
/// Number of time steps used by the benchmark.
pub const SPRING_STEPS: usize = 500;
/// Time step used by the benchmark (stable: the stiffest mode has `omega * dt` well below 2).
pub const SPRING_DT: f64 = 0.05;
/// Damping coefficient used by the benchmark.
pub const SPRING_C: f64 = 0.1;

/// A chain of `n` unit masses; spring `j` joins mass `j - 1` to mass `j`, spring 0 joins mass 0
/// to a fixed wall, the last mass is free. With `d` the spring's extension and `w` its rate of
/// extension, spring `j` pulls with `k[j] (d + 0.1 d^3) + c w` (a nonlinear spring and a dashpot).
/// `steps` symplectic Euler steps of size `dt` from positions `x0` and velocities `v0`; the loss
/// is the sum of squares of the final positions.
pub fn spring_chain(
    k: &[f64],
    x0: &[f64],
    v0: &[f64],
    c: f64,
    dt: f64,
    n: usize,
    steps: usize,
) -> f64 {
    let mut x = vec![0.0; n];
    let mut v = vec![0.0; n];
    let mut f = vec![0.0; n];
    for j in 0..n {
        x[j] = x0[j];
        v[j] = v0[j];
    }
    for _step in 0..steps {
        for j in 0..n {
            let mut d = x[j];
            let mut w = v[j];
            if j > 0 {
                d = x[j] - x[j - 1];
                w = v[j] - v[j - 1];
            }
            f[j] = k[j] * (d + 0.1 * d * d * d) + c * w;
        }
        for j in 0..n {
            let mut a = -f[j];
            if j + 1 < n {
                a += f[j + 1];
            }
            v[j] += dt * a;
        }
        for j in 0..n {
            x[j] += dt * v[j];
        }
    }
    let mut loss = 0.0;
    for j in 0..n {
        loss += x[j] * x[j];
    }
    loss
}

/// Hand-written adjoint of [`spring_chain`] with respect to `k`, `x0` and `v0`: returns the value
/// and adds `seed` times the derivatives into `dk`, `dx0` and `dv0`.
///
/// Forward sweep: the primal, storing the positions at the start of every step (the springs are
/// nonlinear in the positions only; the dashpots are linear, so no velocity is stored). The stored
/// trajectory is the state itself: step `s` reads row `s` of `traj` and writes row `s + 1`.
/// Reverse sweep: backwards in time, per step one pass over the masses, one over the springs, one
/// over the masses, each elementwise and so vectorised by the compiler. That beat one fused pass
/// carrying the neighbours' adjoints in locals (the Rosenbrock recipe), which stays scalar: 86 us
/// against 66 us for the whole gradient at benchmark size on the machine this was written on.
#[allow(clippy::too_many_arguments)]
pub fn spring_chain_adjoint(
    k: &[f64],
    x0: &[f64],
    v0: &[f64],
    c: f64,
    dt: f64,
    n: usize,
    steps: usize,
    dk: &mut [f64],
    dx0: &mut [f64],
    dv0: &mut [f64],
    seed: f64,
) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let k = &k[..n];
    let dk = &mut dk[..n];

    // Forward sweep. `traj` row `s` holds the positions before step `s`; row `steps` the final
    // ones. `f[j]` is the pull of spring `j`; `f[n]`, the free end's, stays 0.
    let mut traj = vec![0.0; (steps + 1) * n];
    traj[..n].copy_from_slice(&x0[..n]);
    let mut v = v0[..n].to_vec();
    let mut f = vec![0.0; n + 1];
    for s in 0..steps {
        let (done, todo) = traj.split_at_mut((s + 1) * n);
        let x = &done[s * n..];
        let x_new = &mut todo[..n];
        f[0] = k[0] * (x[0] + 0.1 * x[0] * x[0] * x[0]) + c * v[0];
        for j in 1..n {
            let d = x[j] - x[j - 1];
            f[j] = k[j] * (d + 0.1 * d * d * d) + c * (v[j] - v[j - 1]);
        }
        for j in 0..n {
            let vj = v[j] + dt * (-f[j] + f[j + 1]);
            v[j] = vj;
            x_new[j] = x[j] + dt * vj;
        }
    }
    let x_final = &traj[steps * n..];
    let mut loss = 0.0;
    for &xj in x_final {
        loss += xj * xj;
    }

    // Reverse sweep. `xb`, `vb`: adjoints of the state after the step being reversed; they become
    // those of the state before it. With vt_j the adjoint of mass j's new velocity (directly and
    // through x += dt v):
    //   a_bar_j = dt vt_j,                  f_bar_j = a_bar_{j-1} - a_bar_j (a_bar_{-1} = 0),
    //   d_bar_j = f_bar_j k_j (1 + 0.3 d_j^2), w_bar_j = c f_bar_j,
    //   k_bar_j += f_bar_j d_j (1 + 0.1 d_j^2),
    //   x_bar_j += d_bar_j - d_bar_{j+1},   v_bar_j = vt_j + w_bar_j - w_bar_{j+1}.
    // `a_bar[j + 1]` holds a_bar_j and `a_bar[0]` the wall's 0; `d_bar[n]`, `w_bar[n]` stay 0.
    let mut xb: Vec<f64> = x_final.iter().map(|&xj| 2.0 * seed * xj).collect();
    let mut vb = vec![0.0; n];
    let mut a_bar = vec![0.0; n + 1];
    let mut d_bar = vec![0.0; n + 1];
    let mut w_bar = vec![0.0; n + 1];
    for s in (0..steps).rev() {
        let x = &traj[s * n..(s + 1) * n];
        for j in 0..n {
            let vt = vb[j] + dt * xb[j];
            vb[j] = vt;
            a_bar[j + 1] = dt * vt;
        }
        let d = x[0];
        let f_bar = -a_bar[1];
        dk[0] += f_bar * d * (1.0 + 0.1 * d * d);
        d_bar[0] = f_bar * k[0] * (1.0 + 0.3 * d * d);
        w_bar[0] = c * f_bar;
        for j in 1..n {
            let d = x[j] - x[j - 1];
            let f_bar = a_bar[j] - a_bar[j + 1];
            dk[j] += f_bar * d * (1.0 + 0.1 * d * d);
            d_bar[j] = f_bar * k[j] * (1.0 + 0.3 * d * d);
            w_bar[j] = c * f_bar;
        }
        for j in 0..n {
            xb[j] += d_bar[j] - d_bar[j + 1];
            vb[j] += w_bar[j] - w_bar[j + 1];
        }
    }
    for j in 0..n {
        dx0[j] += xb[j];
        dv0[j] += vb[j];
    }
    loss
}

// ---------------------------------------------------------------------------------------------
// c. A dense two-layer network
// ---------------------------------------------------------------------------------------------

/// Input width used by the benchmark.
pub const NET_D: usize = 16;
/// Hidden width used by the benchmark.
pub const NET_H: usize = 32;
/// Output width used by the benchmark.
pub const NET_O: usize = 4;
/// Batch size used by the benchmark.
pub const NET_BATCH: usize = 64;

/// Mean squared error of `y = w2 tanh(w1 x + b1) + b2` over a batch: `w1` is `h x d` and `w2` is
/// `o x h`, both row-major; sample `b`'s input is `xs[b * d..(b + 1) * d]`, its target
/// `ys[b * o..(b + 1) * o]`.
#[allow(clippy::too_many_arguments)]
pub fn two_layer_loss(
    w1: &[f64],
    b1: &[f64],
    w2: &[f64],
    b2: &[f64],
    xs: &[f64],
    ys: &[f64],
    d: usize,
    h: usize,
    o: usize,
    batch: usize,
) -> f64 {
    let mut hidden = vec![0.0; h];
    let mut loss = 0.0;
    let mut count = 0.0;
    for b in 0..batch {
        for i in 0..h {
            let mut z = b1[i];
            for j in 0..d {
                z += w1[i * d + j] * xs[b * d + j];
            }
            hidden[i] = z.tanh();
        }
        for r in 0..o {
            let mut y = b2[r];
            for i in 0..h {
                y += w2[r * h + i] * hidden[i];
            }
            let e = y - ys[b * o + r];
            loss += e * e;
            count += 1.0;
        }
    }
    loss / count
}

/// Hand-written adjoint of [`two_layer_loss`] with respect to `w1`, `b1`, `w2`, `b2`: returns the
/// value and adds `seed` times the derivatives into `dw1`, `db1`, `dw2`, `db2`.
///
/// The samples only meet in the sum and the seed is known up front, so each sample runs forward
/// and immediately backward: the activations live in one `h`-long buffer, nothing is stored across
/// samples. Rows are taken as slices so the inner loops run without bounds checks.
///
/// It runs in about 0.9 of the time of the plain primal [`two_layer_loss`]: the primal's indexed
/// inner loops keep their bounds checks (the same arithmetic over slices took 0.7 of its time
/// when this was written), and the backward updates, independent of each other, fill the gaps left
/// by the forward pass's serial dot-product sums and `tanh` calls.
#[allow(clippy::too_many_arguments)]
pub fn two_layer_loss_adjoint(
    w1: &[f64],
    b1: &[f64],
    w2: &[f64],
    b2: &[f64],
    xs: &[f64],
    ys: &[f64],
    d: usize,
    h: usize,
    o: usize,
    batch: usize,
    dw1: &mut [f64],
    db1: &mut [f64],
    dw2: &mut [f64],
    db2: &mut [f64],
    seed: f64,
) -> f64 {
    let count = (batch * o) as f64;
    // d(loss / count)/de = 2 e / count, times the seed.
    let scale = 2.0 * seed / count;
    let mut hidden = vec![0.0; h];
    let mut hidden_bar = vec![0.0; h];
    let mut e_bar = vec![0.0; o];
    let mut loss = 0.0;
    for b in 0..batch {
        let x = &xs[b * d..(b + 1) * d];
        let y_target = &ys[b * o..(b + 1) * o];
        for i in 0..h {
            let row = &w1[i * d..(i + 1) * d];
            let mut z = b1[i];
            for (wij, xj) in row.iter().zip(x) {
                z += wij * xj;
            }
            hidden[i] = z.tanh();
        }
        for r in 0..o {
            let row = &w2[r * h..(r + 1) * h];
            let mut y = b2[r];
            for (wri, hi) in row.iter().zip(&hidden) {
                y += wri * hi;
            }
            let e = y - y_target[r];
            loss += e * e;
            e_bar[r] = scale * e;
        }
        // Output layer: y_r = b2_r + sum_i w2_ri h_i.
        hidden_bar.fill(0.0);
        for r in 0..o {
            let eb = e_bar[r];
            db2[r] += eb;
            let row = &w2[r * h..(r + 1) * h];
            let row_bar = &mut dw2[r * h..(r + 1) * h];
            for ((wb, hb), (wri, hi)) in row_bar
                .iter_mut()
                .zip(hidden_bar.iter_mut())
                .zip(row.iter().zip(&hidden))
            {
                *wb += eb * hi;
                *hb += eb * wri;
            }
        }
        // Hidden layer: h_i = tanh(z_i), z_i = b1_i + sum_j w1_ij x_j.
        for i in 0..h {
            let z_bar = hidden_bar[i] * (1.0 - hidden[i] * hidden[i]);
            db1[i] += z_bar;
            let row_bar = &mut dw1[i * d..(i + 1) * d];
            for (wb, xj) in row_bar.iter_mut().zip(x) {
                *wb += z_bar * xj;
            }
        }
    }
    loss / count
}

// ---------------------------------------------------------------------------------------------
// Hand-written tangents (forward mode)
// ---------------------------------------------------------------------------------------------
//
// Each has the shape of the generated `_jvp`: the primal arguments, one tangent per active
// argument, and returns (value, directional derivative). Written as a person would for speed:
// the primal and its tangent in the same loop, rows taken as slices, no `Dual` numbers.

/// Hand-written tangent of [`rosenbrock`] along `dx`.
pub fn rosenbrock_tangent(x: &[f64], n: usize, dx: &[f64]) -> (f64, f64) {
    let (x, dx) = (&x[..n], &dx[..n]);
    let (mut s, mut ds) = (0.0, 0.0);
    for (w, dw) in x.windows(2).zip(dx.windows(2)) {
        let t = w[1] - w[0] * w[0];
        let dt = dw[1] - 2.0 * w[0] * dw[0];
        let u = 1.0 - w[0];
        s += 100.0 * t * t + u * u;
        ds += 200.0 * t * dt - 2.0 * u * dw[0];
    }
    (s, ds)
}

/// Hand-written tangent of [`spring_chain`] along `dk`, `dx0`, `dv0`: the state and its tangent
/// stepped side by side.
#[allow(clippy::too_many_arguments)]
pub fn spring_chain_tangent(
    k: &[f64],
    x0: &[f64],
    v0: &[f64],
    c: f64,
    dt: f64,
    n: usize,
    steps: usize,
    dk: &[f64],
    dx0: &[f64],
    dv0: &[f64],
) -> (f64, f64) {
    let (k, dk) = (&k[..n], &dk[..n]);
    let (mut x, mut v) = (x0[..n].to_vec(), v0[..n].to_vec());
    let (mut tx, mut tv) = (dx0[..n].to_vec(), dv0[..n].to_vec());
    let (mut f, mut tf) = (vec![0.0; n], vec![0.0; n]);
    for _step in 0..steps {
        for j in 0..n {
            let (d, w, td, tw) = if j > 0 {
                (
                    x[j] - x[j - 1],
                    v[j] - v[j - 1],
                    tx[j] - tx[j - 1],
                    tv[j] - tv[j - 1],
                )
            } else {
                (x[j], v[j], tx[j], tv[j])
            };
            let g = d + 0.1 * d * d * d;
            f[j] = k[j] * g + c * w;
            tf[j] = dk[j] * g + k[j] * (1.0 + 0.3 * d * d) * td + c * tw;
        }
        for j in 0..n {
            let (a, ta) = if j + 1 < n {
                (-f[j] + f[j + 1], -tf[j] + tf[j + 1])
            } else {
                (-f[j], -tf[j])
            };
            v[j] += dt * a;
            tv[j] += dt * ta;
        }
        for j in 0..n {
            x[j] += dt * v[j];
            tx[j] += dt * tv[j];
        }
    }
    let (mut loss, mut tloss) = (0.0, 0.0);
    for j in 0..n {
        loss += x[j] * x[j];
        tloss += 2.0 * x[j] * tx[j];
    }
    (loss, tloss)
}

/// Hand-written tangent of [`two_layer_loss`] along `dw1`, `db1`, `dw2`, `db2`.
#[allow(clippy::too_many_arguments)]
pub fn two_layer_loss_tangent(
    w1: &[f64],
    b1: &[f64],
    w2: &[f64],
    b2: &[f64],
    xs: &[f64],
    ys: &[f64],
    d: usize,
    h: usize,
    o: usize,
    batch: usize,
    dw1: &[f64],
    db1: &[f64],
    dw2: &[f64],
    db2: &[f64],
) -> (f64, f64) {
    let (mut hidden, mut thidden) = (vec![0.0; h], vec![0.0; h]);
    let (mut loss, mut tloss, mut count) = (0.0, 0.0, 0.0);
    for b in 0..batch {
        let x = &xs[b * d..(b + 1) * d];
        for i in 0..h {
            let (row, trow) = (&w1[i * d..(i + 1) * d], &dw1[i * d..(i + 1) * d]);
            let (mut z, mut tz) = (b1[i], db1[i]);
            for j in 0..d {
                z += row[j] * x[j];
                tz += trow[j] * x[j];
            }
            let t = z.tanh();
            hidden[i] = t;
            thidden[i] = (1.0 - t * t) * tz;
        }
        for r in 0..o {
            let (row, trow) = (&w2[r * h..(r + 1) * h], &dw2[r * h..(r + 1) * h]);
            let (mut y, mut ty) = (b2[r], db2[r]);
            for i in 0..h {
                y += row[i] * hidden[i];
                ty += trow[i] * hidden[i] + row[i] * thidden[i];
            }
            let e = y - ys[b * o + r];
            loss += e * e;
            tloss += 2.0 * e * ty;
            count += 1.0;
        }
    }
    (loss / count, tloss / count)
}
