//! Benchmark problem d: explicit time steps of the 2-D heat equation on an `n x n` grid. Takes the
//! initial temperatures and the diffusion number, gives the primal (as a user writes it for
//! `#[differentiate]`), a good hand-written adjoint and a good hand-written tangent.
//!
//! The grid is one flat slice, cell `(i, j)` at `u[i * n + j]` (the macro does not take nested
//! arrays). The boundary ring keeps its initial temperatures (Dirichlet conditions); each step
//! updates the interior with the 5-point Laplacian.

// The primal body indexes on purpose: loops over indices are what `#[differentiate]` reads.
#![allow(clippy::needless_range_loop)]

/// Grid side used by the benchmark (4,096 cells).
pub const HEAT_N: usize = 64;
/// Number of explicit steps used by the benchmark.
pub const HEAT_STEPS: usize = 50;
/// Diffusion number `kappa dt / h^2` used by the benchmark (the explicit scheme wants <= 0.25).
pub const HEAT_ALPHA: f64 = 0.2;

/// Half the squared distance between the temperatures after `steps` explicit steps of diffusion
/// number `alpha` from `u0` and the temperatures `target`.
pub fn heat(u0: &[f64], alpha: f64, target: &[f64], n: usize, steps: usize) -> f64 {
    let mut u = u0.to_vec();
    let mut next = u0.to_vec();
    for _step in 0..steps {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                let c = u[i * n + j];
                let lap =
                    u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]
                        - 4.0 * c;
                next[i * n + j] = c + alpha * lap;
            }
        }
        u.copy_from_slice(&next);
    }
    let mut loss = 0.0;
    for k in 0..n * n {
        let e = u[k] - target[k];
        loss += e * e;
    }
    0.5 * loss
}

/// One explicit step of the interior: row `i` of `out` from rows `i - 1`, `i`, `i + 1` of `cur`.
/// The boundary ring of `out` is left as it is.
#[inline(always)]
fn heat_step(cur: &[f64], out: &mut [f64], alpha: f64, n: usize) {
    for i in 1..n - 1 {
        let up = &cur[(i - 1) * n..i * n];
        let mid = &cur[i * n..(i + 1) * n];
        let down = &cur[(i + 1) * n..(i + 2) * n];
        let row = &mut out[i * n..(i + 1) * n];
        for j in 1..n - 1 {
            let c = mid[j];
            let lap = up[j] + down[j] + mid[j - 1] + mid[j + 1] - 4.0 * c;
            row[j] = c + alpha * lap;
        }
    }
}

