//! Value-trait tests: takes every `Differentiable`/`Tangent`/`Scale` impl (floats in f32 and f64,
//! `Dual`, arrays, `Vec`s, slices, tuples, references, derivative-free leaves) and a hand-written
//! stand-in for `#[derive(Differentiable)]`, gives checks of zero shapes, accumulation, zeroing,
//! scaling with the strong zero, generic use under `T: Scalar`, and length-mismatch panics.

mod common;

use autodiff_runtime::value::{accumulate, add_scaled, scale, scaled, set_zero, zero_tangent};
use autodiff_runtime::{Differentiable, Dual, Scalar, Scale, Tangent};
use common::{c, TestFloat};
use std::fmt::Debug;

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

// ---------------------------------------------------------------------------------------------
// Floats

fn floats<T: TestFloat + Scalar>() {
    let x: T = c(3.5);
    let z: T = zero_tangent(&x);
    assert_eq!(z, T::zero(), "{}", T::NAME);

    let mut a: T = c(1.5);
    accumulate(&mut a, &c(2.0));
    assert_eq!(a, c(3.5), "{}: accumulate adds", T::NAME);
    accumulate(&mut a, &c(-0.5));
    assert_eq!(a, c(3.0), "{}: accumulate adds again", T::NAME);

    scale(&mut a, c(2.0));
    assert_eq!(a, c(6.0), "{}: scale", T::NAME);
    assert_eq!(scaled(a, c(0.5)), c(3.0), "{}: scaled", T::NAME);

    add_scaled(&mut a, &c(2.0), c(-1.5));
    assert_eq!(a, c(3.0), "{}: add_scaled", T::NAME);

    set_zero(&mut a);
    assert_eq!(a, T::zero(), "{}: set_zero", T::NAME);
}
both_floats!(floats_zero_accumulate_scale, floats);

fn strong_zero<T: TestFloat + Scalar>() {
    // Zero times infinity or NaN is zero, either way round.
    for bad in [T::infinity(), T::neg_infinity(), T::nan()] {
        assert_eq!(
            scaled(T::zero(), bad),
            T::zero(),
            "{}: 0 * {bad:?}",
            T::NAME
        );
        assert_eq!(
            scaled(bad, T::zero()),
            T::zero(),
            "{}: {bad:?} * 0",
            T::NAME
        );
        let mut a: T = c(1.0);
        add_scaled(&mut a, &T::zero(), bad);
        assert_eq!(a, c(1.0), "{}: add_scaled 0 * {bad:?}", T::NAME);
        add_scaled(&mut a, &bad, T::zero());
        assert_eq!(a, c(1.0), "{}: add_scaled {bad:?} * 0", T::NAME);
    }
    // A nonzero factor keeps infinities and NaNs.
    assert_eq!(scaled(c::<T>(2.0), T::infinity()), T::infinity());
    assert!(scaled(c::<T>(2.0), T::nan()).is_nan());
    // Accumulation is a plain add: NaN stays NaN.
    let mut a: T = c(1.0);
    accumulate(&mut a, &T::nan());
    assert!(a.is_nan(), "{}", T::NAME);
}
both_floats!(floats_scale_with_strong_zero, strong_zero);

#[test]
fn float_tangent_types_are_themselves() {
    let _: f32 = zero_tangent(&1.0_f32);
    let _: f64 = zero_tangent(&1.0_f64);
    let _: <f32 as Differentiable>::Tangent = 0.0_f32;
    let _: <f64 as Differentiable>::Tangent = 0.0_f64;
}

// ---------------------------------------------------------------------------------------------
// Dual

