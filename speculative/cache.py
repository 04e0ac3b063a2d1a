"""The analysis cache, .cache/analysis/<key>.json: an analysis's view (the trace's JSON text and the template
context), saved as plain JSON under the key it was computed for; the pipeline keeps the few most recently used. The
key hashes the parsed data, the prose's tokens, every module of the package and the interpreter's and numpy's
versions, so an edit to any of them computes the analysis again; so does a file that is not exactly what pack()
wrote (another key, damaged, or foreign). The same format keeps the model pair's rates in .cache/language/, keyed by
the language_model settings in place of the data (pipeline.cached_rates)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

FORMAT = "speculative-analysis-cache/2"


def compact_json(obj: Any) -> str:
    """Returns obj as compact JSON text, non-ASCII kept as itself (the trace's form, on the page and in trace.json)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def key(dataset: object, corpus: Sequence[str]) -> str:
    """Returns the sha256 (hex) of the parsed data (its repr: frozen dataclasses of exact fractions), the prose's
    tokens, the versions and every module of the package by its path."""
    package = Path(__file__).parent
    parts = [FORMAT.encode(), repr(dataset).encode(), "\0".join(corpus).encode(), sys.version.encode(),
             numpy_version().encode(),
             *(str(p.relative_to(package)).encode() + b"\0" + p.read_bytes() for p in sorted(package.rglob("*.py")))]
    digest = hashlib.sha256()
    for part in parts:  # each part prefixed by its length, so no two different inputs join into the same bytes
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def numpy_version() -> str:
    """Returns numpy's version file as text, found without importing numpy (which takes a tenth of a second)."""
    spec = importlib.util.find_spec("numpy")
    origin = spec.origin if spec else None
    try:
        return (Path(origin).parent / "version.py").read_text() if origin else "absent"
    except OSError:
        return f"at {origin}"


def pack(cache_key: str, trace: str, context: dict[str, Any]) -> bytes:
    """Returns the cache file's bytes: a header line (format, key, digest of the rest), then the view's JSON.
    Raises TypeError or ValueError for a context JSON cannot hold as it is (the build then goes uncached)."""
    body = compact_json({"trace": trace, "context": context}).encode("utf-8")
    if json.loads(body)["context"] != context:  # a tuple or a key that is not a string would come back changed
        raise TypeError("the context does not read back from JSON as it is")
    header = {"format": FORMAT, "key": cache_key, "sha256": hashlib.sha256(body).hexdigest()}
    return json.dumps(header).encode("utf-8") + b"\n" + body


def unpack(blob: bytes, cache_key: str) -> tuple[str, dict[str, Any]] | None:
    """Returns the (trace, context) a cache file holds for cache_key, or None for anything pack() did not write so."""
    head, _, body = blob.partition(b"\n")
    try:
        header, value = json.loads(head), json.loads(body)
    except (ValueError, RecursionError):  # not UTF-8, not JSON, or nested too deep
        return None
    if header != {"format": FORMAT, "key": cache_key, "sha256": hashlib.sha256(body).hexdigest()}:
        return None
    ok = isinstance(value, dict) and set(value) == {"trace", "context"} and isinstance(value["trace"], str)
    return (value["trace"], value["context"]) if ok and isinstance(value["context"], dict) else None
