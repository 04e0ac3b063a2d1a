"""Render the page: Markdown prose (markdown-it-py) and Jinja2 templates, from texts already read."""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

import jinja2
import rcssmin
import rjsmin
import yaml
from markdown_it import MarkdownIt
from markupsafe import Markup

from . import charts
from .frames import ratio_text
from .stats import commit_chance, decimal_str, percent_str, prob_str
from .trace import Explained, ProfileResult, trace

POINT_TITLES = {
    "capped": "A proposal the target likes at least as much is accepted outright",
    "zero": "A token the target never produces is always rejected",
    "drop": "One rejection throws away every later proposal",
    "residual": "The replacement is never the token just rejected",
}


class ContentError(Exception):
    """A problem in content/ or templates/, named by file."""

    def __init__(self, source: str, message: str):
        self.source, self.message = source, message
        super().__init__(f"{source}: {message}")


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    order: int
    body: str  # Markdown with Jinja expressions
    source: str


_FRONT = re.compile(r"\A---\n(.*?)\n---\n(.*)\Z", re.S)


def parse_section(name: str, text: str) -> Section:
    """Returns the Section in one content file: YAML front matter (title, order, id), then Markdown."""
    match = _FRONT.match(text.replace("\r\n", "\n"))
    if not match:
        raise ContentError(name, "no front matter; expected the file to start with ---, then title, order and id, then ---")
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as err:
        raise ContentError(name, f"front matter is not valid YAML ({err.__class__.__name__})") from None
    missing = [key for key in ("title", "order", "id") if key not in meta]
    if missing:
        raise ContentError(name, f"front matter is missing {', '.join(missing)}")
    return Section(id=str(meta["id"]), title=str(meta["title"]), order=int(meta["order"]), body=match.group(2), source=name)


def script_json(obj: Any) -> str:
    """Returns JSON that is safe inside <script type="application/json">: no string can close the element."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    for raw, escaped in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return text


def sha256_source(text: str) -> str:
    """Returns the CSP source expression that allows exactly this inline block."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(scripts: list[str], styles: list[str]) -> str:
    """Returns a policy that allows only these inline scripts and styles, and data: images (the favicon)."""
    return ("default-src 'none'; "
            f"script-src {' '.join(sha256_source(s) for s in scripts)}; "
            f"style-src {' '.join(sha256_source(s) for s in styles)}; "
            "img-src data:; base-uri 'none'; form-action 'none'")


COMPONENTS = ("walkthrough", "positions", "checks_identity", "checks_charts", "speedup")


def _placeholder(name: str) -> Markup:
    """Returns the marker a section's Markdown holds where a component goes (an HTML comment passes through)."""
    return Markup(f"\n<!--component:{name}-->\n")


def _point(ex: Explained, name: str, where: str | None) -> dict[str, Any]:
    if where is None:
        return {"href": None, "label": None, "title": POINT_TITLES[name]}
    pid, n = where.split("/")
    r = next(r for r in ex.results if r.profile.id == pid)
    return {"href": f"#{where}", "title": POINT_TITLES[name], "label": f"{r.profile.name}, frame {n} of {len(r.frames)}"}


def profile_view(ex: Explained, r: ProfileResult) -> dict[str, Any]:
    """Returns one profile's figures as display strings, for the prose and the templates."""
    s, d = r.stats, ex.denom
    return {
        "id": r.profile.id,
        "name": r.profile.name,
        "alphas": [prob_str(a, d) for a in s.alphas],
        "expected": decimal_str(s.expected),
        "expected_exact": str(s.expected),
        "speedup": decimal_str(s.speedup),
        "frames": s.frame_count,
        "all_pass": percent_str(s.distribution[-1]),
        "mc_rounds": f"{r.convergence['rounds']:,}",
        "max_tv": f"{max(row['tv'] for row in r.convergence['positions']):.4f}",
        "table": [[decimal_str(v) for v in row] for row in s.speedup_table],
        "table_exact": [list(row) for row in s.speedup_table],
        "distribution_exact": list(s.distribution),
        "lengths_observed": r.length_counts.tolist(),
        "positions": [_position_row(ex, r, i) for i in range(ex.data.k)],
        "convergence": [dict(row, target=list(t), label=f"position {row['position']}" if row["position"] <= ex.data.k
                             else f"bonus position {row['position']}")
                        for row, t in zip(r.convergence["positions"], list(ex.data.target) + [ex.data.bonus_target])],
    }


