"""The rule for labels and names, where sections.py imports it from; it lives in profiles.py."""

from .profiles import forbidden

__all__ = ["forbidden"]
