//! `#[derive(Differentiable)]` tests: takes named, tuple, unit, generic (types, lifetimes,
//! consts, where-clauses), nested and recursive structs, with float, integer, `bool`, `String` and
//! skipped fields, gives checks that the generated `<Name>Tangent` has the expected shape and
//! works through the runtime's free functions and container impls exactly as the hand-written
//! `Particle` of `tests/value.rs` does (zero, accumulate, set_zero, scale with the strong zero,
//! add_scaled, length-mismatch panics at the caller), that `Clone`/`Debug`/`PartialEq` carry the
//! bounds they need and no more, and that the expansion is warning-free and hygienic.
#![deny(warnings)]

mod common;

use autodiff_runtime::value::{accumulate, add_scaled, scale, scaled, set_zero, zero_tangent};
use autodiff_runtime::{Differentiable, Dual, Scalar, Scale, Tangent};
use common::{c, TestFloat};
use std::fmt::Debug;
use std::marker::PhantomData;
use std::rc::Rc;

/// Runs a generic test body for f32 and f64.
macro_rules! both_floats {
    ($name:ident, $body:ident) => {
        #[test]
        fn $name() {
            $body::<f32>();
            $body::<f64>();
        }
    };
}

/// Compiles only if `T` is `Clone + Debug + PartialEq`.
fn assert_clone_debug_eq<T: Clone + Debug + PartialEq>(_: &T) {}

// ---------------------------------------------------------------------------------------------
// Named structs: the derive generates what tests/value.rs writes by hand

#[derive(Differentiable)]
struct Particle {
    pos: [f64; 3],
    mass: f64,
    id: usize,
}

fn particle(pos: [f64; 3], mass: f64, id: usize) -> Particle {
    Particle { pos, mass, id }
}

#[test]
fn named_struct_tangent_type_is_field_by_field() {
    // The tangent's fields are the fields' tangents: written out, this compiles only if they are.
    let t: ParticleTangent = ParticleTangent {
        pos: [0.0_f64; 3],
        mass: 0.0_f64,
        id: (),
    };
    let _: <Particle as Differentiable>::Tangent = t.clone();
    let p = particle([1.0, 2.0, 3.0], 2.0, 7);
    assert_eq!(zero_tangent(&p), t);
    assert_eq!(p.id, 7);
    assert_clone_debug_eq(&t);
}

/// The same steps and numbers as `derived_structs_plug_in` in tests/value.rs.
#[test]
fn named_struct_through_the_free_functions() {
    let p = particle([1.0, 2.0, 3.0], 2.0, 7);
    let mut t = zero_tangent(&p);
    assert_eq!(
        t,
        ParticleTangent {
            pos: [0.0; 3],
            mass: 0.0,
            id: ()
        }
    );
    let g = ParticleTangent {
        pos: [1.0, 0.0, -1.0],
        mass: 0.5,
        id: (),
    };
    accumulate(&mut t, &g);
    add_scaled(&mut t, &g, 2.0);
    assert_eq!(
        t,
        ParticleTangent {
            pos: [3.0, 0.0, -3.0],
            mass: 1.5,
            id: ()
        }
    );
    scale(&mut t, -2.0);
    assert_eq!(t.pos, [-6.0, 0.0, 6.0]);
    assert_eq!(t.mass, -3.0);
    let half = scaled(t.clone(), 0.5);
    assert_eq!(half.pos, [-3.0, 0.0, 3.0]);
    set_zero(&mut t);
    assert_eq!(t, zero_tangent(&p));

    // Containers of derived structs go through the container impls.
    let ps = vec![particle([0.0; 3], 1.0, 0), p];
    let mut ts = zero_tangent(&ps);
    accumulate(&mut ts, &vec![g.clone(), g.clone()]);
    scale(&mut ts, 4.0);
    assert_eq!(
        ts[1],
        ParticleTangent {
            pos: [4.0, 0.0, -4.0],
            mass: 2.0,
            id: ()
        }
    );
    // Into a `&mut [ParticleTangent]` adjoint buffer, as `_vjp` would receive one.
    let buf: &mut [ParticleTangent] = &mut ts;
    add_scaled(&mut buf[..1], &[g.clone()][..], -4.0);
    assert_eq!(ts[0].pos, [0.0; 3]);
    assert_eq!(ts[0].mass, 0.0);

    let arr = [particle([1.0; 3], 1.0, 1), particle([2.0; 3], 2.0, 2)];
    let mut ta: [ParticleTangent; 2] = zero_tangent(&arr);
    accumulate(&mut ta, &[g.clone(), g.clone()]);
    assert_eq!(ta[0], g);
    let pair = (particle([0.0; 3], 1.0, 3), 2.5_f64);
    let mut tp: (ParticleTangent, f64) = zero_tangent(&pair);
    add_scaled(&mut tp, &(g.clone(), 1.0), 3.0);
    assert_eq!(tp.0.mass, 1.5);
    assert_eq!(tp.1, 3.0);
    // References delegate.
    let r = &arr[0];
    let _: ParticleTangent = zero_tangent(&r);
}

