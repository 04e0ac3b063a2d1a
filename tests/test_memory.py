"""Flat memory: the Monte Carlo is drawn and counted chunk by chunk, with the draws of one whole run, in order.

Structural checks only; bench/memory.py measures the peak resident set at 10^5 and 10^7 rounds.
"""

from __future__ import annotations

import dataclasses
import tracemalloc

import numpy as np
import pytest

from speculative import analysis, sampler

from .conftest import as_float, is_shipped

FIELDS = ("uniforms_pm", "proposals_pm", "checked_pm", "passed_pm", "replacements_pm", "committed_pm")


def joined(chunks) -> dict[str, np.ndarray]:
    """Returns every chunk's arrays joined along the rounds axis (copied, since a chunk's buffers are reused)."""
    parts: dict[str, list[np.ndarray]] = {f: [] for f in FIELDS}
    for part in chunks:
        for f in FIELDS:
            parts[f].append(getattr(part, f).copy())
    return {f: np.concatenate(arrays, axis=1) for f, arrays in parts.items()}


@pytest.mark.parametrize("n, chunk", [(1, 7), (7, 7), (50, 7), (10_000, 3000)])
def test_round_chunks_draw_what_sample_rounds_draws(dataset, n, chunk):
    t, d, b = analysis.arrays(dataset, dataset.profiles[-1])
    whole = sampler.sample_rounds(t, d, b, n, np.random.default_rng(1), chunk=chunk)
    streamed = joined(sampler.round_chunks(t, d, b, n, np.random.default_rng(1), chunk=chunk))
    for f in FIELDS:
        assert np.array_equal(streamed[f], getattr(whole, f)), f


def test_round_chunks_keep_authored_proposals_and_each_rounds_context():
    rng = np.random.default_rng(2)
    t = rng.dirichlet(np.ones(3), size=(2, 3))  # [k, V, V]
    d, b = rng.dirichlet(np.ones(3), size=(2, 3)), rng.dirichlet(np.ones(3), size=3)
    start = np.arange(1000) % 3
    whole = sampler.sample_rounds(t, d, b, 1000, np.random.default_rng(3), chunk=300, start=start)
    streamed = joined(sampler.round_chunks(t, d, b, 1000, np.random.default_rng(3), chunk=300, start=start))
    assert all(np.array_equal(streamed[f], getattr(whole, f)) for f in FIELDS)
    x = np.array([1, 0])
    authored = joined(sampler.round_chunks(t[:, 0], d[:, 0], b[0], 500, np.random.default_rng(4), proposals=x, chunk=64))
    assert (authored["proposals_pm"] == x[:, None]).all()


def test_round_chunks_reuse_one_buffer_of_chunk_rounds(dataset):
    t, d, b = analysis.arrays(dataset, dataset.profiles[0])
    bases = {id(part.committed_pm.base if part.committed_pm.base is not None else part.committed_pm)
             for part in sampler.round_chunks(t, d, b, 10_000, np.random.default_rng(0), chunk=1000)}
    assert len(bases) == 1


def test_the_monte_carlo_never_draws_its_whole_run_at_once(dataset, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the Monte Carlo asked for its whole run in one piece")
    monkeypatch.setattr(sampler, "sample_rounds", refuse)
    mc = dataclasses.replace(dataset.monte_carlo, rounds=70_001)
    runs = analysis.monte_carlo_counts(dataset.target, dataset.bonus_target, dataset.profiles[0].draft, mc, 0)
    assert runs[-1][0] == 70_001 and int(runs[-1][2].sum()) == 70_001


def peak_bytes(dataset, rounds: int) -> int:
    """Returns the most memory numpy and Python held at once while counting a Monte Carlo run of `rounds`."""
    mc = dataclasses.replace(dataset.monte_carlo, rounds=rounds)
    analysis.monte_carlo_counts.cache_clear()
    tracemalloc.start()
    try:
        analysis.monte_carlo_counts(dataset.target, dataset.bonus_target, dataset.profiles[0].draft, mc, 0)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        analysis.monte_carlo_counts.cache_clear()


def test_the_monte_carlo_peak_does_not_grow_with_its_rounds(dataset):
    small, large = peak_bytes(dataset, 100_000), peak_bytes(dataset, 1_000_000)
    # a whole run of 10^6 rounds holds (k + 1) x 10^6 float64 draws alone (48 MB for the shipped file's k = 5); the
    # chunks hold a fixed number of rounds, so the peak grows with k and the vocabulary, never with the rounds
    assert large < 1.5 * small
    if is_shipped(dataset):
        assert large < 4_000_000


def test_streamed_counts_equal_counts_of_the_whole_run(dataset):
    mc = dataclasses.replace(dataset.monte_carlo, rounds=100_003)
    analysis.monte_carlo_counts.cache_clear()
    runs = analysis.monte_carlo_counts(dataset.target, dataset.bonus_target, dataset.profiles[-1].draft, mc, 1)
    whole = sampler.sample_rounds(*(as_float(rows) for rows in (dataset.target, dataset.profiles[-1].draft)),
                                  as_float([dataset.bonus_target])[0], mc.rounds, np.random.default_rng([mc.seed, 1]))
    for n, positions, lengths in runs:
        c = whole.committed_pm[:, :n]  # [k+1, n]
        assert [list(p) for p in positions] == [np.bincount(row[row >= 0], minlength=len(dataset.vocabulary)).tolist()
                                                for row in c]
        assert list(lengths) == np.bincount((c >= 0).sum(0), minlength=c.shape[0] + 1)[1:].tolist()
