"""Watch it generate, in a real Chromium from file://: driven by its controls' names, checked against Python's
model and Python's rounds, draw for draw."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from speculative import generate
from speculative.figures.generator import joined, probability, verdict

from .conftest import ROOT, axe_violations, edited_data

pytestmark = pytest.mark.browser

STEP_JS = "n => { const b = document.querySelector('[data-generator-step]'); for (let i = 0; i < n; i++) b.click(); }"
LONG = "window.__generateRace = 100000;"  # a race long enough for a test's many rounds: it starts empty
LANE_JS = """sel => { const lane = document.querySelector(sel).cloneNode(true);
  lane.querySelectorAll('.generator-drop').forEach(s => s.remove()); return lane.textContent; }"""  # a lane's text, ghosts left out


@pytest.fixture(scope="module")
def run(explained):
    return explained.language


def gen(page: Page):
    return page.locator("#generator")


def open_figure(page: Page, url: str, init: str | None = None) -> None:
    """Opens the page (after an init script, if any) and waits until the generator has written its first round."""
    if init:
        page.add_init_script(init)
    page.goto(url)
    expect(gen(page).get_by_role("button", name="Step one round")).to_be_enabled()


def step(page: Page, n: int) -> None:
    """Presses "Step one round" n times, then waits for the last round to be counted."""
    before = rounds_done(page)
    page.evaluate(STEP_JS, n)
    passes = f"{before + n:,} target pass" + ("es" if before + n != 1 else "")
    expect(gen(page).locator("[data-generator-spec-stats]")).to_contain_text(f"· {passes} ·")


def stat(page: Page, pattern: str) -> str:
    return re.search(pattern, gen(page).locator("[data-generator-spec-stats]").inner_text()).group(1).replace(",", "")


def rounds_done(page: Page) -> int:
    """Returns the rounds the speculative lane has run: one target pass each."""
    return int(stat(page, r"· ([\d,]+) target pass"))


def per_round(page: Page) -> float:
    return float(stat(page, r"· ([\d.]+) tokens per round"))


def tokens_written(page: Page) -> int:
    return int(stat(page, r"^([\d,]+) token"))


def new_race(page: Page) -> None:
    """Presses "New race" and waits for the empty race."""
    gen(page).get_by_role("button", name="New race").click()
    expect(gen(page).locator("[data-generator-spec-stats]")).to_contain_text("· 0 target passes ·")


def text_of(run, prompt_and_tokens) -> str:
    return "".join(a + b for a, b in joined([run.vocab[i] for i in prompt_and_tokens]))


def test_the_figure_is_on_the_first_screen_at_desktop_and_phone_widths(page: Page, page_url):
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        open_figure(page, page_url)
        top = gen(page).evaluate("e => e.getBoundingClientRect().top")
        assert 0 <= top < height - 100, (width, top)


def test_with_the_target_itself_as_the_draft_every_round_commits_k_plus_one(page: Page, page_url, run):
    open_figure(page, page_url, LONG)
    g = gen(page)
    g.get_by_label("Draft model").select_option(label="the target itself (a perfect draft)")
    for k in (1, 4, 8):
        g.get_by_label("Tokens drafted per round").fill(str(k))
        new_race(page)
        step(page, 12)
        assert per_round(page) == k + 1
        assert tokens_written(page) == 12 * (k + 1)


def test_at_temperature_zero_a_run_and_a_second_run_from_start_over_write_the_same_text(page: Page, page_url):
    open_figure(page, page_url, "window.__generateSeed = 5;" + LONG)
    g = gen(page)
    g.get_by_label("Temperature", exact=True).select_option(label="0")
    step(page, 25)
    first = page.evaluate(LANE_JS, "[data-generator-spec]")
    new_race(page)
    step(page, 25)
    assert page.evaluate(LANE_JS, "[data-generator-spec]") == first and len(first.split()) > 25


def test_over_300_rounds_the_bigram_draft_commits_more_per_round_than_the_unigram(page: Page, page_url):
    open_figure(page, page_url, "window.__generateSeed = 9;" + LONG)
    g, found = gen(page), {}
    for label in ("a unigram model (word frequencies alone)", "a bigram model (the previous word)"):
        g.get_by_label("Draft model").select_option(label=label)
        step(page, 300)
        found[label.split()[1]] = per_round(page)
    assert found["bigram"] > found["unigram"] > 1, found


def test_a_chosen_tokens_check_shows_the_draw_and_accept_probability_of_the_model_at_its_context(page: Page, page_url,
                                                                                                   run):
    p, q = generate.rows(run.target, 1.0), generate.rows(run.drafts[run.draft_index(run.settings.default_draft)], 1.0)
    looks = {"replaced": lambda r, j: r.kinds[j] == "r", "bonus": lambda r, j: r.kinds[j] == "b",
             "accepted by chance": lambda r, j: r.kinds[j] == "a" and r.accept[j] < 1,
             "accepted outright": lambda r, j: r.kinds[j] == "a" and r.accept[j] >= 1}

    def opening(seed: int) -> list:
        """Returns the seeded opening race's tokens: the lane keeps an element for every one of them, to the goal."""
        rounds = generate.race(p, q, run.prompt, run.settings.k, generate.mulberry32(seed), run.goal)
        return [(r, j) for r in rounds for j in range(len(r.committed))][:run.goal]

    # the first seed whose opening run shows a token of every kind
    def shows_every_kind(seed: int) -> bool:
        return all(any(look(*t) for t in opening(seed)) for look in looks.values())

    seed = next(s for s in range(7, 200) if shows_every_kind(s))
    tokens = opening(seed)
    open_figure(page, page_url, f"window.__generateSeed = {seed};")
    g = gen(page)
    expect(g.locator("[data-generator-spec] [role=button]")).to_have_count(len(tokens))
    for kind, look in looks.items():
        n = next(i for i, t in enumerate(tokens) if look(*t))
        r, j = tokens[n]
        g.locator("[data-generator-spec] [role=button]").nth(n).click()
        shown = g.locator("[data-generator-check-text]")
        if kind == "bonus":
            expect(shown).to_contain_text(f"r = {probability(r.last_draw)}")
            continue
        if r.accept[j] >= 1:  # p >= q: the ratio is capped, and the sentence says the draw cannot matter
            expect(shown).to_contain_text("so min(1, p/q) = 1 and it is accepted whatever the draw")
            expect(shown).to_contain_text("no chance decides it")
        else:
            expect(shown).to_contain_text(f"min(1, p/q) = {probability(r.accept[j])}")
        expect(shown).to_contain_text(f"u = {probability(r.uniforms[j])}")
        x, ctx = r.proposals[j], (*r.context, *r.proposals[:j])[-len(r.context):]
        expect(shown).to_contain_text(f"p = {probability(p(ctx)[x])}")
        expect(shown).to_contain_text(f"q = {probability(q(ctx)[x])}")
        expect(g.locator("[data-generator-bars] .bar-row")).to_have_count(6)


