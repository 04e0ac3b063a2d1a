"""Print Monte Carlo throughput, in position checks per second: the vectorised sampler against a plain loop,
against numpy's own uniform generation in the same run, and the author's check (python -m speculative check).

Usage: .venv/bin/python bench/sampler_throughput.py [--power]   (--power adds planted-TV detection rates, ~2 min)
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from speculative import checks  # noqa: E402
from speculative.analysis import arrays  # noqa: E402
from speculative.profiles import load  # noqa: E402
from speculative.sampler import sample_rounds  # noqa: E402

SEEDS = 10  # seeds from checks.SEED on at which --power plants each error


def loop_rounds(target, draft, bonus, n, rng: random.Random) -> int:
    """The same rule, one round at a time in plain Python; returns the number of position checks."""
    k, vocab = len(target), range(len(bonus))
    residuals = []
    for p, q in zip(target, draft, strict=True):
        r = [max(0.0, a - b) for a, b in zip(p, q, strict=True)]
        residuals.append(r if sum(r) > 0 else p)
    checks = 0
    for _ in range(n):
        out = []
        for i in range(k):
            x = rng.choices(vocab, weights=draft[i])[0]
            checks += 1
            if rng.random() < min(1.0, target[i][x] / draft[i][x]):
                out.append(x)
            else:
                out.append(rng.choices(vocab, weights=residuals[i])[0])
                break
        else:
            out.append(rng.choices(vocab, weights=bonus)[0])
    return checks


def measure(data_path: str = "data/profiles.v1.json", rounds: int = 200_000, loop_rounds_n: int = 20_000) -> dict[str, float]:
    """Returns checks per second for both implementations over every profile in the file."""
    data = load(data_path)
    vec_checks, vec_time, loop_checks, loop_time, vec_uniforms = 0, 0.0, 0, 0.0, 0
    for i, profile in enumerate(data.profiles):
        t, d, b = arrays(data, profile)
        rng = np.random.default_rng(i)
        sample_rounds(t, d, b, 1000, rng)  # warm up
        times = []
        for _ in range(5):  # best of five: the machine's noise only ever adds time
            start = time.perf_counter()
            out = sample_rounds(t, d, b, rounds, rng)
            times.append(time.perf_counter() - start)
        vec_time += min(times)
        vec_checks += int(out.n_checked.sum())
        vec_uniforms += rounds * (2 * len(t) + 1)  # a proposal and a verdict per position, then one replacement or bonus
        start = time.perf_counter()
        loop_checks += loop_rounds(t.tolist(), d.tolist(), b.tolist(), loop_rounds_n, random.Random(i))
        loop_time += time.perf_counter() - start
    return {"vectorised": vec_checks / vec_time, "sampler_uniforms": vec_uniforms / vec_time, "loop": loop_checks / loop_time, "uniform": uniform_rate(),
            **check_rates()}


def uniform_rate(n: int = 1 << 15, repeats: int = 2000) -> float:
    """Returns numpy's uniform draws per second into a reused buffer: the ceiling a sampler that draws can reach."""
    rng, out = np.random.default_rng(0), np.empty(n)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeats):
            rng.random(out=out)
        best = min(best, time.perf_counter() - start)
    return n * repeats / best


def check_rates(rounds: int = 2_000_000, texts: int = 1_000_000) -> dict[str, float]:
    """Returns the author's check throughput: rounds per second with their counts, and texts per second."""
    data = load("data/profiles.v1.json")
    start = time.perf_counter()
    for profile in data.profiles:
        checks.profile_checks(*arrays(data, profile), rounds, np.random.default_rng(1))
    per_round = time.perf_counter() - start
    start = time.perf_counter()
    checks.sequence_check(checks.TOY, texts, np.random.default_rng(1))
    return {"check_rounds": rounds * len(data.profiles) / per_round, "check_texts": texts / (time.perf_counter() - start),
            "texts_s": time.perf_counter() - start}


def detection(sizes: tuple[float, ...] = (0.0025, 0.00375, 0.005, 0.0075)) -> dict[float, list[int]]:
    """Returns, per planted TV, how many of SEEDS seeds caught it at each shipped profile's bonus position."""
    data = load("data/profiles.v1.json")
    profiles = [(p.id, *arrays(data, p)) for p in data.profiles]
    seeds = range(checks.SEED, checks.SEED + SEEDS)
    return {tv: np.array([checks.caught(profiles, checks.planted(tv) if tv else checks.R, s) for s in seeds]).sum(0).tolist()
            for tv in (0.0, *sizes)}


if __name__ == "__main__":
    m = measure()
    print(f"vectorised sampler  {m['vectorised'] / 1e6:8.1f} M checks/s")
    print(f"plain Python loop   {m['loop'] / 1e6:8.2f} M checks/s")
    print(f"ratio               {m['vectorised'] / m['loop']:8.0f}x")
    print(f"numpy uniforms      {m['uniform'] / 1e6:8.1f} M/s; sampler checks/s are {m['vectorised'] / m['uniform']:.1%} of it, "
          f"the sampler's own uniforms/s {m['sampler_uniforms'] / m['uniform']:.1%}")
    print(f"check, per position {m['check_rounds'] / 1e6:8.2f} M rounds/s counted and tested")
    print(f"check, sequences    {m['check_texts'] / 1e6:8.2f} M texts/s ({checks.SEQUENCE_TEXTS:,} texts in {m['texts_s']:.2f} s)")
    if "--power" in sys.argv:
        for tv, hits in detection().items():
            print(f"planted TV {tv:<7} caught at {' and '.join(f'{h}/{SEEDS}' for h in hits)} seeds "
                  f"(aligned, divergent) at {checks.ROUNDS:,} rounds")