def _position_row(ex: Explained, r: ProfileResult, i: int) -> dict[str, Any]:
    """Returns one row group of the Positions view: p, q and residual in full, and the proposal's check."""
    d, p, q, x = ex.denom, ex.data.target[i], r.profile.draft[i], r.profile.proposals[i]
    res = r.stats.residuals[i]
    worked = ratio_text(prob_str(p[x], d), prob_str(q[x], d), p[x] / q[x], r.stats.proposal_accept[i])
    return {"position": i + 1, "proposal": x, "token": ex.data.vocabulary[x],
            "p": [prob_str(v, d) for v in p], "q": [prob_str(v, d) for v in q],
            "p_exact": list(p), "q_exact": list(q),
            "residual": ["–"] * len(p) if res is None else [str(v) for v in res],
            "alpha": prob_str(r.stats.alphas[i], d), "accept_text": worked}


def residual_example(ex: Explained) -> dict[str, Any] | None:
    """Returns the first token the target does produce whose residual is still 0 because q > p, if any."""
    for r in ex.results:
        for i, (p, q) in enumerate(zip(ex.data.target, r.profile.draft)):
            for y, (a, b) in enumerate(zip(p, q)):
                if 0 < a < b:
                    return {"profile": r.profile.name, "position": i + 1, "token": ex.data.vocabulary[y],
                            "p": prob_str(a, ex.denom), "q": prob_str(b, ex.denom)}
    return None


def identity_example(ex: Explained) -> dict[str, Any]:
    """Returns the worked check min(p,q) + (1-α)·residual = p at the walkthrough's first rejection."""
    rejected = next(((r, f["position"] - 1) for r in ex.results for f in r.frames if f.get("verdict") == "rejected"), None)
    r, i = rejected or (ex.results[0], 0)
    p, q, d = ex.data.target[i], r.profile.draft[i], ex.denom
    total = commit_chance(p, q)
    rows = [{"token": token, "min": prob_str(min(p[y], q[y]), d), "fix": prob_str(total[y] - min(p[y], q[y]), d),
             "total": prob_str(total[y], d), "p": prob_str(p[y], d)} for y, token in enumerate(ex.data.vocabulary)]
    pairs = [(a, b) for r2 in ex.results for a, b in zip(ex.data.target, r2.profile.draft)]
    equal = sum(commit_chance(a, b) == list(a) for a, b in pairs)
    summary = (f"The same sum, done in exact fractions for every token at all {len(pairs)} positions of "
               f"the {len(ex.results)} profiles, equals the target at {equal} of {len(pairs)}.")
    return {"profile": r.profile.name, "position": i + 1, "rows": rows, "summary": summary,
            "where": ", where the walkthrough saw a rejection" if rejected else ""}


def context(ex: Explained) -> dict[str, Any]:
    """Returns everything the prose and templates may refer to."""
    data, cost = ex.data, ex.data.cost
    views = [profile_view(ex, r) for r in ex.results]
    return {
        "vocab": list(data.vocabulary),
        "V": len(data.vocabulary),
        "k": data.k,
        "profiles": views,
        "p": {v["id"]: v for v in views},
        "results": ex.results,
        "denom": ex.denom,
        "cost": {"draft_step": str(cost.draft_step), "verify_round": str(cost.verify_round),
                 "round_cost": str(data.k * cost.draft_step + cost.verify_round),
                 "compare": [str(c) for c in cost.compare_draft_steps],
                 "highlight": list(cost.compare_draft_steps).index(cost.draft_step)
                 if cost.draft_step in cost.compare_draft_steps else None},
        "points": {name: _point(ex, name, where) for name, where in ex.points.items()},
        "mc_rounds": f"{data.monte_carlo.rounds:,}",
        "bonus_target": [prob_str(x, ex.denom) for x in data.bonus_target],
        "cost_labels": [f"draft step = {c}" for c in cost.compare_draft_steps],
        "identity": identity_example(ex),
        "residual_example": residual_example(ex),
        "kind_names": {"propose": "the draft proposes", "verify": "check", "bonus": "bonus draw", "done": "round done"},
        "state_names": {"proposed": "proposed", "accepted": "accepted", "rejected": "rejected",
                        "dropped": "dropped, never checked", "pending": "bonus if all pass",
                        "none": "no bonus", "bonus": "bonus"},
    }