fn duals<T: TestFloat + Scalar>() {
    let x = Dual::new(c::<T>(2.0), c(3.0));
    let z: Dual<T> = zero_tangent(&x);
    assert_eq!((z.re, z.eps), (T::zero(), T::zero()), "{}", T::NAME);

    let mut a = Dual::new(c::<T>(1.0), c(-1.0));
    accumulate(&mut a, &Dual::new(c(0.5), c(4.0)));
    assert_eq!(
        (a.re, a.eps),
        (c(1.5), c(3.0)),
        "{}: component-wise add",
        T::NAME
    );

    // Scaling by a dual is dual multiplication: (1.5 + 3ε)(2 + 1ε) = 3 + (1.5 + 6)ε.
    scale(&mut a, Dual::new(c(2.0), c(1.0)));
    assert_eq!((a.re, a.eps), (c(3.0), c(7.5)), "{}: scale", T::NAME);

    let mut b = Dual::new(c::<T>(1.0), c(1.0));
    add_scaled(
        &mut b,
        &Dual::new(c(2.0), c(0.0)),
        Dual::new(c(3.0), c(1.0)),
    );
    assert_eq!((b.re, b.eps), (c(7.0), c(3.0)), "{}: add_scaled", T::NAME);

    // Strong zero on the value of the factors.
    let s = scaled(
        Dual::new(T::zero(), T::zero()),
        Dual::new(T::infinity(), T::nan()),
    );
    assert_eq!(
        (s.re, s.eps),
        (T::zero(), T::zero()),
        "{}: strong zero",
        T::NAME
    );

    set_zero(&mut b);
    assert_eq!(
        (b.re, b.eps),
        (T::zero(), T::zero()),
        "{}: set_zero",
        T::NAME
    );

    // Dual<T> is a Scalar: a generic companion can be instantiated with it.
    generic_companion_body(&[Dual::new(c::<T>(1.0), c(2.0))]);
}
both_floats!(dual_is_its_own_tangent, duals);

#[test]
fn nested_duals() {
    type DD = Dual<Dual<f64>>;
    let x: DD = Dual::new(Dual::new(1.0, 2.0), Dual::new(3.0, 4.0));
    let z: DD = zero_tangent(&x);
    assert_eq!(z, Dual::new(Dual::new(0.0, 0.0), Dual::new(0.0, 0.0)));
    assert_eq!((z.eps.re, z.eps.eps), (0.0, 0.0));
    let mut a = x;
    accumulate(&mut a, &x);
    assert_eq!(
        (a.re.re, a.re.eps, a.eps.re, a.eps.eps),
        (2.0, 4.0, 6.0, 8.0)
    );
    let mut v = vec![x; 2];
    add_scaled(
        &mut v,
        &vec![x; 2],
        Dual::new(Dual::new(2.0, 0.0), Dual::new(0.0, 0.0)),
    );
    assert_eq!(
        (v[1].re.re, v[1].re.eps, v[1].eps.re, v[1].eps.eps),
        (3.0, 6.0, 9.0, 12.0)
    );
    generic_companion_body(&[x, x]);
}

// ---------------------------------------------------------------------------------------------
// What a generic companion can write under `T: Scalar`

/// Every tangent type here is written out, so this compiles only if rustc normalises
/// `T::Tangent` to `T` under the `Scalar` bound.
fn generic_zeros<T: Scalar>(
    x: T,
    v: &[T],
    a: &[T; 3],
    w: &Vec<[T; 2]>,
) -> (T, Vec<T>, [T; 3], Vec<[T; 2]>) {
    (
        zero_tangent(&x),
        zero_tangent(v),
        zero_tangent(a),
        zero_tangent(w),
    )
}

/// A reverse-mode-like body: zero adjoints, accumulate into a `&mut [T]` buffer, scale.
fn generic_companion_body<T: Scalar + Debug>(v: &[T]) {
    let (zx, zv, za, zw) = generic_zeros(v[0], v, &[v[0]; 3], &vec![[v[0]; 2]; v.len()]);
    assert!(zx.is_zero());
    assert_eq!(zv.len(), v.len());
    assert!(za.iter().all(|z| z.is_zero()));
    assert_eq!(zw.len(), v.len());

    let mut dv: Vec<T> = zero_tangent(v);
    let buf: &mut [T] = &mut dv;
    accumulate(buf, v);
    let two = T::one() + T::one();
    add_scaled(buf, v, two);
    let three = two + T::one();
    for (d, x) in dv.iter().zip(v) {
        assert_eq!(*d, three * *x);
    }
    scale(&mut dv, T::zero());
    assert!(dv.iter().all(|z| z.is_zero()));
}

fn generic_floats<T: TestFloat + Scalar>() {
    generic_companion_body(&[c::<T>(1.0), c(-2.0), c(0.25)]);
}
both_floats!(generic_code_under_scalar_bound, generic_floats);

// ---------------------------------------------------------------------------------------------
// Arrays

