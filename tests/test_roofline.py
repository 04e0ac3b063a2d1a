"""The roofline model of speculative/roofline.py, by hand-worked values and its closed forms, and the data file's
optional `roofline` object: its defaults, and the loader's messages for what an author can get wrong in it.

The model (Williams, Waterman & Patterson, "Roofline", CACM 52(4), 2009): a pass of P parameters at b bytes each,
scoring T tokens on hardware with memory bandwidth B and dense throughput F, takes max(P·b/B, 2·P·T/F) seconds.
NVIDIA's H100 SXM datasheet gives B = 3.35 TB/s and F = 989 TFLOPS of dense BF16 arithmetic (1,979 with sparsity)."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction

import pytest

from speculative import limits, profiles, roofline, stats
from speculative.dataset import CostModel
from speculative.errors import Problems
from speculative.roofline import Hardware, ModelPair
from speculative.rules import overlap

from .conftest import DATA

H100 = Hardware("H100", 3350, 989)
SEVENTY = ModelPair("70B with 7B", 70000, 7000)  # a draft a tenth of the target: the page's seed cost assumption
TWO = Fraction(2)


def test_the_knee_is_f_b_over_2b():
    # 989e12 · 2 / (2 · 3.35e12) = 989 / 3.35 = 19780 / 67, about 295 tokens per pass
    assert roofline.knee(H100, TWO) == Fraction(19780, 67)
    assert roofline.knee(H100, Fraction(1, 2)) == Fraction(19780, 67) / 4, "4-bit weights: the knee at a quarter"


def test_a_pass_is_flat_to_the_knee_then_grows_in_proportion():
    flat = Fraction(70 * 10**9 * 2, 3350 * 10**9)  # 140 GB of weights read at 3.35 TB/s: 14/335 s, about 41.8 ms
    assert flat == Fraction(14, 335)
    assert roofline.pass_time(SEVENTY.target, 1, H100, TWO) == flat
    assert roofline.pass_time(SEVENTY.target, 295, H100, TWO) == flat, "295 tokens are still below the knee"
    assert roofline.pass_time(SEVENTY.target, 296, H100, TWO) == Fraction(2 * 70 * 10**9 * 296, 989 * 10**12)
    assert roofline.pass_time(SEVENTY.target, 592, H100, TWO) == 2 * roofline.pass_time(SEVENTY.target, 296, H100, TWO)


def test_a_check_scores_the_drafted_nodes_and_the_bonus_position():
    assert [roofline.scored(k) for k in (1, 2, 5)] == [2, 3, 6]
    assert roofline.scored(3, 2) == 2 + 4 + 8 + 1


@pytest.mark.parametrize("k", range(1, 9))
def test_at_batch_1_a_round_costs_1_plus_k_draft_shares(k):
    """The seed's assumption (a check costs one target pass, a draft step a tenth) is the roofline at batch 1 with a
    draft a tenth of the target's size, every pass below the knee."""
    assert roofline.round_time(SEVENTY, H100, TWO, 1, k) / roofline.plain_time(SEVENTY, H100, TWO, 1) == 1 + Fraction(k, 10)


def test_at_batch_1_the_speedup_is_the_explorers_at_the_pairs_draft_share(dataset):
    """For any data file: the speedup at batch 1 equals stats' speedup with a draft step of c = the pair's draft
    share and a check of one target pass, every k and profile; with c = 1/10 that is the explorer's seed figure."""
    for pair in (SEVENTY, ModelPair("8B with 1B", 8000, 1000)):
        cost = CostModel(pair.ratio, Fraction(1), (pair.ratio,))
        for profile in dataset.profiles:
            acceptance = [overlap(p, q) for p, q in zip(dataset.target, profile.draft, strict=True)]
            curve = stats.speedup_curve(acceptance, cost)
            for k in range(1, dataset.k + 1):
                e = roofline.expected_tokens(dataset.target, profile.draft, k)
                assert e == stats.expected_tokens(acceptance[:k])
                assert roofline.speedup(e, pair, H100, TWO, 1, k) == curve[k - 1]


