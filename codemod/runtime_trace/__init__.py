"""``--trace CMD``: a judge that watches the program run, on a throw-away copy of ROOT.

CMD (the project's tests) runs once, before the analysis decides, in a copy of ROOT made as
``--test`` makes its copies (``gate.Gate``), with ``hook.py`` put first on ``PYTHONPATH`` as
``sitecustomize.py``. It wraps each analysed class C's ``__getattribute__``, ``__setattr__``
and ``__delattr__`` once C's module has run, and records which of the parent's members code
reads, writes or deletes on instances of C (and of C's subclasses), with the caller's
``file:line`` and the pytest test running. ``keep_runtime_read`` (DC120) then keeps each member
read there that the static analysis would drop, as a shown use, before the closure and the
slice run again, so that the rewrite keeps what that member needs too.

What it cannot see: reads on the class object (``C.member``, ``type(self).member``) go
through the metaclass, which is not swapped (a class's metaclass cannot be replaced safely
once it exists); reads by code of the parent's chain itself (its ``__init__`` runs on C in the
original, reading what the slice may drop) are left to the static slice; an interpreter started
with ``-S`` or ``-I`` runs no ``sitecustomize``; a class made before its module finished running
under another module's name is matched by file. The trace proves only what the suite runs.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ..index import ClassInfo, Index
from ..model import Former

HOOK = Path(__file__).with_name("hook.py")
SPEC_VAR, DIR_VAR = "DECOUPLE_TRACE_SPEC", "DECOUPLE_TRACE_DIR"
CANNOT_START = (126, 127)  # the shell's "not executable" and "not found"


@dataclass(frozen=True)
class Access:
    """One distinct access recorded at run time on an instance of a class."""

    kind: str  # "read", "write" or "delete"
    member: str
    file: str  # ROOT-relative inside the copy, else the interpreter's path
    line: int
    test: str  # PYTEST_CURRENT_TEST's test id, "" outside pytest


@dataclass
class Trace:
    """What the traced run recorded (class qualname -> accesses, in the order first seen) and its
    ``trace`` entry of report.json."""

    accesses: dict[str, list[Access]] = field(default_factory=dict)
    entry: dict = field(default_factory=dict)


def targets(index: Index, pairs: list[tuple[ClassInfo, ClassInfo | None]], chain_of) -> list[dict]:
    """The hook's spec of each class: its file and name, the member names of its parent's chain,
    and that chain's code (whose own reads the trace leaves to the static slice).
    ``chain_of(parent) -> [ClassInfo]``: P and the classes between P and the new base."""
    out = []
    for cls, parent in pairs:
        if isinstance(parent, Former):
            continue
        if parent is None:
            parent = index.resolve_class(cls.bases[0]) if cls.bases else None
            if parent is None:
                continue  # the analysis says why, in its own words
        chain = chain_of(parent)
        names = sorted({n for c in chain for n in c.members if n != "__init__"})
        out.append({"qualname": cls.qualname, "class": cls.name, "file": cls.file, "names": names,
                    "skip": [[c.file, c.node.lineno, c.node.end_lineno] for c in chain]})
    return out


def trace(root: Path, command: str, timeout: float, specs: list[dict]) -> Trace:
    """Run CMD once on a copy of ROOT with the classes of ``specs`` instrumented."""
    from ..gate import Gate

    g = Gate(root, command, timeout)
    try:
        site, records = g.work / "site", g.work / "records"
        site.mkdir()
        records.mkdir()
        shutil.copyfile(HOOK, site / "sitecustomize.py")
        spec_file = g.work / "trace-spec.json"
        spec_file.write_text(json.dumps({"root": str(g.work / "traced"), "out": str(records), "targets": specs}))
        run = g.run("traced", "traced", env={SPEC_VAR: str(spec_file), DIR_VAR: str(records)}, path_first=[str(site)])
        if run.returncode in CANNOT_START and not run.outcomes:
            raise UsageError(f"--trace: the command cannot start ({command!r} exits {run.returncode}"
                             + (f": {run.output_line}" if run.output_line else "") + ")")
        accesses = read_records(records)
    finally:
        g.close()
    entry = {"command": command, "exit_status": run.returncode, "seconds": round(run.seconds, 1),
             "timed_out": run.timed_out, "accesses": sum(len(v) for v in accesses.values())}
    if run.returncode != 0 or run.timed_out:
        entry["failed"] = (f"ran past --test-timeout ({run.seconds:.0f} s)" if run.timed_out
                           else f"exit {run.returncode}" + (f": {run.output_line}" if run.output_line else ""))
    return Trace(accesses, entry)


def read_records(folder: Path) -> dict[str, list[Access]]:
    """The accesses of every process's file, each once; a torn last line (a killed process) is skipped."""
    out: dict[str, dict[Access, None]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                qualname, kind, member, file, lineno, test = json.loads(line)
            except ValueError:
                continue
            out.setdefault(qualname, {})[Access(kind, member, file, int(lineno), test)] = None
    return {q: list(d) for q, d in out.items()}


def stderr_lines(rep: dict) -> list[str]:
    """What the run says of its trace on stderr: a failed suite, and each member only it kept."""
    t = rep["trace"]
    out = [f"decouple: the traced run failed ({t['failed']}); its reads count all the same"] if t.get("failed") else []
    out += [f"decouple: found only at run time (--trace): {c['name']}.{f['member']} at {f['file']}:{f['line']}"
            for c in rep["classes"] for f in c.get("found_at_run_time", ())]
    return out