fn arrays<T: TestFloat + Scalar>() {
    let x: [T; 3] = [c(1.0), c(2.0), c(3.0)];
    let z: [T; 3] = zero_tangent(&x);
    assert_eq!(z, [T::zero(); 3]);

    let mut a = x;
    accumulate(&mut a, &[c(0.5), c(0.5), c(-3.0)]);
    assert_eq!(a, [c(1.5), c(2.5), T::zero()], "{}", T::NAME);
    scale(&mut a, c(2.0));
    assert_eq!(a, [c(3.0), c(5.0), T::zero()], "{}", T::NAME);
    add_scaled(&mut a, &x, c(-1.0));
    assert_eq!(a, [c(2.0), c(3.0), c(-3.0)], "{}", T::NAME);
    assert_eq!(scaled(a, c(0.5)), [c(1.0), c(1.5), c(-1.5)], "{}", T::NAME);
    set_zero(&mut a);
    assert_eq!(a, [T::zero(); 3]);

    let empty: [T; 0] = [];
    let _: [T; 0] = zero_tangent(&empty);
}
both_floats!(arrays_elementwise, arrays);

#[test]
fn nested_arrays() {
    let x = [[1.0_f64, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let z: [[f64; 3]; 2] = zero_tangent(&x);
    assert_eq!(z, [[0.0; 3]; 2]);
    let mut a = z;
    accumulate(&mut a, &x);
    accumulate(&mut a, &x);
    assert_eq!(a, [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]);
    add_scaled(&mut a, &x, -2.0);
    assert_eq!(a, [[0.0; 3]; 2]);

    let x32 = [[[1.0_f32; 2]; 2]; 2];
    let mut a32: [[[f32; 2]; 2]; 2] = zero_tangent(&x32);
    accumulate(&mut a32, &x32);
    scale(&mut a32, 3.0_f32);
    assert_eq!(a32, [[[3.0_f32; 2]; 2]; 2]);
}

// ---------------------------------------------------------------------------------------------
// Vec and slices

fn vecs<T: TestFloat + Scalar>() {
    let x: Vec<T> = vec![c(1.0), c(2.0), c(3.0)];
    let z: Vec<T> = zero_tangent(&x);
    assert_eq!(z, vec![T::zero(); 3], "{}", T::NAME);

    let mut a = z;
    accumulate(&mut a, &x);
    accumulate(&mut a, &x);
    assert_eq!(a, vec![c(2.0), c(4.0), c(6.0)], "{}", T::NAME);
    add_scaled(&mut a, &x, c(-1.0));
    assert_eq!(a, x, "{}", T::NAME);
    let a = scaled(a, c(-2.0));
    assert_eq!(a, vec![c(-2.0), c(-4.0), c(-6.0)], "{}", T::NAME);

    let mut a = a;
    let cap = a.capacity();
    set_zero(&mut a);
    assert_eq!(
        a,
        vec![T::zero(); 3],
        "{}: set_zero keeps the length",
        T::NAME
    );
    assert_eq!(
        a.capacity(),
        cap,
        "{}: set_zero keeps the allocation",
        T::NAME
    );

    let empty: Vec<T> = Vec::new();
    let mut ze = zero_tangent(&empty);
    accumulate(&mut ze, &empty);
    assert!(ze.is_empty());
}
both_floats!(vecs_elementwise, vecs);

fn slices<T: TestFloat + Scalar>() {
    let x: [T; 4] = [c(1.0), c(2.0), c(3.0), c(4.0)];
    let s: &[T] = &x;
    // The tangent of a slice (and of a reference to one) is an owned Vec shaped like it.
    let z: Vec<T> = zero_tangent(s);
    assert_eq!(z.len(), 4);
    let z: Vec<T> = zero_tangent(&s);
    assert_eq!(z.len(), 4);
    let z: Vec<T> = zero_tangent(&s[1..]);
    assert_eq!(z.len(), 3);

    // Accumulating into an adjoint buffer held as `&mut [T]`, as `_vjp` receives it, from a Vec,
    // an array, a slice and a sub-slice.
    let mut storage = [T::zero(); 4];
    let dv: &mut [T] = &mut storage;
    let ones: Vec<T> = vec![c(1.0); 4];
    accumulate(dv, &ones);
    accumulate(dv, &x);
    accumulate(dv, s);
    accumulate(&mut dv[2..], &x[..2]);
    add_scaled(dv, s, c(0.5));
    scale(dv, c(2.0));
    assert_eq!(storage, [c(7.0), c(12.0), c(19.0), c(26.0)], "{}", T::NAME);

    let dv: &mut [T] = &mut storage;
    set_zero(dv);
    assert_eq!(storage, [T::zero(); 4]);
}
both_floats!(slices_through_mut_references, slices);

#[test]
fn vec_of_arrays() {
    let x = vec![[1.0_f64, 2.0, 3.0]; 4];
    let mut a: Vec<[f64; 3]> = zero_tangent(&x);
    assert_eq!(a, vec![[0.0; 3]; 4]);
    accumulate(&mut a, &x);
    add_scaled(&mut a, &x, 2.0);
    assert_eq!(a, vec![[3.0, 6.0, 9.0]; 4]);
    // Into a sub-slice of the adjoint, as a `&mut [[f64; 3]]` buffer.
    accumulate(&mut a[1..3], &x[..2]);
    assert_eq!(a[0], [3.0, 6.0, 9.0]);
    assert_eq!(a[1], [4.0, 8.0, 12.0]);
    assert_eq!(a[3], [3.0, 6.0, 9.0]);

    let x32 = vec![[1.0_f32; 2]; 3];
    let a32 = scaled(x32.clone(), 4.0_f32);
    assert_eq!(a32, vec![[4.0_f32; 2]; 3]);
}

#[test]
fn vec_of_vecs_keeps_ragged_shapes() {
    let x: Vec<Vec<f64>> = vec![vec![1.0], vec![2.0, 3.0], vec![]];
    let mut a = zero_tangent(&x);
    assert_eq!(a, vec![vec![0.0], vec![0.0, 0.0], vec![]]);
    accumulate(&mut a, &x);
    accumulate(&mut a, &x);
    assert_eq!(a, vec![vec![2.0], vec![4.0, 6.0], vec![]]);
    scale(&mut a, 0.5);
    assert_eq!(a, x);
    set_zero(&mut a);
    assert_eq!(a, vec![vec![0.0], vec![0.0, 0.0], vec![]]);

    let x32: Vec<Vec<f32>> = vec![vec![1.0, 2.0]; 2];
    let mut a32 = zero_tangent(&x32);
    add_scaled(&mut a32, &x32, -1.0_f32);
    assert_eq!(a32, vec![vec![-1.0_f32, -2.0]; 2]);
}

// ---------------------------------------------------------------------------------------------
// Leaves without a derivative, tuples

#[test]
fn inactive_leaves_have_unit_tangents() {
    #[allow(clippy::let_unit_value)]
    {
        let () = zero_tangent(&3_usize);
        let () = zero_tangent(&-3_i32);
        let () = zero_tangent(&7_u8);
        let () = zero_tangent(&7_i128);
        let () = zero_tangent(&true);
        let () = zero_tangent(&'x');
        let () = zero_tangent(&());
        let () = zero_tangent("label");
        let () = zero_tangent(&String::from("label"));
        let mut u = ();
        accumulate(&mut u, &());
        scale(&mut u, 2.0_f64);
        scale(&mut u, 2.0_f32);
        add_scaled(&mut u, &(), 1.0_f32);
        set_zero(&mut u);
    }
    // An integer vector's tangent is a vector of units: its length, no derivative.
    let idx = vec![1_usize, 2, 3];
    let t: Vec<()> = zero_tangent(&idx);
    assert_eq!(t.len(), 3);
}

fn tuples<T: TestFloat + Scalar>() {
    // (usize, T): the integer has tangent (), the float is added and scaled.
    let x: (usize, T) = (4, c(2.0));
    let mut a: ((), T) = zero_tangent(&x);
    assert_eq!(a, ((), T::zero()));
    accumulate(&mut a, &((), c(1.5)));
    add_scaled(&mut a, &((), c(1.0)), c(2.0));
    assert_eq!(a.1, c(3.5), "{}", T::NAME);
    scale(&mut a, c(2.0));
    assert_eq!(a.1, c(7.0), "{}", T::NAME);

    // Arity 1 to 4, mixing leaves and sequences.
    let one: (T,) = (c(1.0),);
    assert_eq!(scaled(one, c(3.0)), (c(3.0),));

    let three = (c::<T>(1.0), vec![c::<T>(1.0), c(2.0)], true);
    let mut t3 = zero_tangent(&three);
    assert_eq!(t3, (T::zero(), vec![T::zero(); 2], ()));
    accumulate(&mut t3, &(c(1.0), vec![c(2.0), c(3.0)], ()));
    assert_eq!(t3, (c(1.0), vec![c(2.0), c(3.0)], ()), "{}", T::NAME);

    let four = (3_i32, [c::<T>(1.0); 2], (5_usize, c::<T>(2.0)), 'q');
    let mut t4 = zero_tangent(&four);
    let delta = ((), [c(1.0), c(2.0)], ((), c(3.0)), ());
    accumulate(&mut t4, &delta);
    add_scaled(&mut t4, &delta, c(-2.0));
    assert_eq!(
        t4,
        ((), [c(-1.0), c(-2.0)], ((), c(-3.0)), ()),
        "{}",
        T::NAME
    );
    set_zero(&mut t4);
    assert_eq!(t4, ((), [T::zero(); 2], ((), T::zero()), ()));

    // A Vec of (index, value) pairs.
    let pairs: Vec<(usize, T)> = vec![(0, c(1.0)), (3, c(2.0))];
    let mut tp = zero_tangent(&pairs);
    accumulate(&mut tp, &vec![((), c(1.0)), ((), c(2.0))]);
    assert_eq!(tp, vec![((), c(1.0)), ((), c(2.0))]);
}
both_floats!(tuples_mix_integers_and_floats, tuples);

// ---------------------------------------------------------------------------------------------
// References

#[test]
fn references_delegate() {
    let x = [1.0_f64, 2.0];
    let r = &x;
    let t: [f64; 2] = zero_tangent(&r);
    assert_eq!(t, [0.0; 2]);
    let rr = &&x;
    let t: [f64; 2] = zero_tangent(&rr);
    assert_eq!(t, [0.0; 2]);
    let mut y = vec![1.0_f32; 3];
    let m = &mut y;
    let t: Vec<f32> = zero_tangent(&m);
    assert_eq!(t, vec![0.0_f32; 3]);

    // A tuple of `&mut` adjoint buffers, as a `_vjp` with several outputs could hold them.
    let (mut dx, mut dv) = (1.0_f64, [0.0_f64; 2]);
    {
        let mut bufs: (&mut f64, &mut [f64]) = (&mut dx, &mut dv);
        let mut src_x = 2.0;
        let mut src_v = [3.0, 4.0];
        let src: (&mut f64, &mut [f64]) = (&mut src_x, &mut src_v);
        accumulate(&mut bufs, &src);
        add_scaled(&mut bufs, &src, 0.5);
        scale(&mut bufs, 2.0);
    }
    assert_eq!(dx, 8.0);
    assert_eq!(dv, [9.0, 12.0]);
}

// ---------------------------------------------------------------------------------------------
// What #[derive(Differentiable)] (issue 10) generates, written by hand

struct Particle {
    pos: [f64; 3],
    mass: f64,
    id: usize,
}

#[derive(Clone, Debug, PartialEq)]
struct ParticleTangent {
    pos: <[f64; 3] as Differentiable>::Tangent,
    mass: <f64 as Differentiable>::Tangent,
    id: <usize as Differentiable>::Tangent,
}

impl Differentiable for Particle {
    type Tangent = ParticleTangent;
    fn zero_tangent(&self) -> ParticleTangent {
        ParticleTangent {
            pos: Differentiable::zero_tangent(&self.pos),
            mass: Differentiable::zero_tangent(&self.mass),
            id: Differentiable::zero_tangent(&self.id),
        }
    }
}

// The derive should call the trait methods in this form (`Tangent::accumulate(&mut self.f, ..)`):
// the method-call form trips `clippy::unit_arg` on `()` fields.
impl Tangent for ParticleTangent {
    fn accumulate(&mut self, other: &Self) {
        Tangent::accumulate(&mut self.pos, &other.pos);
        Tangent::accumulate(&mut self.mass, &other.mass);
        Tangent::accumulate(&mut self.id, &other.id);
    }
    fn set_zero(&mut self) {
        Tangent::set_zero(&mut self.pos);
        Tangent::set_zero(&mut self.mass);
        Tangent::set_zero(&mut self.id);
    }
}

impl<S: Copy> Scale<S> for ParticleTangent
where
    <[f64; 3] as Differentiable>::Tangent: Scale<S>,
    <f64 as Differentiable>::Tangent: Scale<S>,
    <usize as Differentiable>::Tangent: Scale<S>,
{
    fn scale(&mut self, s: S) {
        Scale::scale(&mut self.pos, s);
        Scale::scale(&mut self.mass, s);
        Scale::scale(&mut self.id, s);
    }
    fn add_scaled(&mut self, other: &Self, s: S) {
        Scale::add_scaled(&mut self.pos, &other.pos, s);
        Scale::add_scaled(&mut self.mass, &other.mass, s);
        Scale::add_scaled(&mut self.id, &other.id, s);
    }
}

/// A generic struct: the derive puts `T: Differentiable` on its parameters.
struct Pair<T> {
    a: T,
    b: Vec<T>,
}

struct PairTangent<T: Differentiable> {
    a: T::Tangent,
    b: <Vec<T> as Differentiable>::Tangent,
}

impl<T: Differentiable> Clone for PairTangent<T> {
    fn clone(&self) -> Self {
        PairTangent {
            a: self.a.clone(),
            b: self.b.clone(),
        }
    }
}

impl<T: Differentiable> Differentiable for Pair<T> {
    type Tangent = PairTangent<T>;
    fn zero_tangent(&self) -> PairTangent<T> {
        PairTangent {
            a: self.a.zero_tangent(),
            b: self.b.zero_tangent(),
        }
    }
}

impl<T: Differentiable> Tangent for PairTangent<T> {
    fn accumulate(&mut self, other: &Self) {
        self.a.accumulate(&other.a);
        self.b.accumulate(&other.b);
    }
    fn set_zero(&mut self) {
        self.a.set_zero();
        self.b.set_zero();
    }
}

impl<S: Copy, T: Differentiable> Scale<S> for PairTangent<T>
where
    T::Tangent: Scale<S>,
    <Vec<T> as Differentiable>::Tangent: Scale<S>,
{
    fn scale(&mut self, s: S) {
        self.a.scale(s);
        self.b.scale(s);
    }
    fn add_scaled(&mut self, other: &Self, s: S) {
        self.a.add_scaled(&other.a, s);
        self.b.add_scaled(&other.b, s);
    }
}

#[test]
fn derived_structs_plug_in() {
    let p = Particle {
        pos: [1.0, 2.0, 3.0],
        mass: 2.0,
        id: 7,
    };
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
    let _ = p.id;

    // Containers of structs go through the container impls.
    let ps = vec![
        Particle {
            pos: [0.0; 3],
            mass: 1.0,
            id: 0,
        },
        p,
    ];
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

    // A generic struct, with f32 and with a nested tuple.
    let q = Pair {
        a: 1.0_f32,
        b: vec![2.0_f32, 3.0],
    };
    let mut tq = zero_tangent(&q);
    let dq = PairTangent::<f32> {
        a: 1.0,
        b: vec![1.0, 2.0],
    };
    accumulate(&mut tq, &dq);
    let tq = scaled(tq, 3.0_f32);
    assert_eq!((tq.a, tq.b.clone()), (3.0, vec![3.0, 6.0]));
    let r = Pair {
        a: (1_usize, 1.0_f64),
        b: vec![(2, 2.0)],
    };
    let tr = zero_tangent(&r);
    assert_eq!((tr.a, tr.b.clone()), (((), 0.0), vec![((), 0.0)]));
}

// ---------------------------------------------------------------------------------------------
// Length mismatches

#[test]
#[should_panic(expected = "autodiff: cannot add a tangent of length 2 into one of length 3")]
fn vec_length_mismatch_panics() {
    let mut a = vec![0.0_f64; 3];
    accumulate(&mut a, &vec![1.0; 2]);
}

#[test]
#[should_panic(expected = "autodiff: cannot add a tangent of length 4 into one of length 3")]
fn slice_length_mismatch_panics() {
    let mut storage = [0.0_f32; 3];
    let dv: &mut [f32] = &mut storage;
    accumulate(dv, &[1.0; 4]);
}

#[test]
#[should_panic(expected = "autodiff: cannot add a tangent of length 1 into one of length 2")]
fn inner_vec_length_mismatch_panics() {
    let mut a = vec![vec![0.0_f64; 2], vec![0.0; 2]];
    accumulate(&mut a, &vec![vec![1.0; 2], vec![1.0; 1]]);
}

#[test]
#[should_panic(expected = "autodiff: cannot add a tangent of length 0 into one of length 2")]
fn add_scaled_length_mismatch_panics() {
    let mut a = vec![[0.0_f64; 2]; 2];
    add_scaled(&mut a, &Vec::new(), 2.0);
}

#[test]
#[should_panic(expected = "autodiff: cannot add a tangent of length 1 into one of length 2")]
fn length_mismatch_inside_tuple_panics() {
    let mut a = (0.0_f64, vec![0.0_f64; 2], ());
    accumulate(&mut a, &(1.0, vec![1.0], ()));
}

#[test]
fn length_mismatch_panic_points_at_the_caller() {
    use std::cell::Cell;
    thread_local! {
        static ARMED: Cell<bool> = const { Cell::new(false) };
        static LINE: Cell<Option<(String, u32)>> = const { Cell::new(None) };
    }
    // The hook is global; it records only panics of this thread while armed.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        match (ARMED.with(Cell::get), info.location()) {
            (true, Some(loc)) => LINE.with(|l| l.set(Some((loc.file().to_string(), loc.line())))),
            _ => previous(info),
        }
    }));
    ARMED.with(|a| a.set(true));
    let line = line!() + 3;
    let caught = std::panic::catch_unwind(|| {
        let mut a = vec![0.0_f64; 3];
        accumulate(&mut a, &vec![1.0; 2]);
    });
    ARMED.with(|a| a.set(false));
    assert!(caught.is_err());
    let (file, got) = LINE.with(|l| l.take()).expect("the hook saw the panic");
    assert!(
        file.ends_with("value.rs") && file.contains("tests"),
        "panic located in {file}"
    );
    assert_eq!(got, line);
}

