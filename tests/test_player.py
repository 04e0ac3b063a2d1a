"""The round player in a real Chromium, opened from file://: controls, keyboard, deep links, comfort, accessibility."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

from tracekit import caption_of, frame_token, point_frame

from .conftest import FIGURES, axe_violations, data_is_shipped, edited_data

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def trace(built_site) -> dict:
    return json.loads((built_site / "trace.json").read_text(encoding="utf-8"))


def frames(p: dict, rnd: dict | None = None) -> list[dict]:
    """Returns a round's frames (the authored walk unless rnd is given) as dicts, with index, token and verdict."""
    rnd = rnd or p["walk"]
    out = []
    for i, row in enumerate(rnd["frames"], start=1):
        f = row
        verdict = f["slots"][f["pos"] - 1] if f["kind"] == "verify" else None
        out.append({**f, "index": i, "token": frame_token(rnd, f), "position": f["pos"], "verdict": verdict,
                    "round": rnd})
    return out


def caption(trace: dict, p: dict, frame: dict) -> str:
    """Returns the caption Python fills for a frame: the player must show the same sentence."""
    return caption_of(p, trace["vocabulary"], frame.get("round", p["walk"]), frame)


def facts(p: dict, frame: dict) -> dict:
    """Returns the position facts of a verify frame's proposed token."""
    pos, x = p["positions"][frame["position"] - 1], frame["token"]
    return {"p": pos["target"][x], "q": pos["draft"][x], "ratio": pos["ratio"][x], "accept": pos["accept"][x]}


def profile(trace: dict, pid: str) -> dict:
    return next(p for p in trace["profiles"] if p["id"] == pid)


def opening(trace: dict) -> dict:
    """Returns the profile the player opens on, as the analysis chose it (tests/test_opening.py checks the choice)."""
    return trace["profiles"][trace["walkthrough"]["profile"]]


def rejection(trace: dict) -> tuple[dict, dict]:
    """Returns (profile, frame) of the first rejected verify frame in the trace."""
    return next((p, f) for p in trace["profiles"] for f in frames(p) if f["verdict"] == "rejected")


def first_frame(trace: dict, wanted) -> tuple[dict, dict, str] | None:
    """Returns (profile, frame, its address "#id/n" or "#id/rN/n") of the first frame for which wanted(frame) holds,
    in the authored walks first, then in the drawn rounds; None when no round of the file has one."""
    for r in range(1 + max(len(p["drawn"]) for p in trace["profiles"])):
        for p in trace["profiles"]:
            if r > len(p["drawn"]):
                continue
            for f in frames(p, p["drawn"][r - 1] if r else None):
                if wanted(f):
                    return p, f, f"#{p['id']}/{f'r{r}/' if r else ''}{f['index']}"
    return None


def counter(page: Page):
    return page.locator("[data-walkthrough] [data-walkthrough-counter]")


def player(page: Page):
    return page.locator("[data-walkthrough]")


def at(page: Page, i: int, n: int) -> None:
    expect(counter(page)).to_have_text(f"Frame {i} of {n}")


