//! Matrix product: takes `alpha`, views `A` and `B` (either possibly transposed) and `beta`, gives
//! `C = alpha * A B + beta * C` in a row-major `C`, blocked for the caches and packed into
//! contiguous panels, with the micro-kernel of the current path doing the arithmetic.
//!
//! Loop order (the five loops around the micro-kernel of the BLIS papers, with the roles of A and
//! B swapped because C is row-major and the micro-kernel loads rows of B as vectors): for each
//! block of `mc` rows of A, for each block of `kc` steps of the inner dimension, pack that block of
//! A (panels of `mr` rows); for each block of `nc` columns of B, pack it (panels of `nr` columns,
//! kept in L2); then for each `mr`-row panel of A (kept in L1) run the micro-kernel against each
//! `nr`-column panel of B. Row-major operands skip most of the packing: the micro-kernel takes the
//! strides of its A panel and B steps, so full panels of a row-major A (always, up to a 16 MiB
//! block) and of a small row-major B are read in place and only partial panels are packed. Tiles
//! that stick out of C are computed into a small buffer and merged.

use std::cell::RefCell;

use super::isa::{dispatch, Arith, Isa, Job};
use super::mat::{MatMut, MatRef};
use super::micro::MicroKernel;
use super::real::Real;

/// Largest `mr * nr` of all micro-kernels (the edge-tile buffer).
const MAX_TILE: usize = 8 * 32;

/// Largest span of a `kc`-row block of a row-major B (`kc * ld` elements) that is read in place
/// rather than packed (measured: in place is faster up to n = 64..128, slower from 256).
const DIRECT_B_BYTES: usize = 64 << 10;

/// Largest span of an `mc`-row block of a row-major A (`mc * ld` elements) read in place (faster
/// at every size measured, up to n = 1024; kept bounded for huge leading dimensions).
const DIRECT_A_BYTES: usize = 16 << 20;

/// `C = alpha * A B + beta * C`.
///
/// `a` and `b` may be transposed views ([`MatRef::t`]), so the four products `A B`, `Aᵀ B`,
/// `A Bᵀ` and `Aᵀ Bᵀ` need no copy. With `beta == 0`, C is only written, never read (NaN or
/// infinities in C do not propagate, as in BLAS); with `beta == 1` the product is accumulated into
/// C, which is how reverse-mode adjoints are updated: the VJP of `C = A B` is
/// `matmul(1, c_bar, b.t(), 1, a_bar)` and `matmul(1, a.t(), c_bar, 1, b_bar)`. With `alpha == 0`
/// or an empty inner dimension, A and B are not read and C becomes `beta * C`.
///
/// # Panics
///
/// If the shapes disagree: `a.cols() != b.rows()`, `c.rows() != a.rows()` or
/// `c.cols() != b.cols()`; the message names the three shapes.
///
/// ```
/// use autodiff_runtime::kernels::{matmul, MatMut, MatRef};
///
/// let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]; // 2 x 3
/// let b = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0]; // 3 x 2
/// let mut c = [f64::NAN; 4]; // beta = 0: never read
/// matmul(1.0, MatRef::new(&a, 2, 3), MatRef::new(&b, 3, 2), 0.0, MatMut::new(&mut c, 2, 2));
/// assert_eq!(c, [4.0, 5.0, 10.0, 11.0]);
/// ```
pub fn matmul<T: Real>(alpha: T, a: MatRef<'_, T>, b: MatRef<'_, T>, beta: T, c: MatMut<'_, T>) {
    assert!(
        a.cols == b.rows && c.rows == a.rows && c.cols == b.cols,
        "kernels::matmul: shapes do not agree: A is {} x {}, B is {} x {}, C is {} x {} \
         (need A: m x k, B: k x n, C: m x n)",
        a.rows,
        a.cols,
        b.rows,
        b.cols,
        c.rows,
        c.cols
    );
    dispatch(Gemm {
        alpha,
        a,
        b,
        beta,
        c,
    });
}

/// `C = beta * C`, with `beta == 0` writing zeros without reading C.
pub(crate) fn scale_rows<T: Real>(beta: T, c: &mut MatMut<'_, T>) {
    if beta == T::one() {
        return;
    }
    for i in 0..c.rows {
        let row = c.row_mut(i);
        if beta == T::zero() {
            row.fill(T::zero());
        } else {
            for x in row {
                *x = beta * *x;
            }
        }
    }
}

struct Gemm<'a, T> {
    alpha: T,
    a: MatRef<'a, T>,
    b: MatRef<'a, T>,
    beta: T,
    c: MatMut<'a, T>,
}

