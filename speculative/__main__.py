"""python -m speculative: the same command line as `speculative` (see speculative/cli.py)."""
from speculative.cli import main

raise SystemExit(main())