def random_case(rng: random.Random) -> tuple[Fraction, ModelPair, Hardware, int, int]:
    """Returns (E, pair, hardware, k, m): E anywhere from 1 to the most a round can commit (k + 1 positions, or a
    tree's path of k + 1)."""
    k, m = rng.randint(1, 8), rng.choice((1, 1, 2, 3, 4))
    target = rng.randint(100, 500_000)
    pair = ModelPair("p", target, rng.randint(1, target - 1))
    hw = Hardware("h", rng.randint(50, 8000), rng.randint(10, 3000))
    return 1 + Fraction(rng.randint(0, 1000), 1000) * k, pair, hw, k, m


def test_the_speedup_never_rises_with_the_batch():
    rng = random.Random(45)
    for _ in range(300):
        e, pair, hw, k, m = random_case(rng)
        batches = sorted({1, 2, 3, *(rng.randint(1, 5000) for _ in range(20)), *(2**i for i in range(14))})
        ups = [roofline.speedup(e, pair, hw, TWO, n, k, m) for n in batches]
        assert all(a >= b for a, b in zip(ups, ups[1:], strict=False)), (e, pair, hw, k, m)


def test_a_chain_stops_paying_just_past_the_closed_form_crossing():
    """n* = T*·(E − k·c)/(k + 1): the smallest whole batch with a speedup below 1 is ⌊n*⌋ + 1; below 1 + k·c the
    speedup is under 1 already at batch 1."""
    rng = random.Random(7)
    for _ in range(300):
        e, pair, hw, k, _ = random_case(rng)
        found = roofline.stops_paying(e, pair, hw, TWO, k)
        n_star = roofline.crossing(e, k, pair.ratio, roofline.knee(hw, TWO))
        if n_star is None:
            assert found == 1 and e < 1 + k * pair.ratio
        else:
            assert found == math.floor(n_star) + 1, (e, pair, hw, k)


def test_past_the_knee_a_round_costs_what_it_scores():
    """Every pass compute-bound: round / plain = scored(k, m) + c·(1 + m + … + m^(k-1)), so speculation loses."""
    for k, m in ((1, 1), (5, 1), (3, 2), (2, 4)):
        n = 4 * math.ceil(roofline.knee(H100, TWO))
        drafted = sum(m**i for i in range(k))
        ratio = roofline.round_time(SEVENTY, H100, TWO, n, k, m) / roofline.plain_time(SEVENTY, H100, TWO, n)
        assert ratio == roofline.scored(k, m) + SEVENTY.ratio * drafted
        assert roofline.speedup(Fraction(k + 1), SEVENTY, H100, TWO, n, k, m) < 1


def test_the_crossing_check_catches_a_check_that_forgets_the_bonus_position(monkeypatch):
    """A model whose check scores n·k tokens instead of n·(k + 1) moves the crossing, and the closed form says so."""
    monkeypatch.setattr(roofline, "scored", lambda k, m=1: sum(m**i for i in range(1, k + 1)))
    e, k = Fraction(3), 4
    n_star = roofline.crossing(e, k, SEVENTY.ratio, roofline.knee(H100, TWO))
    assert n_star is not None and roofline.stops_paying(e, SEVENTY, H100, TWO, k) != math.floor(n_star) + 1


# --- the data file's roofline object ---------------------------------------------------------------------------

def with_roofline(value: object) -> str:
    raw = json.loads(DATA.read_text(encoding="utf-8"))
    raw["roofline"] = value
    return json.dumps(raw, indent=2, ensure_ascii=False)


def test_without_the_object_the_defaults_apply_and_with_it_the_authors_values():
    raw = json.loads(DATA.read_text(encoding="utf-8"))
    raw.pop("roofline", None)
    assert profiles.parse(json.dumps(raw), "d.json").roofline == roofline.DEFAULT
    mine = profiles.parse(with_roofline({"hardware": [{"name": "My GPU", "bandwidth_gb_s": 1000, "tflops": 200}],
                                         "bytes_per_parameter": "1/2", "table_batches": [1, 4]}), "d.json").roofline
    assert mine.hardware == (Hardware("My GPU", 1000, 200),) and mine.pairs == roofline.DEFAULT.pairs
    assert mine.bytes_per_parameter == Fraction(1, 2) and mine.table_batches == (1, 4)


