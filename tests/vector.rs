//! Vector forward mode (`#[differentiate(vector)]`, `<f>_jvpn::<N>`): takes differentiated
//! functions of every kind the scalar forward mode handles (scalars, slices, arrays, `Vec` and
//! tuple outputs, loops, branches, calls, generics, in-out arguments, `wrt` subsets, f32 and
//! f64), gives checks that lane `k` of one `_jvpn` pass equals `_jvp` along direction `k` (exactly:
//! both evaluate the same rules in the same order) and central differences.
#![allow(clippy::all)]
// The functions under test are run through their companions.
#![allow(dead_code)]

use autodiff_runtime::{check, differentiate, stop_gradient};
use num_traits::Float;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Primal<'a> = &'a dyn Fn(&[f64]) -> Vec<f64>;
type Jvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>);
type Jvpn<'a, const L: usize> = &'a dyn Fn(&[f64], &[[f64; L]]) -> (Vec<f64>, Vec<[f64; L]>);

/// At `count` random points in `[lo, hi]^n`, with `L` random directions (input `i` gets the
/// lanes `[d_0[i], .., d_{L-1}[i]]`): `_jvpn`'s value equals the function's and `_jvp`'s, lane
/// `k` of its tangent equals `_jvp`'s along `d_k` exactly, and central differences to `fd_tol`.
fn check_lanes<const L: usize>(
    n: usize,
    primal: Primal,
    jvp: Jvp,
    jvpn: Jvpn<L>,
    count: usize,
    lo: f64,
    hi: f64,
    fd_tol: f64,
) {
    let mut rng = ChaCha8Rng::seed_from_u64(3 + L as u64);
    let step = if fd_tol > 1e-4 { 1e-2 } else { 1e-6 };
    for _ in 0..count {
        let x: Vec<f64> = (0..n).map(|_| rng.gen_range(lo..hi)).collect();
        let dirs: Vec<Vec<f64>> = (0..L)
            .map(|_| (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect())
            .collect();
        let lanes: Vec<[f64; L]> = (0..n)
            .map(|i| core::array::from_fn(|k| dirs[k][i]))
            .collect();
        let (v, tn) = jvpn(&x, &lanes);
        assert_eq!(v, primal(&x), "_jvpn value at {x:?}");
        for (k, d) in dirs.iter().enumerate() {
            let (v1, t1) = jvp(&x, d);
            assert_eq!(v1, v, "_jvp value at {x:?}");
            let lane: Vec<f64> = tn.iter().map(|t| t[k]).collect();
            assert_eq!(lane, t1, "lane {k} of _jvpn vs _jvp at {x:?} along {d:?}");
            let fd = check::central_difference(primal, &x, d, step);
            check::all_close(&lane, &fd, fd_tol, fd_tol)
                .unwrap_or_else(|e| panic!("lane {k} vs differences at {x:?}, {d:?}: {e}"));
        }
    }
}

/// `[f64; L]` lanes of an f32 computation, and back.
fn lanes32<const L: usize>(t: &[[f64; L]]) -> Vec<[f32; L]> {
    t.iter().map(|l| l.map(|v| v as f32)).collect()
}

fn lanes64<const L: usize>(t: &[[f32; L]]) -> Vec<[f64; L]> {
    t.iter().map(|l| l.map(|v| v as f64)).collect()
}

// ---------------------------------------------------------------------------------------------
// Scalars: the methods and operators of the rule table, casts, f32 and f64
// ---------------------------------------------------------------------------------------------

#[differentiate(vector)]
fn scalars(x: f64, y: f64) -> f64 {
    let (s, c) = x.sin_cos();
    let mut z = s * y.exp() + c.powi(3) - x.atan2(y) + x.mul_add(y, 1.0);
    z += x.hypot(y).sqrt() + x.max(y) * y.clamp(-0.5, 0.5);
    z -= x.tanh() + x.abs().ln_1p() / (1.0 + y * y);
    z *= 0.5;
    -z + f64::min(x, 0.25) + (x * y + 5.0).cbrt() % 2.5
}

#[test]
fn scalar_methods() {
    check_lanes::<4>(
        2,
        &|p| vec![scalars(p[0], p[1])],
        &|p, t| {
            let (v, d) = scalars_jvp(p[0], p[1], t[0], t[1]);
            (vec![v], vec![d])
        },
        &|p, t| {
            let (v, d) = scalars_jvpn(p[0], p[1], t[0], t[1]);
            (vec![v], vec![d])
        },
        12,
        -2.0,
        2.0,
        1e-5,
    );
}

#[differentiate(vector)]
fn scalars32(x: f32, y: f32) -> f32 {
    let a = x.exp() * y.sin() + (x * y).powf(2.0) / (1.0 + x * x);
    let b: f64 = (a as f64).atan() + f64::from(y).cosh();
    a * 0.5 + b as f32
}

#[test]
fn scalar_methods_f32() {
    check_lanes::<8>(
        2,
        &|p| vec![scalars32(p[0] as f32, p[1] as f32) as f64],
        &|p, t| {
            let (v, d) = scalars32_jvp(p[0] as f32, p[1] as f32, t[0] as f32, t[1] as f32);
            (vec![v as f64], vec![d as f64])
        },
        &|p, t| {
            let t = lanes32(t);
            let (v, d) = scalars32_jvpn(p[0] as f32, p[1] as f32, t[0], t[1]);
            (vec![v as f64], lanes64(&[d]))
        },
        8,
        -1.0,
        1.0,
        2e-2,
    );
}

// ---------------------------------------------------------------------------------------------
// Slices and arrays, loops and branches
// ---------------------------------------------------------------------------------------------

#[differentiate(vector)]
fn loops(x: f64, v: &[f64], w: &[f64; 3]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        if v[i] > 0.0 {
            s += v[i] * x;
        } else {
            s -= (v[i] * w[i % 3]).exp();
        }
    }
    let mut k = 0;
    while k < 3 {
        match k {
            0 => s = s * w[0].cos(),
            1 => s += w[1] * w[2],
            _ => {
                if s > 10.0 {
                    break;
                }
                s = s.tanh();
            }
        }
        k += 1;
    }
    let total: f64 = v.iter().zip(w.iter()).map(|(a, b)| a * b).sum();
    s + total * x
}

