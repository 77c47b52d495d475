"""How ``hansa serve`` runs uvicorn: its listening socket, its file-descriptor limit, and worker processes that end
with their supervisor.

* :func:`bind_listeners` binds the port itself and, while the port is still held by a dying server (the workers of a
  supervisor that was just killed), tries again for a few seconds instead of failing with "Address already in use".
  uvicorn then serves on that socket (``Server.run(sockets=...)``, or ``Multiprocess`` for ``--workers N``).
* :func:`raise_fd_limit` lifts the soft limit on open files to the hard limit (every connection is a file).
* With ``--workers N`` each worker process builds its app with :func:`worker_app`, which first makes the worker end
  with the supervisor: Linux sends it SIGTERM when the supervisor dies (``PR_SET_PDEATHSIG``, ``kill -9``
  included); a thread also watches ``os.getppid()`` (other systems, and the supervisor dying before the signal was
  armed); and a worker whose graceful shutdown takes longer than :data:`EXIT_GRACE` seconds leaves with ``os._exit``.
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

#: The environment variable that tells a worker which process is its supervisor.
SUPERVISOR_ENV = "HANSA_SUPERVISOR_PID"
#: How long a new server tries to bind a port that is still in use.
BIND_WAIT = 10.0
#: How long a worker's graceful shutdown may take once asked for (a signal, or its supervisor gone).
EXIT_GRACE = 5.0
#: How often a worker checks that its supervisor still runs.
PARENT_CHECK = 0.5

_PR_SET_PDEATHSIG = 1


def raise_fd_limit() -> tuple[int, int]:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit (children inherit it); returns (before, after),
    (-1, -1) where there are no such limits (Windows)."""
    try:
        import resource
    except ImportError:
        return -1, -1
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return soft, soft
    # An unlimited hard limit is refused for open files (Linux caps it at nr_open, macOS lower): try finite ones.
    for target in [hard] if hard != resource.RLIM_INFINITY else [1 << 20, 65536]:
        if target <= soft:
            break
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            return soft, target
        except (ValueError, OSError):
            continue
    return soft, soft


def bind_listeners(
    host: str, port: int, wait: float = BIND_WAIT, on_wait: Callable[[OSError], None] | None = None,
) -> list[socket.socket]:
    """TCP sockets bound to every address of ``host`` on ``port``, as asyncio's ``create_server`` binds them (what
    uvicorn does for a single process): SO_REUSEADDR, IPv6 sockets IPv6-only; not inherited by child processes
    (uvicorn's supervisor hands them to its workers explicitly).  While the port is in use, try again every 0.1 s
    for ``wait`` seconds (``on_wait`` is called once, first)."""
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    addresses = list(dict.fromkeys((family, address) for family, _, _, _, address in infos))
    deadline = time.monotonic() + wait
    told = False
    while True:
        socks: list[socket.socket] = []
        try:
            for family, address in addresses:
                sock = socket.socket(family, socket.SOCK_STREAM)
                socks.append(sock)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                sock.bind(address)
        except OSError as exc:
            for sock in socks:
                sock.close()
            if exc.errno != errno.EADDRINUSE or time.monotonic() >= deadline:
                raise
            if not told and on_wait is not None:
                on_wait(exc)
            told = True
            time.sleep(0.1)
            continue
        return socks


def serve(socks: list[socket.socket], workers: int, app: Any, options: dict[str, Any]) -> int:
    """Run uvicorn on the bound sockets ``socks``: ``app`` in this process, or ``workers`` worker processes under
    uvicorn's supervisor (each builds its app with :func:`worker_app`; ``app`` is then unused).  Returns the exit
    status (uvicorn's STARTUP_FAILURE when a single server could not start)."""
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess

    if workers == 1:
        server = uvicorn.Server(uvicorn.Config(app, workers=1, **options))
        try:
            server.run(sockets=socks)
        except KeyboardInterrupt:
            pass
        return 0 if server.started else STARTUP_FAILURE
    os.environ[SUPERVISOR_ENV] = str(os.getpid())  # the workers inherit it
    config = uvicorn.Config(f"{__name__}:worker_app", factory=True, workers=workers, **options)
    try:
        Multiprocess(config, sockets=socks).run()
    except KeyboardInterrupt:
        pass
    return 0


def worker_app() -> Any:
    """The app of one worker process of ``hansa serve --workers N`` (uvicorn calls this factory in the worker,
    before it serves): first tie the worker's life to its supervisor's, then build the app from the environment."""
    parent = os.environ.get(SUPERVISOR_ENV, "")
    if parent.isdigit():
        die_with_parent(int(parent))
    from .app import app_from_env

    return app_from_env()


def die_with_parent(parent: int, grace: float = EXIT_GRACE) -> None:
    """End this process (gracefully, then after ``grace`` seconds with ``os._exit``) when process ``parent``, its
    parent, is gone.  Call it in the main thread, after uvicorn installed its signal handlers."""
    armed = _parent_death_signal(signal.SIGTERM)
    if os.getppid() != parent:  # the supervisor died before the signal was armed: nothing will send it now
        os._exit(1)
    _exit_after_grace_on_signals(grace)
    threading.Thread(target=_watch_parent, args=(parent, not armed, grace), name="hansa-supervisor-watch",
                     daemon=True).start()


def _parent_death_signal(sig: int) -> bool:
    """Ask Linux to send ``sig`` to this process when its parent dies; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


_exit_timer: threading.Timer | None = None
_exit_lock = threading.Lock()


def _exit_later(grace: float) -> None:
    """``os._exit(1)`` in ``grace`` seconds unless the process has ended by then (started once)."""
    global _exit_timer
    with _exit_lock:
        if _exit_timer is None:
            _exit_timer = threading.Timer(grace, os._exit, args=(1,))
            _exit_timer.daemon = True
            _exit_timer.start()


def _exit_after_grace_on_signals(grace: float) -> None:
    """Wrap the SIGTERM and SIGINT handlers (uvicorn's graceful shutdown) so that they also start the exit timer."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(sig)
        if not callable(previous):
            continue

        def handler(signum: int, frame: FrameType | None, previous: Callable[[int, FrameType | None], Any] = previous
                    ) -> None:
            _exit_later(grace)
            previous(signum, frame)

        signal.signal(sig, handler)


def _watch_parent(parent: int, signal_self: bool, grace: float) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK)
    _exit_later(grace)
    if signal_self:  # no PR_SET_PDEATHSIG here: ask for the graceful shutdown ourselves
        os.kill(os.getpid(), signal.SIGTERM)