impl<T: Real> Job for Gemm<'_, T> {
    type Out = ();

    #[inline(always)]
    fn run<A: Arith>(self, isa: Isa) {
        let Gemm {
            alpha,
            a,
            b,
            beta,
            mut c,
        } = self;
        let (m, n, k) = (a.rows, b.cols, a.cols);
        if m == 0 || n == 0 {
            return;
        }
        if k == 0 || alpha == T::zero() {
            scale_rows(beta, &mut c);
            return;
        }
        let mk = T::micro(isa);
        // The buffers are taken out of the thread-local and put back after, rather than lent to
        // a closure: a closure would be compiled apart from this `#[target_feature]` context.
        let (mut abuf_lines, mut bbuf_lines) = take_pack_buffers();
        // Whole panels: a block's last panel is padded up to `mr` rows / `nr` columns.
        let mc_max = mk.mc.min(m).next_multiple_of(mk.mr);
        let kc_max = mk.kc.min(k);
        let nc_max = mk.nc.min(n).next_multiple_of(mk.nr);
        // Small row-major B is read in place by the micro-kernel (its rows `ld` apart) instead
        // of being packed: for a block that stays in L1/L2 the copy costs more than it saves.
        let direct_b = b.cs == 1 && b.rs * kc_max * std::mem::size_of::<T>() <= DIRECT_B_BYTES;
        // A row-major A is read in place too: the micro-kernel broadcasts from `mr` rows, each
        // read forward, which costs no more than reading a packed panel, while packing row-major
        // A is an interleave LLVM vectorizes poorly (scatters for f64).
        let direct_a = a.cs == 1 && a.rs * mc_max * std::mem::size_of::<T>() <= DIRECT_A_BYTES;
        let abuf = floats::<T>(&mut abuf_lines, mc_max * kc_max);
        let bbuf = floats::<T>(&mut bbuf_lines, kc_max * nc_max);
        for ic in (0..m).step_by(mk.mc) {
            let mc = mk.mc.min(m - ic);
            for pc in (0..k).step_by(mk.kc) {
                let kc = mk.kc.min(k - pc);
                let beta_blk = if pc == 0 { beta } else { T::one() };
                // Lanes of A's panels are its rows: (i, p) is at i * rs + p * cs. Read in place,
                // only the last, partial panel is packed.
                let (from, len) = if direct_a {
                    let full = mc / mk.mr * mk.mr;
                    (ic + full, mc - full)
                } else {
                    (ic, mc)
                };
                pack(abuf, a.data, a.rs, a.cs, from, len, pc, kc, mk.mr);
                let direct_a_blk = direct_a.then_some(Direct {
                    data: a.data,
                    start: ic * a.rs + pc,
                    ld: a.rs,
                });
                for jc in (0..n).step_by(mk.nc) {
                    let nc = mk.nc.min(n - jc);
                    // Lanes of B's panels are its columns: (p, j) is at p * rs + j * cs. Read
                    // in place, only the last, partial panel is packed.
                    let (from, len) = if direct_b {
                        let full = nc / mk.nr * mk.nr;
                        (jc + full, nc - full)
                    } else {
                        (jc, nc)
                    };
                    pack(bbuf, b.data, b.cs, b.rs, from, len, pc, kc, mk.nr);
                    let direct = direct_b.then_some(Direct {
                        data: b.data,
                        start: pc * b.rs + jc,
                        ld: b.rs,
                    });
                    let block = Block {
                        mk,
                        alpha,
                        beta: beta_blk,
                        kc,
                        row0: ic,
                        col0: jc,
                        mc,
                        nc,
                    };
                    block.compute((abuf, direct_a_blk), (bbuf, direct), &mut c);
                }
            }
        }
        put_back_pack_buffers(abuf_lines, bbuf_lines);
    }
}

/// One block of A (`mc x kc`) times one block of B (`kc x nc`) into C, each packed or read in
/// place.
struct Block<'k, T: 'static> {
    mk: &'k MicroKernel<T>,
    alpha: T,
    beta: T,
    kc: usize,
    row0: usize,
    col0: usize,
    mc: usize,
    nc: usize,
}

/// A block of A or B read in place: element `(r, s)` of the block at `data[start + r * ld + s]`
/// (rows of A and steps of B are `ld` apart).
#[derive(Clone, Copy)]
struct Direct<'a, T> {
    data: &'a [T],
    start: usize,
    ld: usize,
}

/// Packed panels of A or B, and the block read in place if it is: with `Some`, full panels are
/// read from it and the buffer holds only the last, partial panel.
type Panels<'a, T> = (&'a [T], Option<Direct<'a, T>>);

