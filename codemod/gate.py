"""``--test CMD``: judge the patch by the project's own tests, run on throw-away copies of ROOT.

CMD runs in the root of a fresh copy of ROOT three times: twice unpatched, then once with the
patch applied. With pytest (CMD starts with ``pytest`` or ``python -m pytest``) the tool asks
for a JUnit XML report, written outside the copy, and compares outcomes test by test;
otherwise only CMD's exit status counts, as one test named by the command.

What it proves: no test that passed in both unpatched runs fails, or no longer runs, on the
patched copy, and no test that did not exist before (a module that no longer imports shows as
one) fails there.
A test whose outcome differs between the two unpatched runs is flaky: it is reported and
weighs neither way. Tests that failed before the patch are reported, never evidence.

Limits: the tests prove only what they exercise; a test that passes by chance on both sides
hides nothing more than it would in CI. Each copy's ``src/`` and ``python/`` folders and its
root are put first on ``PYTHONPATH``, so that the copy's code is what gets imported; a project
that imports its code some other way (an installed, non-editable wheel of itself) tests that
code instead, on both sides. A runner other than pytest is judged by its exit status alone, so
a command that already fails before the patch cannot judge it (exit 2).
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from .errors import UsageError

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"
DEFAULT_TIMEOUT = 20 * 60  # seconds: --test-timeout
_OUTPUT_TAIL = 64 * 1024  # of the command's output, read back for its first error line


@dataclass
class Run:
    """One run of CMD: its exit status, per-test outcomes (None: not pytest, or no report) and
    each failed test's first error line."""

    tag: str
    returncode: int
    seconds: float
    timed_out: bool = False
    outcomes: dict[str, str] | None = None
    errors: dict[str, str] = field(default_factory=dict)
    output_line: str = ""  # the first error line of CMD's own output


def uses_pytest(command: str) -> bool:
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if not words:
        return False
    first = os.path.basename(words[0])
    if first in ("pytest", "py.test"):
        return True
    return first.startswith("python") and words[1:3] == ["-m", "pytest"]


