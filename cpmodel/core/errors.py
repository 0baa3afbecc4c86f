"""The one exception type for bad user input.

Anything the user typed or pointed at (a size, a file, a pattern) that we
cannot accept raises :class:`InputError` with a one-line message. The CLI
turns it into ``error: <message>`` and exit code 2; nothing below the CLI
prints or exits.
"""


class InputError(ValueError):
    """Bad input, described in one line that names the problem."""
