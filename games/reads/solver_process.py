"""What runs first in each process of the solver pool (``games.reads.solver_work``):
standard library only, so that the process imports nothing of the server but this and the
engine its searches call.

- It works below the server's CPU priority (``os.nice``), and not at the cost of the server's
  share of the machine: where the kernel shares CPU time fairly between sessions before it
  looks at priorities (Linux's autogroups, on by default on many kernels), a process
  niced inside the server's session would still spend that session's share, and the
  server would wait its turn behind other sessions. So it starts a session of its own,
  whose autogroup it lowers as well.
- Ctrl-C is for the server, which stops its pool itself: ignored.
- It does not outlive the server. A server stopped normally stops its pool, but one killed
  outright (``kill -9``, the kernel's out-of-memory killer) cannot, and its pool's processes
  would wait for work for ever: a thread checks every second that the process's parent is
  still the server, and ends the process when it is not.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import threading
import time

#: How often a solver process checks that the server still lives.
WATCH_SECONDS = 1.0


def start(nice: int, server: int, modules: tuple[str, ...] = ()) -> None:
    """Set up this solver process: ``nice`` below its parent, the server ``server``, and
    ``modules`` imported now, rather than by the first search that needs them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.setsid()
    # Where there are no autogroups (or they may not be written), nothing to lower.
    with contextlib.suppress(OSError), open("/proc/self/autogroup", "w") as autogroup:
        autogroup.write(str(nice))
    os.nice(nice)
    for module in modules:
        importlib.import_module(module)
    threading.Thread(target=_watch, args=(server,), name="server-watch", daemon=True).start()


def _watch(server: int) -> None:
    while True:
        if os.getppid() != server:  # the server died and the process was handed to another
            os._exit(0)
        time.sleep(WATCH_SECONDS)
