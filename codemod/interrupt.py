"""Ctrl-C: the run ends with one line and exit 130, whichever of its processes were running.

Ctrl-C reaches every process of the terminal's process group, the forked workers included.
They ignore it (the main process ends them as it unwinds), so only the main process speaks;
and a write under way completes before the interrupt is acted on, so nothing is left
half-written.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


@contextmanager
def forking():
    """Around a fork: SIGINT is held back until the child has set itself to ignore it
    (``in_child``), so none can reach the child before it does."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def in_child() -> None:
    """First thing in a forked child: ignore Ctrl-C (the parent ends the child)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextmanager
def deferred():
    """Run the block to its end even when Ctrl-C comes, then act on it (KeyboardInterrupt)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda *_: caught.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt
