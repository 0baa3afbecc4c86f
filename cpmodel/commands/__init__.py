"""commands: the CLI: cli.py parses the options; one module per command makes a job and hands the result to show.
May import: every room (commands is the top, beside the API facade cpmodel/__init__.py and __main__.py)."""
