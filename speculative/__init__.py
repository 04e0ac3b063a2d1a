"""Speculative decoding on hand-authored distributions: load, sample, compute, render."""