@pytest.mark.parametrize("temperature", ["1", "0.5", "0"])
def test_the_script_and_python_agree_draw_for_draw_over_200_rounds(page: Page, page_url, run, temperature):
    rng = np.random.default_rng(31)
    spec, plain = rng.random(4000).tolist(), rng.random(2000).tolist()
    open_figure(page, page_url, f"window.__generateUniforms = {json.dumps({'spec': spec, 'plain': plain})};" + LONG)
    if temperature != "1":
        gen(page).get_by_label("Temperature", exact=True).select_option(label=temperature)  # a fresh run from the same draws
    step(page, 200)
    t = float(temperature)
    p, q = generate.rows(run.target, t), generate.rows(run.drafts[run.draft_index(run.settings.default_draft)], t)
    rounds = generate.generate(p, q, run.prompt, run.settings.k, iter(spec), 200)
    assert page.evaluate(LANE_JS, "[data-generator-spec]") == text_of(run, (*run.prompt, *(t for r in rounds for t in r.committed)))
    tokens = generate.plain(p, run.prompt, iter(plain), int(run.round_cost * 200))
    assert page.evaluate(LANE_JS, "[data-generator-plain]") == text_of(run, (*run.prompt, *tokens))


def test_the_live_figure_opens_on_the_same_seeded_run_the_page_shows_without_scripting(browser, page: Page, page_url,
                                                                                        run):
    expected = text_of(run, (*run.prompt, *[t for r in run.run for t in r.committed][:run.goal]))
    open_figure(page, page_url)
    assert page.evaluate(LANE_JS, "[data-generator-spec]") == expected
    assert page.evaluate(LANE_JS, "[data-generator-plain]") == text_of(run, (*run.prompt, *run.plain))
    context = browser.new_context(java_script_enabled=False)
    static = context.new_page()
    static.goto(page_url)
    lanes = static.locator("#generator noscript .generator-text")
    expect(lanes.first).to_have_text(expected)
    expect(lanes.nth(1)).to_have_text(text_of(run, (*run.prompt, *run.plain)))
    expect(static.locator("#generator noscript .generator-tok.is-replaced").first).to_be_visible()
    context.close()


