"""Run the web app on uvicorn: bind, say where, serve until SIGINT or SIGTERM.

The socket is bound here (port 0 picks a free one), so the address printed
is the real one. uvicorn takes the signals while it serves: it stops
accepting, and the signal is raised again afterwards, so ``python -m cpmodel
serve`` ends with the CLI's 130 or 143. As the signal comes, every job is
stopped and every open event stream told ``shutdown`` (:class:`_Server`):
the streams end with their jobs, so uvicorn has no connection left to wait
for, and the app's shutdown only reaps the processes.
"""

from __future__ import annotations

import socket


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _server(config, jobs):
    """uvicorn's Server, which also stops the jobs the moment a stop signal comes."""
    import uvicorn

    class _Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            if jobs.loop is not None:  # a signal handler: hand the work to the loop
                jobs.loop.call_soon_threadsafe(jobs.begin_shutdown)
            super().handle_exit(sig, frame)

    return _Server(config)


def serve(host: str, port: int, workers: int, queue: int, announce) -> None:
    """Serve until a signal; ``announce(url)`` is called once the socket is bound."""
    import uvicorn

    from cpmodel.web.app import allowed_hosts, create_app

    sock = bind(host, port)
    bound = sock.getsockname()[1]
    app = create_app(workers, queue, allowed_hosts(host))
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2, lifespan="on",
                            access_log=False)
    server = _server(config, app.state.jobs)
    shown = f"[{host}]" if ":" in host else host
    announce(f"http://{shown}:{bound}/")
    server.run(sockets=[sock])