#[test]
fn debug_output_matches_a_derived_debug() {
    #[derive(Debug)]
    #[allow(dead_code)]
    struct ParticleTangent {
        pos: [f64; 3],
        mass: f64,
        id: (),
    }
    let p = particle([1.0, 2.0, 3.0], 2.0, 7);
    let derived = ParticleTangent {
        pos: [0.0; 3],
        mass: 0.0,
        id: (),
    };
    assert_eq!(format!("{:?}", zero_tangent(&p)), format!("{derived:?}"));
    assert_eq!(
        format!("{:?}", zero_tangent(&p)),
        "ParticleTangent { pos: [0.0, 0.0, 0.0], mass: 0.0, id: () }"
    );
}

// ---------------------------------------------------------------------------------------------
// f32, tuple and unit structs, mixed fields

#[derive(Differentiable)]
struct Body32 {
    v: [f32; 2],
    w: f32,
    steps: u32,
    alive: bool,
}

#[test]
fn f32_struct_scales_by_f32() {
    let b = Body32 {
        v: [1.0, 2.0],
        w: 3.0,
        steps: 4,
        alive: true,
    };
    let mut t = zero_tangent(&b);
    accumulate(
        &mut t,
        &Body32Tangent {
            v: [1.0, -1.0],
            w: 2.0,
            steps: (),
            alive: (),
        },
    );
    scale(&mut t, 1.5_f32);
    assert_eq!(t.v, [1.5_f32, -1.5]);
    assert_eq!(t.w, 3.0_f32);
    let _: ((), ()) = (t.steps, t.alive);
    assert!(b.alive && b.steps == 4);
}

#[derive(Differentiable)]
struct Vec2(f64, f64);

#[derive(Differentiable)]
pub struct Tagged(pub f32, pub u8, char);

#[test]
fn tuple_structs_keep_positions() {
    let v = Vec2(3.0, 4.0);
    let mut t: Vec2Tangent = zero_tangent(&v);
    assert_eq!(t, Vec2Tangent(0.0, 0.0));
    accumulate(&mut t, &Vec2Tangent(1.0, 2.0));
    add_scaled(&mut t, &Vec2Tangent(1.0, 0.0), 10.0);
    assert_eq!((t.0, t.1), (11.0, 2.0));
    assert_eq!(format!("{t:?}"), "Vec2Tangent(11.0, 2.0)");
    assert_eq!(v.0 + v.1, 7.0);

    let g = Tagged(2.0, 9, 'x');
    let mut tg: TaggedTangent = zero_tangent(&g);
    assert_eq!(tg, TaggedTangent(0.0, (), ()));
    tg.0 = 1.0;
    scale(&mut tg, 0.25_f32);
    assert_eq!(tg.0, 0.25);
    assert_eq!(format!("{tg:?}"), "TaggedTangent(0.25, (), ())");
    assert_eq!((g.1, g.2), (9, 'x'));
}

#[derive(Differentiable)]
struct Marker;

#[test]
fn unit_structs_have_unit_like_tangents() {
    let mut t: MarkerTangent = zero_tangent(&Marker);
    accumulate(&mut t, &MarkerTangent);
    add_scaled(&mut t, &MarkerTangent, 2.0_f64);
    scale(&mut t, 2.0_f32);
    set_zero(&mut t);
    assert_eq!(t, MarkerTangent);
    assert_eq!(format!("{t:?}"), "MarkerTangent");
    // Empty braces and parentheses too.
    #[derive(Differentiable)]
    struct Empty {}
    #[derive(Differentiable)]
    struct EmptyTuple();
    assert_eq!(zero_tangent(&Empty {}), EmptyTangent {});
    assert_eq!(zero_tangent(&EmptyTuple()), EmptyTupleTangent());
}