def test_play_becomes_pause_and_writes_until_paused(page: Page, page_url):
    open_figure(page, page_url)
    g = gen(page)
    g.get_by_role("button", name="Play").click()  # the opening race is over: Play starts a new one
    expect(g.get_by_role("button", name="Pause")).to_be_visible()
    expect(g.locator("[data-generator-spec-stats]")).to_contain_text(re.compile(r"· ([2-9]|\d\d) target passes ·"),
                                                                      timeout=10_000)
    g.get_by_role("button", name="Pause").click()
    expect(g.get_by_role("button", name="Play")).to_be_visible()


def test_a_round_of_a_thousand_passes_plays_in_seconds_not_minutes(browser, tmp_path):
    """Play waits 300 ms per target pass of a round, but at most 3 s a round: an author's round that costs 1,000
    passes (verify_round 1000) would otherwise show nothing for five minutes. The clock still counts every pass."""
    from speculative import pipeline, publish

    data = edited_data(tmp_path, lambda raw: raw["cost_model"].update(verify_round="1000"))
    publish.write_atomic(tmp_path / "site", pipeline.build_files(data, ROOT / "content", ROOT / "templates"))
    context = browser.new_context()  # the clock is the context's: not the kept one the other tests share
    page = context.new_page()
    page.clock.install(time=0)
    page.goto((tmp_path / "site" / "index.html").as_uri())
    page.clock.pause_at(60_000)  # the page starts; from here on, time moves only when the test says so
    g = gen(page)
    expect(g.get_by_role("button", name="Step one round")).to_be_enabled()
    g.get_by_role("button", name="Play").click()  # the opening race is over: Play starts a new one
    expect(g.get_by_role("button", name="Pause")).to_be_visible()
    page.clock.run_for(2_999)
    expect(g.locator("[data-generator-spec-stats]")).to_contain_text("· 0 target passes ·")
    page.clock.run_for(1)
    expect(g.locator("[data-generator-spec-stats]")).to_contain_text(re.compile(r"· 1 target pass(es)? ·"))
    context.close()


def test_with_reduced_motion_nothing_plays_but_stepping_works(page: Page, page_url):
    page.emulate_media(reduced_motion="reduce")
    open_figure(page, page_url, LONG)
    g = gen(page)
    expect(g.get_by_role("button", name="Play")).to_be_hidden()
    g.get_by_label("Draft model").select_option(label="a unigram model (word frequencies alone)")
    before = rounds_done(page)
    step(page, 1)
    assert rounds_done(page) == before + 1
    for _ in range(100):  # until a round ends with a rejection that drops proposals
        if g.locator("[data-generator-spec] s.is-ghost").count():
            break
        step(page, 1)
    expect(g.locator("[data-generator-spec] s.is-ghost")).to_have_count(1)
    expect(g.locator("[data-generator-spec] .is-fading")).to_have_count(0)


def test_axe_finds_nothing_in_the_generator_while_it_plays_in_light_or_dark(page: Page, page_url):
    open_figure(page, page_url)
    g = gen(page)
    g.locator("[data-generator-spec] [role=button]").first.click()
    g.get_by_role("button", name="Play").click()
    found = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        found += [(scheme, v) for v in axe_violations(page, "#generator")]
    g.get_by_role("button", name="Pause").click()
    assert found == []