MOST_HARDWARE = limits.SCHEMA["properties"]["roofline"]["properties"]["hardware"]["maxItems"]


def messages(value: object) -> list[str]:
    with pytest.raises(Problems) as err:
        profiles.parse(with_roofline(value), "data/profiles.v1.json")
    return [line.split(": ", 1)[1].split(": ", 1)[1] for line in err.value.lines]  # without the file and the line


@pytest.mark.parametrize(("value", "expected"), [
    ({"hardware": []}, ["roofline.hardware: found a list of 0; expected a non-empty list of hardware"]),
    ({"hardware": [{"name": "A", "bandwidth_gb_s": 0, "tflops": 10}]},
     ["roofline.hardware[0].bandwidth_gb_s: found 0; expected a whole number from 1 to 100000"]),
    ({"hardware": [{"name": "A", "bandwidth_gb_s": 10}]},
     ['roofline.hardware[0]: found no key "tflops"; expected one (it is required)']),
    ({"hardware": [{"name": "A", "bandwidth_gb_s": 10, "tflops": 5}, {"name": "A", "bandwidth_gb_s": 20, "tflops": 5}]},
     ['roofline.hardware[1].name: found "A" again; expected every hardware name to be unique']),
    ({"model_pairs": [{"name": "big draft", "target_millions": 1000, "draft_millions": 1000}]},
     ["roofline.model_pairs[0].draft_millions: found a draft of 1,000 million parameters for a target of 1,000 "
      "million; expected a draft smaller than its target"]),
    ({"model_pairs": [{"name": " x", "target_millions": 1000, "draft_millions": 10}]},
     ['roofline.model_pairs[0].name: found " x", which starts with a space; expected a name with no spaces at either end']),
    ({"bytes_per_parameter": "0"},
     ['roofline.bytes_per_parameter: found "0"; expected a number of bytes above 0 and at most 4, such as "2"']),
    ({"bytes_per_parameter": "0.5"},
     ['roofline.bytes_per_parameter: found "0.5"; expected an exact fraction rather than a decimal, such as "1/2" for 0.5']),
    ({"table_batches": [8, 1]}, ["roofline.table_batches: found [8, 1]; expected the batch sizes smallest first"]),
    ({"table_batches": [1, 1]}, ["roofline.table_batches: found [1, 1]; expected the batch sizes smallest first, each once"]),
    ({"gpu": 1}, ['roofline: found unknown key "gpu"; expected one of: bytes_per_parameter, hardware, model_pairs, '
                  "table_batches"]),
    ([], ["roofline: found a list of 0; expected an object"]),
    ({"hardware": [{"name": f"GPU {i}", "bandwidth_gb_s": 1000, "tflops": 100} for i in range(MOST_HARDWARE + 1)]},
     [f"roofline.hardware: found {MOST_HARDWARE + 1} hardware entries; expected at most {MOST_HARDWARE}, so the "
      "figure's choices fit a phone screen"]),
])
def test_a_bad_roofline_object_is_named_with_what_was_expected(value, expected):
    assert messages(value) == expected


def test_a_knee_below_half_a_hundredth_of_a_token_is_not_written_as_zero():
    """A fuzzing audit's find: 100,000 GB/s, 1 TFLOPS and 1/1000 of a byte per weight put the knee at 5e-6 tokens
    per pass, which two decimals wrote as "flat up to the knee at 0.00 tokens"."""
    from speculative import roofline_charts as ch
    from speculative.roofline_strings import ROOFLINE

    tiny = roofline.knee(Hardware("x", 100_000, 1), Fraction(1, 1000))
    assert tiny < Fraction(1, 200) and ch.knee_str(tiny) == ROOFLINE["knee_tiny"]
    assert [ch.knee_str(k) for k in (Fraction(1, 200), Fraction(1, 3), Fraction(295, 1))] == ["0.01", "0.33", "295"]