#[derive(Differentiable)]
struct Mixed {
    x: f64,
    n: i64,
    flag: bool,
    name: String,
    letters: Vec<char>,
    pairs: Vec<(usize, f64)>,
    grid: [[f64; 2]; 2],
}

#[test]
fn mixed_fields_get_unit_tangents_for_integers_bools_and_strings() {
    let m = Mixed {
        x: 1.0,
        n: -3,
        flag: false,
        name: "m".to_string(),
        letters: vec!['a', 'b'],
        pairs: vec![(0, 1.0), (5, 2.0)],
        grid: [[1.0, 2.0], [3.0, 4.0]],
    };
    let mut t = zero_tangent(&m);
    assert_eq!(
        t,
        MixedTangent {
            x: 0.0,
            n: (),
            flag: (),
            name: (),
            letters: vec![(), ()],
            pairs: vec![((), 0.0), ((), 0.0)],
            grid: [[0.0; 2]; 2],
        }
    );
    let g = MixedTangent {
        x: 1.0,
        n: (),
        flag: (),
        name: (),
        letters: vec![(), ()],
        pairs: vec![((), 1.0), ((), -1.0)],
        grid: [[1.0, 0.0], [0.0, 1.0]],
    };
    add_scaled(&mut t, &g, 3.0);
    assert_eq!(t.pairs, vec![((), 3.0), ((), -3.0)]);
    assert_eq!(t.grid, [[3.0, 0.0], [0.0, 3.0]]);
    let _ = (m.n, m.flag, m.name, m.letters, m.pairs, m.grid, m.x);
}

// ---------------------------------------------------------------------------------------------
// The strong zero, set_zero, length mismatches

fn strong_zero<T: TestFloat + Scalar>() {
    #[derive(Differentiable)]
    struct S<T> {
        a: T,
        v: Vec<T>,
        k: usize,
    }
    let s = S {
        a: c::<T>(1.0),
        v: vec![c(1.0); 2],
        k: 0,
    };
    assert_eq!(s.k, 0);
    let bad = || STangent {
        a: T::infinity(),
        v: vec![T::nan(), T::neg_infinity()],
        k: (),
    };
    // Zero times infinity or NaN is zero, either way round.
    let mut t = bad();
    scale(&mut t, T::zero());
    assert_eq!(t, zero_tangent(&s), "{}: scale by 0", T::NAME);
    let z = scaled(zero_tangent(&s), T::infinity());
    assert_eq!(z, zero_tangent(&s), "{}: 0 scaled by inf", T::NAME);
    let mut acc = STangent {
        a: c::<T>(1.0),
        v: vec![c(2.0); 2],
        k: (),
    };
    add_scaled(&mut acc, &bad(), T::zero());
    add_scaled(&mut acc, &zero_tangent(&s), T::nan());
    assert_eq!(acc.a, c(1.0), "{}", T::NAME);
    assert_eq!(acc.v, vec![c::<T>(2.0); 2], "{}", T::NAME);
    // A nonzero factor keeps infinities and NaNs; accumulation is a plain add.
    let t = scaled(bad(), c(2.0));
    assert_eq!(t.a, T::infinity());
    assert!(t.v[0].is_nan());
    accumulate(&mut acc, &bad());
    assert!(acc.v[0].is_nan());
}
both_floats!(scale_has_the_strong_zero, strong_zero);

#[test]
fn set_zero_keeps_shapes_and_allocations() {
    #[derive(Differentiable)]
    struct Cloud {
        pts: Vec<[f64; 2]>,
        w: Vec<Vec<f64>>,
    }
    let c = Cloud {
        pts: vec![[1.0, 2.0]; 100],
        w: vec![vec![1.0], vec![1.0, 2.0]],
    };
    let mut t = zero_tangent(&c);
    accumulate(
        &mut t,
        &CloudTangent {
            pts: c.pts.clone(),
            w: c.w.clone(),
        },
    );
    let (ptr, cap) = (t.pts.as_ptr(), t.pts.capacity());
    set_zero(&mut t);
    assert_eq!(t, zero_tangent(&c));
    assert_eq!((t.pts.as_ptr(), t.pts.capacity()), (ptr, cap));
    assert_eq!(t.w, vec![vec![0.0], vec![0.0, 0.0]]);
}

#[derive(Differentiable)]
struct Trajectory {
    xs: Vec<f64>,
    t0: f64,
}

