"""The generator on the built page, without a browser: its no-JS run is Python's, its figures and the prose about it
follow the prose and the data file, and bad settings or too little prose are refused with the usual messages."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from html import unescape

import numpy as np
import pytest

from speculative import generate, language, pipeline, prose
from speculative.figures.generator import joined, probability, verdict
from speculative.profiles import parse
from speculative.text import decimal_str

from .conftest import DATA, unlined
from .test_publish import hint, project, refused  # noqa: F401  (project: the published-site fixture)


def text_of(run, ids) -> str:
    return "".join(a + b for a, b in joined([run.vocab[i] for i in ids]))


def static_lanes(html: str) -> list[str]:
    """Returns the text of the generator's no-JS lanes: speculative, then plain."""
    figure = html[html.index('id="generator"'):]
    static = figure[figure.index("<noscript data-static>"):figure.index("</noscript>")]
    return [unescape(re.sub(r"<[^>]+>", "", lane)) for lane in re.findall(r'<p class="generator-text">(.*?)</p>', static)]


def test_the_page_without_scripting_shows_pythons_seeded_run(built_site, explained):
    run = explained.language
    spec, plain = static_lanes((built_site / "index.html").read_text(encoding="utf-8"))
    assert spec == text_of(run, (*run.prompt, *[t for r in run.run for t in r.committed][:run.goal]))
    assert plain == text_of(run, (*run.prompt, *run.plain))
    again = generate.generate(generate.rows(run.target, 1.0), generate.rows(run.drafts[1], 1.0), run.prompt,
                              run.settings.k, generate.mulberry32(run.settings.seed), len(run.run))
    assert tuple(again) == run.run


def test_every_committed_token_of_the_no_js_run_is_marked_with_how_it_came(built_site, explained):
    html = (built_site / "index.html").read_text(encoding="utf-8")
    figure = html[html.index('id="generator"'):]
    static = figure[figure.index('<p class="generator-text">'):figure.index("</noscript>")]  # the lanes, not the key
    kinds = re.findall(r'<span class="generator-tok is-(\w+)">', static)
    run = explained.language
    expected = [{"a": "accepted", "r": "replaced", "b": "bonus"}[k] for r in run.run for k in r.kinds][:run.goal]
    assert kinds[:len(expected)] == expected


def test_the_prose_states_the_corpus_as_counted(page_text, explained, corpus):
    run = explained.language
    assert f"{len(corpus):,} tokens, {len(set(corpus)):,} distinct" in page_text
    assert f"regular expression {prose.TOKEN.pattern}:" in page_text
    assert f"discount {run.settings.discount}" in page_text
    assert "not a neural network and nothing downloaded" in page_text


def test_each_section_carries_its_own_tokens_for_the_script(built_site, corpus):
    html = (built_site / "index.html").read_text(encoding="utf-8")
    parts = [unescape(p) for p in re.findall(r'<section id="[^"]+" aria-labelledby="[^"]+" data-corpus="([^"]*)"', html)]
    assert " ".join(p for p in parts if p).split(" ") == list(corpus)
    assert "vocab" not in json.loads((built_site / "trace.json").read_text(encoding="utf-8"))["generator"]


@pytest.mark.data_independent  # edits the shipped files' copy: the site it starts from is data-file's
def test_an_edit_to_the_prose_changes_the_models(project):
    before = json.loads(pipeline.build_files(project / "data" / "profiles.v1.json", project / "content",
                                          project / "templates")["trace.json"])["generator"]["types"]
    why = project / "content" / "12-limits.md"
    why.write_text(why.read_text(encoding="utf-8") + "\nZyzzyva quokka axolotl.\n", encoding="utf-8")
    files = pipeline.build_files(project / "data" / "profiles.v1.json", project / "content", project / "templates")
    assert json.loads(files["trace.json"])["generator"]["types"] == before + 3
    assert "Zyzzyva quokka axolotl ." in files["index.html"].decode("utf-8")


@pytest.mark.data_independent  # edits the shipped files' copy: the site it starts from is data-file's
def test_without_language_model_the_defaults_apply_and_with_it_the_page_follows(project):
    data = project / "data" / "profiles.v1.json"
    raw = json.loads(data.read_text(encoding="utf-8"))
    del raw["language_model"]
    data.write_text(json.dumps(raw), encoding="utf-8")
    files = pipeline.build_files(data, project / "content", project / "templates")
    assert json.loads(files["trace.json"])["generator"]["k"] == 4
    raw["language_model"] = {"k": 6, "default_draft": 1, "temperatures": ["0", "1"], "default_temperature": "0"}
    data.write_text(json.dumps(raw), encoding="utf-8")
    files = pipeline.build_files(data, project / "content", project / "templates")
    g = json.loads(files["trace.json"])["generator"]
    assert (g["k"], g["draft"], g["temps"], g["temp"]) == (6, 0, [0, 1], 0)
    page = files["index.html"].decode("utf-8")
    assert 'value="6" data-generator-k' in page and "a round is assumed to cost 6 × 1/10 + 1 = 8/5 target passes" in page


