"""One visual language: every colour on the page is a role (--role-*) or a neutral, defined once in style.css's
:root with its dark, forced-colours and print variants; nothing else writes a colour; the page's key lists every role
in the first screen; one role is one colour in every figure, and no two roles share one."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .conftest import ROOT

ROLES = ("target", "draft", "shared", "residual", "excess", "accepted", "rejected", "replacement", "bonus", "dropped",
         "prompt", "u", "observed")
NEUTRALS = ("paper", "panel", "ink", "muted", "rule", "accent", "focus")

# A colour written out: #rgb, #rgba, #rrggbb, #rrggbbaa (not an entity such as &#8212;, nor an id such as #add-one),
# or a colour function.
LITERAL = re.compile(r"(?<![&\w])#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3,4})(?![\w-])"
                     r"|\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\(", re.I)
SVG_PAINT = re.compile(r"""\b(?:fill|stroke|stop-color|color)=\\?["'](?!url\(#|none|currentColor)""")
# style.css's :root blocks (at the top level or inside an @media): the one place a literal may stand
ROOT_BLOCK = re.compile(r":root\s*\{[^{}]*\}")
COMMENT = re.compile(r"/\*.*?\*/", re.S)


def colour_literals(folder: Path) -> list[str]:
    """Returns "file: line N: literal" for every colour a template, script, stylesheet (outside style.css's :root
    blocks) or the charts' module writes in `folder`, a copy of the project's layout."""
    files = [*sorted((folder / "templates").glob("*.html.j2")), *sorted((folder / "templates" / "js").glob("*.js")),
             *sorted((folder / "templates").glob("*.css")), folder / "speculative" / "charts.py"]
    found = []
    for path in files:
        text = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), path.read_text(encoding="utf-8"))
        if path.name == "style.css":
            text = ROOT_BLOCK.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
        patterns = (LITERAL, SVG_PAINT) if path.suffix == ".py" else (LITERAL,)
        for pattern in patterns:
            for m in pattern.finditer(text):
                found.append(f"{path.relative_to(folder)}: line {text.count(chr(10), 0, m.start()) + 1}: {m.group()}")
    return found


def root_blocks(css: str) -> dict[str, dict[str, str]]:
    """Returns the custom properties of style.css's :root blocks by scheme: "light" (the top-level block), "dark",
    "forced" and "print" (the :root inside each @media)."""
    css, out, depth, media = COMMENT.sub("", css), {}, 0, ""
    for m in re.finditer(r"@media([^{]*)\{|:root\s*\{([^{}]*)\}|\{|\}", css):
        if m.group().startswith("@media"):
            depth, media = depth + 1, m.group(1)
        elif m.group().startswith(":root"):
            scheme = ("dark" if "dark" in media else "forced" if "forced" in media else "print" if "print" in media
                      else "other") if depth else "light"
            out.setdefault(scheme, {}).update(re.findall(r"(--[\w-]+)\s*:\s*([^;]+);", m.group(2)))
        elif m.group() == "{":
            depth += 1
        else:
            depth -= 1
            media = media if depth else ""
    return out


def test_no_template_script_stylesheet_or_chart_writes_a_colour_outside_the_roles():
    assert colour_literals(ROOT) == []


def test_the_colour_check_finds_a_planted_literal(tmp_path):
    for name in ("templates", "speculative"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "templates" / "figures.css").write_text(".planted { color: #c00; }\n", encoding="utf-8")
    (tmp_path / "templates" / "js" / "core.js").write_text("const x = 'rgb(1, 2, 3)';\n", encoding="utf-8")
    style = tmp_path / "templates" / "style.css"
    style.write_text(style.read_text(encoding="utf-8") + "\n.planted { border-color: hsl(0 0% 0%); }\n", encoding="utf-8")
    charts = tmp_path / "speculative" / "charts.py"
    charts.write_text(charts.read_text(encoding="utf-8") + '\nX = \'<path fill="red"/>\'\n', encoding="utf-8")
    found = colour_literals(tmp_path)
    assert [f.split(":")[0] for f in found] == ["templates/js/core.js", "templates/figures.css", "templates/style.css",
                                                "speculative/charts.py"], found
    assert "templates/figures.css: line 1: #c00" in found


def test_every_role_and_its_tint_is_defined_in_light_dark_forced_colours_and_print():
    blocks = root_blocks((ROOT / "templates" / "style.css").read_text(encoding="utf-8"))
    names = {f"--role-{r}{end}" for r in ROLES for end in ("", "-bg")}
    for scheme in ("light", "dark", "forced", "print"):
        assert names <= set(blocks[scheme]), (scheme, names - set(blocks[scheme]))
    assert {f"--{n}" for n in NEUTRALS} <= set(blocks["light"]) & set(blocks["dark"])
    for scheme in ("light", "dark"):  # one colour per role and per tint in each scheme
        values = [blocks[scheme][n] for n in sorted(names)]
        assert len(set(values)) == len(values), scheme


