# Reference values of gelu_erf(x) = x * Phi(x) and of Phi(x) in f64, computed with mpmath at 60 digits
# and rounded once: python3 gen_gelu_erf.py > gelu_erf_f64.txt. Each line: bits of x, of gelu_erf(x),
# of Phi(x), in hexadecimal.
import mpmath as mp, random, struct
mp.mp.dps = 60
def bits(v):
    return struct.unpack('<Q', struct.pack('<d', v))[0]
rng = random.Random(11)
xs = [-40.0 + 52.0 * i / 400 for i in range(401)]            # uniform grid on [-40, 12]
xs += [rng.uniform(-39.0, 8.0) for _ in range(400)]           # random points
xs += [rng.uniform(-1.0, 1.0) for _ in range(100)]            # around the centre/tail switch
xs += [s * 10.0 ** rng.uniform(-310, 2.5) for s in (1, -1) for _ in range(50)]  # all scales
xs += [0.7071067811865475, 0.7071067811865476, -0.7071067811865475, -0.7071067811865476,
       5e-324, -5e-324, 2.2250738585072014e-308, -38.5, -38.0, -37.5]
for x in xs:
    X = mp.mpf(x)
    phi = mp.ncdf(X)
    print(f"{bits(x):016x} {bits(float(X * phi)):016x} {bits(float(phi)):016x}")
