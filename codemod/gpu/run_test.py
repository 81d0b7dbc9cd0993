"""Run one unittest file (the test ``--emit-tests`` writes for SGLang) and write each test's outcome as JSON.

    PYTHONPATH=<dir holding the side's sglang/>:. python -m codemod.gpu.run_test FILE --out RESULT.json

Standard library only. A subtest's outcome is recorded under its parent test with the
subtest's parameters; a test passes only when every one of its subtests does. Exit 0 when
the file ran (whatever its tests said), 2 when it could not be loaded.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
import traceback
import unittest
from pathlib import Path


class Recorder(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.tests: dict[str, dict] = {}
        self.started: dict[str, float] = {}

    def _entry(self, test):
        name = test.id().rsplit(".", 1)[-1]
        return self.tests.setdefault(name, {"status": "passed", "subtests": [], "message": None})

    def _fail(self, entry, status, err):
        exc_type, exc, _ = err
        entry["status"] = status
        entry["message"] = f"{exc_type.__name__}: {exc}"[:400]
        entry.setdefault("traceback", "".join(traceback.format_exception(*err))[-1500:])

    def startTest(self, test):
        super().startTest(test)
        self._entry(test)
        self.started[test.id()] = time.time()

    def stopTest(self, test):
        super().stopTest(test)
        self._entry(test)["seconds"] = round(time.time() - self.started.get(test.id(), time.time()), 2)

    def addFailure(self, test, err):
        self._fail(self._entry(test), "failed", err)

    def addError(self, test, err):
        self._fail(self._entry(test), "error", err)

    def addSkip(self, test, reason):
        entry = self._entry(test)
        entry["status"], entry["message"] = "skipped", reason

    def addSubTest(self, test, subtest, err):
        entry = self._entry(test)
        params = dict(getattr(subtest, "params", {}) or {})
        sub = {"params": {k: str(v) for k, v in params.items()}, "status": "passed"}
        if err is not None:
            sub["status"] = "failed" if issubclass(err[0], test.failureException) else "error"
            sub["message"] = f"{err[0].__name__}: {err[1]}"[:400]
            if entry["status"] == "passed":
                self._fail(entry, sub["status"], err)
        entry["subtests"].append(sub)


def load(path: Path) -> unittest.TestSuite:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return unittest.defaultTestLoader.loadTestsFromModule(module)


def tally(tests: dict) -> dict:
    out = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    for t in tests.values():
        out[t["status"]] = out.get(t["status"], 0) + 1
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m codemod.gpu.run_test", description=__doc__.splitlines()[0])
    ap.add_argument("file", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    t0, result = time.time(), {"file": str(args.file), "tests": {}, "load_error": None}
    try:
        import sglang
        result["sglang_file"] = getattr(sglang, "__file__", None)
        suite = load(args.file)
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        result["load_error"] = "".join(traceback.format_exception(type(e), e, e.__traceback__))[-2000:]
        args.out.write_text(json.dumps(result, indent=1))
        print(f"run_test: {args.file} did not load: {type(e).__name__}: {e}", flush=True)
        return 2
    rec = Recorder()
    suite.run(rec)
    result.update(tests=rec.tests, tally=tally(rec.tests), seconds=round(time.time() - t0, 1))
    args.out.write_text(json.dumps(result, indent=1))
    for name, t in rec.tests.items():
        print(f"{t['status'].upper():7s} {name}" + (f"  {t['message']}" if t["message"] else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