impl<T: Real> Block<'_, T> {
    #[inline(always)]
    fn compute(&self, (abuf, da): Panels<'_, T>, (bbuf, db): Panels<'_, T>, c: &mut MatMut<'_, T>) {
        let MicroKernel { mr, nr, func, .. } = *self.mk;
        let kc = self.kc;
        let ldc = c.ld;
        for ir in (0..self.mc).step_by(mr) {
            let rows = mr.min(self.mc - ir);
            // `ap`: the panel's first value, `(rsa, csa)`: the distances between its rows and
            // between its steps.
            let (ap, rsa, csa) = match da {
                Some(d) if rows == mr => {
                    let off = d.start + ir * d.ld;
                    // The panel's last value, (ir + mr - 1, kc - 1) of the block, is inside A.
                    assert!(off + (mr - 1) * d.ld + kc <= d.data.len());
                    (&d.data[off..], d.ld, 1)
                }
                Some(_) => (&abuf[..kc * mr], 1, mr),
                None => (&abuf[ir / mr * kc * mr..][..kc * mr], 1, mr),
            };
            for jr in (0..self.nc).step_by(nr) {
                let cols = nr.min(self.nc - jr);
                // `bp`: the panel's first value, `ldb`: the distance between its steps.
                let (bp, ldb) = match db {
                    Some(d) if cols == nr => {
                        let off = d.start + jr;
                        // The panel's last value, (kc - 1, jr + nr - 1) of the block, is inside
                        // B: the block's rows and columns are rows and columns of B.
                        assert!(off + (kc - 1) * d.ld + nr <= d.data.len());
                        (&d.data[off..], d.ld)
                    }
                    Some(_) => (&bbuf[..kc * nr], nr),
                    None => (&bbuf[jr / nr * kc * nr..][..kc * nr], nr),
                };
                let (i0, j0) = (self.row0 + ir, self.col0 + jr);
                if rows == mr && cols == nr {
                    let start = i0 * ldc + j0;
                    // The tile's last element, (i0 + mr - 1, j0 + nr - 1), is inside C because
                    // i0 + mr <= m and j0 + nr <= n, and C's slice was checked to hold row-major
                    // m x n with this ld; asserting it keeps the unsafe call's bounds local.
                    assert!((i0 + mr - 1) * ldc + j0 + nr <= c.data.len());
                    let cp = c.data[start..].as_mut_ptr();
                    // SAFETY: `ap` holds `kc` steps of `mr` values at `(rsa, csa)` (`kc * mr`
                    // packed values, or A in place, asserted above); `bp` holds `kc` steps of
                    // `nr` values `ldb` apart (`kc * nr` packed values, or B in place, asserted
                    // above); the tile of `mr` rows of `nr` values at
                    // stride `ldc` from `cp` lies inside `c.data` (assert above), which is
                    // borrowed mutably so nothing else aliases it; `func` is the kernel of the
                    // current path, which `dispatch` only runs on a CPU that supports it.
                    unsafe {
                        let (a, b) = (ap.as_ptr(), bp.as_ptr());
                        func(kc, self.alpha, a, rsa, csa, b, ldb, self.beta, cp, ldc)
                    };
                } else {
                    let mut tile = [T::zero(); MAX_TILE];
                    assert!(mr * nr <= MAX_TILE);
                    // SAFETY: as above for `ap` and `bp`; the output is the local `tile`, which
                    // holds `mr * nr` values at stride `nr` (assert above); beta = 0 so it is
                    // only written.
                    unsafe {
                        let (a, b, t) = (ap.as_ptr(), bp.as_ptr(), tile.as_mut_ptr());
                        func(kc, self.alpha, a, rsa, csa, b, ldb, T::zero(), t, nr)
                    };
                    for (i, trow) in tile.chunks_exact(nr).take(rows).enumerate() {
                        let crow = &mut c.data[(i0 + i) * ldc + j0..][..cols];
                        if self.beta == T::zero() {
                            crow.copy_from_slice(&trow[..cols]);
                        } else {
                            for (cv, &tv) in crow.iter_mut().zip(trow) {
                                *cv = tv + self.beta * *cv;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Packs lanes `l0..l0 + len` and steps `p0..p0 + kc` of a strided matrix (element `(lane, p)` at
/// `data[lane * ls + p * ps]`) into panels of `w` lanes: `dst[panel * kc * w + p * w + l]`, with
/// the lanes past `len` of the last panel set to zero.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn pack<T: Real>(
    dst: &mut [T],
    data: &[T],
    ls: usize,
    ps: usize,
    l0: usize,
    len: usize,
    p0: usize,
    kc: usize,
    w: usize,
) {
    let src = Src { data, ls, ps };
    match w {
        4 => pack_w::<T, 4>(dst, src, l0, len, p0, kc),
        6 => pack_w::<T, 6>(dst, src, l0, len, p0, kc),
        8 => pack_w::<T, 8>(dst, src, l0, len, p0, kc),
        16 => pack_w::<T, 16>(dst, src, l0, len, p0, kc),
        32 => pack_w::<T, 32>(dst, src, l0, len, p0, kc),
        _ => unreachable!("no micro-kernel has {w} lanes"),
    }
}

/// A strided matrix to pack from: element `(lane, p)` at `data[lane * ls + p * ps]`.
#[derive(Clone, Copy)]
struct Src<'a, T> {
    data: &'a [T],
    ls: usize,
    ps: usize,
}

/// [`pack`] with the panel width known at compile time, so that whole panels are copied with
/// fixed-size moves.
#[inline(always)]
fn pack_w<T: Real, const W: usize>(
    dst: &mut [T],
    Src { data, ls, ps }: Src<'_, T>,
    l0: usize,
    len: usize,
    p0: usize,
    kc: usize,
) {
    let panels = len.div_ceil(W);
    for (q, panel) in dst[..panels * kc * W].chunks_exact_mut(kc * W).enumerate() {
        let lane0 = l0 + q * W;
        let lanes = W.min(len - q * W);
        if lanes == W && ls == 1 {
            // Lanes contiguous: each step is a run of W values.
            for (p, out) in panel.chunks_exact_mut(W).enumerate() {
                let start = lane0 + (p0 + p) * ps;
                let run: &[T; W] = data[start..start + W].try_into().expect("W values");
                out.copy_from_slice(run);
            }
        } else if lanes == W && ps == 1 && W > 8 && W.is_multiple_of(8) {
            // Steps contiguous: W runs of kc values, interleaved, by groups of 8 runs (LLVM
            // turns the 8-run interleave into register transposes; 32 runs at once it does not).
            for g in 0..W / 8 {
                let runs: [&[T]; 8] =
                    std::array::from_fn(|l| &data[(lane0 + 8 * g + l) * ls + p0..][..kc]);
                for (p, out) in panel.chunks_exact_mut(W).enumerate() {
                    for (o, run) in out[8 * g..8 * g + 8].iter_mut().zip(&runs) {
                        *o = run[p];
                    }
                }
            }
        } else if lanes == W && ps == 1 {
            // Steps contiguous: W runs of kc values, interleaved.
            let runs: [&[T]; W] = std::array::from_fn(|l| &data[(lane0 + l) * ls + p0..][..kc]);
            for (p, out) in panel.chunks_exact_mut(W).enumerate() {
                for (o, run) in out.iter_mut().zip(&runs) {
                    *o = run[p];
                }
            }
        } else {
            for (p, out) in panel.chunks_exact_mut(W).enumerate() {
                for (l, o) in out.iter_mut().enumerate() {
                    *o = if l < lanes {
                        data[(lane0 + l) * ls + (p0 + p) * ps]
                    } else {
                        T::zero()
                    };
                }
            }
        }
    }
}

/// 64 bytes aligned to 64: the unit of the packing buffers, so that packed panels start on a
/// cache line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

thread_local! {
    static PACK: RefCell<(Vec<Line>, Vec<Line>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// This thread's two packing buffers (kept between calls, so repeated products do not allocate),
/// or empty ones if they are out already.
fn take_pack_buffers() -> (Vec<Line>, Vec<Line>) {
    PACK.with(|cell| match cell.try_borrow_mut() {
        Ok(mut bufs) => std::mem::take(&mut *bufs),
        Err(_) => (Vec::new(), Vec::new()),
    })
}

/// Gives the buffers back for the next call on this thread.
fn put_back_pack_buffers(a: Vec<Line>, b: Vec<Line>) {
    PACK.with(|cell| {
        if let Ok(mut bufs) = cell.try_borrow_mut() {
            *bufs = (a, b);
        }
    });
}

/// The first `len` floats of `buf`, grown (zero-filled) as needed.
fn floats<T: Real>(buf: &mut Vec<Line>, len: usize) -> &mut [T] {
    let lines = (len * std::mem::size_of::<T>()).div_ceil(64);
    if buf.len() < lines {
        buf.resize(lines, Line([0; 64]));
    }
    // SAFETY: `buf` holds at least `len * size_of::<T>()` initialized bytes, aligned to 64 >=
    // `align_of::<T>()`; `T` is `f32` or `f64` (sealed), for which every bit pattern is a valid
    // value; the returned slice borrows `buf` mutably, so nothing else aliases it.
    unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<T>(), len) }
}
