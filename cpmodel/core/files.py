"""Reading the files a user names: regular files only, of bounded size, read in chunks.

Every outside file (``--dict``, ``--row-dict``, ``--col-dict``, ``--score-table``,
a Wordscapes board, a ``banana --check`` or ``--peel`` layout, a ``--checkpoint``)
comes through here, because a path can name anything: ``/dev/zero`` never
ends, a FIFO blocks until someone writes to it, a directory is not text. So:

* the file is opened with ``O_NONBLOCK`` (opening a FIFO cannot hang) and
  ``fstat`` of the open descriptor decides, so a path swapped after the check
  cannot slip through: anything but a regular file is refused in one line;
* a size cap per kind of file is checked before reading and again while
  reading (a file that grows under us), so memory stays bounded;
* the bytes come in 1 MiB chunks: a Ctrl-C or SIGTERM (cpmodel.run.interrupts)
  lands between two chunks and stops the run like anywhere else.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator

from cpmodel.core.errors import InputError

MiB = 1 << 20
CHUNK = MiB

# Caps by kind of file: far above any real input, far below what hurts the machine.
MAX_DICTIONARY = 256 * MiB  # the default list is ~2 MB; a counted frequency table of every English form fits
MAX_SMALL = 4 * MiB  # a board, a layout, a score table: a few hundred bytes in practice
MAX_CHECKPOINT = 1024 * MiB  # --all checkpoints hold every solution found so far


def refuse_special(mode: int, path: str, what: str) -> None:
    """InputError unless ``mode`` (an st_mode) is a regular file's."""
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise InputError(f"{what} is a directory: {path}")
    kind = ("a character device" if stat.S_ISCHR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a block device" if stat.S_ISBLK(mode) else "not a file")
    raise InputError(f"{what} {path} is {kind}, not a regular file")


def open_regular(path, what: str, flags: int = os.O_RDONLY, mode: int = 0o644) -> int:
    """A descriptor of ``path``, which must be a regular file; InputError otherwise."""
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(f"{what} must be a file name (str or path), got {type(path).__name__}")
    text = os.fspath(path)
    if isinstance(text, bytes) or not text:
        raise InputError(f"{what} needs a file name, got {text!r}")
    try:
        fd = os.open(text, flags | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except FileNotFoundError:
        if flags & os.O_CREAT:
            raise InputError(f"cannot create {what} {text}: its directory does not exist") from None
        raise InputError(f"{what} not found: {text}") from None
    except IsADirectoryError:
        raise InputError(f"{what} is a directory: {text}") from None
    except OSError as exc:
        raise InputError(f"cannot open {what} {text}: {exc.strerror}") from None
    try:
        refuse_special(os.fstat(fd).st_mode, text, what)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_fd(fd: int, path: str, what: str, limit: int) -> bytes:
    """All bytes of an open regular file, refusing more than ``limit``."""
    size = os.fstat(fd).st_size
    if size > limit:
        raise InputError(too_big(path, what, size, limit))
    chunks: list[bytes] = []
    total = 0
    while True:
        try:
            chunk = os.read(fd, CHUNK)
        except OSError as exc:
            raise InputError(f"cannot read {what} {path}: {exc.strerror}") from None
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            raise InputError(too_big(path, what, total, limit))
        chunks.append(chunk)


def too_big(path: str, what: str, size: int, limit: int) -> str:
    return f"{what} {path} is larger than {limit // MiB:,} MiB ({size / MiB:,.1f}+ MiB); refusing to read it"


def read_bytes(path, what: str, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit`` of them), or a one-line InputError."""
    fd = open_regular(path, what)
    try:
        return read_fd(fd, os.fspath(path), what, limit)
    finally:
        os.close(fd)


def read_text(path, what: str, limit: int = MAX_SMALL, errors: str = "strict") -> str:
    """The file as UTF-8 text (a byte-order mark dropped), or a one-line InputError."""
    data = read_bytes(path, what, limit)
    try:
        return data.decode("utf-8-sig", errors=errors)
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read {what} {os.fspath(path)}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


MAX_LINE = 64 * 1024  # one line of a streamed file (a board): far above any real line


class Chunks:
    """The bytes of an open regular file, :data:`CHUNK` at a time (iterate), then
    :meth:`close`: for files read as a stream, whose length is not capped (the
    reader bounds each line, :data:`MAX_LINE`)."""

    def __init__(self, path, what: str):
        self.fd = open_regular(path, what)  # opened here, at once: a missing file is refused before any work
        os.set_blocking(self.fd, True)
        self.path, self.what = os.fspath(path), what

    def __iter__(self) -> Iterator[bytes]:
        while self.fd >= 0:
            try:
                chunk = os.read(self.fd, CHUNK)
            except OSError as exc:
                raise InputError(f"cannot read {self.what} {self.path}: {exc.strerror}") from None
            if not chunk:
                return
            yield chunk

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def check_writable_path(path, what: str) -> None:
    """Early, cheap refusal of a file a run will create or reuse (a checkpoint): an empty
    name, or an existing path that is not a regular file, before any work is done.
    Opening it later checks again (the path may change meanwhile)."""
    if not isinstance(path, str) or not path.strip():
        raise InputError(f"{what} needs a file name, got {path!r}")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"cannot use {what} {path}: {exc.strerror}") from None
    refuse_special(mode, path, what)