def test_the_expected_figures_follow_the_chosen_draft_temperature_and_k(page: Page, page_url, explained, dataset):
    from speculative.figures.generator import Generator, passes_phrase
    from speculative.text import decimal_str

    run = explained.language
    open_figure(page, page_url)
    g = gen(page)
    expect(g.locator("[data-generator-expected]")).to_have_text(Generator(explained, ())._facts()["expected"])
    g.get_by_label("Temperature", exact=True).select_option(index=0)
    g.get_by_label("Tokens drafted per round").fill("6")
    d = run.draft_index(run.settings.default_draft)
    per, pm = 1 + sum(run.passes[d][0][:6]), run.spreads[d][0][5]
    cost = 6 * float(dataset.cost.draft_step) + float(dataset.cost.verify_round)
    expect(g.locator("[data-generator-expected]")).to_have_text(
        f"Expected at these settings, from 600 rounds: ≈ {decimal_str(per, 2)} ± {decimal_str(pm, 2)} tokens per "
        f"round, ≈ {decimal_str(per / cost, 2)} ± {decimal_str(pm / cost, 2)}× (± the half-width of a 95% interval).")
    g.get_by_label("Draft model").select_option(label="the target itself (a perfect draft)")
    expect(g.locator("[data-generator-expected]")).to_have_text(
        f"Expected at these settings: exactly 7.00 tokens per round, {decimal_str(7 / cost, 2)}×, since the target as "
        "its own draft passes every check.")
    c, v = dataset.cost.draft_step, dataset.cost.verify_round  # on the shipped data "6 × 1/10 + 1 = 8/5 target passes"
    expect(g.locator("[data-generator-note]")).to_contain_text(f"a round is assumed to cost 6 × {c} + {v} = {passes_phrase(6 * c + v)}")


def test_the_scripts_tie_break_and_cut_points_are_pythons(page: Page, page_url):
    open_figure(page, page_url, "window.__playerDebug = true;")
    page.wait_for_function("() => window.__player && window.__player.figures.generator")
    pure = "window.__player.figures.generator.pure"
    assert page.evaluate(f"Array.from({pure}.tempered(new Float64Array([0.2, 0.4, 0.4]), 0))") == [0, 1, 0]
    assert page.evaluate(f"{pure}.inverseCdf([0.5, 0.5], 0.5)") == generate.inverse_cdf(np.array([0.5, 0.5]), 0.5) == 1
    assert page.evaluate(f"{pure}.inverseCdf([0.25, 0.75, 0], 0.9999999999999999)") == 1


def test_a_page_template_without_the_sections_tokens_hides_the_live_figure_without_an_error(page: Page, tmp_path):
    import shutil

    from speculative import pipeline, publish

    from .conftest import ROOT

    for name in ("data", "content", "templates"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shell = tmp_path / "templates" / "page.html.j2"
    shell.write_text(shell.read_text(encoding="utf-8").replace(' data-corpus="{{ s.corpus }}"', ""), encoding="utf-8")
    out = tmp_path / "site"
    publish.write_atomic(out, pipeline.build_files(tmp_path / "data" / "profiles.v1.json", tmp_path / "content",
                                              tmp_path / "templates"))
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script("window.__playerDebug = true;")
    page.goto((out / "index.html").as_uri())
    page.wait_for_function("() => window.__player")  # every figure has started: the generator shows its place
    # its models are counted in a task after the next frame; a task queued after a later frame runs after it
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done))))")
    expect(gen(page).locator("[data-generator]")).to_be_hidden()
    assert errors == []


def lane_counts(page: Page) -> dict:
    """Returns each lane's tokens, target passes, draft steps and time on the clock, as its counts show them."""
    out = {}
    for lane in ("spec", "plain"):
        shown = gen(page).locator(f"[data-generator-{lane}-stats]").inner_text().replace(",", "")
        out[lane] = {"tokens": int(re.search(r"^(\d+) tokens? of", shown).group(1)),
                     "goal": int(re.search(r" of (\d+) ·", shown).group(1)),
                     "passes": int(re.search(r"· (\d+) target pass", shown).group(1)),
                     "time": float(re.search(r"· ([\d.]+) on the clock", shown).group(1))}
        steps = re.search(r"· (\d+) draft steps?", shown)
        out[lane]["steps"] = int(steps.group(1)) if steps else 0
    return out


