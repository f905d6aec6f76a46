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

use crate::overhead_parts::peak_heap::heap_use_of_one_call;
use crate::problems::*;
use crate::{
    format_ratio, interleaved_medians, print_table, uniform, Variant, GENERATED_GRAD,
    GENERATED_VJP, PRIMAL,
};

/// Points evaluated per call of a variant (amortises the call through `Box<dyn FnMut>`).
const SMALL_POINTS: usize = 64;

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

/// One test function in all its forms.
struct SmallFn {
    name: &'static str,
    lo: [f64; 2],
    hi: [f64; 2],
    primal: fn(&[f64; 2]) -> f64,
    hand: fn(&[f64; 2]) -> (f64, [f64; 2]),
    vjp: fn(&[f64; 2], &mut [f64; 2], f64) -> f64,
    grad: fn(&[f64; 2]) -> (f64, [f64; 2]),
    num_dual: fn(SVector<D2, 2>) -> D2,
}

fn functions() -> [SmallFn; 4] {
    [
        SmallFn {
            name: "rosenbrock_2d",
            lo: [-2.0, -1.0],
            hi: [2.0, 3.0],
            primal: rosenbrock2,
            hand: rosenbrock2_gradient,
            vjp: generated::rosenbrock2_vjp,
            grad: |p| {
                let (v, g) = generated::rosenbrock2_grad(p);
                (v, g.p)
            },
            num_dual: nd_rosenbrock,
        },
        SmallFn {
            name: "himmelblau",
            lo: [-5.0, -5.0],
            hi: [5.0, 5.0],
            primal: himmelblau,
            hand: himmelblau_gradient,
            vjp: generated::himmelblau_vjp,
            grad: |p| {
                let (v, g) = generated::himmelblau_grad(p);
                (v, g.p)
            },
            num_dual: nd_himmelblau,
        },
        SmallFn {
            name: "beale",
            lo: [-4.5, -4.5],
            hi: [4.5, 4.5],
            primal: beale,
            hand: beale_gradient,
            vjp: generated::beale_vjp,
            grad: |p| {
                let (v, g) = generated::beale_grad(p);
                (v, g.p)
            },
            num_dual: nd_beale,
        },
        SmallFn {
            name: "ackley",
            lo: [-5.0, -5.0],
            hi: [5.0, 5.0],
            primal: ackley,
            hand: ackley_gradient,
            vjp: generated::ackley_vjp,
            grad: |p| {
                let (v, g) = generated::ackley_grad(p);
                (v, g.p)
            },
            num_dual: nd_ackley,
        },
    ]
}

/// The variants of `f` over `points`.
fn variants<'a>(f: &SmallFn, points: &'a [[f64; 2]]) -> Vec<Variant<'a>> {
    let (primal, hand, vjp, grad, nd) = (f.primal, f.hand, f.vjp, f.grad, f.num_dual);
    let mut buffer = [0.0; 2];
    vec![
        (
            PRIMAL,
            Box::new(move || black_box(points).iter().map(primal).sum()),
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
fn points(f: &SmallFn, rng: &mut ChaCha8Rng) -> Vec<[f64; 2]> {
    let xs = uniform(rng, SMALL_POINTS, f.lo[0], f.hi[0]);
    let ys = uniform(rng, SMALL_POINTS, f.lo[1], f.hi[1]);
    xs.into_iter().zip(ys).map(|(x, y)| [x, y]).collect()
}

/// Calls `visit` with each function's name and variants.
pub fn for_each_small(
    rng: &mut ChaCha8Rng,
    mut visit: impl FnMut(&'static str, &mut [Variant<'_>]),
) {
    for f in functions() {
        let pts = points(&f, rng);
        visit(f.name, &mut variants(&f, &pts));
    }
}

fn format_ns(seconds: Option<f64>) -> String {
    match seconds {
        None => "-".to_string(),
        Some(s) => format!("{:.1} ns", s * 1e9),
    }
}

/// Measures and prints the table of the small functions whose name `wanted` accepts.
pub fn small_phase(rng: &mut ChaCha8Rng, wanted: impl Fn(&str) -> bool) {
    let mut rows = Vec::new();
    for_each_small(rng, |name, variants| {
        if !wanted(name) {
            return;
        }
        eprintln!("measuring ratios: {name}");
        let medians = interleaved_medians(variants);
        let grad_heap = variants
            .iter_mut()
            .find(|(n, _)| *n == GENERATED_GRAD)
            .map(|(_, run)| heap_use_of_one_call(&mut **run));
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
            grad_heap.map_or("-".to_string(), |u| {
                format!("{:.0}", u.allocations as f64 / SMALL_POINTS as f64)
            }),
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
            "grad allocs/pt",
        ],
        &rows,
    );
}