/// Slices and `Vec`s of floats take the one-allocation path (`vec![0.0; n]`); slices of other
/// values ask every element. Both give zeros of the right length, also when empty.
#[test]
fn zero_tangents_of_float_slices_and_of_nested_slices() {
    let x = vec![1.5_f64; 10_000];
    let z = zero_tangent(&x[..]);
    assert_eq!(z.len(), 10_000);
    assert!(z.iter().all(|v| *v == 0.0 && v.is_sign_positive()));
    let e: &[f32] = &[];
    assert!(zero_tangent(e).is_empty());
    let pairs = [[1.0_f64, 2.0], [3.0, 4.0]];
    assert_eq!(zero_tangent(&pairs[..]), vec![[0.0, 0.0]; 2]);
    let tuples = vec![(1_usize, 2.0_f32), (3, 4.0)];
    assert_eq!(zero_tangent(&tuples), vec![((), 0.0_f32); 2]);
}

/// `Tangent::is_exact_zero` (hidden; what `__private::zero_seed` asks before a generated reverse
/// sweep skips a callee's `_vjp`): every scalar at every level exactly zero, `-0.0` included; a
/// `Dual` with a zero value and a nonzero tangent is not zero (its `==` compares values only).
#[test]
fn exact_zero_looks_at_every_scalar() {
    use autodiff_runtime::__private::zero_seed;
    assert!(zero_seed(&0.0_f64) && zero_seed(&-0.0_f32) && zero_seed(&()));
    assert!(!zero_seed(&1e-300_f64) && !zero_seed(&f64::NAN));
    assert!(zero_seed(&Dual::new(0.0_f64, 0.0)));
    assert!(!zero_seed(&Dual::new(0.0_f64, 1.0)));
    assert!(!zero_seed(&Dual::new(
        Dual::new(0.0_f64, 0.0),
        Dual::new(0.0, 2.0)
    )));
    assert!(zero_seed(&[0.0_f64; 3]) && !zero_seed(&[0.0, 0.0, 1.0]));
    assert!(zero_seed(&vec![0.0_f64; 4][..]) && !zero_seed(&vec![0.0, 2.0]));
    assert!(zero_seed(&(0.0_f64, [0.0_f64; 2])) && !zero_seed(&(0.0_f64, [0.0, -1.0])));
    let empty: &[f64] = &[];
    assert!(zero_seed(empty));
}