def test_the_opening_race_ends_at_its_stated_length_with_the_lanes_counts_in_its_verdict(page: Page, page_url, run):
    open_figure(page, page_url)
    g = gen(page)
    expect(g.locator("[data-generator-how]")).to_contain_text(f"A race to {run.goal} tokens")
    counts = lane_counts(page)
    spec, plain = counts["spec"], counts["plain"]
    assert spec["tokens"] == plain["tokens"] == spec["goal"] == plain["goal"] == run.goal
    assert plain["passes"] == run.goal and spec["passes"] == len(run.run)
    said = verdict(run.goal, spec["passes"], spec["steps"], float(run.round_cost * spec["passes"]))
    expect(g.locator("[data-generator-verdict]")).to_have_text(said)
    assert f"{spec['passes']} target passes and {spec['steps']} draft steps, {spec['time']:.1f} on the clock" in said


def test_play_runs_a_new_race_to_its_goal_then_stops_and_says_who_won(page: Page, page_url):
    open_figure(page, page_url, "window.__generateRace = 12; window.__generateSeed = 3;")
    g = gen(page)
    expect(g.locator("[data-generator-verdict]")).to_be_hidden()  # a test's own race starts empty
    g.get_by_role("button", name="Play").click()
    expect(g.get_by_role("button", name="Pause")).to_be_visible()
    expect(g.locator("[data-generator-verdict]")).to_be_visible(timeout=20_000)
    expect(g.get_by_role("button", name="Play")).to_be_visible()  # Play stopped at the finish
    counts = lane_counts(page)
    spec = counts["spec"]
    assert counts["spec"]["tokens"] == counts["plain"]["tokens"] == 12 == counts["plain"]["passes"]
    shown = g.locator("[data-generator-verdict]").inner_text()
    assert f"{spec['passes']} target pass" in shown and f"{spec['steps']} draft step" in shown
    assert f"{12 / spec['passes']:.2f}× fewer target passes" in shown or spec["passes"] == 12
    g.get_by_role("button", name="New race").click()
    expect(g.locator("[data-generator-verdict]")).to_be_hidden()
    expect(g.locator("[data-generator-spec-stats]")).to_contain_text("0 tokens of 12")


def test_the_legend_is_on_the_first_screen_at_1280_by_800(page: Page, page_url):
    page.set_viewport_size({"width": 1280, "height": 800})
    open_figure(page, page_url)
    key = gen(page).locator("[data-generator] .generator-key")
    expect(key).to_be_visible()
    box = key.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 800, box
    lanes = gen(page).locator("[data-generator] .generator-lanes").bounding_box()
    assert lanes is not None and box["y"] < lanes["y"]  # above the lanes it explains


def test_a_probability_just_below_1_never_prints_as_1_in_the_figure(page: Page, page_url):
    open_figure(page, page_url, "window.__playerDebug = true;")
    page.wait_for_function("() => window.__player && window.__player.figures.generator")
    pure = "window.__player.figures.generator.pure"
    shown = page.evaluate(f"[0.99995, 0.999999, 1 - 2 ** -53, 1, 0.5].map(x => {pure}.probText(x))")
    assert shown == [probability(x) for x in (0.99995, 0.999999, 1 - 2 ** -53, 1, 0.5)]
    assert shown[:3] == ["0.99995", "0.999999", "> 0.999999999999999"] and shown[3] == "1"


def test_the_broken_sampler_panel_names_the_context_it_reads(page: Page, page_url, run):
    open_figure(page, page_url)
    g = gen(page)
    g.get_by_label("Sampler", exact=True).select_option(index=1)
    context = text_of(run, run.top_contexts[0])
    expect(g.locator("[data-generator-broken-text]")).to_contain_text(
        f"This panel reads one fixed context, not the lanes’ text: “{context}”, the 2 tokens the prose most often "
        "continues from.")


def test_the_figure_says_why_the_draft_k_and_temperature_change_the_speed(page: Page, page_url):
    open_figure(page, page_url)
    expect(gen(page).locator("[data-generator-why]")).to_contain_text(
        "Speed follows how often the draft’s guesses match the target’s")
