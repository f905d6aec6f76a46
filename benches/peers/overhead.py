#!/usr/bin/env python3
"""JAX on the five large problems of benches/overhead.rs, with the same inputs, next to ours.

    AUTODIFF_PEERS_DIR=/tmp/peers cargo bench --bench overhead -- --quick --noplot
    python3 benches/peers/overhead.py /tmp/peers

The bench run writes, per problem, the sizes, constants and inputs it times, with the value and
gradient of our generated `_grad`, and `ours.txt` with that run's medians (primal, `_vjp`,
`_grad`, hand-written adjoint). This script computes each problem's value and gradient with JAX
(float64; `jax.jit` of the objective and of `jax.value_and_grad` of it, with respect to the
arguments our bench differentiates), checks them against ours (relative difference of the
value and of each gradient's largest entry, rounding only: at most 1e-9), times JAX's primal and
gradient the way benches/mlp.rs and peers/mlp.py do (calibrated ~30 ms samples, 15 interleaved
rounds, medians; the process pinned to one CPU, one thread), and prints JAX's times beside ours
and how many times faster our gradient is (issue 12's goal: 2.5 or more on each).

Each objective is written as a JAX user would write it: vectorised array expressions, and
`jax.lax.fori_loop` / `jax.lax.scan` over time steps, not Python loops over elements.

Not run in CI. Installs nothing; says so and stops when JAX is missing (pip install jax).
"""

import os
import platform
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mlp import ROUNDS, SAMPLE, medians, pin_one_thread  # noqa: E402

PROBLEMS = ["rosenbrock", "spring_chain", "two_layer_loss", "heat_2d", "rk4_lotka_volterra"]
TOLERANCE = 1e-9
GOAL = 2.5


def read_problem(path):
    """The scalars, arrays, value and gradients of one problem file."""
    scalars, arrays, grads, value = {}, {}, {}, None
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            kind = parts[0]
            if kind == "scalar":
                scalars[parts[1]] = float(parts[2])
            elif kind in ("array", "grad"):
                values = [float(v) for v in parts[3:]]
                assert len(values) == int(parts[2]), f"{path}: {parts[1]} has a wrong length"
                (arrays if kind == "array" else grads)[parts[1]] = values
            elif kind == "value":
                value = float(parts[1])
    return scalars, arrays, value, grads


def read_ours(path):
    """This bench run's medians in seconds: {problem: (primal, vjp, grad, hand adjoint)}."""
    rows = {}
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts:
                rows[parts[0]] = tuple(float(v) for v in parts[1:5])
    return rows


def objectives(jnp, lax):
    """Per problem: a builder from (scalars, arrays) to (objective, differentiated arguments in
    the bench's order, the other arguments)."""

    def rosenbrock(s, a):
        def f(x):
            t = x[1:] - x[:-1] * x[:-1]
            u = 1.0 - x[:-1]
            return jnp.sum(100.0 * t * t + u * u)

        return f, ["x"], []

    def spring_chain(s, a):
        c, dt, steps = s["c"], s["dt"], int(s["steps"])

        def f(k, x0, v0):
            def step(_, xv):
                x, v = xv
                # Spring j joins mass j - 1 (the wall for j = 0) to mass j.
                d = x - jnp.concatenate([jnp.zeros(1), x[:-1]])
                w = v - jnp.concatenate([jnp.zeros(1), v[:-1]])
                force = k * (d + 0.1 * d * d * d) + c * w
                acc = jnp.concatenate([force[1:], jnp.zeros(1)]) - force
                v = v + dt * acc
                return x + dt * v, v

            x, _ = lax.fori_loop(0, steps, step, (x0, v0))
            return jnp.sum(x * x)

        return f, ["k", "x0", "v0"], []

    def two_layer_loss(s, a):
        d, h, o, batch = (int(s[k]) for k in ("d", "h", "o", "batch"))

        def f(w1, b1, w2, b2, xs, ys):
            hidden = jnp.tanh(xs.reshape(batch, d) @ w1.reshape(h, d).T + b1)
            y = hidden @ w2.reshape(o, h).T + b2
            e = y - ys.reshape(batch, o)
            return jnp.mean(e * e)

        return f, ["w1", "b1", "w2", "b2"], ["xs", "ys"]

    def heat_2d(s, a):
        alpha, n, steps = s["alpha"], int(s["n"]), int(s["steps"])

        def f(u0, alpha_, target):
            def step(_, u):
                c = u[1:-1, 1:-1]
                lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * c
                return u.at[1:-1, 1:-1].set(c + alpha_ * lap)

            u = lax.fori_loop(0, steps, step, u0.reshape(n, n))
            e = u.reshape(-1) - target
            return 0.5 * jnp.sum(e * e)

        a["alpha"] = alpha
        return f, ["u0", "alpha"], ["target"]

    def rk4_lotka_volterra(s, a):
        h = s["h"]

        def f(p, y0, obs):
            def rhs(y):
                return jnp.stack(
                    [p[0] * y[0] - p[1] * y[0] * y[1], p[2] * y[0] * y[1] - p[3] * y[1]]
                )

            def step(y, target):
                k1 = rhs(y)
                k2 = rhs(y + 0.5 * h * k1)
                k3 = rhs(y + 0.5 * h * k2)
                k4 = rhs(y + h * k3)
                y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
                e = y - target
                return y, jnp.sum(e * e)

            _, losses = lax.scan(step, y0, obs.reshape(-1, 2))
            return jnp.sum(losses)

        return f, ["p", "y0"], ["obs"]

    return {
        "rosenbrock": rosenbrock,
        "spring_chain": spring_chain,
        "two_layer_loss": two_layer_loss,
        "heat_2d": heat_2d,
        "rk4_lotka_volterra": rk4_lotka_volterra,
    }