#[test]
fn slices_arrays_loops_branches() {
    fn run(p: &[f64]) -> (f64, &[f64], [f64; 3]) {
        (p[0], &p[1..5], [p[5], p[6], p[7]])
    }
    check_lanes::<4>(
        8,
        &|p| {
            let (x, v, w) = run(p);
            vec![loops(x, v, &w)]
        },
        &|p, t| {
            let (x, v, w) = run(p);
            let (v, d) = loops_jvp(x, v, &w, t[0], &t[1..5], &[t[5], t[6], t[7]]);
            (vec![v], vec![d])
        },
        &|p, t| {
            let (x, v, w) = run(p);
            let (v, d) = loops_jvpn(x, v, &w, t[0], &t[1..5], &[t[5], t[6], t[7]]);
            (vec![v], vec![d])
        },
        10,
        -1.5,
        1.5,
        1e-5,
    );
}

/// `Vec` and array outputs, pushes, `vec![..; n]`, a collected chain, early return.
#[differentiate(vector)]
fn vec_out(v: &[f64], a: f64) -> Vec<f64> {
    if v.len() == 0 {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(v.len() + 1);
    let scaled: Vec<f64> = v.iter().map(|x| x * a).collect();
    let mut acc = vec![0.0; v.len()];
    for i in 0..v.len() {
        acc[i] = scaled[i].sin() + if i > 0 { acc[i - 1] } else { a };
        out.push(acc[i] * v[i]);
    }
    out.push(a.exp());
    out
}

#[differentiate(vector)]
fn array_out(x: [f64; 3], s: f64) -> ([f64; 3], f64) {
    let mut y = [0.0; 3];
    for i in 0..3 {
        y[i] = x[i] * s + x[(i + 1) % 3].powi(2);
    }
    (y, y[0] * y[1] * y[2])
}

#[test]
fn vec_array_and_tuple_outputs() {
    check_lanes::<4>(
        5,
        &|p| vec_out(&p[..4], p[4]),
        &|p, t| vec_out_jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, t| vec_out_jvpn(&p[..4], p[4], &t[..4], t[4]),
        6,
        -1.0,
        1.0,
        1e-6,
    );
    let flat = |(y, z): ([f64; 3], f64)| vec![y[0], y[1], y[2], z];
    check_lanes::<2>(
        4,
        &|p| flat(array_out([p[0], p[1], p[2]], p[3])),
        &|p, t| {
            let (v, d) = array_out_jvp([p[0], p[1], p[2]], p[3], [t[0], t[1], t[2]], t[3]);
            (flat(v), flat(d))
        },
        &|p, t| {
            let (v, (dy, dz)) = array_out_jvpn([p[0], p[1], p[2]], p[3], [t[0], t[1], t[2]], t[3]);
            (flat(v), vec![dy[0], dy[1], dy[2], dz])
        },
        6,
        -1.0,
        1.0,
        1e-6,
    );
    // Empty input: the early return's zero-length tangent.
    let (v, d) = vec_out_jvpn::<3>(&[], 0.5, &[], [1.0, 2.0, 3.0]);
    assert!(v.is_empty() && d.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Calls, generics, in-out arguments, `wrt`, `stop_gradient`
// ---------------------------------------------------------------------------------------------

#[differentiate(vector)]
fn generic<T: Float>(x: T, v: &[T]) -> T {
    let mut s = x;
    for &e in v {
        s = s * e + (e * x).sin();
    }
    s / T::from(v.len() + 1).unwrap()
}

/// Scales `buf` in place and gives its old first element.
#[differentiate(vector)]
fn scale_into(buf: &mut [f64], s: f64) -> f64 {
    let first = buf[0];
    for i in 0..buf.len() {
        buf[i] = buf[i] * s + first;
    }
    first
}

#[differentiate(vector)]
fn into_ref(x: &mut f64, y: f64) {
    *x = *x * y.cos() + y;
}

#[differentiate(vector)]
fn calls(x: f64, v: &[f64]) -> f64 {
    let a = generic(x, v);
    let b = generic::<f64>(a, &v[1..]);
    let mut buf = v.to_vec();
    let first = scale_into(&mut buf, b);
    let mut z = x;
    into_ref(&mut z, first);
    let c = loops(z, &buf, &[a, b, 1.0]);
    c + buf[0] * buf[1] + z
}

/// `stop_gradient` in vector mode: no lane of the stopped values' tangents gets through.
#[differentiate(vector)]
fn stopped(x: f64, v: &[f64]) -> f64 {
    let mut s = 0.0;
    let e = stop_gradient(v.to_vec());
    for i in 0..v.len() {
        s += v[i] * stop_gradient(v[i] * x) + e[i];
    }
    s * stop_gradient(s)
}

#[test]
fn calls_of_vector_functions() {
    check_lanes::<4>(
        4,
        &|p| vec![calls(p[0], &p[1..])],
        &|p, t| {
            let (v, d) = calls_jvp(p[0], &p[1..], t[0], &t[1..]);
            (vec![v], vec![d])
        },
        &|p, t| {
            let (v, d) = calls_jvpn(p[0], &p[1..], t[0], &t[1..]);
            (vec![v], vec![d])
        },
        8,
        -1.0,
        1.0,
        1e-5,
    );
}

#[test]
fn stopped_values() {
    let (x, v) = (0.5, [1.0, -2.0, 3.0]);
    let lanes = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let (val, d) = stopped_jvpn(x, &v, lanes[0], &lanes[1..]);
    // s = sum v_i c_i + e_i with c_i = v_i x and e = v held constant; the output s * s0 with
    // s0 = s held constant: d/dx = 0 (x only enters through c), d/dv_i = s0 c_i.
    let s0: f64 = v.iter().map(|e| e * e * x + e).sum();
    assert_eq!(val, s0 * s0);
    let want = [0.0, s0 * v[0] * x, s0 * v[1] * x, s0 * v[2] * x];
    check::all_close(&d, &want, 1e-15, 1e-15).unwrap();
    for k in 0..4 {
        let (_, d1) = stopped_jvp(x, &v, lanes[0][k], &[lanes[1][k], lanes[2][k], lanes[3][k]]);
        assert_eq!(d[k], d1);
    }
}

#[test]
fn generic_in_f32_and_f64() {
    check_lanes::<3>(
        4,
        &|p| vec![generic(p[0], &p[1..])],
        &|p, t| {
            let (v, d) = generic_jvp(p[0], &p[1..], t[0], &t[1..]);
            (vec![v], vec![d])
        },
        &|p, t| {
            let (v, d) = generic_jvpn(p[0], &p[1..], t[0], &t[1..]);
            (vec![v], vec![d])
        },
        6,
        -1.0,
        1.0,
        1e-6,
    );
    let v32 = |p: &[f64]| p[1..].iter().map(|&x| x as f32).collect::<Vec<f32>>();
    check_lanes::<4>(
        4,
        &|p| vec![generic(p[0] as f32, &v32(p)) as f64],
        &|p, t| {
            let (v, d) = generic_jvp(p[0] as f32, &v32(p), t[0] as f32, &v32(t));
            (vec![v as f64], vec![d as f64])
        },
        &|p, t| {
            let t = lanes32(t);
            let (v, d) = generic_jvpn(p[0] as f32, &v32(p), t[0], &t[1..]);
            (vec![v as f64], lanes64(&[d]))
        },
        6,
        -1.0,
        1.0,
        2e-2,
    );
}

#[test]
fn in_out_arguments() {
    // Value: the old first element and the buffer's final contents; tangents likewise.
    let run = |p: &[f64], t: &[f64]| {
        let mut buf = p[..3].to_vec();
        let mut dbuf = t[..3].to_vec();
        let (v, d) = scale_into_jvp(&mut buf, p[3], &mut dbuf, t[3]);
        (
            vec![v, buf[0], buf[1], buf[2]],
            vec![d, dbuf[0], dbuf[1], dbuf[2]],
        )
    };
    check_lanes::<4>(
        4,
        &|p| run(p, &[0.0; 4]).0,
        &|p, t| run(p, t),
        &|p, t| {
            let mut buf = p[..3].to_vec();
            let mut dbuf = t[..3].to_vec();
            let (v, d) = scale_into_jvpn(&mut buf, p[3], &mut dbuf, t[3]);
            let mut ts = vec![d];
            ts.extend(dbuf);
            (vec![v, buf[0], buf[1], buf[2]], ts)
        },
        6,
        -1.0,
        1.0,
        1e-6,
    );
    let (mut x, mut dx) = (0.5, [1.0, 0.0]);
    into_ref_jvpn(&mut x, 0.3, &mut dx, [0.0, 1.0]);
    assert_eq!(x, 0.5 * 0.3f64.cos() + 0.3);
    assert_eq!(dx, [0.3f64.cos(), -0.5 * 0.3f64.sin() + 1.0]);
}

#[differentiate(vector, wrt(y))]
fn subset(x: f64, y: &[f64]) -> f64 {
    let mut x = x;
    for e in y {
        x = x * e.exp();
    }
    x
}

#[test]
fn wrt_subset_and_one_or_many_lanes() {
    let y = [0.5, -0.25];
    let (v, d) = subset_jvpn(2.0, &y, &[[1.0], [0.0]]);
    assert_eq!((v, d[0]), subset_jvp(2.0, &y, &[1.0, 0.0]));
    let (_, d) = subset_jvpn(2.0, &y, &[[1.0, 0.0, 2.0, 0.0, 0.0, 1.0, 0.5, 3.0]; 2]);
    let (_, d1) = subset_jvp(2.0, &y, &[1.0, 1.0]);
    assert_eq!(d[0], d1);
    let (_, d16) = subset_jvpn::<16>(2.0, &y, &[[0.0; 16]; 2]);
    assert_eq!(d16, [0.0; 16]);
}

// ---------------------------------------------------------------------------------------------
// Idioms: iterator chains, windows, closures, nested local arrays, `loop` with a value, in-place
// slice methods
// ---------------------------------------------------------------------------------------------

#[differentiate(vector)]
fn idioms(v: &[f64], a: f64) -> f64 {
    let sq = |t: f64| t * t + a;
    let smooth: f64 = v.windows(2).map(|w| sq(w[1] - w[0])).sum();
    let peak = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let prod: f64 = v.iter().map(|e| 1.0 + 0.1 * e).product();
    let mut m = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            m[i][j] = v[i + j] * a + (i as f64);
        }
    }
    let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    let mut w = v.to_vec();
    for y in w.iter_mut() {
        *y = y.sin() * a;
    }
    w.swap(0, 1);
    let (head, tail) = w.split_at_mut(2);
    head.copy_from_slice(&tail[..2]);
    let mut k = 0;
    let found = loop {
        if w[k] > 0.5 || k + 1 == w.len() {
            break w[k] * 2.0;
        }
        k += 1;
    };
    let [first, .., last] = v[..] else {
        return 0.0;
    };
    smooth + peak * prod + det + found + first * last
}

#[test]
fn idioms_in_vector_mode() {
    check_lanes::<4>(
        6,
        &|p| vec![idioms(&p[..5], p[5])],
        &|p, t| {
            let (v, d) = idioms_jvp(&p[..5], p[5], &t[..5], t[5]);
            (vec![v], vec![d])
        },
        &|p, t| {
            let (v, d) = idioms_jvpn(&p[..5], p[5], &t[..5], t[5]);
            (vec![v], vec![d])
        },
        10,
        -1.0,
        1.0,
        1e-5,
    );
}

// ---------------------------------------------------------------------------------------------
// Signatures: const generics, lifetimes, where clauses, conversions in generic code
// ---------------------------------------------------------------------------------------------

#[differentiate(vector)]
fn const_generic<'a, T, const M: usize>(x: [T; M], w: &'a [T]) -> [T; M]
where
    T: Float + num_traits::FromPrimitive + Into<f64>,
{
    let mut y = x;
    for i in 0..M {
        let xi: f64 = x[i].to_f64().unwrap();
        let back: T = T::from_f64(xi.sin()).unwrap();
        let wi: f64 = w[i % w.len()].into();
        y[i] = back * T::from(wi).unwrap() + <T as num_traits::NumCast>::from(xi).unwrap();
    }
    y
}

#[test]
fn const_generics_lifetimes_and_conversions() {
    let w = [0.5f32, -1.5];
    let x = [0.25f32, 1.0, -0.75];
    let (v, d) = const_generic_jvpn(x, &w, [[1.0, 0.0]; 3], &[[0.0, 1.0]; 2]);
    for k in 0..2 {
        let dx: [f32; 3] = [[1.0f32, 0.0]; 3].map(|l| l[k]);
        let dw: [f32; 2] = [[0.0f32, 1.0]; 2].map(|l| l[k]);
        let (v1, d1) = const_generic_jvp(x, &w, dx, &dw);
        assert_eq!(v, v1);
        assert_eq!(d.map(|l| l[k]), d1);
    }
}