#[test]
#[should_panic(expected = "autodiff: cannot add a tangent of length 2 into one of length 3")]
fn length_mismatch_in_a_field_panics() {
    let tr = Trajectory {
        xs: vec![0.0; 3],
        t0: 0.0,
    };
    let mut t = zero_tangent(&tr);
    accumulate(
        &mut t,
        &TrajectoryTangent {
            xs: vec![1.0; 2],
            t0: tr.t0,
        },
    );
}

#[test]
#[should_panic(expected = "autodiff: cannot add a tangent of length 1 into one of length 3")]
fn length_mismatch_in_add_scaled_panics() {
    let tr = Trajectory {
        xs: vec![0.0; 3],
        t0: 0.0,
    };
    let mut t = zero_tangent(&tr);
    let short = TrajectoryTangent {
        xs: vec![1.0],
        t0: tr.t0,
    };
    add_scaled(&mut t, &short, 2.0);
}

/// The generated `accumulate` and `add_scaled` are `#[track_caller]`, as the runtime's are: a
/// length mismatch is reported at the line that called the free function.
#[test]
fn length_mismatch_panic_points_at_the_caller() {
    use std::cell::Cell;
    thread_local! {
        static ARMED: Cell<bool> = const { Cell::new(false) };
        static AT: Cell<Option<(String, u32)>> = const { Cell::new(None) };
    }
    // The hook is global; it records only panics of this thread while armed.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        match (ARMED.with(Cell::get), info.location()) {
            (true, Some(loc)) => AT.with(|l| l.set(Some((loc.file().to_string(), loc.line())))),
            _ => previous(info),
        }
    }));
    let mk = |n| TrajectoryTangent {
        xs: vec![1.0; n],
        t0: 0.0,
    };
    let located = |f: &dyn Fn()| {
        ARMED.with(|a| a.set(true));
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        ARMED.with(|a| a.set(false));
        assert!(caught.is_err());
        let (file, line) = AT.with(|l| l.take()).expect("the hook saw the panic");
        assert!(file.ends_with("derive.rs"), "panic located in {file}");
        line
    };
    let line = line!() + 1;
    let got = located(&|| accumulate(&mut mk(3), &mk(2)));
    assert_eq!(got, line);
    let line = line!() + 1;
    let got = located(&|| add_scaled(&mut mk(3), &mk(2), 2.0));
    assert_eq!(got, line);
}

// ---------------------------------------------------------------------------------------------
// Generic structs

#[derive(Differentiable)]
struct State<T> {
    x: Vec<T>,
    v: Vec<T>,
    m: T,
    steps: usize,
}

/// What a generic caller needs: `T: Scalar` and nothing about `StateTangent`. Every operation
/// a generated companion would do on a `State<T>` argument.
fn generic_state_body<T: Scalar + Debug>(s: &State<T>) -> StateTangent<T> {
    let mut t: StateTangent<T> = zero_tangent(s);
    let g = StateTangent {
        x: s.x.clone(),
        v: s.v.clone(),
        m: s.m,
        steps: (),
    };
    accumulate(&mut t, &g);
    let two = T::one() + T::one();
    add_scaled(&mut t, &g, two);
    scale(&mut t, two);
    let copy = t.clone();
    assert_eq!(copy, t);
    let _ = format!("{t:?}");
    t
}

fn generic_structs<T: TestFloat + Scalar>() {
    let s = State {
        x: vec![c::<T>(1.0), c(2.0)],
        v: vec![c(-1.0), c(0.5)],
        m: c(3.0),
        steps: 12,
    };
    let t = generic_state_body(&s);
    assert_eq!(t.x, vec![c::<T>(6.0), c(12.0)], "{}", T::NAME);
    assert_eq!(t.v, vec![c::<T>(-6.0), c(3.0)], "{}", T::NAME);
    assert_eq!(t.m, c::<T>(18.0), "{}", T::NAME);
    assert_eq!(s.steps, 12);
}
both_floats!(generic_struct_in_f32_and_f64, generic_structs);