LM = json.loads(DATA.read_text(encoding="utf-8"))


@pytest.mark.parametrize("lm, lines", [
    ({"k": 0}, ["language_model.k: found 0; expected a whole number from 1 to 8"]),
    ({"k": 9, "seed": -1}, ["language_model.k: found 9; expected a whole number from 1 to 8",
                            "language_model.seed: found -1; expected a whole number from 0 to 4294967295"]),
    ({"discount": "1"}, ['language_model.discount: found "1"; expected a discount strictly between 0 and 1, such as "3/4"']),
    ({"discount": "0.75"}, ['language_model.discount: found "0.75"; expected an exact fraction rather than a decimal, '
                            'such as "1/2" for 0.5']),
    ({"target_order": 5}, ["language_model.target_order: found 5; expected a whole number from 2 to 4"]),
    ({"draft_orders": [2, 1]}, ["language_model.draft_orders: found [2, 1]; expected each order once, smallest first"]),
    ({"draft_orders": [3]}, ["language_model.draft_orders[0]: found 3; expected a whole number from 1 to 2"]),
    ({"default_draft": 4}, ["language_model.default_draft: found 4; expected one of the draft orders (1, 2, 3; 3 is the "
                            "target itself)"]),
    ({"temperatures": ["1", "0"]}, ['language_model.temperatures: found ["1", "0"]; expected each temperature once, '
                                    'lowest first']),
    ({"temperatures": ["5"]}, ['language_model.temperatures[0]: found "5"; expected a temperature from 0 to 4']),
    ({"default_temperature": "2"}, ['language_model.default_temperature: found "2"; expected one of the temperatures '
                                    'offered (0, 1/2, 1, 3/2)']),
    ({"depth": 3}, ['language_model: found unknown key "depth"; expected one of: default_draft, default_temperature, '
                    'discount, draft_orders, k, seed, target_order, temperatures']),
    ([], ["language_model: found a list of 0; expected an object"]),
])
def test_bad_generator_settings_are_refused_with_their_json_paths(lm, lines):
    raw = {**LM, "language_model": lm}
    with pytest.raises(Exception) as err:
        parse(json.dumps(raw), "data/profiles.v1.json")
    assert unlined(err.value.lines) == [f"data/profiles.v1.json: {line}" for line in lines]


@pytest.mark.data_independent  # edits the shipped files' copy: the site it starts from is data-file's
def test_too_little_prose_is_refused_and_the_site_left_as_it_was(run_build, project):
    for path in (project / "content").glob("*.md"):
        path.unlink()
    (project / "content" / "01-what.md").write_text("---\ntitle: What\norder: 1\nid: what\n---\n{{ generator }}\n"
                                                   "{{ lab }} {{ positions }} {{ walkthrough }} {{ identity }}\n"
                                                   "{{ convergence }} {{ explorer }} {{ servers }}\n", encoding="utf-8")
    lines = refused(run_build, project)
    assert lines == ["content: found 0 tokens of prose (0 distinct) once template syntax, HTML and markup are removed; "
                     "expected at least 20 tokens, 2 of them distinct, for the generator's models to be counted from",
                     *hint(["x"])]


@pytest.mark.parametrize("lm, lines", [
    ({"discount": "0"}, ['language_model.discount: found "0"; expected a discount strictly between 0 and 1, such as "3/4"']),
    ({"temperatures": ["0", "1/4", "1/2", "1", "3/2", "2", "3"]},
     ['language_model.temperatures: found a list of 7; expected a list of 1 to 6 temperatures']),
    ({"target_order": 2, "draft_orders": [2]},
     ["language_model.draft_orders[0]: found 2; expected a whole number from 1 to 1"]),
])
def test_generator_settings_at_their_limits_are_refused(lm, lines):
    with pytest.raises(Exception) as err:
        parse(json.dumps({**LM, "language_model": lm}), "data/profiles.v1.json")
    assert unlined(err.value.lines) == [f"data/profiles.v1.json: {line}" for line in lines]


