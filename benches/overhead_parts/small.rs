//! The two-variable test functions of `benches/overhead.rs` (Rosenbrock, Himmelblau, Beale,
//! Ackley): takes `SMALL_POINTS` seeded points per function, gives per function the variants
//! primal, hand-written gradient, generated `_vjp` and `_grad`, and num-dual's fixed-size forward
//! gradient (`num_dual::gradient` on `DualSVec64<2>`), each evaluating all the points per call,
//! and the table of their times per point and ratios, measured in the same run.
//!
//! Every variant sums what it computes over the points (value and both partials), so none of it
//! is dead code; `_vjp` adds into one adjoint buffer kept across the points and calls, as the
//! large problems' `generated_vjp` does, `_grad` returns a fresh gradient per point.

use std::f64::consts::{E, PI};
use std::hint::black_box;

use nalgebra_num_dual::SVector;
use num_dual::{gradient, DualNum, DualSVec64};
use rand_chacha::ChaCha8Rng;

use super::common::*;
use crate::problems::*;

/// Points evaluated per call of a variant (amortises the call through `Box<dyn FnMut>`).
pub const SMALL_POINTS: usize = 64;

const HAND_GRAD: &str = "hand_grad";
const NUM_DUAL: &str = "num_dual";

type D2 = DualSVec64<2>;

fn nd_rosenbrock(v: SVector<D2, 2>) -> D2 {
    let (x, y) = (v[0], v[1]);
    (-x + 1.0).powi(2) + (y - x * x).powi(2) * 100.0
}

fn nd_himmelblau(v: SVector<D2, 2>) -> D2 {
    let (x, y) = (v[0], v[1]);
    (x * x + y - 11.0).powi(2) + (x + y * y - 7.0).powi(2)
}

fn nd_beale(v: SVector<D2, 2>) -> D2 {
    let (x, y) = (v[0], v[1]);
    (-x + x * y + 1.5).powi(2)
        + (-x + x * y * y + 2.25).powi(2)
        + (-x + x * y * y * y + 2.625).powi(2)
}

fn nd_ackley(v: SVector<D2, 2>) -> D2 {
    let (x, y) = (v[0], v[1]);
    let r = ((x * x + y * y) * 0.5).sqrt();
    let c = ((x * (2.0 * PI)).cos() + (y * (2.0 * PI)).cos()) * 0.5;
    (r * -0.2).exp() * -20.0 - c.exp() + E + 20.0
}

/// A test function's name and the box its points are drawn from.
struct Domain {
    name: &'static str,
    lo: [f64; 2],
    hi: [f64; 2],
}

/// The variants of one function over `points`. Generic over the functions (items or
/// non-capturing closures, each its own type), so every call is direct and may be inlined into
/// the loop over the points, as in a user's code.
fn variants<'a, P, H, V, G, N>(
    primal: P,
    hand: H,
    vjp: V,
    grad: G,
    nd: N,
    points: &'a [[f64; 2]],
) -> Vec<Variant<'a>>
where
    P: Fn(&[f64; 2]) -> f64 + 'a,
    H: Fn(&[f64; 2]) -> (f64, [f64; 2]) + 'a,
    V: Fn(&[f64; 2], &mut [f64; 2], f64) -> f64 + 'a,
    G: Fn(&[f64; 2]) -> (f64, [f64; 2]) + 'a,
    N: Fn(SVector<D2, 2>) -> D2 + Copy + 'a,
{
    let mut buffer = [0.0; 2];
    vec![
        (
            PRIMAL,
            Box::new(move || black_box(points).iter().map(&primal).sum()),
        ),
        (
            HAND_GRAD,
            Box::new(move || {
                let mut acc = 0.0;
                for p in black_box(points) {
                    let (v, g) = hand(p);
                    acc += v + g[0] + g[1];
                }
                acc
            }),
        ),
        (
            GENERATED_VJP,
            Box::new(move || {
                let d = black_box(&mut buffer);
                let mut acc = 0.0;
                for p in black_box(points) {
                    acc += vjp(p, d, 1.0);
                }
                acc + d[0] + d[1]
            }),
        ),
        (
            GENERATED_GRAD,
            Box::new(move || {
                let mut acc = 0.0;
                for p in black_box(points) {
                    let (v, g) = grad(p);
                    acc += v + g[0] + g[1];
                }
                acc
            }),
        ),
        (
            NUM_DUAL,
            Box::new(move || {
                let mut acc = 0.0;
                for p in black_box(points) {
                    let (v, g) = gradient(nd, &SVector::from(*p));
                    acc += v + g[0] + g[1];
                }
                acc
            }),
        ),
    ]
}

