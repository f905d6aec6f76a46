#!/usr/bin/env python3
"""ADBench's GMM, BA and LSTM in JAX and PyTorch, timed like benches/adbench.rs's table.

Reads the instances benches/adbench.rs times (tests/data/adbench/data), computes each objective and
its derivative with every framework that is installed, checks both against ADBench's Manual
outputs (tests/data/adbench/expected/manual) with ADBench's rule at 1e-8 (and, as ADBench's rule is
absolute below 1, |got - want| <= 1e-8 of the largest expected entry), times medians and prints one
table per instance: objective, derivative and derivative/objective per tool, with the rows of the
Rust bench's last table run (`cargo bench --bench adbench -- --tables` writes them to
`adbench-table.tsv` in cargo's target folder) when that file exists.

    python3 benches/peers/adbench.py [--rust-tsv PATH] [NAME_FILTER ...]

Not run in CI. Installs nothing; a framework that is not installed is skipped with a message.
One thread, as in benches/peers/mlp.py: the process is pinned to one CPU before any framework is
imported and the frameworks are asked for one thread. Everything is float64 (JAX with
`jax_enable_x64`), as ADBench's Manual module and the Rust code are.

What is timed (compile and tracing outside the timing):
- GMM, LSTM: JAX `jax.jit` of the objective and of `jax.value_and_grad` of it with respect to the
  parameters (alphas, means, icf; LSTM main and extra parameters). PyTorch eager: the objective
  under `torch.no_grad()`, the gradient by `backward()` (the `.grad` fields reset to None first).
  The GMM objective is written with whole arrays (the points of every component at once); the LSTM
  is a loop over the sequence (`jax.lax.scan` in JAX, a Python loop in PyTorch) over the layers.
- BA: the objective is every residual (2 per observation and the weight errors); the derivative
  is every observation's 2 x 15 block over its camera, point and weight and the weight errors'
  derivatives: `vmap` of `jacfwd` of one observation's residual (`jax.vmap(jax.jacfwd(..))`,
  `torch.func.vmap(torch.func.jacfwd(..))`), the values of the sparse Jacobian in ADBench's order.

Timing as in benches/adbench.rs: each variant is calibrated to about 20 ms per sample, then 15
rounds time one sample of every variant of an instance in turn; medians over rounds.
"""

import math
import os
import platform
import sys
import time
import warnings

SAMPLE = 0.020
ROUNDS = 15
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DATA = os.path.join(ROOT, "tests", "data", "adbench")

# The instances of benches/adbench.rs's table.
GMM = ["1k/gmm_d2_K5", "1k/gmm_d2_K10", "1k/gmm_d10_K5", "1k/gmm_d10_K25",
       "10k/gmm_d2_K5", "10k/gmm_d10_K5", "10k/gmm_d2_K200"]
BA = ["test", "ba1_n49_m7776_p31843", "ba2_n21_m11315_p36455"]
LSTM = ["lstm_l2_c1024", "lstm_l4_c1024"]

# ADBench's tolerance for exact tools (run-all.ps1; it allows its PyTorch modules 1e-7, not needed
# here).
TOLERANCE = {"jax": 1e-8, "torch": 1e-8}


