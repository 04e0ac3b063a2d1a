"""Owns the analysis cache's format: its key, and values as plain JSON, read back only after every check passes.

Pure functions of their arguments; build.py reads and writes the file. A cached file is never trusted: a
foreign key, a wrong digest, malformed JSON, an unknown tag or type, or fields that are not the class's own
all raise Stale, and the build computes the analysis again.

Values are None, bool, int, float, str, list and dicts with string keys as themselves in JSON; everything
else is one object with a single "$" key: {"$tuple": [...]}, {"$fraction": "3/8"}, {"$dict": [[key, value],
...]} (a dict with a key that is not a string or starts with "$"), and {"$dataclass": ["module:Class",
{field: value}]} for a dataclass whose class the reader is given. JSON keeps a float's shortest repr, so
every value reads back equal, in order.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from collections.abc import Iterable, Mapping
from fractions import Fraction
from types import ModuleType
from typing import Any

FORMAT = "speculative-analysis-cache/1"
TAGS = ("$tuple", "$fraction", "$dict", "$dataclass")


class Stale(ValueError):
    """The cached file cannot serve this build: why, in one line."""


def compact_json(obj: Any) -> str:
    """Returns obj as compact JSON text, non-ASCII kept as itself (the trace's form, on the page and in trace.json)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def key(data: bytes, sources: Mapping[str, bytes], versions: Mapping[str, str]) -> str:
    """Returns the sha256 (hex) of the analysis' input bytes, every source file by name, and the versions."""
    digest = hashlib.sha256()
    parts = [FORMAT.encode(), data, *(name.encode() + b"\0" + sources[name] for name in sorted(sources)),
             json.dumps(dict(versions), sort_keys=True).encode()]
    for part in parts:  # each part prefixed by its length, so no two different inputs join into the same bytes
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def versions(numpy_version: str) -> dict[str, str]:
    """Returns the interpreter's version and the given numpy version, as the key records them."""
    return {"python": sys.version, "implementation": sys.implementation.name, "numpy": numpy_version}


def type_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def dataclass_types(modules: Iterable[ModuleType]) -> dict[str, type]:
    """Returns every dataclass defined in the modules, by the name encode() gives it."""
    return {type_name(obj): obj for m in modules for obj in vars(m).values()
            if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == m.__name__}


def encode(value: Any) -> Any:
    """Returns value as plain JSON data (see the module's docstring); raises TypeError on any other type."""
    if value is None or isinstance(value, (bool, str)) or type(value) in (int, float):
        return value
    if type(value) is list:
        return [encode(x) for x in value]
    if type(value) is tuple:
        return {"$tuple": [encode(x) for x in value]}
    if type(value) is Fraction:
        return {"$fraction": str(value)}
    if type(value) is dict:
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {k: encode(v) for k, v in value.items()}
        return {"$dict": [[encode(k), encode(v)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"$dataclass": [type_name(type(value)),
                               {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}]}
    raise TypeError(f"cannot cache a value of type {type(value).__module__}.{type(value).__qualname__}")


def decode(text: bytes | str, types: Mapping[str, type]) -> Any:
    """Returns the value canonical() wrote as text; raises Stale on anything encode() would not have written."""
    try:
        return json.loads(text, object_hook=lambda obj: tagged(obj, types), parse_constant=refuse_constant)
    except Stale:
        raise
    except (ValueError, RecursionError) as err:  # not UTF-8, not JSON, or nested too deep
        raise Stale(f"found JSON that does not parse ({str(err)[:80]}); expected what pack() writes") from None


def tagged(obj: dict, types: Mapping[str, type]) -> Any:
    """Returns a parsed JSON object as its value: itself, or what its one "$" tag stands for.

    The parser calls it innermost first, so every value inside obj is already decoded."""
    tag = next((k for k in obj if k.startswith("$")), None)
    if tag is None:
        return obj
    if len(obj) != 1 or tag not in TAGS:
        raise Stale(f"found an object with the key {tag!r}; expected one of {', '.join(TAGS)} alone")
    return decode_tagged(tag, obj[tag], types)


def decode_tagged(tag: str, body: Any, types: Mapping[str, type]) -> Any:
    """Returns the value of one tagged object's body; raises Stale when the body is not what the tag writes."""
    if tag == "$tuple" and isinstance(body, list):
        return tuple(body)
    if tag == "$fraction" and isinstance(body, str):
        try:
            return Fraction(body)
        except (ValueError, ZeroDivisionError):
            raise Stale(f"found the fraction {body[:40]!r}; expected a fraction such as '3/8'") from None
    if tag == "$dict" and isinstance(body, list) and all(isinstance(p, list) and len(p) == 2 for p in body):
        try:
            return dict(body)
        except TypeError:  # an unhashable key
            raise Stale("found a dict key that cannot be a key; expected a string, number or tuple") from None
    if tag == "$dataclass" and isinstance(body, list) and len(body) == 2 and isinstance(body[1], dict):
        return decode_dataclass(body[0], body[1], types)
    raise Stale(f"found a malformed {tag} object; expected what encode() writes")


def decode_dataclass(name: Any, fields: dict, types: Mapping[str, type]) -> Any:
    """Returns an instance of the named class from its encoded fields, which must be exactly its own."""
    cls = types.get(name) if isinstance(name, str) else None
    if cls is None:
        raise Stale(f"found the type {str(name)[:80]!r}; expected one of the analysis' dataclasses")
    expected = {f.name for f in dataclasses.fields(cls) if f.init}
    if set(fields) != expected:
        raise Stale(f"found the fields {sorted(fields)} for {name}; expected {sorted(expected)}")
    try:
        return cls(**fields)
    except (TypeError, ValueError) as err:  # a class that checks its fields refused these
        raise Stale(f"found fields that {name} refuses ({err}); expected ones it accepts") from None


def canonical(value: Any) -> bytes:
    """Returns value's JSON as UTF-8 bytes, the same for equal values (keys in their order); TypeError or
    ValueError when it holds a type encode() does not know, or a number that is not finite."""
    return json.dumps(encode(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def pack(cache_key: str, value: Any) -> bytes:
    """Returns the cache file's bytes: a header line (format, key, digest of the rest), then the value's JSON."""
    body = canonical(value)
    header = {"format": FORMAT, "key": cache_key, "sha256": hashlib.sha256(body).hexdigest()}
    return json.dumps(header).encode("utf-8") + b"\n" + body


def unpack(blob: bytes, cache_key: str, types: Mapping[str, type] = {}) -> Any:  # noqa: B006 (never mutated)
    """Returns the value a cache file holds for cache_key; raises Stale if it is another key's, damaged, or foreign."""
    head, newline, body = blob.partition(b"\n")
    try:
        header = json.loads(head) if newline else None
    except (ValueError, RecursionError):
        header = None
    if not isinstance(header, dict) or set(header) != {"format", "key", "sha256"} or header["format"] != FORMAT:
        raise Stale(f"found no {FORMAT} header; expected a file this build wrote")
    if header["key"] != cache_key:
        raise Stale("found the analysis of other data, code or versions; expected this build's")
    if header["sha256"] != hashlib.sha256(body).hexdigest():
        raise Stale("found contents that do not match their digest; expected the bytes this build wrote")
    return decode(body, types)


def refuse_constant(name: str) -> Any:
    raise Stale(f"found {name}; expected finite numbers only")
