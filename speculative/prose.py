"""The prose as a corpus: the words of content/*.md, which the generator's models are counted from. No numpy here:
a cached build reads the corpus to key its cache without importing the analysis."""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterable

MIN_TOKENS = 20  # a corpus shorter than this has too few contexts to draft from

# Tokens: a number (3.92, 1,000), a word (letters, with inner apostrophes and hyphens: "target's", "context-dependent"),
# or one punctuation mark.
# Case is kept, so "The" and "the" are two tokens.
TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:['’-][^\W\d_]+)*|[^\w\s]")
_TEMPLATE = re.compile(r"\{%.*?%\}|\{\{.*?\}\}|\{#.*?#\}", re.S)  # Jinja tags, expressions and comments
_TAG = re.compile(r"<[^>]*>")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")  # [text](target): the text stays
_MARKUP = re.compile(r"^\s{0,3}(?:#+|>|[-*+]|\d+\.)\s+|[*_`|\\]|-{2,}|^\s*:?-+:?\s*$", re.M)  # headings, lists, emphasis


def prose_text(markdown: str) -> str:
    """Returns the words of a section's Markdown: template syntax, HTML tags, link targets and markup removed."""
    text = _TEMPLATE.sub(" ", markdown)
    text = _TAG.sub(" ", text)
    text = _LINK.sub(r"\1", text)
    return html.unescape(_MARKUP.sub(" ", text)).replace("\xa0", " ")


def tokenize(text: str) -> list[str]:
    """Returns the tokens of a text, in order (TOKEN)."""
    return TOKEN.findall(text)


def corpus(bodies: Iterable[str]) -> tuple[str, ...]:
    """Returns the tokens of every section body, in page order, as one stream."""
    return tuple(t for body in bodies for t in section_tokens(body))


@functools.lru_cache(maxsize=128)  # the build and the page's data-corpus attributes read each section once; --watch too
def section_tokens(body: str) -> tuple[str, ...]:
    """Returns the tokens of one section's Markdown."""
    return tuple(tokenize(prose_text(body)))


def corpus_problem(tokens: tuple[str, ...]) -> str | None:
    """Returns why the generator cannot count its models from these tokens, or None when it can."""
    if len(tokens) >= MIN_TOKENS and len(set(tokens)) >= 2:
        return None
    return (f"found {len(tokens)} tokens of prose ({len(set(tokens))} distinct) once template syntax, HTML and "
            f"markup are removed; expected at least {MIN_TOKENS} tokens, 2 of them distinct, for the generator's "
            "models to be counted from")
