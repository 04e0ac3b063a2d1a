"""The commands behind the command line (cli.py): build (once, watching, serving) and check (check, stats)."""