def relative(got, want):
    """Largest difference over the largest magnitude of `want` (1 if that is below 1)."""
    got, want = list(got), list(want)
    scale = max(1.0, max(abs(w) for w in want))
    return max(abs(g - w) for g, w in zip(got, want)) / scale


def fmt(seconds):
    if seconds != seconds:  # nan: absent
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    return f"{seconds * 1e3:.3f} ms"


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    folder = argv[1]
    pin_one_thread()
    try:
        import jax
        import jax.numpy as jnp
        from jax import lax
    except ImportError:
        print("jax: not installed, nothing to time (pip install jax)")
        return 0
    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_enable_x64", True)
    print(
        f"jax {jax.__version__} (jit, CPU, float64), one thread; {platform.machine()}, "
        f"Python {platform.python_version()}"
    )
    build = objectives(jnp, lax)
    ours = read_ours(os.path.join(folder, "ours.txt"))
    rows, failures = [], 0
    for name in PROBLEMS:
        path = os.path.join(folder, f"{name}.txt")
        if not os.path.exists(path):
            print(f"{name}: no {path}, skipped (run the bench with AUTODIFF_PEERS_DIR first)")
            continue
        scalars, arrays, value, grads = read_problem(path)
        f, wrt, rest = build[name](scalars, arrays)
        args = [jnp.asarray(arrays[k], dtype=jnp.float64) for k in wrt + rest]
        argnums = tuple(range(len(wrt)))
        primal = jax.jit(f)
        grad = jax.jit(jax.value_and_grad(f, argnums=argnums))
        v = float(jax.block_until_ready(primal(*args)))
        gv, gs = jax.block_until_ready(grad(*args))
        worst = relative([v, float(gv)], [value, value])
        for k, g in zip(wrt, gs):
            worst = max(worst, relative(jnp.ravel(g).tolist(), grads[k]))
        ok = worst <= TOLERANCE
        failures += not ok
        print(f"{name}: value and gradient {'agree' if ok else 'DISAGREE'} ({worst:.1e})")
        rows.append((name, primal, grad, args, ok))
    if not rows:
        return 1
    variants = []
    for name, primal, grad, args, _ in rows:
        variants.append((name + " primal", lambda p=primal, a=args: jax.block_until_ready(p(*a))))
        variants.append((name + " grad", lambda g=grad, a=args: jax.block_until_ready(g(*a))))
    times = medians(variants)
    print(f"median of {ROUNDS} interleaved rounds (~{SAMPLE * 1e3:.0f} ms samples); ours from "
          f"{folder}/ours.txt (the bench run that wrote the inputs):")
    head = ("problem", "jax primal", "jax grad", "jax g/p", "our primal", "our _grad", "our g/p",
            "jax grad / our _grad")
    print(f"{head[0]:<20}" + "".join(f"{h:>12}" for h in head[1:7]) + f"  {head[7]}")
    for i, (name, *_rest) in enumerate(rows):
        jp, jg = times[2 * i], times[2 * i + 1]
        op, _, og, _ = ours.get(name, (float("nan"),) * 4)
        speed = jg / og if og == og else float("nan")
        flag = "" if speed != speed else ("  (goal met)" if speed >= GOAL else "  (below goal)")
        print(
            f"{name:<20}{fmt(jp):>12}{fmt(jg):>12}{jg / jp:>12.2f}{fmt(op):>12}{fmt(og):>12}"
            f"{(og / op if op == op else float('nan')):>12.2f}  {speed:.2f}{flag}"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