def test_page_runs_without_errors_and_loads_nothing(page: Page, page_url, trace):
    errors, requests = [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(page_url)
    expect(player(page)).to_be_visible()
    for p in trace["profiles"]:
        page.get_by_role("radio", name=p["name"]).check()
        page.get_by_role("button", name="Last step").click()
        at(page, len(frames(p)), len(frames(p)))
        page.get_by_role("button", name="First step").click()
        at(page, 1, len(frames(p)))
    assert errors == []
    assert [u for u in requests if u != page_url and not u.startswith("data:")] == []


def test_the_script_adds_nothing_to_window_unless_a_benchmark_opts_in(page: Page, page_url, pages, tmp_path):
    (tmp_path / "blank.html").write_text("<!doctype html><title>blank</title>", encoding="utf-8")
    page.goto((tmp_path / "blank.html").as_uri())
    own = set(page.evaluate("Object.getOwnPropertyNames(window)"))
    page.goto(page_url)
    expect(player(page)).to_be_visible()
    assert set(page.evaluate("Object.getOwnPropertyNames(window)")) - own == set()
    bench = pages.open(page_url, "window.__playerDebug = true")
    bench.wait_for_function("() => window.__player")  # set once every figure has started
    assert bench.evaluate("typeof window.__player.update + ' ' + typeof window.__player.figures.lab.update") == "function function"
    bench.close()


@pytest.mark.parametrize("which", [0, -1], ids=["first", "last"])
def test_next_step_walks_every_frame_of_the_profile(page: Page, page_url, trace, which):
    p = trace["profiles"][which]
    n = len(frames(p))
    if data_is_shipped():  # the hand-worked frame counts (docs/figures.md)
        assert n == FIGURES[p["id"]]["frames"]
    page.goto(page_url)
    page.get_by_role("radio", name=p["name"]).check()
    at(page, 1, n)
    nxt = page.get_by_role("button", name="Next step")
    for i in range(2, n + 1):
        nxt.click()
        at(page, i, n)
        expect(page.locator("[data-walkthrough-caption]")).to_have_text(caption(trace, p, frames(p)[i - 1]))
    expect(nxt).to_be_disabled()
    expect(page.get_by_role("button", name="Last step")).to_be_disabled()
    page.keyboard.press("ArrowRight")
    at(page, n, n)


def test_profile_radios_come_from_the_data(page: Page, page_url, trace):
    page.goto(page_url)
    radios = page.get_by_role("group", name="Draft profile").get_by_role("radio")
    expect(radios).to_have_count(len(trace["profiles"]))
    for p in trace["profiles"]:
        expect(page.get_by_role("group", name="Draft profile").get_by_role("radio", name=p["name"])).to_be_visible()


def test_a_third_profile_in_the_data_gets_its_own_radio(page: Page, tmp_path):
    from speculative import pipeline, publish

    def edit(raw):
        raw["profiles"].append({"id": "same", "name": "a draft equal to the target",
                                "proposals": raw["profiles"][0]["proposals"], "draft": raw["target"]})
        raw["monte_carlo"]["rounds"] = 2000
    data = edited_data(tmp_path, edit, "three.json")
    publish.write_atomic(tmp_path / "site", pipeline.build_files(data, ROOT / "content", ROOT / "templates"))
    third = json.loads((tmp_path / "site" / "trace.json").read_text(encoding="utf-8"))["profiles"][2]
    page.goto((tmp_path / "site" / "index.html").as_uri())
    expect(page.get_by_role("group", name="Draft profile").get_by_role("radio")).to_have_count(3)
    page.get_by_role("radio", name="a draft equal to the target").check()
    at(page, 1, len(third["walk"]["frames"]))
    page.keyboard.press("End")  # focus is on the radio: a form field keeps its keys
    at(page, 1, len(third["walk"]["frames"]))
    page.get_by_role("button", name="Last step").click()
    at(page, len(third["walk"]["frames"]), len(third["walk"]["frames"]))
    expect(page).to_have_url(re.compile(rf"#walkthrough/same/{len(third['walk']['frames'])}$"))


def test_rejection_frame_shows_residual_and_dropped_positions(page: Page, page_url, trace):
    found = first_frame(trace, lambda f: f["verdict"] == "rejected")  # an authored walk's, else a drawn round's
    if found is None:
        pytest.skip("no round of this data file rejects a proposal")
    p, f, address = found
    vocab = trace["vocabulary"]
    dropped = [i + 1 for i, state in enumerate(f["slots"]) if state == "dropped"]
    if data_is_shipped():
        assert (p["id"], f["position"], dropped) == ("divergent", 3, [4, 5])  # the authored rejection, 4 and 5 dropped
    page.goto(page_url + address)
    at(page, f["index"], len(f["round"]["frames"]))
    expect(page.locator("[data-walkthrough-verdict]")).to_contain_text("Rejected")
    expect(page.locator("[data-walkthrough-verdict]")).to_contain_text(f["u"])
    rows = page.locator("[data-walkthrough-dist-body] tr")
    expect(rows).to_have_count(len(vocab))
    pos = p["positions"][f["position"] - 1]
    for y, _token in enumerate(vocab):
        expect(rows.nth(y).locator("td").nth(3)).to_have_text(pos["residual"][y])
        expect(rows.nth(y).locator("td").nth(2)).to_have_text(pos["residual_raw"][y])
    expect(rows.nth(f["token"])).to_contain_text("rejected")
    expect(rows.nth(f["token"]).locator("td").nth(3)).to_have_text("0")
    expect(rows.nth(f["round"]["replacement"])).to_contain_text("drawn")
    expect(page.locator("[data-walkthrough-dist-head]")).to_contain_text("max(0, p − q)")
    dropped_slots = page.locator("[data-walkthrough-strip] .slot.is-dropped")
    expect(dropped_slots).to_have_count(len(dropped))
    for i, d in enumerate(dropped):
        expect(dropped_slots.nth(i)).to_contain_text(vocab[f["round"]["proposals"][d - 1]])
        expect(dropped_slots.nth(i)).to_contain_text("dropped, never checked")
    rep = f["round"]["replacement"]
    expect(page.locator("[data-walkthrough-strip] .slot.is-rejected")).to_contain_text(f"“{vocab[rep]}” instead")
    expect(page.locator("[data-walkthrough-dropped-list] li")).to_have_count(len(dropped))


def test_captions_and_figures_show_the_exact_fractions(page: Page, page_url, trace):
    rp, f = rejection(trace) if data_is_shipped() else (None, None)  # the shipped authored rejection, worked by hand
    if f is not None:
        assert "min(1, 0/(3/8)) = 0" in caption(trace, rp, f)
    page.goto(page_url)
    for p in trace["profiles"]:
        page.get_by_role("radio", name=p["name"]).check()
        for frame in frames(p):
            page.get_by_label("Frame", exact=True).fill(str(frame["index"]))
            at(page, frame["index"], len(frames(p)))
            expect(page.locator("[data-walkthrough-caption]")).to_have_text(caption(trace, p, frame))
            if frame is f:
                expect(page.locator("[data-walkthrough-caption]")).to_contain_text("min(1, 0/(3/8)) = 0")
            if frame["kind"] != "verify":
                expect(page.locator("[data-walkthrough-test]")).to_be_hidden()
                continue
            x = facts(p, frame)
            expect(page.locator("[data-walkthrough-p]")).to_have_text(x["p"])
            expect(page.locator("[data-walkthrough-q]")).to_have_text(x["q"])
            top, bottom = (f"({v})" if "/" in v else v for v in (x["p"], x["q"]))  # only fractions in brackets
            expect(page.locator("[data-walkthrough-ratio]")).to_have_text(f"{top}/{bottom} = {x['ratio']}")
            if frame is f:
                expect(page.locator("[data-walkthrough-ratio]")).to_have_text("0/(3/8) = 0")
            expect(page.locator("[data-walkthrough-accept]")).to_have_text(f"min(1, {x['ratio']}) = {x['accept']}")
            expect(page.locator("[data-walkthrough-u]")).to_have_text(frame["u"])
            expect(page.locator("[data-walkthrough-verdict]")).to_contain_text(frame["verdict"].capitalize())


def test_bonus_frame_shows_the_draw_from_the_target(page: Page, page_url, trace):
    found = first_frame(trace, lambda f: f["kind"] == "bonus")  # an authored walk's (the shipped "aligned"), else a drawn round's
    if found is None:
        pytest.skip("no round of this data file passes every check, so none draws a bonus")
    p, f, address = found
    page.goto(page_url + address)
    rows = page.locator("[data-walkthrough-dist-body] tr")
    expect(rows).to_have_count(len(trace["vocabulary"]))
    expect(rows.nth(f["token"])).to_contain_text("drawn")
    for y, value in enumerate(p["bonus_target"]):
        expect(rows.nth(y).locator("td")).to_have_text(value)
    expect(page.locator("[data-walkthrough-committed] li")).to_have_count(f["slots"].count("accepted") + f["slots"].count("bonus"))


def test_keyboard_shortcuts_step_jump_and_play(page: Page, page_url, trace):
    n = len(frames(opening(trace)))
    page.goto(page_url)
    page.get_by_label("Speed", exact=True).select_option(label="Slow")
    page.get_by_role("button", name="Next step").focus()
    page.keyboard.press("ArrowRight")
    at(page, 2, n)
    page.keyboard.press("ArrowLeft")
    at(page, 1, n)
    page.keyboard.press("End")
    at(page, n, n)
    page.keyboard.press("Home")
    at(page, 1, n)
    page.get_by_role("button", name="Next step").focus()
    page.keyboard.press("Space")  # plays; it must not also click the focused Next button
    expect(player(page).get_by_role("button", name="Pause")).to_be_visible()
    expect(player(page).get_by_role("button", name="Play", exact=True)).to_have_count(0)
    page.keyboard.press("Space")
    expect(player(page).get_by_role("button", name="Play", exact=True)).to_be_visible()
    at(page, 1, n)
    player(page).get_by_role("button", name="Play", exact=True).focus()
    page.keyboard.press("Space")  # the focused Play button toggles once, not twice
    expect(player(page).get_by_role("button", name="Pause")).to_be_visible()
    page.keyboard.press("Space")
    expect(player(page).get_by_role("button", name="Play", exact=True)).to_be_visible()


def test_form_fields_keep_their_own_keys(page: Page, page_url, trace):
    profiles, first = trace["profiles"], trace["walkthrough"]["profile"]
    shown, after = profiles[first], profiles[(first + 1) % len(profiles)]  # a radio group's arrows wrap around
    page.goto(page_url)
    scrubber = page.get_by_label("Frame", exact=True)
    scrubber.focus()
    page.keyboard.press("ArrowRight")
    at(page, 2, len(frames(shown)))
    expect(scrubber).to_have_value("2")
    page.keyboard.press("ArrowRight")
    at(page, 3, len(frames(shown)))
    page.keyboard.press("ArrowLeft")
    at(page, 2, len(frames(shown)))
    page.get_by_role("radio", name=shown["name"]).focus()
    page.keyboard.press("ArrowRight")  # native: moves to the next radio, which switches profile
    expect(page.get_by_role("radio", name=after["name"])).to_be_checked()
    at(page, 1 if after is not shown else 2, len(frames(after)))


def test_play_runs_to_the_last_frame_and_stops(browser, page_url, trace):
    p = trace["profiles"][-1]  # any walk has 3 frames or more: propose, a check, done
    n = len(frames(p))
    context = browser.new_context()  # the clock is the context's: not the kept one the other tests share
    page = context.new_page()
    page.clock.install(time=0)
    page.goto(f"{page_url}#{p['id']}/{n - 2}")
    page.clock.pause_at(60_000)  # from here on, time moves only when the test says so
    page.get_by_label("Speed", exact=True).select_option(label="Fast")
    player(page).get_by_role("button", name="Play", exact=True).click()
    expect(player(page).get_by_role("button", name="Pause")).to_be_visible()
    page.clock.run_for(899)
    at(page, n - 2, n)
    page.clock.run_for(1)
    at(page, n - 1, n)
    page.clock.run_for(900)
    at(page, n, n)
    expect(player(page).get_by_role("button", name="Play", exact=True)).to_be_visible()
    page.clock.run_for(5000)
    at(page, n, n)
    context.close()


@pytest.mark.parametrize("address", ["#walkthrough/{pid}/{i}", "#{pid}/{i}"])  # an older link works too
def test_deep_link_restores_state_and_stepping_replaces_the_hash(page: Page, page_url, trace, address):
    p, other = trace["profiles"][-1], trace["profiles"][0]  # on the shipped data "overconfident" and "aligned"
    n = len(frames(p))
    i = min(4, n - 1)  # a frame with one after it (any walk has 3 or more)
    pid = re.escape(p["id"])
    page.goto(page_url + address.format(pid=p["id"], i=i))
    at(page, i, n)
    expect(page.get_by_role("radio", name=p["name"])).to_be_checked()
    expect(page.locator("[data-walkthrough-caption]")).to_have_text(caption(trace, p, frames(p)[i - 1]))
    length = page.evaluate("history.length")
    page.get_by_role("button", name="Next step").click()
    expect(page).to_have_url(re.compile(rf"#walkthrough/{pid}/{i + 1}$"))
    page.get_by_role("button", name="First step").click()
    expect(page).to_have_url(re.compile(rf"#walkthrough/{pid}/1$"))
    if other is not p:  # another profile's radio (a file may have one profile only)
        page.get_by_role("radio", name=other["name"]).check()
        expect(page).to_have_url(re.compile(rf"#walkthrough/{re.escape(other['id'])}/1$"))
    assert page.evaluate("history.length") == length
    page.goto(page_url + f"#{p['id']}/99")  # out of range: clamped to the last frame
    at(page, n, n)


def test_notice_links_open_the_player_at_their_frames(page: Page, page_url, trace):
    page.emulate_media(reduced_motion="reduce")  # the reveal scrolls at once instead of smoothly
    page.goto(page_url)
    fold = page.locator("details#notice")
    expect(fold).not_to_have_attribute("open", "")
    fold.locator("summary").click()  # the links live in a fold, closed until the reader opens it
    expect(fold).to_have_attribute("open", "")
    links = page.locator('#notice a[href^="#"]', has_text="Show me")
    hrefs = links.evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert set(hrefs) == {f"#{where}" for where in trace["points"].values() if where}
    if data_is_shipped():
        assert len(hrefs) == 4
    if not hrefs:
        pytest.skip("this data file's rounds show none of the points the notice links to")
    for i, href in enumerate(hrefs):
        p, rnd, _, frame = point_frame(trace, href[1:])  # an authored walk's frame (the shipped ones) or a drawn round's
        links.nth(i).click()
        at(page, frame, len(rnd["frames"]))
        expect(page.get_by_role("radio", name=p["name"])).to_be_checked()
        expect(player(page)).to_be_in_viewport()
    # the same link again, the hash already set (so no hashchange): it still brings the player back into view
    links.last.scroll_into_view_if_needed()
    expect(player(page)).not_to_be_in_viewport()
    links.last.click()
    expect(player(page)).to_be_in_viewport()


def test_a_show_me_link_leaves_a_way_back_to_itself(page: Page, page_url):
    page.emulate_media(reduced_motion="reduce")
    page.goto(page_url)
    back = player(page).get_by_role("link", name="↩ Back to where you were")
    expect(player(page)).to_be_visible()
    expect(back).to_be_hidden()  # nothing to go back to yet
    page.locator("details#notice > summary").click()
    link = page.locator('#notice a[href^="#"]', has_text="Show me").first
    link.click()
    expect(player(page)).to_be_in_viewport()
    expect(back).to_be_visible()
    back.click()
    expect(link).to_be_in_viewport()
    expect(link).to_be_focused()
    expect(back).to_be_hidden()
    # the player's own controls move it without offering a way back
    player(page).get_by_role("button", name="Next step").click()
    expect(back).to_be_hidden()


def test_a_try_it_link_in_the_tables_leaves_a_way_back_from_the_lab(page: Page, page_url):
    page.emulate_media(reduced_motion="reduce")
    page.goto(page_url)
    lab = page.locator("#lab")
    back = lab.get_by_role("link", name="↩ Back to where you were")
    expect(lab.locator("[data-lab-verdict]")).not_to_be_empty()
    expect(back).to_be_hidden()
    link = page.locator("#positions a[data-lab-open]").last
    link.click()
    expect(back).to_be_visible()
    where = "/".join(link.get_attribute("data-lab-open").split("/")[:2])  # "profile/position/token/u"
    expect(lab.get_by_label("Position", exact=True)).to_have_value(where)
    back.click()
    expect(link).to_be_in_viewport()
    expect(link).to_be_focused()
    expect(back).to_be_hidden()


def test_without_javascript_the_static_walkthrough_shows_every_frame(browser, page_url, trace):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(page_url)
    total = sum(len(frames(p)) for p in trace["profiles"])
    if data_is_shipped():  # the hand-worked frame counts (docs/figures.md)
        assert total == sum(f["frames"] for f in FIGURES.values())
    items = page.locator("li.frame")
    expect(items).to_have_count(total)
    for i in range(total):
        expect(items.nth(i)).to_be_visible()
    expect(player(page)).to_be_hidden()
    context.close()


def test_print_shows_every_static_frame_and_hides_the_player(page: Page, page_url, trace):
    page.goto(page_url)
    expect(player(page)).to_be_visible()
    expect(page.locator("li.frame")).to_have_count(0)  # with scripting on, the no-JS list is not in the DOM
    page.emulate_media(media="print")
    items = page.locator("li.frame")
    expect(items).to_have_count(sum(len(frames(p)) for p in trace["profiles"]))
    # each figure's static form is printed beside its own <noscript>, once, and nowhere else:
    # the generator's seeded run, the walkthrough's frames, the lab's accept tables, the convergence tables and the
    # speedup tables (the batching figure's table, for its first setting, is not: its charts print the reader's)
    statics = page.locator("noscript[data-static]").count()
    assert statics == 4 + len(trace["profiles"])
    expect(page.locator("[data-printed]")).to_have_count(statics)
    expect(page.locator("#walkthrough > [data-printed]")).to_have_count(1)
    expect(page.locator("#lab > [data-printed] table.accept-table")).to_have_count(len(trace["profiles"]))
    expect(page.locator("#lab > [data-printed] table.broken-table")).to_have_count(1)  # every sampler at one position
    page.emulate_media(media="screen")
    page.emulate_media(media="print")
    expect(page.locator("[data-printed]")).to_have_count(statics)
    for i in range(items.count()):
        expect(items.nth(i)).to_be_visible()
    expect(player(page)).to_be_hidden()


def test_reduced_motion_turns_animation_off(page: Page, page_url, trace):
    page.emulate_media(reduced_motion="reduce")
    page.goto(page_url + f"#{trace['profiles'][0]['id']}/2")  # a check (frame 1 proposes)
    current = page.locator("[data-walkthrough-strip] .slot.is-current")
    expect(current).to_have_css("animation-name", "none")
    expect(page.locator("[data-walkthrough-bar] .fig-accept-yes")).to_have_css("transition-duration", "0s")


def test_no_horizontal_scroll_at_360px(page: Page, page_url, trace):
    page.set_viewport_size({"width": 360, "height": 800})
    page.goto(page_url)
    expect(player(page)).to_be_visible()
    for p in trace["profiles"]:
        page.get_by_role("radio", name=p["name"]).check()
        for frame in frames(p):
            page.get_by_label("Frame", exact=True).fill(str(frame["index"]))
            at(page, frame["index"], len(frames(p)))
            assert page.evaluate("document.documentElement.scrollWidth") <= 360, (p["id"], frame["index"])
    # the tables fit too, so a phone reader never has to scroll sideways inside one
    widths = page.evaluate("[...document.querySelectorAll('.table-scroll')].map(e => e.scrollWidth - e.clientWidth)")
    assert widths and max(widths) <= 0


def test_axe_finds_nothing_in_the_player_in_light_or_dark(page: Page, page_url, trace):
    looks, seen = [], set()
    for p in trace["profiles"]:
        for frame in frames(p):
            look = (frame["kind"], frame.get("verdict"))
            if look not in seen and frame["kind"] != "done":  # one frame of each look; done repeats what came before
                seen.add(look)
                looks.append((p, frame))
    page.goto(page_url)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for p, frame in looks:
            page.evaluate("where => { location.hash = where; }", f"#{p['id']}/{frame['index']}")
            at(page, frame["index"], len(frames(p)))
            assert axe_violations(page, "[data-walkthrough]") == [], (scheme, p["id"], frame["index"])


def test_axe_finds_nothing_on_the_whole_page_in_light_or_dark(page: Page, page_url, trace):
    p = trace["profiles"][-1]
    i = min(4, len(frames(p)))
    page.goto(page_url + f"#{p['id']}/{i}")
    at(page, i, len(frames(p)))
    found = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        found += [(scheme, v) for v in axe_violations(page)]
    assert found == []


DRAW_GEOMETRY_JS = """() => {
  const draw = document.querySelector('[data-walkthrough-dist-draw]'), segs = [...draw.querySelectorAll('.fig-accept-seg')];
  const drawn = segs.findIndex(s => s.classList.contains('is-drawn'));
  const box = segs[drawn].getBoundingClientRect(), mark = draw.querySelector('.fig-accept-tick').getBoundingClientRect();
  const label = draw.querySelector('[data-accept-u]'), b = label.getBoundingClientRect(), s = label.parentElement.getBoundingClientRect();
  const ends = [...label.parentElement.children].filter(e => e !== label && getComputedStyle(e).visibility !== 'hidden');
  const clash = b.left < s.left - 0.5 || b.right > s.right + 0.5
      || ends.some(e => { const r = e.getBoundingClientRect(); return r.left < b.right && r.right > b.left; });
  return {drawn, left: box.left, right: box.right, at: mark.left + mark.width / 2, clash,
          kind: document.querySelector('[data-walkthrough-dist]').dataset.walkthroughKind};
}"""


def draw_frames(page: Page, trace):
    """Opens, one after another, every frame of every round that shows a replacement or bonus draw; yields
    (profile, round number, round, frame, "rep" or "bonus", the recorded draw as text) once the draw is shown."""
    for p in trace["profiles"]:
        for r, rnd in enumerate([p["walk"]] + p["drawn"]):
            for f in frames(p, rnd):
                if not (f["verdict"] == "rejected" or f["kind"] == "bonus"):
                    continue
                name = "rep" if f["kind"] == "verify" else "bonus"
                page.evaluate("h => { location.hash = h; }", f"{p['id']}/{f'r{r}/' if r else ''}{f['index']}")
                expect(page.locator("[data-walkthrough-dist-draw] [data-accept-u]")).to_have_text(f"r = {rnd['fields'][name + '_u']}")
                yield p, r, rnd, f, name, rnd["fields"][name + "_u"]


def test_every_replacement_and_bonus_strip_shows_the_recorded_draw_in_its_tokens_segment_clear_of_the_ends_at_360px(
        page: Page, page_url, trace):
    """At the narrowest width: the draw's mark lies inside the committed token's segment, and its number never
    leaves the strip or covers the number at either end (the draws near an end are the ones that could)."""
    page.set_viewport_size({"width": 360, "height": 800})
    page.goto(page_url)
    seen = near = 0
    for p, r, rnd, f, name, drawn in draw_frames(page, trace):
        expect(page.locator("[data-walkthrough-caption]")).to_have_text(caption(trace, p, f))
        token = rnd["replacement"] if name == "rep" else rnd["bonus"]
        g = page.evaluate(DRAW_GEOMETRY_JS)
        assert g["drawn"] == token and g["kind"] == ("residual" if name == "rep" else "bonus"), (p["id"], r, g)
        assert g["left"] - 0.5 <= g["at"] <= g["right"] + 0.5, (p["id"], r, f["index"], g)
        assert not g["clash"], (p["id"], r, f["index"])
        seen += 1
        near += not 0.2 <= float(drawn) <= 0.8
    # every round ends in a replacement or a bonus, so any file has at least one draw to show
    assert seen == sum(1 for p in trace["profiles"] for rnd in [p["walk"]] + p["drawn"]
                       for f in frames(p, rnd) if f["verdict"] == "rejected" or f["kind"] == "bonus") > 0
    if data_is_shipped():  # the shipped draws are many and include some near each end, so the clash check ran where it matters
        assert seen > 40 and near > 0


def test_next_round_where_chance_decides_visits_the_rounds_the_analysis_lists_and_wraps(page: Page, page_url, trace):
    page.goto(page_url)
    button = page.get_by_role("button", name="Next round where chance decides")
    p = next((p for p in trace["profiles"] if p["chance"]), None)
    if data_is_shipped():
        assert p is not None and p["id"] == "aligned" and [r for r, _ in p["chance"]] == [5, 11, 12, 23]
    if p is None:
        pytest.skip("chance decides a check in none of this file's drawn rounds")
    page.get_by_role("radio", name=p["name"]).check()
    expect(page.locator("[data-walkthrough-chance-note]")).to_have_text(p["chance_note"])
    for r, frame in p["chance"] + p["chance"][:1]:  # the last wraps around to the first (round 23 to 5, shipped)
        button.click()
        expect(page).to_have_url(re.compile(f"#walkthrough/{re.escape(p['id'])}/r{r}/{frame}$"))
        expect(page.locator("[data-walkthrough-round-counter]")).to_have_text(f"Drawn round {r} of {len(p['drawn'])}")
        expect(page.locator("[data-walkthrough-round-chance]")).to_have_text("· chance decides a check")
        expect(page.locator("[data-walkthrough-chance]")).to_be_visible()
    then = p["chance"][0][0] % len(p["drawn"]) + 1  # round 6, shipped: no chance mark
    page.get_by_role("button", name="Draw another round").click()
    expect(page.locator("[data-walkthrough-round-counter]")).to_have_text(f"Drawn round {then} of {len(p['drawn'])}")
    mark = "· chance decides a check" if then in [r for r, _ in p["chance"]] else ""
    expect(page.locator("[data-walkthrough-round-chance]")).to_have_text(mark)


def test_where_chance_decides_nothing_the_control_is_disabled_and_the_page_says_why(page: Page, page_url, trace):
    page.goto(page_url)
    p = next((p for p in trace["profiles"] if p["chance"] == []), None)
    if data_is_shipped():
        assert p is not None and p["id"] == "divergent"
    if p is None:
        pytest.skip("chance decides a check in some drawn round of every profile of this data file")
    page.get_by_role("radio", name=p["name"]).check()
    if p is not opening(trace):  # choosing another profile than the one shown sets the fragment
        expect(page).to_have_url(re.compile(rf"#walkthrough/{re.escape(p['id'])}/1$"))
    url = page.url
    button = page.get_by_role("button", name="Next round where chance decides")
    expect(button).to_have_attribute("aria-disabled", "true")
    expect(button).to_have_accessible_description(p["chance_note"])
    button.click(force=True)  # it stays focusable, and a click does nothing
    expect(page).to_have_url(url)
    expect(page.locator("[data-walkthrough-round-counter]")).to_have_text("")


def test_draw_another_round_says_which_round_it_moves_to(page: Page, page_url, trace):
    page.goto(page_url)
    n = len(opening(trace)["drawn"])
    then = 1 % n + 1  # after round 1: round 2, or round 1 again when the file draws one round
    draw = page.get_by_role("button", name="Draw another round")
    expect(draw).to_have_accessible_description(f"Draw another round moves to drawn round 1 of {n}.")
    expect(page.locator("[data-walkthrough-draw-hint]")).to_be_visible()
    draw.click()
    expect(page.locator("[data-walkthrough-round-counter]")).to_have_text(f"Drawn round 1 of {n}")
    expect(page.locator("[data-walkthrough-draw-hint]")).to_have_text(f"Draw another round moves to drawn round {then} of {n}.")
    page.get_by_role("radio", name="The authored walkthrough").check()
    expect(draw).to_have_accessible_description(f"Draw another round moves to drawn round {then} of {n}.")


@pytest.mark.parametrize("width", [360, 1280])
def test_the_round_buttons_and_the_step_buttons_stay_put_from_round_to_round(pages, page_url, trace, width):
    """A first-time reader's review: the chance button moved right when the counter appeared, and the step buttons
    moved down when the round's note changed its lines."""
    page = pages.open(page_url)
    page.set_viewport_size({"width": width, "height": 800})
    chance, draw = page.get_by_role("button", name="Next round where chance decides"), page.get_by_role("button", name="Draw another round")
    nxt = page.get_by_role("button", name="Next step")

    player = page.locator("#walkthrough-player")

    def where():
        # measured from the player's own top left: a figure above it that starts late (its charts join after the first paint)
        # moves the whole player, which is not the move this test is about
        return page.evaluate("""([box, ...els]) => { const b = box.getBoundingClientRect();
          return els.map(e => { const r = e.getBoundingClientRect(); return [Math.round(r.x - b.x), Math.round(r.y - b.y)]; }); }""",
                             [player.element_handle(), chance.element_handle(), nxt.element_handle()])
    seen = {json.dumps(where())}
    # the chance button is disabled where chance decides no drawn round's check of the profile shown
    for button in (chance, draw, chance, draw, chance) if opening(trace)["chance"] else (draw, draw, draw):
        button.click()
        seen.add(json.dumps(where()))
    assert len(seen) == 1, seen
    page.close()


def test_the_page_pool_lends_a_page_again_with_the_viewport_and_media_a_test_changed_set_back(pages):
    page = pages.open("about:blank")
    default = page.viewport_size
    page.set_viewport_size({"width": 360, "height": 700})
    page.emulate_media(color_scheme="dark", media="print")
    pages.give_back()
    again = pages.open("about:blank")
    assert again is page and again.viewport_size == default  # kept, not a new page, and as wide as before
    assert again.evaluate("[innerWidth, matchMedia('(prefers-color-scheme: dark)').matches, matchMedia('print').matches]") \
        == [default["width"], False, False]


def test_the_axe_helper_reports_a_planted_violation_in_its_context_only(page: Page, page_url):
    page.goto(page_url)
    page.evaluate("""() => { const b = document.createElement('button');
        b.id = 'planted-unnamed'; document.querySelector('[data-walkthrough]').append(b); }""")  # a button with no name
    assert any(v.startswith("button-name: #planted-unnamed") for v in axe_violations(page, "[data-walkthrough]"))
    assert axe_violations(page, ".explorer") == []  # another figure: the planted button is not in it


def test_a_frame_that_checks_nothing_says_so_where_the_check_stands_on_a_wide_screen(page: Page, page_url, trace):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(page_url)
    idle = player(page).locator("[data-walkthrough-idle]")
    p = opening(trace)
    for frame in frames(p):
        page.get_by_label("Frame", exact=True).fill(str(frame["index"]))
        at(page, frame["index"], len(frames(p)))
        if frame["kind"] == "verify":
            expect(idle).to_be_hidden()
            expect(player(page).locator("[data-walkthrough-test]")).to_be_visible()
        else:
            expect(idle).to_be_visible()
            expect(idle).to_contain_text(trace["text"]["walkthrough"][f"idle_{frame['kind']}"].split("{")[0][:20])
    page.set_viewport_size({"width": 390, "height": 844})  # one column: the note would only push the frame down
    expect(idle).to_be_hidden()