def environment(templates: Mapping[str, str], cache: jinja2.BytecodeCache | None = None) -> jinja2.Environment:
    """Returns a Jinja2 environment over the given template texts, autoescaping, failing on undefined names.

    cache, when given, keeps compiled templates between runs (keyed by each template's source).
    """
    return _environment(tuple(sorted(templates.items())), cache)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")


@jinja2.pass_context
def _finalize(ctx: jinja2.runtime.Context, value: Any) -> Any:
    """Backslash-escapes Markdown in strings that a Markdown section takes from the data, so a label stays text."""
    if isinstance(value, str) and not isinstance(value, Markup) and (ctx.name or "").endswith(".md"):
        return _MARKDOWN_SPECIAL.sub(r"\\\1", value)
    return value


@functools.lru_cache(maxsize=4)  # the author's --watch loop rebuilds with the same templates most of the time
def _environment(templates: tuple[tuple[str, str], ...], cache: jinja2.BytecodeCache | None) -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.DictLoader(dict(templates)), autoescape=True, bytecode_cache=cache,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             finalize=_finalize)
    env.filters["cap"] = lambda text: text[:1].upper() + text[1:]
    return env


def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": True, "typographer": True}).enable(["table", "replacements", "smartquotes"])


def render_section(env: jinja2.Environment, md: MarkdownIt, section: Section, ctx: dict[str, Any],
                   components: Mapping[str, str]) -> Markup:
    """Returns one section's HTML: Jinja fills in the figures, markdown-it renders the prose, then components go in."""
    try:
        filled = env.get_template(section.source).render(ctx, **{name: _placeholder(name) for name in components})
    except jinja2.TemplateError as err:
        raise ContentError(section.source, f"template error: {err}") from None
    html = md.render(filled)
    for name, block in components.items():  # after Markdown, so a component's HTML is never parsed as prose
        html = html.replace(f"<!--component:{name}-->", block)
    return Markup(html)


def render_page(ex: Explained, sections: list[Section], templates: Mapping[str, str],
                cache: jinja2.BytecodeCache | None = None) -> tuple[str, dict[str, Any]]:
    """Returns the page's HTML and the trace it embeds."""
    env = environment({**templates, **{s.source: s.body for s in sections}}, cache)
    md = _markdown()
    ctx = context(ex)
    try:
        components = {name: env.get_template(f"{name}.html.j2").render(ctx, charts=charts) for name in COMPONENTS}
        css = rcssmin.cssmin("\n".join(templates[n] for n in ("style.css", "charts.css", "player.css") if n in templates))
        js = rjsmin.jsmin(templates["player.js"])
    except jinja2.TemplateError as err:
        raise ContentError(getattr(err, "name", None) or "templates/", f"template error: {err}") from None
    ids = [s.id for s in sections]
    if len(set(ids)) != len(ids):
        raise ContentError("content/", f"two sections share an id: {sorted(i for i in ids if ids.count(i) > 1)[0]}")
    rendered = [{"id": s.id, "title": s.title, "html": render_section(env, md, s, ctx, components)}
                for s in sorted(sections, key=lambda s: (s.order, s.source))]
    data = trace(ex)
    trace_text = script_json(data)
    try:
        html = env.get_template("page.html.j2").render(
            ctx, sections=rendered, css=Markup(css), js=Markup(js), trace_json=Markup(trace_text),
            csp=content_security_policy([js], [css]))
    except jinja2.TemplateError as err:
        raise ContentError("templates/page.html.j2", f"template error: {err}") from None
    return html, data
