#!/usr/bin/env python3
"""Build site/ (one self-contained index.html and trace.json) from data/, content/ and templates/.

The same command as `speculative build`, kept under the name the project has always had: `python build.py
[--data FILE] [--out DIR] [--watch] [--serve [PORT]]`. The work is in the package: speculative/cli.py reads the
command line, commands/build.py runs it, pipeline.py builds, publish.py writes, watch.py and serve.py preview.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the package beside this file, installed or not

from speculative.cli import build_py as main  # noqa: E402  # the standard library only, so it imports anywhere

if __name__ == "__main__":
    sys.exit(main())