def parse_junit(path: Path) -> tuple[dict[str, str], dict[str, str]] | None:
    """Outcome by test, and each failed test's first error line; None when there is no readable report."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    outcomes: dict[str, str] = {}
    errors: dict[str, str] = {}
    for case in root.iter("testcase"):
        cls, name = case.get("classname", ""), case.get("name", "")
        test = f"{cls}::{name}" if cls else name
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is not None:
            outcome = FAILED
            errors.setdefault(test, _error_of(bad))
        elif case.find("skipped") is not None:
            outcome = SKIPPED
        else:
            outcome = PASSED
        # A test reported twice (its call, then its teardown) failed if either part did.
        if outcomes.get(test) != FAILED:
            outcomes[test] = outcome
    return outcomes, errors


def _error_of(element) -> str:
    """A failure's first error line: pytest's first ``E`` line (a collection error's message
    is only "collection failure"), else the message's first line."""
    for line in (element.text or "").splitlines():
        if line.startswith("E "):
            return line[1:].strip()
    return _first_line(element.get("message") or element.text or "") or element.tag


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _error_line(output: str) -> str:
    """The line of a failed command's output most likely to say why: the first that names an
    error, else the last."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if "Error" in line or "FAIL" in line or "error:" in line:
            return line
    return lines[-1] if lines else ""


class Progress:
    """The terminal line while a run goes on (only on a terminal, like the scan's progress)."""

    def __init__(self):
        self.on = sys.stderr.isatty()
        self.shown = False

    def show(self, what: str, seconds: float) -> None:
        if self.on:
            sys.stderr.write(f"\rrunning the tests {what}: {seconds:.0f} s\033[K")
            sys.stderr.flush()
            self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self.shown = False


class Gate:
    """The copies and the runs of one ``--test``; ``close`` removes the copies (``keep``: leaves them)."""

    def __init__(self, root: Path, command: str, timeout: float, keep: bool = False):
        self.root, self.command, self.timeout, self.keep = root, command, timeout, keep
        self.pytest = uses_pytest(command)
        self.work = Path(tempfile.mkdtemp(prefix="decouple-test-"))
        self.progress = Progress()

    def close(self) -> None:
        self.progress.close()
        if not self.keep:
            shutil.rmtree(self.work, ignore_errors=True)

    def copy(self, tag: str, files=()) -> Path:
        dest = self.work / tag
        # A temporary folder inside ROOT would otherwise copy itself, copy after copy.
        shutil.copytree(self.root, dest, symlinks=True,
                        ignore=lambda folder, names: [n for n in names if Path(folder, n) == self.work])
        for f in files:
            path = dest / f.rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(f.after.encode(f.encoding))
        return dest

    def run(self, tag: str, what: str, files=(), env: dict | None = None, path_first=()) -> Run:
        """``env``: more variables for CMD; ``path_first``: folders ahead of the copy's on its
        ``PYTHONPATH`` (``--trace``'s hook)."""
        tree = self.copy(tag, files)
        junit = self.work / f"{tag}.xml"
        command = self.command + (f" --junitxml={shlex.quote(str(junit))}" if self.pytest else "")
        env = {**os.environ, **(env or {})}
        first = [*path_first] + [str(tree / d) for d in ("src", "python") if (tree / d).is_dir()] + [str(tree)]
        env["PYTHONPATH"] = os.pathsep.join(first + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        log = self.work / f"{tag}.log"
        start = time.monotonic()
        timed_out = False
        with open(log, "wb") as out:
            # Its own session, so that ending it (timeout, Ctrl-C) ends everything it started.
            proc = subprocess.Popen(command, shell=True, cwd=tree, env=env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                while True:
                    try:
                        proc.wait(timeout=1)
                        break
                    except subprocess.TimeoutExpired:
                        elapsed = time.monotonic() - start
                        self.progress.show(what, elapsed)
                        if elapsed > self.timeout:
                            timed_out = True
                            _end(proc)
                            break
            except BaseException:  # Ctrl-C: the tests stop with the run
                _end(proc)
                raise
        self.progress.close()
        seconds = time.monotonic() - start
        with open(log, "rb") as f:
            f.seek(max(0, log.stat().st_size - _OUTPUT_TAIL))
            output = f.read().decode("utf-8", "replace")
        parsed = parse_junit(junit) if self.pytest and not timed_out else None
        return Run(tag, proc.returncode, seconds, timed_out, parsed[0] if parsed else None,
                   parsed[1] if parsed else {}, _error_line(output))


def _end(proc: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _counts(outcomes: dict[str, str] | None, run: Run) -> dict:
    if outcomes is None:
        return {"exit_status": run.returncode, "passed": int(run.returncode == 0), "failed": int(run.returncode != 0), "skipped": 0}
    return {"exit_status": run.returncode, **{k: sum(1 for o in outcomes.values() if o == k) for k in (PASSED, FAILED, SKIPPED)}}


def in_time(command: str, run: Run) -> Run:
    if run.timed_out:
        raise UsageError(f"the tests time out before the patch ({command!r} ran past --test-timeout); "
                         "raise --test-timeout or give a quicker command")
    return run


def judge(command: str, before: tuple[Run, Run], after: Run) -> dict:
    """What the three runs say: the ``tests`` entry of the report. ``broken`` lists each test
    that passed before and fails (or no longer runs) after, with its first error line; empty:
    the patch passes.
    A baseline that cannot judge the patch is a usage error."""
    b1, b2 = before
    for run in before:
        in_time(command, run)
    per_test = b1.outcomes is not None and b2.outcomes is not None
    if not per_test:
        # One test, the whole command, judged by its exit status.
        if b1.returncode != 0 or b2.returncode != 0:
            if (b1.returncode == 0) != (b2.returncode == 0):
                raise UsageError(f"the tests pass in one run and fail in the other before the patch ({command!r}: "
                                 f"exit {b1.returncode}, then {b2.returncode}); they cannot judge it")
            why = b1.output_line
            raise UsageError(f"the tests fail before the patch ({command!r} exits {b1.returncode}"
                             + (f": {why}" if why else "") + ")")
        outcomes_before = {command: PASSED}
        outcome_after = {command: PASSED if after.returncode == 0 else FAILED}
        flaky, failed_before = [], []
        broken = [] if after.returncode == 0 else [{"test": command, "error": _after_error(after)}]
    else:
        o1, o2, oa = b1.outcomes, b2.outcomes, after.outcomes or {}
        if b1.returncode != 0 and not any(o == FAILED for o in o1.values()):
            raise UsageError(f"the tests fail before the patch ({command!r} exits {b1.returncode} with no failed test"
                             + (f": {b1.output_line}" if b1.output_line else "") + ")")
        flaky = sorted(n for n in set(o1) | set(o2) if o1.get(n) != o2.get(n))
        failed_before = sorted(n for n in o1 if n not in flaky and o1[n] == FAILED)
        if not any(o == PASSED and o2.get(n) == PASSED for n, o in o1.items()):
            # Nothing passes to be broken (a collection error that stops pytest, say): a pass would be vacuous.
            first = f": {failed_before[0]}: {b1.errors.get(failed_before[0], '')}" if failed_before else ""
            raise UsageError(f"the tests fail before the patch ({command!r}: no test passed in both runs{first})")
        outcomes_before, outcome_after = o1, oa
        known = set(o1) | set(o2)
        broken = [{"test": n, "error": after.errors.get(n, "")} for n in sorted(oa)
                  if oa[n] == FAILED and n not in flaky and n not in failed_before]
        gone = sorted(n for n in known if o1.get(n) == PASSED and o2.get(n) == PASSED and n not in oa)
        if not broken and (after.outcomes is None or after.returncode != 0 and b1.returncode == 0
                           and FAILED not in oa.values()):
            # No test to blame, yet the run failed (a crash, a timeout, no report): the command is the test.
            broken = [{"test": command, "error": _after_error(after)}]
        elif not broken and gone:
            # A test that no longer runs proves nothing about the patch: it is no pass.
            broken = [{"test": n, "error": "did not run after the patch"} for n in gone]
    entry = {
        "command": command,
        "per_test": per_test,
        "before": _counts(outcomes_before if per_test else None, b1),
        "after": _counts(outcome_after if per_test else None, after),
        "seconds": round(b1.seconds + b2.seconds + after.seconds, 1),
        "flaky": flaky,
        "failed_before": [{"test": n, "error": b1.errors.get(n, "")} for n in failed_before],
        "broken": broken,
    }
    if per_test and gone:
        entry["not_run_after"] = gone
    return entry


def _after_error(after: Run) -> str:
    if after.timed_out:
        return f"ran past --test-timeout ({after.seconds:.0f} s) after the patch"
    return f"exit {after.returncode}" + (f": {after.output_line}" if after.output_line else "")


def gate(root: Path, files, command: str, timeout: float = DEFAULT_TIMEOUT, keep: bool = False) -> dict:
    """Run CMD on ROOT unpatched (twice) and patched with ``files``; the report's ``tests`` entry."""
    g = Gate(root, command, timeout, keep)
    try:
        b1 = in_time(command, g.run("before-1", "before the patch (1 of 2)"))
        b2 = in_time(command, g.run("before-2", "before the patch (2 of 2)"))
        after = g.run("after", "on the patched copy", files)
        entry = judge(command, (b1, b2), after)
        if keep:
            entry["copies"] = str(g.work)
        return entry
    finally:
        g.close()


def stderr_lines(tests: dict) -> list[str]:
    """What the run says about its tests on stderr, one line each."""
    out = [f"decouple: test failed before the patch too (not evidence): {t['test']}" + (f": {t['error']}" if t["error"] else "")
           for t in tests.get("failed_before", ())]
    out += [f"decouple: flaky test (differs between two runs before the patch; not evidence): {n}" for n in tests.get("flaky", ())]
    out += [f"decouple: passed before the patch and not after it: {t['test']}" + (f": {t['error']}" if t["error"] else "")
            for t in tests.get("broken", ())]
    if tests.get("copies"):
        out.append(f"decouple: the test copies are kept in {tests['copies']}")
    return out


def summary(tests: dict) -> str:
    """One line: the command, the counts before and after, and the time."""
    b, a = tests["before"], tests["after"]
    if not tests["per_test"]:
        return (f"`{tests['command']}` exits {b['exit_status']} before the patch (twice) and {a['exit_status']} after it "
                f"({tests['seconds']:.1f} s in all)")
    return (f"`{tests['command']}`: before the patch {b['passed']} passed, {b['failed']} failed, {b['skipped']} skipped; "
            f"after it {a['passed']} passed, {a['failed']} failed, {a['skipped']} skipped "
            f"({tests['seconds']:.1f} s in all, two runs before and one after)")
