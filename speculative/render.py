"""Owns rendering: sections and the view's finished values into one HTML string (markdown-it-py, Jinja2, CSP).

It computes nothing: every figure arrives as a finished string in the context."""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from typing import Any, Callable, Mapping

import jinja2
import rcssmin
import rjsmin
from markdown_it import MarkdownIt
from markupsafe import Markup

from . import figures
from .content import ContentError, Section

def compact_json(obj: Any) -> str:
    """Returns obj as compact JSON text, non-ASCII kept as itself."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def script_json(obj: Any) -> str:
    """Returns JSON that is safe inside <script type="application/json">: no string can close the element.

    obj may be a value, or JSON text already made by compact_json.
    """
    text = obj if isinstance(obj, str) else compact_json(obj)
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


COMPONENTS = figures.COMPONENTS
STYLES = ("style.css", "charts.css", "player.css", "figures.css")
# The page's one classic script: these fragments, in this order, inside one strict function; boot.js starts the figures.
SCRIPTS = ("js/core.js", "js/player.js", "js/lab.js", "js/tally.js", "js/convergence.js", "js/explorer.js", "js/print.js", "js/boot.js")


def joined_script(templates: Mapping[str, str]) -> str:
    """Returns the SCRIPTS fragments joined into one minified classic script that exposes nothing."""
    return rjsmin.jsmin("(function () {\n'use strict';\n" + "\n".join(templates[n] for n in SCRIPTS) + "\n})();\n")


def _placeholder(name: str) -> Markup:
    """Returns the marker a section's Markdown holds where a component goes (an HTML comment passes through)."""
    return Markup(f"\n<!--component:{name}-->\n")


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


def render_section(env: jinja2.Environment, md: MarkdownIt, section: Section, ctx: Mapping[str, Any],
                   components: Mapping[str, str]) -> Markup:
    """Returns one section's HTML: Jinja fills in the figures, markdown-it renders the prose, then components go in."""
    filled = env.get_template(section.source).render(ctx, **{name: _placeholder(name) for name in components})
    html = md.render(filled)
    for name, block in components.items():  # after Markdown, so a component's HTML is never parsed as prose
        html = html.replace(f"<!--component:{name}-->", block)
    return Markup(html)


def _render(env: jinja2.Environment, name: str, problems: list[tuple[str, str]], call: Callable[[], Any]) -> Any:
    """Returns call(), or records its template error against the file it names and returns None."""
    try:
        return call()
    except jinja2.TemplateError as err:
        problems.append((getattr(err, "name", None) or name, f"template error: {err}"))
    except KeyError as err:
        problems.append((name, f"missing template {err}; expected it in templates/"))
    return None


def render_page(sections: list[Section], templates: Mapping[str, str], ctx: Mapping[str, Any], trace_text: str,
                cache: jinja2.BytecodeCache | None = None) -> str:
    """Returns the page's HTML from sections in order, template texts, the view's context and the trace's JSON."""
    env = environment({**templates, **{s.source: s.body for s in sections}}, cache)
    md, problems = _markdown(), []
    components = {name: _render(env, f"templates/{name}.html.j2", problems,
                                lambda name=name: env.get_template(f"{name}.html.j2").render(ctx)) for name in COMPONENTS}
    css = _render(env, "templates/", problems, lambda: rcssmin.cssmin("\n".join(templates[n] for n in STYLES if n in templates)))
    missing = [n for n in SCRIPTS if n not in templates]
    js = _render(env, f"templates/{missing[0] if missing else 'js/'}", problems, lambda: joined_script(templates))
    if problems:
        raise ContentError(problems)
    rendered = [{"id": s.id, "title": s.title, "html": _render(env, s.source, problems,
                 lambda s=s: render_section(env, md, s, ctx, components))} for s in sections]
    html = _render(env, "templates/page.html.j2", problems, lambda: env.get_template("page.html.j2").render(
        ctx, sections=rendered, css=Markup(css), js=Markup(js), trace_json=Markup(trace_text),
        csp=content_security_policy([js], [css])))
    if problems:
        raise ContentError(problems)
    return html