#[test]
fn generic_struct_with_duals_and_tuples() {
    let s = State {
        x: vec![Dual::new(1.0_f64, 1.0)],
        v: vec![Dual::new(0.0, 0.0)],
        m: Dual::new(2.0, 0.5),
        steps: 1,
    };
    let t = generic_state_body(&s);
    assert_eq!((t.m.re, t.m.eps), (12.0, 3.0));
    // A type argument whose tangent is a tuple: `T::Tangent` need not be `T`.
    let r = State {
        x: vec![(1_usize, 1.0_f32)],
        v: vec![],
        m: (2_usize, 2.0_f32),
        steps: 0,
    };
    let tr: StateTangent<(usize, f32)> = zero_tangent(&r);
    assert_eq!(tr.x, vec![((), 0.0_f32)]);
    assert_eq!(tr.m, ((), 0.0_f32));
    assert_eq!(r.steps, 0);
}

/// Bounds and where-clauses are carried over; a generic tangent is `Clone` without `T: Clone`
/// and `Debug` when the tangent of `T` is, whether or not `T` is.
#[test]
fn generic_bounds_are_those_the_fields_need() {
    #[derive(Differentiable)]
    struct Bounded<T: Copy, U>
    where
        U: Default,
    {
        a: [T; 2],
        b: U,
    }
    let bd = Bounded {
        a: [1.0_f64; 2],
        b: 3_u8,
    };
    let tb: BoundedTangent<f64, u8> = zero_tangent(&bd);
    assert_eq!(tb, BoundedTangent { a: [0.0; 2], b: () });
    assert_eq!(bd.b, 3);

    /// Not `Clone`, not `Debug`, not `PartialEq`; its tangent is all three.
    struct Opaque(f64);
    impl Differentiable for Opaque {
        type Tangent = f64;
        fn zero_tangent(&self) -> f64 {
            0.0 * self.0
        }
    }
    #[derive(Differentiable)]
    struct Wrap<T> {
        inner: T,
        more: Vec<T>,
    }
    let w = Wrap {
        inner: Opaque(1.0),
        more: vec![Opaque(2.0)],
    };
    let tw: WrapTangent<Opaque> = zero_tangent(&w);
    assert_clone_debug_eq(&tw);
    assert_eq!(format!("{tw:?}"), "WrapTangent { inner: 0.0, more: [0.0] }");
}

/// A generic field whose tangent is neither `Debug` nor `PartialEq`: the tangent is still
/// `Clone`, `Tangent` and `Scale`, and `Debug`/`PartialEq` are bounded by the field's tangent.
#[test]
fn tangents_without_debug_still_work() {
    #[derive(Clone)]
    struct Bare(f64);
    impl Tangent for Bare {
        fn accumulate(&mut self, other: &Bare) {
            self.0 += other.0;
        }
        fn set_zero(&mut self) {
            self.0 = 0.0;
        }
    }
    impl Scale<f64> for Bare {
        fn scale(&mut self, s: f64) {
            self.0 = scaled(self.0, s);
        }
        fn add_scaled(&mut self, other: &Bare, s: f64) {
            add_scaled(&mut self.0, &other.0, s);
        }
    }
    struct Custom;
    impl Differentiable for Custom {
        type Tangent = Bare;
        fn zero_tangent(&self) -> Bare {
            Bare(0.0)
        }
    }
    #[derive(Differentiable)]
    struct Holder<C> {
        c: C,
        x: f64,
    }
    let h = Holder { c: Custom, x: 1.0 };
    let mut t = zero_tangent(&h);
    accumulate(
        &mut t,
        &HolderTangent {
            c: Bare(2.0),
            x: h.x,
        },
    );
    let t = scaled(t.clone(), 3.0);
    assert_eq!((t.c.0, t.x), (6.0, 3.0));
    // With a tangent that has them, it has `Debug` and `PartialEq` too.
    let h = Holder { c: 1.0_f64, x: 1.0 };
    assert_clone_debug_eq(&zero_tangent(&h));
}

#[test]
fn lifetimes_and_consts_are_carried_over() {
    #[derive(Differentiable)]
    struct View<'a, T> {
        xs: &'a [T],
        w: T,
    }
    let data = [1.0_f64, 2.0, 3.0];
    let v = View { xs: &data, w: 0.5 };
    let mut t: ViewTangent<'_, f64> = zero_tangent(&v);
    assert_eq!(t.xs, vec![0.0; 3]);
    accumulate(&mut t.xs[..], &data[..]);
    scale(&mut t, 2.0);
    assert_eq!(t.xs, vec![2.0, 4.0, 6.0]);
    assert_eq!(v.w, 0.5);

    #[derive(Differentiable)]
    struct Poly<const N: usize> {
        coef: [f64; N],
        degree: usize,
    }
    let p = Poly {
        coef: [1.0; 4],
        degree: 3,
    };
    let mut tp: PolyTangent<4> = zero_tangent(&p);
    add_scaled(
        &mut tp,
        &PolyTangent {
            coef: p.coef,
            degree: (),
        },
        0.5,
    );
    assert_eq!(tp.coef, [0.5; 4]);
    assert_eq!(p.degree, 3);
}