def pin_one_thread():
    """Pins this process to one CPU and asks every threaded runtime for one thread."""
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = "1"
    flags = os.environ.get("XLA_FLAGS", "")
    os.environ["XLA_FLAGS"] = (
        flags + " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    ).strip()
    os.environ["JAX_PLATFORMS"] = "cpu"


# ---------------------------------------------------------------------------------------------
# ADBench's files (whitespace-separated numbers; words such as "Reprojection error:" skipped)
# ---------------------------------------------------------------------------------------------

def numbers(path):
    out = []
    with open(path) as f:
        for token in f.read().split():
            try:
                out.append(float(token))
            except ValueError:
                pass
    return out


class Cursor:
    def __init__(self, path):
        self.path, self.v, self.at = path, numbers(path), 0

    def take(self, n):
        if self.at + n > len(self.v):
            raise ValueError(f"{self.path}: ends after {len(self.v)} numbers")
        out = self.v[self.at:self.at + n]
        self.at += n
        return out

    def count(self):
        return int(self.take(1)[0])

    def finish(self):
        if self.at != len(self.v):
            raise ValueError(f"{self.path}: {len(self.v) - self.at} numbers left over")


def read_gmm(name):
    c = Cursor(os.path.join(DATA, "data", "gmm", name + ".txt"))
    d, k, n = c.count(), c.count(), c.count()
    t = d * (d + 1) // 2
    g = dict(d=d, k=k, n=n, alphas=c.take(k), means=c.take(k * d), icf=c.take(k * t),
             x=c.take(n * d))
    g["gamma"], g["m"] = c.take(1)[0], c.count()
    c.finish()
    return g


def read_ba(name):
    """Expanded as ADBench's reader does: observation i links camera i mod n with point i mod m."""
    c = Cursor(os.path.join(DATA, "data", "ba", name + ".txt"))
    n, m, p = c.count(), c.count(), c.count()
    cam, point, w, feat = c.take(11), c.take(3), c.take(1)[0], c.take(2)
    c.finish()
    return dict(n=n, m=m, p=p, cams=[cam] * n, points=[point] * m, weights=[w] * p,
                feats=[feat] * p, cam_of=[i % n for i in range(p)],
                point_of=[i % m for i in range(p)])


def read_lstm(name):
    c = Cursor(os.path.join(DATA, "data", "lstm", name + ".txt"))
    l, chars, b = c.count(), c.count(), c.count()
    out = dict(l=l, c=chars, b=b, main=c.take(8 * b * l), extra=c.take(3 * b),
               state=c.take(2 * b * l), seq=c.take(chars * b))
    c.finish()
    return out


def expected(problem, name):
    """Manual's objective and derivative: GMM, LSTM the value and the gradient; BA the residuals
    and the Jacobian values of one block (ba1..ba20 share ba1's block) or of the whole test CSR."""
    base = os.path.join(DATA, "expected", "manual", problem)
    if problem == "ba" and name != "test":
        name = "ba1_n49_m7776_p31843_obs1"
    f = numbers(os.path.join(base, f"{name}_F_Manual.txt"))
    j = numbers(os.path.join(base, f"{name}_J_Manual.txt"))
    if problem == "ba":
        # nrows ncols, len(rows), rows, len(cols), cols, vals
        nrows = int(j[0])
        nnz = int(j[3 + nrows + 1])
        j = j[len(j) - nnz:]
    return f, j


def rho(x, y):
    """ADBench's difference of two numbers."""
    if x == y:
        return 0.0
    s = abs(x) + abs(y)
    return abs(x - y) / s if s > 1 else abs(x - y)


def worst(got, want):
    """The largest of ADBench's differences, and of |got - want| over the largest |want| (ADBench's
    rule is absolute below 1, and LSTM gradients are below 1e-4)."""
    if len(got) != len(want):
        raise ValueError(f"length {len(got)} against {len(want)} expected")
    scale = max((abs(b) for b in want), default=0.0) or 1.0
    return max(max(rho(a, b), abs(a - b) / scale) for a, b in zip(got, want))


def ba_expected_tiled(want_f, want_j, p):
    """Manual's ba1 block repeated for every observation, in the layout of the full outputs."""
    if len(want_j) == 31 * p:
        return want_f, want_j
    reproj = want_f[:2] * p
    return reproj + want_f[2:] * p, want_j[:30] * p + want_j[30:] * p


# ---------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------

def medians(variants):
    """Median seconds per call of each function, samples interleaved round by round."""
    reps = []
    for f in variants:
        n = 1
        while True:
            t = time.perf_counter()
            for _ in range(n):
                f()
            el = time.perf_counter() - t
            if el >= SAMPLE / 4:
                reps.append(max(1, round(SAMPLE / (el / n))))
                break
            n *= 2
    times = [[] for _ in variants]
    for _ in range(ROUNDS):
        for i, f in enumerate(variants):
            t = time.perf_counter()
            for _ in range(reps[i]):
                f()
            times[i].append((time.perf_counter() - t) / reps[i])
    return [sorted(ts)[len(ts) // 2] for ts in times]


def wishart_constant(d, gamma, m):
    """ADBench's constant C of one component's Wishart term (exact pi, as its Python modules)."""
    nu = d + m + 1
    log_gamma_d = d * (d - 1) / 4 * math.log(math.pi) + sum(
        math.lgamma(nu / 2 + (1 - j) / 2) for j in range(1, d + 1))
    return nu * d * (math.log(gamma) - 0.5 * math.log(2)) - log_gamma_d


def lower_indices(d):
    """Rows and columns of the strictly lower entries, in ADBench's column-by-column order."""
    rows, cols = [], []
    for col in range(d):
        for row in range(col + 1, d):
            rows.append(row)
            cols.append(col)
    return rows, cols


# ---------------------------------------------------------------------------------------------
# JAX
# ---------------------------------------------------------------------------------------------

def jax_tool():
    try:
        import jax
    except ImportError:
        print("jax: not installed, skipped (pip install jax)")
        return None
    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax.scipy.special import logsumexp

    def gmm(g):
        d, k, n = g["d"], g["k"], g["n"]
        rows, cols = lower_indices(d)
        x = jnp.array(g["x"]).reshape(n, d)
        const = -0.5 * n * d * math.log(2 * math.pi) - k * wishart_constant(d, g["gamma"], g["m"])
        gamma, m = g["gamma"], g["m"]

        def objective(alphas, means, icf):
            icf = icf.reshape(k, -1)
            means = means.reshape(k, d)
            q, lower = icf[:, :d], icf[:, d:]
            factor = jnp.zeros((k, d, d)).at[:, rows, cols].set(lower)
            factor = factor + jax.vmap(jnp.diag)(jnp.exp(q))
            diff = x[None, :, :] - means[:, None, :]
            z = jnp.einsum("kij,knj->kni", factor, diff)
            scores = alphas[:, None] + q.sum(1)[:, None] - 0.5 * (z * z).sum(2)
            prior = 0.5 * gamma * gamma * ((jnp.exp(q) ** 2).sum() + (lower ** 2).sum()) \
                - m * q.sum()
            return logsumexp(scores, axis=0).sum() - n * logsumexp(alphas) + prior + const

        args = tuple(jnp.array(g[a]) for a in ("alphas", "means", "icf"))
        return objective, args, (0, 1, 2)

    def lstm(s):
        l, c, b = s["l"], s["c"], s["b"]
        state = jnp.array(s["state"]).reshape(l, 2, b)
        seq = jnp.array(s["seq"]).reshape(c, b)

        def objective(main, extra):
            # Per layer: weights then biases, each forget, input, output, change.
            w = main.reshape(l, 2, 4, b)
            in_w, out_w, out_b = extra[:b], extra[b:2 * b], extra[2 * b:]

            def step(carry, bits):
                hs, ss = carry
                now, nxt = bits
                x = now * in_w
                new_h, new_s = [], []
                for layer in range(l):
                    wl, bl = w[layer, 0], w[layer, 1]
                    h, s_old = hs[layer], ss[layer]
                    forget = jax.nn.sigmoid(x * wl[0] + bl[0])
                    inp = jax.nn.sigmoid(h * wl[1] + bl[1])
                    out = jax.nn.sigmoid(x * wl[2] + bl[2])
                    change = jnp.tanh(h * wl[3] + bl[3])
                    s_new = s_old * forget + inp * change
                    x = out * jnp.tanh(s_new)
                    new_h.append(x)
                    new_s.append(s_new)
                y = x * out_w + out_b
                lse = jnp.log(jnp.exp(y).sum() + 2.0)
                return (jnp.stack(new_h), jnp.stack(new_s)), (nxt * (y - lse)).sum()

            _, terms = jax.lax.scan(step, (state[:, 0], state[:, 1]), (seq[:-1], seq[1:]))
            return -terms.sum() / ((c - 1) * b)

        return objective, (jnp.array(s["main"]), jnp.array(s["extra"])), (0, 1)

    def flat(problem, inst):
        objective, args, argnums = (gmm if problem == "gmm" else lstm)(inst)
        primal = jax.jit(objective)
        grad = jax.jit(jax.value_and_grad(objective, argnums=argnums))

        def value():
            return float(primal(*args))

        def gradient():
            v, gs = grad(*args)
            return float(v), [float(e) for a in gs for e in a.reshape(-1)]

        run_primal = lambda: jax.block_until_ready(primal(*args))  # noqa: E731
        run_grad = lambda: jax.block_until_ready(grad(*args))  # noqa: E731
        return value, gradient, run_primal, run_grad

    def ba(inst):
        cams = jnp.array(inst["cams"])
        points = jnp.array(inst["points"])
        weights = jnp.array(inst["weights"])
        feats = jnp.array(inst["feats"])
        cam_of = jnp.array(inst["cam_of"])
        point_of = jnp.array(inst["point_of"])

        def residual(v, feat):
            """One observation's 2 residuals; v = camera (11), point (3), weight."""
            r, centre, f, x0, kappa = v[0:3], v[3:6], v[6], v[7:9], v[9:11]
            y = v[11:14] - centre
            theta2 = r @ r
            zero = theta2 == 0.0
            # Double where: the branch not taken gets a harmless argument, so its derivative
            # is finite too.
            theta = jnp.sqrt(jnp.where(zero, 1.0, theta2))
            axis = r / theta
            c, s = jnp.cos(theta), jnp.sin(theta)
            rotated = y * c + jnp.cross(axis, y) * s + axis * (axis @ y) * (1.0 - c)
            z = jnp.where(zero, y + jnp.cross(r, y), rotated)
            p = z[:2] / z[2]
            rho2 = p @ p
            p = (1.0 + kappa[0] * rho2 + kappa[1] * rho2 * rho2) * p
            return v[14] * (f * p + x0 - feat)

        def inputs(cams, points, weights):
            return jnp.concatenate([cams[cam_of], points[point_of], weights[:, None]], axis=1)

        def objective(cams, points, weights):
            reproj = jax.vmap(residual)(inputs(cams, points, weights), feats)
            return reproj.reshape(-1), 1.0 - weights * weights

        blocks_of = jax.vmap(jax.jacfwd(residual))
        weight_err = jax.vmap(jax.grad(lambda w: 1.0 - w * w))

        def jacobian(cams, points, weights):
            return blocks_of(inputs(cams, points, weights), feats), weight_err(weights)

        primal, jac = jax.jit(objective), jax.jit(jacobian)
        args = (cams, points, weights)

        def value():
            reproj, werr = primal(*args)
            return [float(e) for e in reproj] + [float(e) for e in werr]

        def derivative():
            blocks, dw = jac(*args)
            return [float(e) for e in blocks.reshape(-1)] + [float(e) for e in dw]

        return value, derivative, (lambda: jax.block_until_ready(primal(*args))), \
            (lambda: jax.block_until_ready(jac(*args)))

    print(f"jax {jax.__version__}: devices {jax.devices()}")
    return dict(flat=flat, ba=ba)


# ---------------------------------------------------------------------------------------------
# PyTorch
# ---------------------------------------------------------------------------------------------

def torch_tool():
    try:
        import torch
    except ImportError:
        print("torch: not installed, skipped (pip install torch)")
        return None
    # torch.func's first use warns that torch.jit.script is deprecated (not ours to fix).
    warnings.filterwarnings("ignore", category=FutureWarning, module="torch")
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass  # already set by an earlier parallel call
    torch.set_default_dtype(torch.float64)

    def tensor(v, grad=False):
        return torch.tensor(v, dtype=torch.float64, requires_grad=grad)

    def gmm(g):
        d, k, n = g["d"], g["k"], g["n"]
        rows, cols = lower_indices(d)
        x = tensor(g["x"]).reshape(n, d)
        const = -0.5 * n * d * math.log(2 * math.pi) - k * wishart_constant(d, g["gamma"], g["m"])
        gamma, m = g["gamma"], g["m"]
        params = [tensor(g[a], True) for a in ("alphas", "means", "icf")]

        def objective():
            alphas, means, icf = params
            icf = icf.reshape(k, -1)
            means = means.reshape(k, d)
            q, lower = icf[:, :d], icf[:, d:]
            factor = torch.zeros(k, d, d)
            factor[:, rows, cols] = lower
            factor = factor + torch.diag_embed(torch.exp(q))
            diff = x[None, :, :] - means[:, None, :]
            z = torch.einsum("kij,knj->kni", factor, diff)
            scores = alphas[:, None] + q.sum(1)[:, None] - 0.5 * (z * z).sum(2)
            prior = 0.5 * gamma * gamma * ((torch.exp(q) ** 2).sum() + (lower ** 2).sum()) \
                - m * q.sum()
            return torch.logsumexp(scores, 0).sum() - n * torch.logsumexp(alphas, 0) + prior \
                + const

        return objective, params

    def lstm(s):
        l, c, b = s["l"], s["c"], s["b"]
        state = tensor(s["state"]).reshape(l, 2, b)
        seq = tensor(s["seq"]).reshape(c, b)
        params = [tensor(s["main"], True), tensor(s["extra"], True)]

        def objective():
            main, extra = params
            w = main.reshape(l, 2, 4, b)
            in_w, out_w, out_b = extra[:b], extra[b:2 * b], extra[2 * b:]
            hs = [state[layer, 0] for layer in range(l)]
            ss = [state[layer, 1] for layer in range(l)]
            total = 0.0
            for t in range(c - 1):
                x = seq[t] * in_w
                for layer in range(l):
                    wl, bl = w[layer, 0], w[layer, 1]
                    forget = torch.sigmoid(x * wl[0] + bl[0])
                    inp = torch.sigmoid(hs[layer] * wl[1] + bl[1])
                    out = torch.sigmoid(x * wl[2] + bl[2])
                    change = torch.tanh(hs[layer] * wl[3] + bl[3])
                    ss[layer] = ss[layer] * forget + inp * change
                    hs[layer] = out * torch.tanh(ss[layer])
                    x = hs[layer]
                y = x * out_w + out_b
                lse = torch.log(torch.exp(y).sum() + 2.0)
                total = total + (seq[t + 1] * (y - lse)).sum()
            return -total / ((c - 1) * b)

        return objective, params

    def flat(problem, inst):
        objective, params = (gmm if problem == "gmm" else lstm)(inst)

        def run_primal():
            with torch.no_grad():
                return objective().item()

        def run_grad():
            for p in params:
                p.grad = None
            v = objective()
            v.backward()
            return v.item()

        def gradient():
            v = run_grad()
            return v, [float(e) for p in params for e in p.grad.reshape(-1)]

        return run_primal, gradient, run_primal, run_grad

    def ba(inst):
        from torch.func import jacfwd, vmap

        cams = tensor(inst["cams"])
        points = tensor(inst["points"])
        weights = tensor(inst["weights"])
        feats = tensor(inst["feats"])
        cam_of = torch.tensor(inst["cam_of"])
        point_of = torch.tensor(inst["point_of"])

        def residual(v, feat):
            """One observation's 2 residuals; v = camera (11), point (3), weight."""
            r, centre, f, x0, kappa = v[0:3], v[3:6], v[6], v[7:9], v[9:11]
            y = v[11:14] - centre
            theta2 = r @ r
            zero = theta2 == 0.0
            theta = torch.sqrt(torch.where(zero, torch.ones_like(theta2), theta2))
            axis = r / theta
            c, s = torch.cos(theta), torch.sin(theta)
            rotated = y * c + torch.linalg.cross(axis, y) * s + axis * (axis @ y) * (1.0 - c)
            z = torch.where(zero, y + torch.linalg.cross(r, y), rotated)
            p = z[:2] / z[2]
            rho2 = p @ p
            p = (1.0 + kappa[0] * rho2 + kappa[1] * rho2 * rho2) * p
            return v[14] * (f * p + x0 - feat)

        def inputs():
            return torch.cat([cams[cam_of], points[point_of], weights[:, None]], dim=1)

        blocks_of = vmap(jacfwd(residual))

        def run_primal():
            with torch.no_grad():
                return vmap(residual)(inputs(), feats), 1.0 - weights * weights

        def run_jac():
            # d(1 - w^2)/dw by the same forward mode.
            return blocks_of(inputs(), feats), vmap(jacfwd(lambda w: 1.0 - w * w))(weights)

        def value():
            reproj, werr = run_primal()
            return [float(e) for e in reproj.reshape(-1)] + [float(e) for e in werr]

        def derivative():
            blocks, dw = run_jac()
            return [float(e) for e in blocks.reshape(-1)] + [float(e) for e in dw]

        return value, derivative, run_primal, run_jac

    print(f"torch {torch.__version__}: {torch.get_num_threads()} thread(s)")
    return dict(flat=flat, ba=ba)


# ---------------------------------------------------------------------------------------------
# The comparison
# ---------------------------------------------------------------------------------------------

def rust_rows(path):
    """benches/adbench.rs's medians: instance -> (objective, generated, hand, num-dual, FD,
    scaled)."""
    rows = {}
    if not path or not os.path.exists(path):
        return rows
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f if not l.startswith("#")]
    header = lines[0].split("\t")
    for line in lines[1:]:
        cells = dict(zip(header, line.split("\t")))
        rows[cells["instance"]] = cells
    return rows


def fmt(seconds):
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds:.2f} s"


def machine():
    """The CPU model and the number of logical CPUs listed in /proc/cpuinfo."""
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read().splitlines()
    except OSError:
        return f"{platform.machine()} {platform.processor()}".strip()
    models = [l.split(":", 1)[1].strip() for l in info if l.startswith("model name")]
    cpus = sum(1 for l in info if l.startswith("processor"))
    return f"{models[0] if models else platform.machine()}, {cpus} logical CPUs"


def default_tsv():
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
    return os.path.join(target, "adbench-table.tsv")


def main(argv):
    tsv, filters = default_tsv(), []
    args = iter(argv)
    for a in args:
        if a == "--rust-tsv":
            tsv = next(args)
        else:
            filters.append(a)
    pin_one_thread()
    print(f"ADBench GMM, BA, LSTM in JAX and PyTorch, float64, one thread; {machine()}, "
          f"Python {platform.python_version()}; load average {os.getloadavg()[0]:.2f}")
    tools = {}
    for name, make in (("jax", jax_tool), ("torch", torch_tool)):
        t = make()
        if t is not None:
            tools[name] = t
    rust = rust_rows(tsv)
    if rust:
        print(f"rust rows: {tsv} (medians of the last `cargo bench --bench adbench -- --tables`)")
    else:
        print(f"rust rows: none ({tsv} not found; run `cargo bench --bench adbench -- --tables`)")
    if not tools and not rust:
        print("nothing to show: neither jax nor torch is installed and no Rust table was found")
        return 0

    instances = [("gmm", n) for n in GMM] + [("ba", n) for n in BA] + [("lstm", n) for n in LSTM]
    instances = [(p, n) for p, n in instances
                 if not filters or any(f in f"{p}/{n}" for f in filters)]
    table = []
    failures = 0
    for problem, name in instances:
        key = f"{problem}/{name}"
        print(f"{key}:", end="", flush=True)
        inst = {"gmm": read_gmm, "ba": read_ba, "lstm": read_lstm}[problem](name)
        want_f, want_j = expected(problem, name)
        if problem == "ba":
            want_f, want_j = ba_expected_tiled(want_f, want_j, inst["p"])
        variants, labels = [], []
        for tool, t in tools.items():
            if problem == "ba":
                value, derivative, run_primal, run_grad = t["ba"](inst)
                got_f, got_j = value(), derivative()
            else:
                value, gradient, run_primal, run_grad = t["flat"](problem, inst)
                got_f = [value()]
                f2, got_j = gradient()
                got_f.append(f2)
                want_f2 = want_f * 2
            rf = worst(got_f, want_f if problem == "ba" else want_f2)
            rj = worst(got_j, want_j)
            ok = rj <= TOLERANCE[tool] and rf <= TOLERANCE[tool]
            print(f" {tool} difference objective {rf:.1e} derivative {rj:.1e}"
                  f"{'' if ok else ' FAILED'};", end="", flush=True)
            failures += not ok
            variants += [run_primal, run_grad]
            labels.append(tool)
        print()
        times = medians(variants) if variants else []
        rows = []
        r = rust.get(key)
        if r:
            obj = float(r["objective"])
            mark = "*" if r["scaled"] == "1" else ""
            for col, label in (("generated", "rust generated"), ("hand", "rust hand"),
                               ("num_dual", "rust num-dual" + mark), ("fd", "rust FD" + mark)):
                rows.append((label, obj, float(r[col])))
        for i, tool in enumerate(labels):
            rows.append((tool, times[2 * i], times[2 * i + 1]))
        table.append((problem + " " + name, rows))

    print()
    print(f"load average {os.getloadavg()[0]:.2f} after the measurements")
    print(f"median of {ROUNDS} interleaved rounds (~{SAMPLE * 1e3:.0f} ms samples) per tool; "
          "derivative = value and gradient (GMM, LSTM), Jacobian blocks (BA); rust rows from the "
          "Rust bench's own run (* = extrapolated from a subset, see benches/adbench.rs)")
    print(f"{'instance':<26} {'tool':<16} {'objective':>11} {'derivative':>11} {'deriv/obj':>10}")
    for name, rows in table:
        for i, (tool, obj, der) in enumerate(rows):
            print(f"{name if i == 0 else '':<26} {tool:<16} {fmt(obj):>11} {fmt(der):>11} "
                  f"{der / obj:>10.2f}")
    if failures:
        print(f"{failures} check(s) FAILED: a tool's objective or derivative differs from "
              "ADBench's Manual output beyond the tolerance")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