/// `SMALL_POINTS` points of `f`'s box.
fn points(f: &Domain, rng: &mut ChaCha8Rng) -> Vec<[f64; 2]> {
    let xs = uniform(rng, SMALL_POINTS, f.lo[0], f.hi[0]);
    let ys = uniform(rng, SMALL_POINTS, f.lo[1], f.hi[1]);
    xs.into_iter().zip(ys).map(|(x, y)| [x, y]).collect()
}

/// Calls `visit` with each function's name and variants.
pub fn for_each_small(
    rng: &mut ChaCha8Rng,
    mut visit: impl FnMut(&'static str, &mut [Variant<'_>]),
) {
    let domain = |name, lo, hi| Domain { name, lo, hi };
    let d = domain("rosenbrock_2d", [-2.0, -1.0], [2.0, 3.0]);
    let pts = points(&d, rng);
    let grad = |p: &[f64; 2]| {
        let (v, g) = generated::rosenbrock2_grad(p);
        (v, g.p)
    };
    let vjp = generated::rosenbrock2_vjp;
    let mut v = variants(
        rosenbrock2,
        rosenbrock2_gradient,
        vjp,
        grad,
        nd_rosenbrock,
        &pts,
    );
    visit(d.name, &mut v);

    let d = domain("himmelblau", [-5.0, -5.0], [5.0, 5.0]);
    let pts = points(&d, rng);
    let grad = |p: &[f64; 2]| {
        let (v, g) = generated::himmelblau_grad(p);
        (v, g.p)
    };
    let vjp = generated::himmelblau_vjp;
    let mut v = variants(
        himmelblau,
        himmelblau_gradient,
        vjp,
        grad,
        nd_himmelblau,
        &pts,
    );
    visit(d.name, &mut v);

    let d = domain("beale", [-4.5, -4.5], [4.5, 4.5]);
    let pts = points(&d, rng);
    let grad = |p: &[f64; 2]| {
        let (v, g) = generated::beale_grad(p);
        (v, g.p)
    };
    let mut v = variants(
        beale,
        beale_gradient,
        generated::beale_vjp,
        grad,
        nd_beale,
        &pts,
    );
    visit(d.name, &mut v);

    let d = domain("ackley", [-5.0, -5.0], [5.0, 5.0]);
    let pts = points(&d, rng);
    let grad = |p: &[f64; 2]| {
        let (v, g) = generated::ackley_grad(p);
        (v, g.p)
    };
    let mut v = variants(
        ackley,
        ackley_gradient,
        generated::ackley_vjp,
        grad,
        nd_ackley,
        &pts,
    );
    visit(d.name, &mut v);
}

fn format_ns(seconds: Option<f64>) -> String {
    match seconds {
        None => "-".to_string(),
        Some(s) => format!("{:.1} ns", s * 1e9),
    }
}

/// Measures and prints the table of the small functions whose name `wanted` accepts.
pub fn small_phase(
    rng: &mut ChaCha8Rng,
    wanted: impl Fn(&str) -> bool,
    mut interleaved_medians: impl FnMut(&mut [Variant<'_>]) -> Vec<f64>,
) {
    let mut rows = Vec::new();
    for_each_small(rng, |name, variants| {
        if !wanted(name) {
            return;
        }
        eprintln!("measuring ratios: {name}");
        let medians = interleaved_medians(variants);
        let time_of = |v: &str| {
            variants
                .iter()
                .zip(&medians)
                .find(|((n, _), _)| *n == v)
                .map(|(_, &t)| t / SMALL_POINTS as f64)
        };
        let (p, h, gv, gg, nd) = (
            time_of(PRIMAL),
            time_of(HAND_GRAD),
            time_of(GENERATED_VJP),
            time_of(GENERATED_GRAD),
            time_of(NUM_DUAL),
        );
        rows.push([
            name.to_string(),
            format_ns(p),
            format_ns(h),
            format_ns(gv),
            format_ns(gg),
            format_ns(nd),
            format_ratio(gv, nd),
            format_ratio(gg, nd),
            format_ratio(gv, h),
            format_ratio(gv, p),
        ]);
    });
    if rows.is_empty() {
        return;
    }
    println!();
    println!(
        "Two-variable functions, `&[f64; 2]` argument: time per point (median, {SMALL_POINTS} points a call), same run:"
    );
    print_table(
        &[
            "function",
            "primal",
            "hand grad",
            "gen vjp",
            "gen grad",
            "num-dual",
            "vjp/num-dual",
            "grad/num-dual",
            "vjp/hand",
            "vjp/primal",
        ],
        &rows,
    );
}