// ---------------------------------------------------------------------------------------------
// Nested and recursive structs

#[derive(Differentiable)]
struct System {
    particles: Vec<Particle>,
    anchor: Particle,
    corners: [Vec2; 2],
    state: State<f64>,
    time: f64,
}

#[test]
fn nested_structs_compose() {
    let sys = System {
        particles: vec![particle([1.0; 3], 1.0, 0), particle([2.0; 3], 2.0, 1)],
        anchor: particle([0.0; 3], 5.0, 9),
        corners: [Vec2(0.0, 0.0), Vec2(1.0, 1.0)],
        state: State {
            x: vec![1.0],
            v: vec![2.0],
            m: 1.0,
            steps: 0,
        },
        time: 0.0,
    };
    let mut t: SystemTangent = zero_tangent(&sys);
    assert_eq!(t.particles.len(), 2);
    assert_eq!(t.corners, [Vec2Tangent(0.0, 0.0), Vec2Tangent(0.0, 0.0)]);
    let mut g = t.clone();
    g.particles[1].mass = 1.0;
    g.anchor.pos = [1.0, 2.0, 3.0];
    g.corners[0].1 = 4.0;
    g.state.x[0] = 2.0;
    g.time = 1.0;
    accumulate(&mut t, &g);
    add_scaled(&mut t, &g, 0.5);
    assert_eq!(t.particles[1].mass, 1.5);
    assert_eq!(t.anchor.pos, [1.5, 3.0, 4.5]);
    assert_eq!(t.corners[0], Vec2Tangent(0.0, 6.0));
    assert_eq!(t.state.x, vec![3.0]);
    assert_eq!(t.time, 1.5);
    scale(&mut t, 0.0);
    assert_eq!(t, zero_tangent(&sys));
    assert_eq!(sys.time, 0.0);
}

#[derive(Differentiable)]
struct Outer<T> {
    inner: State<T>,
    pairs: Vec<Vec2>,
    w: T,
}

fn nested_generic<T: TestFloat + Scalar>() {
    let o = Outer {
        inner: State {
            x: vec![c::<T>(1.0)],
            v: vec![],
            m: c(1.0),
            steps: 0,
        },
        pairs: vec![Vec2(1.0, 2.0)],
        w: c::<T>(2.0),
    };
    let mut t: OuterTangent<T> = zero_tangent(&o);
    t.inner.m = c(1.0);
    t.w = c(2.0);
    // `OuterTangent<T>` mixes `T` and `f64` fields: it is `Scale<T>` only for `T = f64`.
    let u = t.clone();
    accumulate(&mut t, &u);
    assert_eq!((t.inner.m, t.w), (c(2.0), c(4.0)), "{}", T::NAME);
    assert_eq!(o.w, c(2.0));
}
both_floats!(nested_generic_structs, nested_generic);

/// `Self` in a field type is the struct itself, also in its tangent.
#[derive(Differentiable)]
struct Tree {
    w: f64,
    kids: Vec<Self>,
}

#[test]
fn recursive_structs() {
    let leaf = |w| Tree { w, kids: vec![] };
    let tree = Tree {
        w: 1.0,
        kids: vec![
            leaf(2.0),
            Tree {
                w: 3.0,
                kids: vec![leaf(4.0)],
            },
        ],
    };
    let mut t: TreeTangent = zero_tangent(&tree);
    assert_eq!(t.kids.len(), 2);
    assert_eq!(t.kids[1].kids.len(), 1);
    t.kids[1].kids[0].w = 1.0;
    let g = t.clone();
    add_scaled(&mut t, &g, 2.0);
    assert_eq!(t.kids[1].kids[0].w, 3.0);
    assert_eq!(
        format!("{:?}", t.kids[0]),
        "TreeTangent { w: 0.0, kids: [] }"
    );
    assert_eq!(tree.w + tree.kids[0].w, 3.0);
}

