# Generates coefs.rs (the polynomial coefficients of math.rs): python3 gen_coefs.py > coefs.rs,
# then put back the header comment. Needs mpmath.
import mpmath as mp, struct
mp.mp.dps = 50
def P(t):
    z = 2/t - 2
    return mp.log(mp.erfc(z)/t) + z*z
def cheb_fit(f, a, b, N):
    # Chebyshev interpolation at N Chebyshev nodes; coefficients c_0..c_{N-1}
    xs = [mp.cos(mp.pi*(k+mp.mpf(1)/2)/N) for k in range(N)]
    fs = [f((b-a)/2*x + (a+b)/2) for x in xs]
    cs = []
    for j in range(N):
        s = sum(fs[k]*mp.cos(mp.pi*j*(k+mp.mpf(1)/2)/N) for k in range(N))
        cs.append(2*s/N)
    cs[0] /= 2
    return cs
def clenshaw(cs, a, b, t):
    s = (2*t - (a+b))/(b-a)
    b1 = b2 = mp.mpf(0)
    for c in reversed(cs[1:]):
        b1, b2 = 2*s*b1 - b2 + c, b1
    return s*b1 - b2 + cs[0]
def Q(t):
    z = 2/t - 2
    return mp.erfc(z)*mp.exp(z*z)/t
def f64lit(c):
    s = repr(float(c))
    if 'e' not in s and '.' not in s: s += '.0'
    return s
def f32lit(c):
    v = struct.unpack('f', struct.pack('f', float(c)))[0]
    for d in range(1, 12):
        s = f"{v:.{d}e}"
        if struct.unpack('f', struct.pack('f', float(s)))[0] == v:
            m, e = s.split('e'); e = int(e)
            s2 = repr(float(s))  # normalized
            return s2 if struct.unpack('f', struct.pack('f', float(s2)))[0] == v else s
    return repr(v)
out = []
for (T, lit, zmax, N, nt, ne, nl) in [("f64", f64lit, 27.5, 24, 15, 13, 10), ("f32", f32lit, 10.5, 10, 9, 7, 4)]:
    a = mp.mpf(2)/(2+zmax); b = mp.mpf(2)/(2+mp.mpf('0.5'))
    cs = cheb_fit(Q, a, b, N)
    scale = 2/(b-a); shift = (a+b)/(b-a)
    U = T.upper()
    out.append(f"/// `Q(t) = erfc(z) exp(z²) / t` with `t = 2 / (2 + z)`, `z` in [0.5, {zmax}]: Chebyshev")
    out.append(f"/// interpolant of degree {N-1} in `s = t * ERFC_T_SCALE - ERFC_T_SHIFT` (maps t in [{mp.nstr(a,6)}, 0.8] to [-1, 1]).")
    out.append(f"pub(crate) const ERFC_CHEB_{U}: [{T}; {N}] = [")
    out += [f"    {lit(c)}," for c in cs]
    out.append("];")
    out.append(f"pub(crate) const ERFC_T_SCALE_{U}: {T} = {lit(scale)};")
    out.append(f"pub(crate) const ERFC_T_SHIFT_{U}: {T} = {lit(shift)};")
    out.append(f"/// `Φ(x) - 1/2 = x Σ c_n x^(2n)`, `c_n = (-1)^n / (√(2π) 2^n n! (2n+1))`, used for |x| < 1/√2.")
    out.append(f"pub(crate) const PHI_TAYLOR_{U}: [{T}; {nt}] = [")
    for n in range(nt):
        c = (-1)**n / (mp.sqrt(2*mp.pi) * 2**n * mp.factorial(n) * (2*n+1))
        out.append(f"    {lit(c)},")
    out.append("];")
    if T == "f64":
        # (e^r - 1 - r) / r^2 interpolated at 10 Chebyshev nodes of [-0.3467, 0.3467] (degree 9):
        # its error changes e^r by less than 2e-17 relative, two terms fewer than Taylor.
        L = mp.mpf('0.3467')
        g = lambda r: (mp.exp(r) - 1 - r) / (r * r)
        xs = [L * mp.cos(mp.pi * (k + mp.mpf(1) / 2) / 10) for k in range(10)]
        A = mp.matrix([[x ** j for j in range(10)] for x in xs])
        ec = mp.lu_solve(A, mp.matrix([g(x) for x in xs]))
        out.append("/// `(e^r - 1 - r) / r²` on |r| <= 0.3467: interpolant at 10 Chebyshev nodes, monomial")
        out.append("/// coefficients, lowest degree first (changes `e^r` by less than 2e-17 relative).")
        out.append(f"pub(crate) const EXP_TAYLOR_{U}: [{T}; 10] = [")
        out += [f"    {lit(ec[j])}," for j in range(10)]
    else:
        out.append(f"/// `1 / k!`, k = 2..={ne}: Taylor coefficients of `(e^r - 1 - r) / r²`.")
        out.append(f"pub(crate) const EXP_TAYLOR_{U}: [{T}; {ne-1}] = [")
        out += [f"    {lit(1/mp.factorial(k))}," for k in range(2, ne+1)]
    out.append("];")
    out.append(f"/// `2 / (2k + 1)`, k = 1..={nl}: series of `2 atanh(s) / s - 2` in `s²`.")
    out.append(f"pub(crate) const LOG_SERIES_{U}: [{T}; {nl}] = [")
    out += [f"    {lit(mp.mpf(2)/(2*k+1))}," for k in range(1, nl+1)]
    out.append("];")
print("\n".join(out))