def test_the_checks_root_blocks_sees_each_scheme():
    css = ":root { --a: #000; } @media (prefers-color-scheme: dark) { :root { --a: #fff; } } .x { color: red; }"
    assert root_blocks(css) == {"light": {"--a": "#000"}, "dark": {"--a": "#fff"}}


# --- in the browser -------------------------------------------------------------------------------------------

def role_colours(page: Page) -> dict[str, str]:
    """Returns each role's colour and tint as the browser computes them (rgb), through a probe element."""
    return page.evaluate("""roles => { const probe = document.createElement('i'); document.body.append(probe);
      const out = {}; for (const r of roles) for (const end of ['', '-bg']) {
        probe.style.color = `var(--role-${r}${end})`; out[r + end] = getComputedStyle(probe).color; }
      probe.remove(); return out; }""", list(ROLES))


@pytest.mark.browser
def test_the_key_is_in_the_first_screen_and_lists_every_role(page: Page, page_url):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(page_url)
    key = page.locator(".role-key")
    expect(key).to_be_visible()
    expect(key).to_be_in_viewport(ratio=1)
    for role in ROLES:
        swatch = key.locator(f".swatch-{role}")
        expect(swatch).to_have_count(1)
        expect(swatch).to_be_in_viewport(ratio=1)
        expect(swatch).not_to_have_text("")
    assert key.locator(".swatch").count() == len(ROLES)


def computed(page: Page, selector: str, prop: str, pseudo: str | None = None) -> str:
    """Returns a CSS property of the first element matching selector, as the browser computes it."""
    return page.locator(selector).first.evaluate("(e, [p, s]) => getComputedStyle(e, s)[p]", [prop, pseudo])


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_one_role_is_one_colour_in_every_figure_and_no_two_roles_share_one(pages, page_url, trace, scheme):
    page = pages.open()
    page.emulate_media(color_scheme=scheme)
    page.goto(page_url)
    expect(page.locator("[data-walkthrough]")).to_be_visible()
    colours = role_colours(page)
    assert len(set(colours.values())) == len(colours), colours
    same = {  # role: (element, property, pseudo-element) in two or more figures, and the page's key
        "accepted": [(".walkthrough .fig-accept-yes", "borderRightColor", None), ("#lab .fig-accept-yes", "borderRightColor", None),
                     ("#generator .fig-accept-yes", "borderBottomColor", None),
                     (".role-key .swatch-accepted", "borderTopColor", "::before")],
        "rejected": [(".walkthrough .fig-accept-track", "backgroundColor", None), ("#lab .fig-accept-track", "backgroundColor", None),
                     ("#generator .fig-accept-track", "backgroundColor", None)],
        "u": [(".walkthrough .fig-accept-tick", "backgroundColor", None), ("#lab .fig-accept-tick", "backgroundColor", None),
              ("#generator .fig-accept-tick", "backgroundColor", None),
              (".role-key .swatch-u", "backgroundColor", "::before")],
        "bonus": [(".generator .generator-tok.is-bonus", "textDecorationColor", None),
                  (".role-key .swatch-bonus", "borderTopColor", "::before")],
    }
    tints = {"rejected"}  # a region's fill is its role's tint
    for role, where in same.items():
        want = colours[role + ("-bg" if role in tints else "")]
        assert [computed(page, *w) for w in where] == [want] * len(where), role
    # the bonus in the round player: the last frame of a round that passes every check commits one (on the shipped
    # data the aligned draft's authored round; else the first such round, authored or drawn)
    bonus = next((f"#{p['id']}/{f'r{r}/' if r else ''}{len(rnd['frames'])}" for p in trace["profiles"]
                  for r, rnd in enumerate([p["walk"], *p["drawn"]]) if rnd["bonus"] is not None), None)
    if bonus is None:
        pytest.skip("no round of this data file passes every check, so the player shows no bonus (the rest passed)")
    player = page.locator("[data-walkthrough]")
    page.evaluate("h => { location.hash = h; }", bonus)
    chip = player.locator("[data-walkthrough-committed] li.is-bonus")
    expect(chip).to_have_count(1)
    assert chip.evaluate("e => getComputedStyle(e).borderTopColor") == colours["bonus"]
    assert player.locator(".slot.is-bonus").evaluate("e => getComputedStyle(e).borderTopColor") == colours["bonus"]

