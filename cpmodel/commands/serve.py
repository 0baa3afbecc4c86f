"""``serve``: the web app (pages and a JSON API) on this machine; needs the web extra."""

from __future__ import annotations

from rich.console import Console

from cpmodel.core.errors import InputError
from cpmodel.run import interrupts


def run(args, stdout: Console, stderr: Console) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise InputError("serve needs the web extra: pip install -e '.[web]'") from None
    from cpmodel.web.server import serve

    def announce(url: str) -> None:
        stdout.print(f"cpmodel serving on {url} ({args.jobs} worker(s), queue {args.queue}); Ctrl-C stops",
                     highlight=False)
        stdout.file.flush()

    try:
        serve(args.host, args.port, args.jobs, args.queue, announce)
    except OSError as exc:
        raise InputError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    except KeyboardInterrupt as exc:  # uvicorn raises the signal again once it has stopped
        interrupts.note(exc)
    stderr.print("stopped: every job ended, no worker left", style="yellow", highlight=False)
    return 0
