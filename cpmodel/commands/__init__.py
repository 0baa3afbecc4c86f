"""One module per command of ``python -m cpmodel``; cpmodel/cli.py parses and dispatches."""
