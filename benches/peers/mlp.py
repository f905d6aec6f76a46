#!/usr/bin/env python3
"""The gradient of benches/mlp.rs's MLP loss in JAX and PyTorch, timed like the Rust bench.

The loss: mean softmax cross-entropy (integer labels) of relu(x w1 + b1) w2 + b2, sizes
784-256-10, batch 128, f32; the gradient is with respect to w1, b1, w2, b2 (not x), returned
together with the loss value (what the Rust `_vjp` gives).

    python3 benches/peers/mlp.py

Not run in CI. Runs each framework that is installed and says which are not; installs nothing.
One thread: the process is pinned to one CPU before any framework is imported, and the
frameworks are told to use one thread (XLA_FLAGS, OMP/MKL variables, torch.set_num_threads).
JAX: `jax.jit` of the loss (primal) and of `jax.value_and_grad` of it (gradient), on CPU.
PyTorch: eager mode; the primal under `torch.no_grad()`, the gradient by `loss.backward()` with
the parameters' `.grad` reset to None first.

Timing as in benches/mlp.rs: each variant is calibrated to about 30 ms per sample, then 15 rounds
time one sample of every variant in turn; the median over rounds is printed, with the
gradient/primal ratio of each framework. Compare with the "nn layers" and "hand-written" rows of
`cargo bench --bench mlp -- --tables` run on the same machine.
"""

import os
import platform
import sys
import time

INPUT, HIDDEN, CLASSES, BATCH = 784, 256, 10, 128
SAMPLE = 0.030
ROUNDS = 15


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


def medians(variants):
    """Median seconds per call of each `(name, fn)`, samples interleaved round by round."""
    reps = []
    for _, f in variants:
        n = 1
        while True:
            t = time.perf_counter()
            for _ in range(n):
                f()
            el = time.perf_counter() - t
            if el >= SAMPLE / 2:
                reps.append(max(1, round(SAMPLE / (el / n))))
                break
            n *= 2
    times = [[] for _ in variants]
    for _ in range(ROUNDS):
        for i, (_, f) in enumerate(variants):
            t = time.perf_counter()
            for _ in range(reps[i]):
                f()
            times[i].append((time.perf_counter() - t) / reps[i])
    return [sorted(ts)[len(ts) // 2] for ts in times]


def glorot(fan_in, fan_out):
    return (6.0 / (fan_in + fan_out)) ** 0.5


def jax_variants():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("jax: not installed, skipped (pip install jax)")
        return []
    jax.config.update("jax_platforms", "cpu")
    k = jax.random.split(jax.random.PRNGKey(11), 6)
    g1, g2 = glorot(INPUT, HIDDEN), glorot(HIDDEN, CLASSES)
    params = (
        jax.random.uniform(k[0], (INPUT, HIDDEN), jnp.float32, -g1, g1),
        jax.random.uniform(k[1], (HIDDEN,), jnp.float32, -0.1, 0.1),
        jax.random.uniform(k[2], (HIDDEN, CLASSES), jnp.float32, -g2, g2),
        jax.random.uniform(k[3], (CLASSES,), jnp.float32, -0.1, 0.1),
    )
    x = jax.random.uniform(k[4], (BATCH, INPUT), jnp.float32)
    labels = jax.random.randint(k[5], (BATCH,), 0, CLASSES)

    def loss(params, x, labels):
        w1, b1, w2, b2 = params
        h = jax.nn.relu(x @ w1 + b1)
        logits = h @ w2 + b2
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))

    primal = jax.jit(loss)
    grad = jax.jit(jax.value_and_grad(loss))
    # Compile outside the timing.
    jax.block_until_ready(primal(params, x, labels))
    jax.block_until_ready(grad(params, x, labels))
    print(f"jax {jax.__version__}: devices {jax.devices()}")
    return [
        ("jax primal", lambda: jax.block_until_ready(primal(params, x, labels))),
        ("jax grad", lambda: jax.block_until_ready(grad(params, x, labels))),
    ]


def torch_variants():
    try:
        import torch
    except ImportError:
        print("torch: not installed, skipped (pip install torch)")
        return []
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass  # already set by an earlier parallel call
    gen = torch.Generator().manual_seed(11)
    g1, g2 = glorot(INPUT, HIDDEN), glorot(HIDDEN, CLASSES)

    def uniform(shape, a):
        return ((torch.rand(shape, generator=gen) * 2 - 1) * a).requires_grad_()

    w1, b1 = uniform((INPUT, HIDDEN), g1), uniform((HIDDEN,), 0.1)
    w2, b2 = uniform((HIDDEN, CLASSES), g2), uniform((CLASSES,), 0.1)
    x = torch.rand((BATCH, INPUT), generator=gen)
    labels = torch.randint(0, CLASSES, (BATCH,), generator=gen)
    params = (w1, b1, w2, b2)

    def loss():
        h = torch.relu(x @ w1 + b1)
        logits = h @ w2 + b2
        return torch.nn.functional.cross_entropy(logits, labels)

    def primal():
        with torch.no_grad():
            return loss().item()

    def grad():
        for p in params:
            p.grad = None
        value = loss()
        value.backward()
        return value.item()

    print(f"torch {torch.__version__}: {torch.get_num_threads()} thread(s)")
    return [("torch primal", primal), ("torch grad", grad)]


def main():
    pin_one_thread()
    print(
        f"MLP {INPUT}-{HIDDEN}-{CLASSES} loss gradient, batch {BATCH}, f32, one thread; "
        f"{platform.machine()} {platform.processor() or ''}, Python {platform.python_version()}"
    )
    variants = jax_variants() + torch_variants()
    if not variants:
        print("nothing to time: neither jax nor torch is installed")
        return 0
    t = dict(zip([n for n, _ in variants], medians(variants)))
    print(f"median of {ROUNDS} interleaved rounds (~{SAMPLE * 1e3:.0f} ms samples):")
    print(f"{'framework':<10} {'primal':>10} {'grad':>10} {'grad/primal':>12}")
    for fw in ("jax", "torch"):
        if f"{fw} primal" in t:
            p, g = t[f"{fw} primal"], t[f"{fw} grad"]
            print(f"{fw:<10} {p * 1e3:>7.3f} ms {g * 1e3:>7.3f} ms {g / p:>12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