/// Hand-written adjoint of [`heat`] with respect to `u0` and `alpha`: returns the value and adds
/// `seed` times the derivatives into `du0` and `dalpha`.
///
/// Forward sweep: the primal, keeping every step's grid (`traj`, `steps + 1` grids; the step is
/// linear in the temperatures but `alpha`'s adjoint reads each step's Laplacian).
/// Reverse sweep, one pass over the interior per step, in gather form: with `a` the adjoint of the
/// interior after the step (zero on the boundary ring), the adjoint before it is
/// `a[k] + alpha (a[k - n] + a[k + n] + a[k - 1] + a[k + 1] - 4 a[k])`, and `alpha`'s adjoint
/// gains `a[k] * lap[k]` in the same pass (rows as slices, neighbours in registers). The boundary
/// cells never change, so their adjoint `ring` collects `alpha` times their interior neighbour's
/// adjoint at every step, in a pass over the four edges.
#[allow(clippy::too_many_arguments)]
pub fn heat_adjoint(
    u0: &[f64],
    alpha: f64,
    target: &[f64],
    n: usize,
    steps: usize,
    du0: &mut [f64],
    dalpha: &mut f64,
    seed: f64,
) -> f64 {
    let nn = n * n;
    let mut traj = vec![0.0; (steps + 1) * nn];
    traj[..nn].copy_from_slice(&u0[..nn]);
    for s in 0..steps {
        let (done, todo) = traj.split_at_mut((s + 1) * nn);
        let cur = &done[s * nn..];
        let out = &mut todo[..nn];
        // The boundary ring carries over; `heat_step` writes the interior.
        out.copy_from_slice(cur);
        heat_step(cur, out, alpha, n);
    }
    let last = &traj[steps * nn..];
    let mut loss = 0.0;
    for k in 0..nn {
        let e = last[k] - target[k];
        loss += e * e;
    }

    // Adjoint of the final grid: seed * (u - target), split into interior `a` and `ring`.
    let mut ring = vec![0.0; nn];
    let mut a = vec![0.0; nn];
    for i in 0..n {
        for j in 0..n {
            let k = i * n + j;
            let g = seed * (last[k] - target[k]);
            if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
                ring[k] = g;
            } else {
                a[k] = g;
            }
        }
    }
    let mut b = vec![0.0; nn];
    let mut alpha_bar = 0.0;
    for s in (0..steps).rev() {
        let x = &traj[s * nn..(s + 1) * nn];
        for i in 1..n - 1 {
            let (xu, xm, xd) = (
                &x[(i - 1) * n..i * n],
                &x[i * n..(i + 1) * n],
                &x[(i + 1) * n..(i + 2) * n],
            );
            let (au, am, ad) = (
                &a[(i - 1) * n..i * n],
                &a[i * n..(i + 1) * n],
                &a[(i + 1) * n..(i + 2) * n],
            );
            let row = &mut b[i * n..(i + 1) * n];
            for j in 1..n - 1 {
                let g = am[j];
                let lap = xu[j] + xd[j] + xm[j - 1] + xm[j + 1] - 4.0 * xm[j];
                alpha_bar += g * lap;
                row[j] = g + alpha * (au[j] + ad[j] + am[j - 1] + am[j + 1] - 4.0 * g);
            }
        }
        // Edges: each boundary cell next to the interior feeds that one neighbour.
        if n > 2 {
            for j in 1..n - 1 {
                ring[j] += alpha * a[n + j];
                ring[(n - 1) * n + j] += alpha * a[(n - 2) * n + j];
            }
            for i in 1..n - 1 {
                ring[i * n] += alpha * a[i * n + 1];
                ring[i * n + n - 1] += alpha * a[i * n + n - 2];
            }
        }
        std::mem::swap(&mut a, &mut b);
    }
    for k in 0..nn {
        du0[k] += a[k] + ring[k];
    }
    *dalpha += alpha_bar;
    0.5 * loss
}

/// Hand-written tangent of [`heat`] along `du0`, `dalpha`: the grid and its tangent stepped side
/// by side (two grids each, swapped every step), rows as slices.
pub fn heat_tangent(
    u0: &[f64],
    alpha: f64,
    target: &[f64],
    n: usize,
    steps: usize,
    du0: &[f64],
    dalpha: f64,
) -> (f64, f64) {
    let nn = n * n;
    let (mut u, mut next) = (u0[..nn].to_vec(), u0[..nn].to_vec());
    let (mut t, mut tnext) = (du0[..nn].to_vec(), du0[..nn].to_vec());
    for _step in 0..steps {
        for i in 1..n - 1 {
            let (xu, xm, xd) = (
                &u[(i - 1) * n..i * n],
                &u[i * n..(i + 1) * n],
                &u[(i + 1) * n..(i + 2) * n],
            );
            let (tu, tm, td) = (
                &t[(i - 1) * n..i * n],
                &t[i * n..(i + 1) * n],
                &t[(i + 1) * n..(i + 2) * n],
            );
            let row = &mut next[i * n..(i + 1) * n];
            let trow = &mut tnext[i * n..(i + 1) * n];
            for j in 1..n - 1 {
                let c = xm[j];
                let lap = xu[j] + xd[j] + xm[j - 1] + xm[j + 1] - 4.0 * c;
                row[j] = c + alpha * lap;
                let tlap = tu[j] + td[j] + tm[j - 1] + tm[j + 1] - 4.0 * tm[j];
                trow[j] = tm[j] + alpha * tlap + dalpha * lap;
            }
        }
        std::mem::swap(&mut u, &mut next);
        std::mem::swap(&mut t, &mut tnext);
    }
    let (mut loss, mut tloss) = (0.0, 0.0);
    for k in 0..nn {
        let e = u[k] - target[k];
        loss += e * e;
        tloss += e * t[k];
    }
    (0.5 * loss, tloss)
}
