"""Ctrl-C: the run ends with one line and exit 130, whichever of its processes were running.

Ctrl-C reaches every process of the terminal's process group, the forked workers included.
They ignore it and the main process ends them as it stops (``end_workers``), so only the main
process speaks. ``--write`` finishes the file it is replacing and stops there: every file is
either as it was or fully patched, and the line names the files written.

``DECOUPLE_TEST_HOOK`` lets a test stop a run at a named stage without guessing when it gets
there (``TestHook``).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass

from .errors import UsageError

# Where a test can stop a run, and what the run is doing then.
STAGES = {
    "word-index-worker": "the first word-index worker has started, the main process waits for it",
    "scan-worker": "the scan worker has started, the main process analyses its own classes",
    "scan-pool-worker": "the first of decouple scan's workers has started estimating",
    "before-first-write": "--write is about to replace its first file",
    "between-writes": "--write has replaced its first file and is about to replace the next",
}


@contextmanager
def held():
    """SIGINT is held back in the block and taken when it ends (its handler runs before the
    block's end returns: ``pthread_sigmask`` runs the handlers of the signals it lets through)."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


# Around a fork: no SIGINT can reach the child before it has set itself to ignore it (``in_child``).
forking = held


def in_child() -> None:
    """First thing in a forked child: ignore Ctrl-C (the parent ends the child)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


# Seconds: how late, at worst, a Ctrl-C that came just as a wait began is acted on.
TICK = 1.0


def wait_for(ready) -> None:
    """Block until ``ready(TICK)`` (a wait of at most TICK seconds) is true. Python takes a
    signal between bytecodes: a Ctrl-C that lands just before a blocking call in C enters it
    is seen only when that call returns, which for a wait on a worker may be never."""
    while not ready(TICK):
        pass


class Deferred:
    """Ctrl-C while a ``deferred`` block runs: the block sees it (true) and stops where it can."""

    def __init__(self):
        self.caught = False

    def catch(self, *_) -> None:
        self.caught = True

    def __bool__(self) -> bool:
        return self.caught


@contextmanager
def deferred():
    """Run the block with Ctrl-C caught, not raised: the block asks the yielded ``Deferred``
    where it may stop; once the block is over, a Ctrl-C it caught raises KeyboardInterrupt."""
    pending = Deferred()
    with _handled(pending.catch):
        yield pending
    if pending:
        raise KeyboardInterrupt


def ignoring_ctrl_c():
    """Ctrl-C does nothing in the block."""
    return _handled(signal.SIG_IGN)


@contextmanager
def _handled(handler):
    """``handler`` takes Ctrl-C in the block: in the main thread, the only one Python's handlers run in."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C after some of ``--write``'s files were replaced: the one line names them."""

    def __init__(self, written: list[str], left: int):
        others = f"; the patch's other {left} file{'s are' if left != 1 else ' is'} unchanged" if left else ""
        super().__init__(f"after writing {', '.join(written)}{others}")


def end_workers() -> None:
    """The run stops on Ctrl-C: end the worker processes still running (they ignore it) and
    wait for them, so that none outlives the run."""
    mp = sys.modules.get("multiprocessing")
    if mp is None:  # never imported: no worker was started
        return
    workers = mp.active_children()
    for proc in workers:
        proc.terminate()
    for proc in workers:
        proc.join()


@dataclass(frozen=True)
class TestHook:
    """``DECOUPLE_TEST_HOOK=STAGE`` (one of ``STAGES``): when the run reaches STAGE, the process
    there sends Ctrl-C to the run, as a terminal does, and takes its own before going on; a
    worker then waits until the main process ends it. ``STAGE:SIGKILL`` kills the main
    process there instead. Only tests set it; a run looks the variable up once (``from_env``)."""

    __test__ = False  # not a pytest test class, whatever its name

    stage: str
    signum: int
    leader: int  # the main process

    @classmethod
    def from_env(cls) -> "TestHook | None":
        value = os.environ.get("DECOUPLE_TEST_HOOK")
        if not value:
            return None
        stage, _, sig = value.partition(":")
        if stage not in STAGES or sig not in ("", "SIGKILL"):
            raise UsageError(f"DECOUPLE_TEST_HOOK={value}: give one of {', '.join(STAGES)}, optionally with :SIGKILL")
        return cls(stage, signal.SIGKILL if sig else signal.SIGINT, os.getpid())

    def fire(self, in_worker: bool) -> None:
        with held():
            if os.getpgrp() == self.leader:  # the run has its own process group: all of it, as a terminal would
                os.killpg(self.leader, self.signum)
            else:  # the group holds more than the run (the test's own process): the main process only
                os.kill(self.leader, self.signum)
        if in_worker:
            import multiprocessing

            multiprocessing.parent_process().join()  # until the main process ends this one
            os.write(2, b"decouple: test hook: a worker outlived the run\n")
            os._exit(1)


def at(hook: TestHook | None, stage: str, in_worker: bool = False) -> None:
    """The run has reached ``stage``: the test hook fires when it names it."""
    if hook is not None and hook.stage == stage:
        hook.fire(in_worker)