@pytest.mark.parametrize("lm, expected", [
    ({"temperatures": ["0", "1/4", "1/2", "1", "3/2", "2"]}, {"default_temperature": Fraction(1)}),
    ({"temperatures": ["0", "1/2"]}, {"default_temperature": Fraction(0)}),  # 1 is not offered: the first is chosen
    ({"target_order": 4, "draft_orders": [3]}, {"draft_orders": (3,), "default_draft": 3}),
    ({"draft_orders": [1]}, {"default_draft": 1}),  # 2 is not offered: the smallest draft, not the target itself
    ({"target_order": 2, "draft_orders": [1]}, {"default_draft": 1}),
])
def test_generator_settings_at_their_limits_are_taken_with_the_defaults_that_still_apply(lm, expected):
    got = parse(json.dumps({**LM, "language_model": lm}), "data/profiles.v1.json").language_model
    assert {key: getattr(got, key) for key in expected} == expected


def test_the_page_states_each_drafts_mean_accept_rate_and_the_runs_figures(page_text, explained):
    from speculative.text import decimal_str

    run, s = explained.language, explained.language.settings
    t1 = s.temperatures.index(1)
    assert ("agree with the target on " + " and ".join(
        f"{decimal_str(row[t1], 2)} (the {name} draft)" for name, row in zip(("unigram", "bigram"), run.alphas[:2], strict=True))) in page_text
    rounds, tokens = len(run.run), run.goal
    e = 1 + sum(run.passes[run.draft_index(s.default_draft)][s.temperatures.index(s.default_temperature)][:s.k])
    assert f"{tokens} tokens of {run.goal} · {rounds} target passes · {rounds * s.k} draft steps · " \
           f"{decimal_str(float(run.round_cost * rounds), 1)} on the clock · {decimal_str(tokens / rounds, 2)} tokens per round" in page_text
    assert f"Expected at these settings, from 600 rounds: ≈ {decimal_str(e, 2)} ± " in page_text
    assert "plus the share of the 600 rounds (each drafting 8 tokens, continuing the text) whose first check" in page_text


@pytest.mark.data_independent  # edits the shipped files' copy: the site it starts from is data-file's
def test_a_default_temperature_below_one_tempers_both_models_in_the_seeded_run(project):
    data = project / "data" / "profiles.v1.json"
    raw = json.loads(data.read_text(encoding="utf-8"))
    raw["language_model"]["default_temperature"] = "1/2"
    data.write_text(json.dumps(raw), encoding="utf-8")
    files = pipeline.build_files(data, project / "content", project / "templates")
    from speculative import language

    tokens = tuple(" ".join(re.findall(r'data-corpus="([^"]*)"', files["index.html"].decode("utf-8"))).split())
    ds = parse(json.dumps(raw), "data/profiles.v1.json")
    run = language.explain(tuple(unescape(t) for t in tokens), ds.language_model, ds.cost)
    p, q = generate.rows(run.target, 0.5), generate.rows(run.drafts[1], 0.5)
    rounds = generate.generate(p, q, run.prompt, run.settings.k, generate.mulberry32(run.settings.seed), len(run.run))
    spec, _ = static_lanes(files["index.html"].decode("utf-8"))
    assert spec == text_of(run, (*run.prompt, *[t for r in rounds for t in r.committed][:run.goal]))


# --- the race, its verdict, the expected values' uncertainty, and how probabilities print ----------------------

def test_the_no_js_race_ends_at_its_stated_length_and_its_verdict_matches_the_lanes(page_text, explained, dataset):
    """The seeded race stops both lanes at the goal the caption states, and the verdict's counts are the lanes'."""
    run, s = explained.language, explained.language.settings
    assert run.goal == language.RACE_TOKENS
    assert sum(len(r.committed) for r in run.run[:-1]) < run.goal <= sum(len(r.committed) for r in run.run)
    assert len(run.plain) == run.goal
    assert f"A race to {run.goal} tokens:" in page_text
    rounds, time = len(run.run), float(run.round_cost * len(run.run))
    assert f"{run.goal} tokens of {run.goal} · {run.goal} target passes · {run.goal}.0 on the clock" in page_text
    said = verdict(run.goal, rounds, rounds * s.k, time)
    assert said in page_text
    assert f"{rounds} target passes and {rounds * s.k} draft steps, {decimal_str(time, 1)} on the clock" in said
    assert f"{decimal_str(run.goal / rounds, 2)}× fewer target passes" in said
    first = "Speculative decoding reached" if time < run.goal else "Plain decoding reached" if time > run.goal else "Both"
    assert said.startswith(first)


def test_a_verdict_names_the_winner_on_the_clock():
    assert verdict(60, 21, 84, 29.4).startswith("Speculative decoding reached 60 tokens first: 21 target passes and 84 "
                                                 "draft steps, 29.4 on the clock, where plain decoding needs 60 target "
                                                 "passes: 2.86× fewer target passes, 2.04× faster")
    assert verdict(60, 50, 200, 70.0).startswith("Plain decoding reached 60 tokens first, in 60 target passes; ")
    assert "1.17× slower" in verdict(60, 50, 200, 70.0)
    assert verdict(10, 5, 50, 10.0).startswith("Both reached 10 tokens at 10.0 on the clock")


def test_the_half_width_of_the_expected_tokens_comes_from_the_rounds_themselves():
    """At k = 2, rounds that passed 0, 1, 2 and 4 checks commit 1, 2, 3 and 3 tokens: mean 2.25, sample standard
    deviation sqrt(2.75 / 3), so the half-width is 1.96 * sqrt(2.75 / 3) / 2."""
    assert language.half_width([0, 1, 2, 4], 2) == pytest.approx(1.96 * (2.75 / 3) ** 0.5 / 2, abs=1e-12)
    assert language.half_width([3, 3, 3], 2) == 0  # every round commits 3
    assert language.half_width([5], 2) == float("inf")
    rng = np.random.default_rng(1)
    passed = rng.integers(0, 9, 600)
    x = 1 + np.minimum(passed, 4)
    assert language.spread_of(passed)[3] == round(1.96 * x.std(ddof=1) / 600 ** 0.5, 4)


def test_the_expected_values_show_their_interval_from_their_own_rounds(page_text, explained, trace):
    run, s = explained.language, explained.language.settings
    d, t = run.draft_index(s.default_draft), s.temperatures.index(s.default_temperature)
    again = language.passed_counts(generate.rows(run.target, float(s.temperatures[t])),
                                   generate.rows(run.drafts[d], float(s.temperatures[t])), run.prompt, s.seed + 2)
    assert run.spreads[d][t] == language.spread_of(again) and run.passes[d][t] == language.profile_of(again)
    e = 1 + sum(run.passes[d][t][:s.k])
    pm = run.spreads[d][t][s.k - 1]
    assert 0 < pm < 1
    assert f"from 600 rounds: ≈ {decimal_str(e, 2)} ± {decimal_str(pm, 2)} tokens per round, ≈ " \
           f"{decimal_str(e / float(run.round_cost), 2)} ± {decimal_str(pm / float(run.round_cost), 2)}×" in page_text
    assert trace["generator"]["spreads"][d][t] == list(run.spreads[d][t])
    assert trace["generator"]["spreads"][-1] == [None] * len(s.temperatures)  # the target as its own draft: exact


def test_the_caption_names_ngram_models_counted_from_the_page_and_says_why_the_speed_changes(page_text):
    assert "Watch it generate: n-gram models counted from this page’s own words, not neural networks" in page_text
    assert "real model pair" not in page_text
    assert ("Speed follows how often the draft’s guesses match the target’s: a closer draft matches more often, and at "
            "a lower temperature both models put their mass on the same likeliest tokens, so more proposals pass per "
            "target pass; a larger k drafts more per round") in page_text
    assert "The clock counts target passes: a target pass is one forward pass of the target model, which scores every " \
           "position of a round at once." in page_text


PROBABILITIES = [(1.0, "1"), (0.0, "0"), (0.5, "0.5000"), (0.99994, "0.9999"), (0.99995, "0.99995"),
                 (0.999996, "0.999996"), (1 - 2 ** -53, "> 0.999999999999999"), (0.0123456, "0.0123"),
                 (0.00123456, "0.00123"), (1.5e-9, "1.50e-9"), (2.05e-190, "2.05e-190"), (0.00000123, "0.00000123"),
                 (0.01, "0.0100")]


@pytest.mark.parametrize("x, shown", PROBABILITIES)
def test_a_probability_prints_as_1_only_when_it_is_exactly_1(x, shown):
    assert probability(x) == shown
    if x < 1:
        assert probability(x).startswith("> 0.") or float(probability(x)) < 1


def test_the_scripts_probabilities_print_as_pythons(tmp_path):
    from .test_mutants import NODE, run_js

    if NODE is None:
        pytest.skip("node is not on PATH")
    rng = np.random.default_rng(3)
    xs = [x for x, _ in PROBABILITIES] + [1 - 10.0 ** -i for i in range(1, 17)] + rng.random(500).tolist() + \
        (10 ** rng.uniform(-12, -2, 200)).tolist()
    got = run_js(tmp_path, ("core.js", "generator_text.js"), "return data.map(x => probText(x));", xs)
    assert got == [probability(x) for x in xs]
