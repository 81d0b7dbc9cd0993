"""One function run in a forked process while this one does other work: ``Beside(fn, *args)``,
then ``.result()``.

The end of a run is serial: once both analyses are in, one core checks the patch while the
other waits. The patch's two checks are independent (pyflakes on the patched text, and the
post-conditions on the patched classes), so ``pipeline.build_patches`` runs pyflakes in a
child beside the post-conditions, the longer of the two (on SGLang 0.04 s and 0.066 s): both
took 0.24 s one after the other, 0.15 s side by side the other way round, the fork included
(medians of 7).

The child sends back its answer, or nothing. With nothing (it failed, or died, or there is no
``fork``, or this process is a daemonic worker, which may not start children, or no process
could be started, or ``fork=False``: a small tree, where the fork costs more than the check) the
function runs here, so whatever it raises is raised here, as it would be without a child. The
child is a ``multiprocessing`` process like the scan's workers: Ctrl-C ends it with them
(``interrupt.end_workers``).
"""

from __future__ import annotations

import multiprocessing
import os

from .interrupt import forking, in_child, wait_for


class Beside:
    """``fn(*args)``, computed in a forked child from now on (``fork``), asked for by ``result``."""

    def __init__(self, fn, *args, fork: bool = True):
        self.fn, self.args = fn, args
        self.proc = self.receive = None
        # A daemonic process (a worker of the scan's pool) may not start children of its own.
        if not fork or "fork" not in multiprocessing.get_all_start_methods() or multiprocessing.current_process().daemon:
            return
        ctx = multiprocessing.get_context("fork")
        self.receive, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(send, self.receive, fn, args), daemon=True)
        try:
            with forking():
                proc.start()
        except OSError:  # no process to be had (a limit on processes, memory): computed here
            self.receive.close()
            return
        finally:
            send.close()
        self.proc = proc

    def result(self):
        """The child's answer, or ``fn(*args)`` computed here when it has none."""
        if self.proc is not None:
            proc, self.proc = self.proc, None
            try:
                wait_for(self.receive.poll)
                return self.receive.recv()
            except (EOFError, OSError):  # it failed or died: the answer is computed here
                pass
            finally:
                self.receive.close()
                proc.join()
        return self.fn(*self.args)

    def close(self) -> None:
        """The answer is not wanted (or ``result`` was never reached): end the child."""
        if self.proc is not None:
            proc, self.proc = self.proc, None
            self.receive.close()
            if proc.is_alive():
                proc.terminate()
            proc.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _child(send, receive, fn, args) -> None:  # pragma: no cover - the child
    in_child()
    try:
        receive.close()  # the read end: a send to a process that has gone fails at once
        send.send(fn(*args))
        send.close()
    finally:
        os._exit(0)  # by no exception, and with nothing sent on a failure