/// A generic recursive struct, spelling its own name.
#[derive(Differentiable)]
struct GTree<T> {
    w: T,
    kids: Vec<GTree<T>>,
}

fn generic_recursive<T: TestFloat + Scalar>() {
    let tree = GTree {
        w: c::<T>(1.0),
        kids: vec![GTree {
            w: c(2.0),
            kids: vec![],
        }],
    };
    let mut t: GTreeTangent<T> = zero_tangent(&tree);
    t.kids[0].w = c(1.0);
    let g = t.clone();
    add_scaled(&mut t, &g, c(3.0));
    assert_eq!(t.kids[0].w, c(4.0), "{}", T::NAME);
    assert_eq!(t, scaled(g, c(4.0)));
    assert_eq!(tree.w + tree.kids[0].w, c(3.0));
}
both_floats!(generic_recursive_structs, generic_recursive);

/// Mutually recursive structs (not generic): each one's tangent holds the other's. Everything
/// but `Scale` works; proving `GroupTangent: Scale<f64>` needs `MemberTangent: Scale<f64>`,
/// which needs the first again, and rustc overflows (see DERIVE-NOTES.md).
#[derive(Differentiable)]
struct Group {
    members: Vec<Member>,
    weight: f64,
}

#[derive(Differentiable)]
struct Member {
    subgroups: Vec<Group>,
    score: f64,
}

#[test]
fn mutually_recursive_structs() {
    let g = Group {
        members: vec![Member {
            subgroups: vec![Group {
                members: vec![],
                weight: 2.0,
            }],
            score: 1.0,
        }],
        weight: 1.0,
    };
    let mut t: GroupTangent = zero_tangent(&g);
    t.members[0].subgroups[0].weight = 1.0;
    let u = t.clone();
    accumulate(&mut t, &u);
    accumulate(&mut t, &u);
    assert_eq!(t.members[0].subgroups[0].weight, 3.0);
    assert_ne!(t, u);
    set_zero(&mut t);
    assert_eq!(t, zero_tangent(&g));
    assert!(format!("{t:?}").starts_with("GroupTangent { members: [MemberTangent {"));
    assert_eq!(g.members[0].score + g.members[0].subgroups[0].weight, 3.0);
}

// ---------------------------------------------------------------------------------------------
// `#[differentiable(skip)]`

struct Meters;

#[derive(Differentiable)]
struct Quantity<U> {
    value: f64,
    #[differentiable(skip)]
    unit: PhantomData<U>,
    #[differentiable(skip)]
    label: Rc<str>,
    #[differentiable(skip)]
    limit: Option<f64>,
    #[differentiable(skip)]
    frozen: f64,
}

#[test]
fn skipped_fields_are_constants() {
    let q: Quantity<Meters> = Quantity {
        value: 2.0,
        unit: PhantomData,
        label: "len".into(),
        limit: Some(3.0),
        frozen: 7.0,
    };
    // `U` is only in a skipped field: the tangent does not take it.
    let mut t: QuantityTangent = zero_tangent(&q);
    assert_eq!(
        t,
        QuantityTangent {
            value: 0.0,
            unit: (),
            label: (),
            limit: (),
            frozen: (),
        }
    );
    t.value = 1.0;
    scale(&mut t, 3.0);
    assert_eq!(t.value, 3.0);
    let _ = (q.unit, q.label, q.limit, q.frozen);

    // A tuple field, and a parameter used both in a skipped and in a kept field.
    #[derive(Differentiable)]
    struct Pair<T>(T, #[differentiable(skip)] Option<T>);
    let p = Pair(1.0_f32, None);
    let tp: PairTangent<f32> = zero_tangent(&p);
    assert_eq!(tp, PairTangent(0.0, ()));
    assert!(p.1.is_none());
}

/// Raw identifiers, a type written by a macro, a skipped closure, an unsized last field.
#[test]
fn unusual_syntax() {
    macro_rules! pair {
        ($t:ty) => {
            ($t, $t)
        };
    }
    #[derive(Differentiable)]
    #[allow(non_camel_case_types)]
    struct r#match {
        r#type: f64,
        by_macro: pair!(f64),
        #[differentiable(skip)]
        f: Box<dyn Fn(f64) -> f64>,
    }
    let m = r#match {
        r#type: 1.0,
        by_macro: (2.0, 3.0),
        f: Box::new(|x| x),
    };
    let t: matchTangent = zero_tangent(&m);
    assert_eq!(
        format!("{t:?}"),
        "matchTangent { type: 0.0, by_macro: (0.0, 0.0), f: () }"
    );
    assert_eq!((m.f)(m.r#type) + m.by_macro.0, 3.0);

    #[derive(Differentiable)]
    struct Tail<T: ?Sized> {
        n: usize,
        data: T,
    }
    let boxed: Box<Tail<[f64]>> = Box::new(Tail {
        n: 2,
        data: [1.0, 2.0],
    });
    let t: TailTangent<[f64]> = zero_tangent(&*boxed);
    assert_eq!(t.data, vec![0.0, 0.0]);
    assert_eq!(boxed.n, 2);
}

// ---------------------------------------------------------------------------------------------
// Visibility, docs, hygiene

/// Public structs get public tangents with documented fields (`missing_docs` is denied here).
pub mod documented {
    #![deny(missing_docs)]
    use autodiff_runtime::Differentiable;

    /// A public struct.
    #[derive(Differentiable)]
    pub struct Public {
        /// A public field.
        pub x: f64,
        /// Another one.
        pub n: usize,
        y: f64,
    }

    /// A public tuple struct.
    #[derive(Differentiable)]
    pub struct PublicTuple(pub f64, f64);

    impl Public {
        /// Makes one.
        pub fn new(x: f64) -> Self {
            Public { x, n: 0, y: x }
        }
        /// Its private field.
        pub fn y(&self) -> f64 {
            self.y
        }
    }

    impl PublicTuple {
        /// Makes one.
        pub fn new(a: f64, b: f64) -> Self {
            PublicTuple(a, b)
        }
        /// Its private field.
        pub fn second(&self) -> f64 {
            self.1
        }
    }
}

#[test]
fn public_tangents_are_public() {
    use documented::{Public, PublicTangent, PublicTupleTangent};
    let p = Public::new(1.0);
    let t: PublicTangent = zero_tangent(&p);
    assert_eq!((t.x, t.n), (0.0, ()));
    let pt = documented::PublicTuple::new(1.0, 2.0);
    let tt: PublicTupleTangent = zero_tangent(&pt);
    assert_eq!(tt.0, 0.0);
    assert_eq!(p.y() + pt.second(), 3.0);
}

/// The generated code names nothing the user's scope can shadow: the prelude's traits, the
/// runtime's traits and the method parameters are all shadowed here.
#[allow(non_upper_case_globals, dead_code)]
mod hygiene {
    use ::autodiff_runtime::value::{add_scaled, zero_tangent};

    const other: f64 = 1.0;
    const s: f64 = 2.0;
    const f: f64 = 3.0;
    struct Clone;
    struct Copy;
    trait Debug {}
    trait PartialEq {}
    struct Differentiable;
    struct Tangent;
    struct Scale;
    type Result = ();
    type Option = ();
    mod core {}
    mod autodiff_runtime {}

    /// Field names that are the generated code's names; a type parameter spelt `S` and a
    /// lifetime spelt `'a`, the derive's own defaults.
    #[derive(::autodiff_runtime::Differentiable)]
    struct Clash<'a, S> {
        other: f64,
        s: S,
        f: &'a [S],
        this: usize,
    }

    #[derive(::autodiff_runtime::Differentiable)]
    struct Shadowed {
        s: S,
        a: [f64; 1],
    }

    /// A user type spelt like the derive's scalar parameter.
    #[derive(::autodiff_runtime::Differentiable)]
    struct S(f64);

    #[test]
    fn generated_names_do_not_collide() {
        let xs = [1.0, 2.0];
        let c = Clash {
            other,
            s,
            f: &xs,
            this: 0,
        };
        let mut t = zero_tangent(&c);
        let g = ClashTangent {
            other: f,
            s: 1.0,
            f: vec![1.0, 1.0],
            this: (),
        };
        add_scaled(&mut t, &g, 2.0);
        assert_eq!((t.other, t.s, t.f.to_vec()), (6.0, 2.0, vec![2.0, 2.0]));
        let sh = Shadowed {
            s: S(1.0),
            a: [0.0],
        };
        let mut ts = zero_tangent(&sh);
        add_scaled(
            &mut ts,
            &ShadowedTangent {
                s: STangent(1.0),
                a: [1.0],
            },
            s,
        );
        assert_eq!(ts.s.0, 2.0);
        assert_eq!(ts.a[0], 2.0);
    }
}
