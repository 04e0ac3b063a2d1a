"""Every budget the benchmarks judge, in one table: each is what a reader or an author feels, with where it comes
from. The bench/ scripts read it, and tests/test_bench.py holds bench/run.py's judging to it. Counts a reader does
not feel (DOM elements, the lanes' token elements, layout shift after a click) are reported by the scripts with no
budget: their caps bred grey generated text, charts held back until scrolled near, and a player cut off in a box."""

BUDGETS = {
    # the page, in headless Chromium (bench/page_budget.py, bench/generator.py, bench/player_speed.py)
    "gzip_kb": 74,  # what a reader downloads (bench/page_budget.py), set before the third draft and the colour key
    "gzip_vs_mkdocs": 1.0,  # ... no more than MkDocs-Material's page of the same prose with its CSS and JS (compare.py)
    "requests": 0,  # the page loads nothing from the network
    "init_ms": 20,  # the script's own start-up, every figure's start summed
    "respond_ms": 16,  # each control, from input to the next frame (one frame at 60 Hz), also after 1,000 tokens
    "load_shift": 0.01,  # layout shift while the page loads and starts (web.dev's "good" is 0.1)
    "lcp_ms": 2500,  # largest contentful paint, web.dev's "good"
    "tbt_ms": 50,  # total blocking time, Lighthouse's mobile run (bench/compare.py)
    # the build (bench/compare.py, bench/build_and_watch.py, bench/refusal_speed.py)
    "warm_vs_mkdocs": 0.5,  # a warm build at most half as long as MkDocs-Material's of the same prose
    "cold_vs_mkdocs": 1.0,  # a cold build (an edited data file, nothing cached) no longer than MkDocs-Material's
    "watch_ms": 100,  # from saving a probability in the data file to the rewritten page under --watch (median)
    "refusal_s": 3.0,  # the slowest refusal of a broken data file
    # the analysis (bench/memory.py, bench/sampler_throughput.py)
    "peak_mb": 150,  # peak memory of the analysis at 10^7 rounds
    "linear": 1.5,  # time per added round from 10^6 to 10^7 at most this many times that from 10^5 to 10^6
    "sampler_checks_per_s": 20e6,  # the vectorised sampler's accept checks per second
    "vectorised_vs_loop": 40,  # ... at least this many times the plain loop's
    # the reading (bench/reading.py)
    "main_words": 3000,  # words in the main flow, every fold closed
    "screens": 15,  # phone screens of the main flow at 390 px
    "before_figure": 1,  # screens of prose before a section's first figure
}
