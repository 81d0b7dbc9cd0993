#!/usr/bin/env python3
"""Real-world campaign: run decouple on every candidate class of real libraries.

    python3 benchmarks/real_world.py sqlparse jinja2 attrs markdown prompt_toolkit werkzeug
    python3 benchmarks/real_world.py --list          # the pinned table

For each library of the pinned table below it:

1. downloads the pinned sdist from PyPI (``pip download --no-deps --no-binary LIB``) into
   ``WORK/<lib>/`` (default WORK: /tmp/real-world), unpacks it there (``pristine/``, never
   modified), and checks that the sdist ships its tests;
2. makes a venv there with the library installed from the unpacked source plus its test
   dependencies;
3. runs the library's own suite twice on a copy (baseline); a test that fails in either run, or
   whose outcome differs between the two (flaky), is deselected from every later run;
4. enumerates every candidate class (a module-level class whose first base is a class of the
   same library, with an ``__init__`` defined in that base or one of its bases in the library);
5. runs ``decouple ROOT --class mod:Name --output OUT --no-cache`` on each (with a timeout) and
   records exit code, decision, rule, reason, any traceback, wall time, whether the input tree
   is byte-identical afterwards, whether ``patch.diff`` applies to a fresh copy, and for each
   patch the suite on the patched copy: the tests that now fail but passed in the baseline;
6. writes ``benchmarks/results/real-world/<lib>.json`` and ``summary.md`` (all libraries).

``--gate`` also runs each patched candidate with ``decouple --test CMD`` (CMD: the library's
suite), and records whether the tool's own verdict on the patch agrees with step 5's. The
campaign keeps its own runner for step 5: it runs the baseline twice per library, where
``--test`` runs it twice per candidate.

Every subprocess runs under ``nice -n 10``.  Test runs use ``-p no:cacheprovider``, a
``--maxfail`` and a per-run timeout, and only candidates that produced a patch are tested.
The library code stays outside this repository; only results are written here.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "benchmarks" / "results" / "real-world"
DEFAULT_WORK = Path("/tmp/real-world")
NICE = ["nice", "-n", "10"]

# name: pinned version, root (dir holding the packages, relative to the sdist), packages,
# test deps, pytest args (relative to the sdist dir), extra env
# jsonpickle's suites for optional libraries (numpy, pandas, scikit-learn, SQLAlchemy,
# feedparser) and its benchmark: left out, their libraries are not installed.
_JSONPICKLE_OPTIONAL = ("numpy_test", "pandas_test", "sklearn_test", "sqlalchemy_test", "feedparser_test", "benchmark")
LIBS: dict[str, dict] = {
    "sqlparse": dict(version="0.5.3", root=".", packages=["sqlparse"],
                     test_deps=["pytest"], pytest=["tests"]),
    "jinja2": dict(version="3.1.4", root="src", packages=["jinja2"],
                   test_deps=["pytest", "trio"], pytest=["tests"]),
    "attrs": dict(version="24.2.0", root="src", packages=["attr", "attrs"],
                  test_deps=["pytest", "hypothesis", "cloudpickle", "pympler"],
                  pytest=["tests"]),
    "markdown": dict(version="3.7", root=".", packages=["markdown"],
                     test_deps=["pytest", "pyyaml"], pytest=["tests"]),
    "prompt_toolkit": dict(version="3.0.48", root="src", packages=["prompt_toolkit"],
                           test_deps=["pytest"], pytest=["tests"]),
    "werkzeug": dict(version="3.1.3", root="src", packages=["werkzeug"],
                     test_deps=["pytest", "pytest-timeout", "pytest-xprocess", "cryptography",
                                "watchdog", "greenlet", "ephemeral-port-reserve"],
                     pytest=["tests", "-p", "no:xprocess", "--ignore=tests/live_apps",
                             "--ignore=tests/test_serving.py", "--ignore=tests/test_debug.py",
                             "--ignore=tests/test_serving_dev_server.py",
                             "--ignore=tests/middleware/test_http_proxy.py"]),
    "pygments": dict(version="2.18.0", root=".", packages=["pygments"],
                     test_deps=["pytest", "wcag-contrast-ratio"],
                     pytest=["tests", "--ignore=tests/examplefiles", "--ignore=tests/snippets",
                             "--ignore=tests/contrast"]),
    "tornado": dict(version="6.4.1", root=".", packages=["tornado"], test_deps=["pytest"],
                    pytest=["tornado/test"]),
    # issue 25, item 9: the campaign on more libraries (stress mode)
    "marshmallow": dict(version="3.23.1", root="src", packages=["marshmallow"],
                        test_deps=["pytest", "simplejson"], pytest=["tests"]),
    "wtforms": dict(version="3.2.1", root="src", packages=["wtforms"],
                    test_deps=["pytest", "babel", "email_validator", "webob"],
                    pytest=["tests"]),
    "docutils": dict(version="0.21.2", root=".", packages=["docutils"],
                     test_deps=["pytest", "pygments"], pytest=["test"]),
    "mistune": dict(version="3.0.2", root="src", packages=["mistune"], test_deps=["pytest"],
                    pytest=["tests"]),
    "parso": dict(version="0.8.4", root=".", packages=["parso"], test_deps=["pytest", "docopt"],
                  pytest=["test"]),
    "pyparsing": dict(version="3.2.0", root=".", packages=["pyparsing"],
                      test_deps=["pytest", "railroad-diagrams", "jinja2"], pytest=["tests"]),
    "voluptuous": dict(version="0.15.2", root=".", packages=["voluptuous"],
                       test_deps=["pytest"], pytest=["voluptuous/tests"]),
    "click": dict(version="8.1.7", root="src", packages=["click"], test_deps=["pytest"],
                  pytest=["tests"]),
    "mako": dict(version="1.3.6", root=".", packages=["mako"],
                 test_deps=["pytest", "markupsafe", "babel", "lingua"], pytest=["test"]),
    "networkx": dict(version="3.4.2", root=".", packages=["networkx"],
                     test_deps=["pytest"], pytest=["networkx"]),
    # issue 25, item 9, second campaign: more libraries with many subclass hierarchies
    "pyasn1": dict(version="0.6.1", root=".", packages=["pyasn1"], test_deps=["pytest"],
                   pytest=["tests"]),
    "lark": dict(version="1.2.2", root=".", packages=["lark"], test_deps=["pytest"],
                 pytest=["tests"]),
    "astroid": dict(version="3.3.5", root=".", packages=["astroid"], test_deps=["pytest"],
                    pytest=["tests"]),
    "transitions": dict(version="0.9.2", root=".", packages=["transitions"],
                        test_deps=["pytest", "six", "mock", "dill"], pytest=["tests"]),
    "dnspython": dict(version="2.7.0", root=".", packages=["dns"], test_deps=["pytest"],
                      pytest=["tests"], env={"NO_INTERNET": "1"}),  # no network in its tests
    "mutagen": dict(version="1.47.0", root=".", packages=["mutagen"],
                    test_deps=["pytest", "hypothesis"], pytest=["tests"]),
    "urwid": dict(version="2.6.16", root=".", packages=["urwid"], test_deps=["pytest"],
                  pytest=["tests"]),
    "rich": dict(version="13.9.4", root=".", packages=["rich"], test_deps=["pytest"],
                 pytest=["tests"]),  # its sdist ships no tests: refused below
    # issue 37: libraries no campaign used (typed, modern code: generics, protocols, dataclasses,
    # TYPE_CHECKING imports, properties, mixins); tests that need the network are deselected
    "httpx": dict(version="0.29.0", root=".", packages=["httpx"],
                  test_deps=["pytest", "anyio", "trio", "uvicorn", "trustme", "chardet", "brotli",
                             "zstandard", "h2", "socksio", "click", "rich", "pygments",
                             "cryptography"],
                  pytest=["tests", "-m", "not network"]),
    "anyio": dict(version="4.16.0", root="src", packages=["anyio"],
                  test_deps=["pytest", "trio", "hypothesis", "psutil", "pytest-mock",
                             "pytest-timeout", "trustme", "truststore", "blockbuster", "uvloop"],
                  pytest=["tests", "-p", "no:asyncio", "-p", "no:trio", "-m", "not network"]),
    "starlette": dict(version="1.10.0", root=".", packages=["starlette"],
                      test_deps=["pytest", "trio", "httpx2", "itsdangerous", "jinja2",
                                 "python-multipart", "pyyaml", "opentelemetry-api",
                                 "opentelemetry-sdk", "importlib-metadata", "blockbuster"],
                      pytest=["tests"]),
    # a library no campaign here had used (2026-12-05), for the final-code check: tz, parser, relativedelta
    # (its setup.cfg turns warnings into errors: pytest 9 deprecates a parametrize form it uses, and
    # its no_cover mark needs pytest-cov)
    "python-dateutil": dict(version="2.9.0.post0", root="src", packages=["dateutil"],
                            test_deps=["pytest<9", "pytest-cov", "freezegun", "hypothesis", "six"], pytest=["tests", "--ignore=tests/property"]),
    "tomlkit": dict(version="0.15.2", root=".", packages=["tomlkit"],
                    test_deps=["pytest", "pyyaml"], pytest=["tests"]),
    "cattrs": dict(version="26.2.1", root="src", packages=["cattrs", "cattr"],
                   test_deps=["pytest", "hypothesis", "pytest-benchmark", "immutables", "ujson",
                              "orjson", "msgpack", "pyyaml", "tomlkit", "cbor2", "pymongo",
                              "msgspec", "tomli-w"],
                   # its conftest's own "fast" profile (10 examples a property): the full one
                   # takes over 5 minutes a run here, once per patch
                   pytest=["tests"], env={"FAST": "1"}),
    "cachetools": dict(version="8.0.2", root="src", packages=["cachetools"],
                       test_deps=["pytest"], pytest=["tests"]),
    # pytest 9 has no monkeypatch.notset, which flask's conftest uses
    "flask": dict(version="3.1.3", root="src", packages=["flask"],
                  test_deps=["pytest<9", "asgiref", "greenlet", "python-dotenv"], pytest=["tests"]),
    "structlog": dict(version="26.1.0", root="src", packages=["structlog"],
                      test_deps=["pytest", "pytest-asyncio", "simplejson", "time-machine", "rich"],
                      pytest=["tests", "--import-mode=importlib"]),
    # the campaign of issue 37's ninth library (DC115's): a src layout, typed, ABC + mixins
    "platformdirs": dict(version="4.14.5", root="src", packages=["platformdirs"],
                         test_deps=["pytest", "pytest-mock", "appdirs==1.4.4"], pytest=["tests"]),
    # libraries no campaign used (deep hierarchies: dialects, generators and
    # expressions, locales; construct 2.10.70's sdist lacks tests/declarativeunittest.py)
    "sqlglot": dict(version="30.31.0", root=".", packages=["sqlglot"],
                    test_deps=["pytest", "setuptools_scm", "python-dateutil", "pytz", "duckdb",
                               "pandas"],
                    pytest=["tests"]),
    "boltons": dict(version="26.2.0", root=".", packages=["boltons"], test_deps=["pytest"],
                    pytest=["tests"]),
    "arrow": dict(version="1.4.0", root=".", packages=["arrow"],
                  test_deps=["pytest", "pytest-mock", "pytz==2025.2", "simplejson",
                             "dateparser"],
                  pytest=["tests"]),
    # typed and modern (a src layout, components and property types in deep hierarchies, its
    # tests inside the package); no campaign used it before 2026-12-05
    "icalendar": dict(version="7.3.0", root="src", packages=["icalendar"],
                      test_deps=["pytest", "hypothesis", "pytz>=2025.2"],
                      pytest=["src/icalendar/tests"],
                      # --trace runs the suite from ROOT's copy, without the sdist's pytest settings
                      trace_pytest=["icalendar/tests", "--ignore=icalendar/tests/hypothesis"]),
    # Generic registries built from facets (``GenericPlainRegistry[QuantityT, UnitT]``), tests
    # inside the package; the benchmarks need pytest-benchmark's fixtures and are left out.
    "pint": dict(version="0.25.3", root=".", packages=["pint"],
                 test_deps=["pytest", "pytest-subtests", "pytest-benchmark"],
                 pytest=["pint/testsuite", "-p", "no:benchmark", "--ignore=pint/testsuite/benchmarks"],
                 trace_pytest=["pint/testsuite", "-p", "no:benchmark", "--ignore=pint/testsuite/benchmarks",
                               "--import-mode=importlib"]),
    # Typed validators and an exception family on attrs; the JSON-Schema suite's data in the sdist.
    "jsonschema": dict(version="4.26.0", root=".", packages=["jsonschema"],
                       test_deps=["pytest", "jsonpath-ng"], pytest=["jsonschema/tests"],
                       trace_pytest=["jsonschema/tests"]),
    # Declarative specs: small class families (folds, matchers, errors) built on each other's __init__.
    "glom": dict(version="25.12.0", root=".", packages=["glom"], test_deps=["pytest", "pyyaml"],
                 pytest=["glom/test"], trace_pytest=["glom/test"]),
    # Schedulers, executors, job stores and triggers: each family a base class and its subclasses.
    "apscheduler": dict(version="3.11.3", root="src", packages=["apscheduler"],
                        test_deps=["pytest", "pytest-timeout", "anyio", "pytz", "sqlalchemy", "tornado"],
                        pytest=["tests"]),
    # A small document store: storages and middlewares, each a base class and its subclasses.
    "tinydb": dict(version="4.8.2", root=".", packages=["tinydb"], test_deps=["pytest", "pyyaml"],
                   pytest=["tests"], trace_pytest=["tests"]),
    # Charset probers: a deep family of typed prober classes, each building state in __init__.
    "chardet": dict(version="5.2.0", root=".", packages=["chardet"], test_deps=["pytest", "hypothesis"],
                    pytest=["test.py"], trace_pytest=["test.py"]),
    # Typed event emitters: one base whose __init__ builds the handler tables, a subclass per
    # concurrency framework (asyncio, trio, twisted, executors), each calling super().__init__().
    "pyee": dict(version="13.0.0", root=".", packages=["pyee"],
                 test_deps=["pytest", "pytest-asyncio", "pytest-trio", "trio", "twisted"],
                 pytest=["tests"], trace_pytest=["tests"]),
    # Pickling to JSON: a family of type handlers on one base __init__, a pickler and unpickler.
    "jsonpickle": dict(version="4.1.1", root=".", packages=["jsonpickle"], test_deps=["pytest", "pyyaml"],
                       pytest=["tests", *(f"--ignore=tests/{t}.py" for t in _JSONPICKLE_OPTIONAL)],
                       trace_pytest=["tests", *(f"--ignore=tests/{t}.py" for t in _JSONPICKLE_OPTIONAL)]),
}

# A pytest plugin (written to the work dir, loaded with -p): deselects the node ids listed in
# $RW_DESELECT and writes each test's outcome to $RW_RESULTS as JSON.
PLUGIN = r'''
import json, os

_out = {}
_collect = {}

def pytest_collection_modifyitems(session, config, items):
    path = os.environ.get("RW_DESELECT")
    if not path or not os.path.exists(path):
        return
    with open(path) as f:
        drop = set(json.load(f))
    keep, gone = [], []
    for it in items:
        (gone if it.nodeid in drop else keep).append(it)
    if gone:
        config.hook.pytest_deselected(items=gone)
        items[:] = keep

def pytest_collectreport(report):
    if report.failed:
        _collect[report.nodeid] = str(report.longrepr)[-3000:]

_errs = {}

def pytest_runtest_logreport(report):
    prev = _out.get(report.nodeid)
    if report.failed:
        _out[report.nodeid] = "failed"
        _errs[report.nodeid] = str(report.longrepr)[-2000:]
    elif prev == "failed":
        return
    elif report.skipped and report.when in ("setup", "call"):
        _out[report.nodeid] = "xfailed" if hasattr(report, "wasxfail") else "skipped"
    elif report.when == "call":
        _out[report.nodeid] = "passed"

def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("RW_RESULTS")
    if path:
        with open(path, "w") as f:
            json.dump({"tests": _out, "collect_errors": _collect, "errors": _errs,
                       "exitstatus": int(exitstatus)}, f)
'''


def log(msg: str) -> None:
    print(msg, flush=True)


def run(cmd, *, cwd=None, env=None, timeout=None, check=False) -> subprocess.CompletedProcess:
    full = NICE + [str(c) for c in cmd]
    try:
        cp = subprocess.run(full, cwd=cwd, env=env, timeout=timeout, capture_output=True,
                            text=True)
    except subprocess.TimeoutExpired as e:
        cp = subprocess.CompletedProcess(full, 124, _s(e.stdout), _s(e.stderr) + "\n[timeout]")
    if check and cp.returncode != 0:
        raise RuntimeError(f"{' '.join(full)} failed ({cp.returncode}):\n{cp.stdout[-2000:]}\n"
                           f"{cp.stderr[-3000:]}")
    return cp


def _s(b) -> str:
    if b is None:
        return ""
    return b.decode(errors="replace") if isinstance(b, bytes) else b


def tree_hash(root: Path) -> dict[str, str]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for fn in sorted(filenames):
            p = Path(dirpath, fn)
            if p.is_symlink():
                out[str(p.relative_to(root))] = "link:" + os.readlink(p)
                continue
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


# ---------------------------------------------------------------- setup


def setup_library(name: str, spec: dict, work: Path) -> dict:
    """Download, unpack, make the venv. Returns paths."""
    work.mkdir(parents=True, exist_ok=True)
    dl = work / "dl"
    pristine = work / "pristine"
    if not any(dl.glob("*.tar.gz")) and not any(dl.glob("*.zip")):
        run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", name,
             f"{name}=={spec['version']}", "-d", dl], check=True, timeout=900)
    archive = next(iter(sorted(dl.glob("*.tar.gz")) + sorted(dl.glob("*.zip"))))
    if not pristine.exists():
        tmp = work / "unpack.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                z.extractall(tmp)
        else:
            with tarfile.open(archive) as t:
                t.extractall(tmp, filter="data")
        (top,) = list(tmp.iterdir())
        top.rename(pristine)
        tmp.rmdir()
    # the arguments that are paths: not options, nor the value of -p, -m or -k
    test_paths = [a for i, a in enumerate(spec["pytest"]) if not a.startswith("-") and
                  not (i and spec["pytest"][i - 1] in ("-p", "-m", "-k"))]
    if not any((pristine / t).exists() for t in test_paths) or not any(
            (pristine / t).rglob("test*.py") for t in test_paths if (pristine / t).exists()):
        raise RuntimeError(f"the {name} {spec['version']} sdist ships no tests "
                           f"({', '.join(test_paths)} missing): pick another library")
    venv = work / "venv"
    py = venv / "bin" / "python"
    if not (venv / ".rw-ok").exists():
        shutil.rmtree(venv, ignore_errors=True)
        run([sys.executable, "-m", "venv", venv], check=True)
        # install from a writable copy of the unpacked source (builds write into it)
        build = work / "build-src"
        shutil.rmtree(build, ignore_errors=True)
        shutil.copytree(pristine, build)
        _writable(build)
        run([py, "-m", "pip", "install", "-q", build] + spec["test_deps"], check=True,
            timeout=1800)
        shutil.rmtree(build, ignore_errors=True)
        (venv / ".rw-ok").write_text("ok\n")
    (work / "rw_plugin.py").write_text(PLUGIN)
    return dict(pristine=pristine, py=py, archive=archive.name)


def _writable(root: Path) -> None:
    for p in [root, *root.rglob("*")]:
        if not p.is_symlink():
            p.chmod(p.stat().st_mode | 0o200)


def fresh_copy(pristine: Path, dest: Path) -> None:
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(pristine, dest, symlinks=True)
    _writable(dest)


def run_suite(name: str, spec: dict, lib: dict, tree: Path, work: Path, tag: str, *,
              deselect: list[str] | None, maxfail: int | None, timeout: int) -> dict:
    results = work / f"results-{tag}.json"
    results.unlink(missing_ok=True)
    desel = work / "deselect.json"
    env = dict(os.environ)
    env.pop("PYTHONHOME", None)
    root = tree / spec["root"]
    env["PYTHONPATH"] = os.pathsep.join([str(root), str(work)])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["RW_RESULTS"] = str(results)
    if deselect is not None:
        desel.write_text(json.dumps(deselect))
        env["RW_DESELECT"] = str(desel)
    else:
        env.pop("RW_DESELECT", None)
    env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(work / "hypothesis")
    env.update(spec.get("env", {}))
    # make sure the tree under test is what gets imported
    chk = run([lib["py"], "-c",
               f"import {spec['packages'][0]} as m; print(m.__file__)"], cwd=tree, env=env,
              timeout=120)
    imported = chk.stdout.strip()
    cmd = [lib["py"], "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "rw_plugin",
           "--continue-on-collection-errors", "-o", "addopts=", "-W", "ignore::DeprecationWarning"]
    if maxfail:
        cmd.append(f"--maxfail={maxfail}")
    cmd += spec["pytest"]
    t0 = time.monotonic()
    cp = run(cmd, cwd=tree, env=env, timeout=timeout)
    wall = round(time.monotonic() - t0, 1)
    data = {}
    if results.exists():
        data = json.loads(results.read_text())
    tail = (cp.stdout + cp.stderr).strip().splitlines()
    return dict(rc=cp.returncode, wall_s=wall, imported=imported,
                import_ok=chk.returncode == 0 and imported.startswith(str(root)),
                import_error=chk.stderr[-1500:] if chk.returncode else "",
                tests=data.get("tests", {}), collect_errors=data.get("collect_errors", {}),
                errors=data.get("errors", {}), summary=tail[-1] if tail else "",
                timed_out=cp.returncode == 124)


# ---------------------------------------------------------------- candidates


def module_files(root: Path, packages: list[str]) -> dict[str, tuple[Path, bool]]:
    mods = {}
    for pkg in packages:
        base = root / pkg
        if base.is_file() or (root / f"{pkg}.py").is_file():
            mods[pkg] = (root / f"{pkg}.py", False)
            continue
        for p in sorted(base.rglob("*.py")):
            rel = p.relative_to(root).with_suffix("")
            parts = list(rel.parts)
            # only importable packages (every dir has __init__.py)
            if any(not (root.joinpath(*parts[:i]) / "__init__.py").exists()
                   for i in range(1, len(parts))):
                continue
            is_pkg = parts[-1] == "__init__"
            if is_pkg:
                parts = parts[:-1]
            mods[".".join(parts)] = (p, is_pkg)
    return mods


def _module_stmts(body):
    for st in body:
        yield st
        if isinstance(st, ast.If):
            yield from _module_stmts(st.body)
            yield from _module_stmts(st.orelse)
        elif isinstance(st, ast.Try):
            yield from _module_stmts(st.body)
            for h in st.handlers:
                yield from _module_stmts(h.body)
            yield from _module_stmts(st.orelse)
            yield from _module_stmts(st.finalbody)


def _dotted(e):
    if isinstance(e, ast.Subscript):
        e = e.value
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        d = _dotted(e.value)
        return f"{d}.{e.attr}" if d else None
    return None


def enumerate_candidates(root: Path, packages: list[str]) -> list[dict]:
    mods = module_files(root, packages)
    info = {}  # mod -> dict(classes={name: node}, binds={alias: (kind, target)})
    for mod, (path, is_pkg) in mods.items():
        try:
            tree = ast.parse(path.read_bytes())
        except SyntaxError:
            continue
        classes, binds = {}, {}
        pkg = mod if is_pkg else mod.rpartition(".")[0]
        for st in _module_stmts(tree.body):
            if isinstance(st, ast.ClassDef):
                classes.setdefault(st.name, st)
            elif isinstance(st, ast.ImportFrom):
                if st.level:
                    parts = pkg.split(".")
                    parts = parts[:len(parts) - (st.level - 1)] if st.level > 1 else parts
                    src = ".".join(parts + ([st.module] if st.module else []))
                else:
                    src = st.module or ""
                for a in st.names:
                    binds.setdefault(a.asname or a.name, ("from", src, a.name))
            elif isinstance(st, ast.Import):
                for a in st.names:
                    if a.asname:
                        binds.setdefault(a.asname, ("mod", a.name))
                    else:
                        top = a.name.split(".")[0]
                        binds.setdefault(top, ("mod", top))
        info[mod] = dict(classes=classes, binds=binds, path=path)

    def resolve_in(mod, dotted, depth=0):
        """(module, classname) of a dotted name as seen in module mod, or None."""
        if depth > 12 or mod not in info:
            return None
        head, _, rest = dotted.partition(".")
        m = info[mod]
        if not rest:
            if head in m["classes"]:
                return (mod, head)
            b = m["binds"].get(head)
            if b and b[0] == "from":
                if f"{b[1]}.{b[2]}" in info:
                    return None  # a module, not a class
                return resolve_in(b[1], b[2], depth + 1)
            return None
        b = m["binds"].get(head)
        target = None
        if b and b[0] == "mod":
            target = b[1]
        elif b and b[0] == "from" and f"{b[1]}.{b[2]}" in info:
            target = f"{b[1]}.{b[2]}"
        if target is None:
            return None
        # walk submodules as far as they go, then resolve the rest in the last one
        parts = rest.split(".")
        while len(parts) > 1 and f"{target}.{parts[0]}" in info:
            target = f"{target}.{parts.pop(0)}"
        if len(parts) == 1:
            return resolve_in(target, parts[0], depth + 1)
        return None

    def bases_of(key):
        mod, name = key
        node = info[mod]["classes"][name]
        out = []
        for b in node.bases:
            d = _dotted(b)
            out.append(resolve_in(mod, d) if d else None)
        return out

    def has_init(key):
        node = info[key[0]]["classes"][key[1]]
        return any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"
                   for s in node.body)

    def init_above(key, seen):
        # the base itself or any of its bases (all bases, depth first)
        if key in seen:
            return None
        seen.add(key)
        if has_init(key):
            return key
        for b in bases_of(key):
            if b:
                r = init_above(b, seen)
                if r:
                    return r
        return None

    cands = []
    for mod in sorted(info):
        for name, node in info[mod]["classes"].items():
            if not node.bases:
                continue
            first = bases_of((mod, name))[0]
            if not first:
                continue
            where = init_above(first, set())
            if not where:
                continue
            cands.append(dict(qualname=f"{mod}:{name}", file=str(info[mod]["path"].relative_to(root)),
                              line=node.lineno, parent=f"{first[0]}:{first[1]}",
                              init_in=f"{where[0]}:{where[1]}",
                              own_init=has_init((mod, name))))
    return cands


# ---------------------------------------------------------------- one candidate


def run_decouple(cand: dict, root: Path, out: Path, timeout: int) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ)
    env["DECOUPLE_CACHE_DIR"] = str(out.parent / "cache-unused")
    t0 = time.monotonic()
    # From the snapshot's folder: ``python -m`` puts the working directory first on sys.path, so
    # run from this checkout it would import the live codemod/ and not the snapshot.
    cp = run([*DECOUPLE, root, "--class", cand["qualname"], "--output", out, "--no-cache", *EXTRA],
             timeout=timeout, env=env, cwd=TOOL_CWD)
    wall = round(time.monotonic() - t0, 2)
    rec = dict(rc=cp.returncode, wall_s=wall, stderr=cp.stderr[-4000:].strip(),
               stdout_tail=cp.stdout[-1000:].strip())
    rec["traceback"] = ("Traceback (most recent call last)" in cp.stderr or "internal error" in cp.stderr.lower()
                        or cp.returncode not in (0, 2, 3))
    rec["timed_out"] = cp.returncode == 124
    rep = out / "report.json"
    if rep.exists():
        try:
            data = json.loads(rep.read_text())
            cls = next((c for c in data.get("classes", [])
                        if c.get("qualname") == cand["qualname"]), None) or \
                (data.get("classes") or [None])[0]
        except (ValueError, StopIteration):
            cls = None
        if cls:
            for k in ("decision", "rule", "reason", "parent", "new_base", "nothing_to_do",
                      "reuse", "init_reuse", "dropped_side_effects", "hazards", "inlined",
                      "super_calls", "skipped_files"):
                rec[k] = cls.get(k)
            rec["kept"] = [k.get("member") for k in cls.get("kept", [])]
            rec["dropped"] = [d.get("member", d) if isinstance(d, dict) else d
                              for d in cls.get("dropped", [])]
    patch = out / "patch.diff"
    rec["patch"] = patch.read_text() if patch.exists() and patch.stat().st_size else None
    return rec


def run_gate(cand: dict, root: Path, out: Path, spec: dict, lib: dict, work: Path, args) -> dict:
    """``--gate``: the same decouple run with ``--test`` and the library's suite as CMD, so that
    the tool's own verdict on the patch can be set beside the campaign's."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = shlex.join([str(lib["py"]), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                    "--continue-on-collection-errors",
                    "-W", "ignore::DeprecationWarning", f"--maxfail={args.maxfail}", *spec["pytest"]])
    env = dict(os.environ, DECOUPLE_CACHE_DIR=str(out.parent / "cache-unused"),
               HYPOTHESIS_STORAGE_DIRECTORY=str(work / "hypothesis"), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONHOME", None)
    t0 = time.monotonic()
    # --test runs the suite three times: a timeout of three suites and the analysis.
    cp = run([*DECOUPLE, root, "--class", cand["qualname"], "--output", out, "--no-cache", *EXTRA,
              "--test", cmd, "--test-timeout", str(args.test_timeout)],
             timeout=3 * args.test_timeout + args.jobs_timeout, env=env)
    rec = dict(rc=cp.returncode, wall_s=round(time.monotonic() - t0, 1), refused=cp.returncode == 3,
               command=cmd, stderr=cp.stderr[-3000:].strip())
    rep = out / "report.json"
    if rep.exists():
        tests = json.loads(rep.read_text()).get("tests") or {}
        rec.update(before=tests.get("before"), after=tests.get("after"), flaky=tests.get("flaky"),
                   failed_before=len(tests.get("failed_before", [])), broken=tests.get("broken"))
    return rec


def suite_command(spec: dict, lib: dict, work: Path, tests_dir: Path | None) -> str:
    """The library's suite as one shell command for ``decouple --trace``, which runs it in its
    copy of ROOT. Where ROOT is a ``src/`` folder the tests are outside it: the command runs
    them from ``tests_dir`` (the sdist without ROOT), importing the copy through the
    ``PYTHONPATH`` the tool sets."""
    cmd = [str(lib["py"]), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
           "--continue-on-collection-errors", "-W", "ignore::DeprecationWarning", *spec["pytest"]]
    env = dict(spec.get("env", {}), PYTHONDONTWRITEBYTECODE="1",
               HYPOTHESIS_STORAGE_DIRECTORY=str(work / "hypothesis"))
    line = "env " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " " + shlex.join(cmd)
    return f"cd {shlex.quote(str(tests_dir))} && {line}" if tests_dir else line


def run_traced(cands: list[dict], pristine: Path, out: Path, spec: dict, lib: dict, work: Path,
               args) -> dict:
    """``--trace``: one decouple run on all the candidates with ``--analyse-only --trace CMD``
    (CMD: the library's suite); each class's members that only the run showed used."""
    root, tests_dir = pristine / spec["root"], None
    if "trace_pytest" in spec:  # the tests are inside ROOT: run from its copy, as the tool runs CMD
        spec = dict(spec, pytest=spec["trace_pytest"])
    elif root != pristine:
        tests_dir = work / "trace-tests"
        shutil.rmtree(tests_dir, ignore_errors=True)
        shutil.copytree(pristine, tests_dir, symlinks=True,
                        ignore=lambda d, names: [root.name] if Path(d) == root.parent else [])
        _writable(tests_dir)
    cmd = suite_command(spec, lib, work, tests_dir)
    # The same command once untraced, just before, on a copy laid out as decouple lays out its
    # own (ROOT's copy first on PYTHONPATH): the ratio of the two times is the cost of tracing.
    plain = work / "plain"
    fresh_copy(root, plain)
    penv = dict(os.environ, PYTHONPATH=os.pathsep.join(
        str(plain / d) for d in ("src", "python", "") if (plain / d).is_dir()))
    penv.pop("PYTHONHOME", None)
    t0 = time.monotonic()
    pcp = run(["bash", "-c", cmd], cwd=plain, env=penv, timeout=args.test_timeout)
    plain_s = round(time.monotonic() - t0, 1)
    shutil.rmtree(plain, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, DECOUPLE_CACHE_DIR=str(out.parent / "cache-unused"))
    env.pop("PYTHONHOME", None)
    classes = [a for c in cands for a in ("--class", c["qualname"])]
    t0 = time.monotonic()
    cp = run([*DECOUPLE, root, *classes, "--output", out, "--no-cache", *EXTRA, "--analyse-only",
              "--trace", cmd, "--test-timeout", str(args.test_timeout)],
             timeout=args.test_timeout + args.jobs_timeout * max(1, len(cands) // 4), env=env,
             cwd=TOOL_CWD)
    rec = dict(rc=cp.returncode, wall_s=round(time.monotonic() - t0, 1), command=cmd,
               stderr=cp.stderr[-4000:].strip(), per_class={},
               untraced=dict(seconds=plain_s, exit_status=pcp.returncode))
    rec["traceback"] = ("Traceback (most recent call last)" in cp.stderr or "internal error" in cp.stderr.lower()
                        or cp.returncode not in (0, 2, 3))
    rep = out / "report.json"
    if rep.exists():
        data = json.loads(rep.read_text())
        rec["trace"] = data.get("trace")
        for c in data.get("classes", []):
            rec["per_class"][c.get("qualname")] = dict(
                decision=c.get("decision"), rule=c.get("rule"),
                found_at_run_time=c.get("found_at_run_time", []))
    return rec


def apply_patch(patch_file: Path, tree: Path) -> tuple[bool, str]:
    cp = run(["git", "apply", "--whitespace=nowarn", patch_file], cwd=tree)
    if cp.returncode == 0:
        return True, "git apply"
    cp2 = run(["patch", "-p1", "--batch", "--forward", "-i", patch_file], cwd=tree)
    if cp2.returncode == 0:
        return True, "patch -p1 (git apply failed: " + cp.stderr.strip()[:300] + ")"
    return False, (cp.stderr + cp2.stdout + cp2.stderr).strip()[-1500:]


# ---------------------------------------------------------------- a library


def campaign(name: str, args) -> dict:
    spec = LIBS[name]
    setup_work = Path(args.work).resolve() / name
    # --shard K/N: the sdist and the venv are shared, the copies and results are the shard's own
    work = setup_work / f"shard-{args.shard[0]}" if args.shard else setup_work
    res: dict = dict(library=name, version=spec["version"], tool_commit=TOOL_COMMIT,
                     started=time.strftime("%Y-%m-%d %H:%M:%S"), root=spec["root"])
    t_lib = time.monotonic()
    log(f"== {name} {spec['version']}: setup")
    try:
        lib = setup_library(name, spec, setup_work)
        work.mkdir(parents=True, exist_ok=True)
        (work / "rw_plugin.py").write_text(PLUGIN)
    except Exception as e:  # noqa: BLE001 - reported, campaign moves on
        res["setup_error"] = str(e)[-3000:]
        log(f"== {name}: setup failed: {str(e).splitlines()[0]}")
        return res
    res["sdist"] = lib["archive"]
    pristine = lib["pristine"]
    root = pristine / spec["root"]
    # --root-with-tests: decouple's ROOT is the sdist's top, so that the tests' reads are uses
    # (the tool takes its tree to be the whole program); candidates stay those of the package
    droot = pristine if args.root_with_tests else root
    res["decouple_root"] = "." if args.root_with_tests else spec["root"]

    # baseline, twice
    stable_pass: set[str] = set()
    deselect: list[str] = []
    if not args.no_tests and not args.trace:
        runs = []
        for i in (1, 2):
            bcopy = work / "baseline"
            fresh_copy(pristine, bcopy)
            r = run_suite(name, spec, lib, bcopy, work, f"baseline{i}", deselect=None,
                          maxfail=None, timeout=args.baseline_timeout)
            log(f"   baseline {i}: {len(r['tests'])} tests, {r['wall_s']} s, rc {r['rc']}: "
                f"{r['summary']}")
            runs.append(r)
        a, b = runs[0]["tests"], runs[1]["tests"]
        if not a or not runs[0]["import_ok"]:
            res["setup_error"] = (f"baseline collected nothing (rc {runs[0]['rc']}, imported "
                                  f"{runs[0]['imported']!r}): {runs[0]['summary']}")
            log(f"== {name}: {res['setup_error']}")
            return res
        ok = {"passed", "xfailed", "skipped"}
        flaky = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
        failing = sorted(n for n in set(a) | set(b)
                         if n not in flaky and a.get(n) not in ok)
        stable_pass = {n for n in a if a[n] == "passed" and b.get(n) == "passed"}
        deselect = flaky + failing
        res["baseline"] = dict(
            tests=len(set(a) | set(b)), passed_both=len(stable_pass), flaky=flaky,
            failing=failing, collect_errors=sorted(set(runs[0]["collect_errors"]) |
                                                   set(runs[1]["collect_errors"])),
            wall_s=[runs[0]["wall_s"], runs[1]["wall_s"]],
            summary=[runs[0]["summary"], runs[1]["summary"]])
        res["baseline_timeout"] = any(r["timed_out"] for r in runs)

    cands = enumerate_candidates(root, spec["packages"])
    res["candidates_total"] = len(cands)
    if args.only:
        cands = [c for c in cands if c["qualname"] in args.only]
    if args.skip_judged:
        judged = judged_qualnames(name, args.skip_judged)
        res["skipped_judged"] = sum(1 for c in cands if c["qualname"] in judged)
        cands = [c for c in cands if c["qualname"] not in judged]
    if args.shard:
        k, n = args.shard
        cands = cands[k - 1::n]
        res["shard"] = f"{k}/{n}"
    if args.limit and len(cands) > args.limit:
        # an even, deterministic spread over the sorted list (not just the first modules)
        step = len(cands) / args.limit
        cands = [cands[int((i + args.offset) * step)] for i in range(args.limit)]
    log(f"   {res['candidates_total']} candidates" + (f", running {len(cands)}" if len(cands) != res["candidates_total"] else ""))
    if args.trace:
        before = tree_hash(pristine)
        tr = run_traced(cands, pristine, work / "out-trace", spec, lib, work, args)
        tr["input_unchanged"] = before == tree_hash(pristine)
        found = sum(len(v["found_at_run_time"]) for v in tr["per_class"].values())
        log(f"   --trace: rc {tr['rc']}, {tr['wall_s']} s, {(tr.get('trace') or {}).get('accesses')} "
            f"accesses, {found} found only at run time"
            + (" TRACEBACK" if tr["traceback"] else "")
            + ("" if tr["input_unchanged"] else " INPUT CHANGED"))
        res["traced"] = tr
        res["candidates"] = []
        res["wall_s"] = round(time.monotonic() - t_lib, 1)
        return res
    before_all = tree_hash(pristine)
    out_base = work / "out"
    out_base.mkdir(exist_ok=True)
    recs = []
    for i, cand in enumerate(cands, 1):
        before = before_all
        out = out_base / cand["qualname"].replace(":", "__")
        rec = dict(cand)
        rec.update(run_decouple(cand, droot, out, args.jobs_timeout))
        after = tree_hash(pristine)
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        rec["input_unchanged"] = not changed
        rec["input_changed_files"] = changed[:50]
        if changed:
            before_all = after
        if rec["patch"]:
            pcopy = work / "patched"
            fresh_copy(pristine, pcopy)
            okp, how = apply_patch(out / "patch.diff", pcopy / res["decouple_root"])
            rec["patch_applied"] = okp
            rec["patch_apply"] = how
            # patched files must equal files/ the tool wrote
            if okp and not args.no_tests:
                r = run_suite(name, spec, lib, pcopy, work, "patched", deselect=deselect,
                              maxfail=args.maxfail, timeout=args.test_timeout)
                new_fail = sorted(n for n, o in r["tests"].items()
                                  if o == "failed" and n in stable_pass)
                base_ce = set(res["baseline"]["collect_errors"])
                new_ce = sorted(n for n in r["collect_errors"] if n not in base_ce)
                rec["tests"] = dict(
                    rc=r["rc"], wall_s=r["wall_s"], ran=len(r["tests"]),
                    import_ok=r["import_ok"], import_error=r["import_error"],
                    timed_out=r["timed_out"], summary=r["summary"],
                    new_failures=new_fail, new_collect_errors=new_ce,
                    not_run=len(stable_pass - set(r["tests"])),
                    failure_details={n: r["errors"].get(n, "")[-1500:] for n in new_fail[:10]},
                    collect_error_details={n: r["collect_errors"][n][-1500:] for n in new_ce[:5]})
                rec["broke_tests"] = bool(new_fail or new_ce or not r["import_ok"]
                                          or r["timed_out"])
                if args.gate:
                    rec["gate"] = run_gate(cand, root, out.with_name(out.name + "-gate"), spec, lib, work, args)
                    rec["gate"]["agrees"] = rec["gate"]["refused"] == rec["broke_tests"]
        rec["patch_lines"] = len(rec["patch"].splitlines()) if rec["patch"] else 0
        recs.append(rec)
        t = rec.get("tests")
        tinfo = ""
        if rec["patch"]:
            tinfo = f" patch {'applied' if rec.get('patch_applied') else 'DID NOT APPLY'}"
            if t:
                tinfo += (f", tests {t['ran']} ran {t['wall_s']} s: "
                          + (f"BROKE {len(t['new_failures'])} + {len(t['new_collect_errors'])} "
                             f"collect" if rec.get("broke_tests") else "ok"))
        if rec.get("gate"):
            g = rec["gate"]
            tinfo += (f"; --test: rc {g['rc']} {'refused' if g['refused'] else 'passed'}"
                      + ("" if g["agrees"] else " DISAGREES"))
        log(f"   [{i}/{len(cands)}] {cand['qualname']} ({cand['parent']}): rc {rec['rc']} "
            f"{rec.get('decision') or '-'} {rec.get('rule') or ''} {rec['wall_s']} s"
            + (" TRACEBACK" if rec["traceback"] else "")
            + ("" if rec["input_unchanged"] else " INPUT CHANGED") + tinfo)
        if getattr(args, "out_dir", None) is not None:
            # after each candidate, so that a run stopped early keeps what it did ("partial")
            part = json.loads(json.dumps(dict(res, candidates=recs, partial=True)))
            (args.out_dir / f"{name}.json").write_text(json.dumps(sanitize(part), indent=1) + "\n")
    res["candidates"] = recs
    res["wall_s"] = round(time.monotonic() - t_lib, 1)
    return res


def judged_qualnames(name: str, paths: list[str]) -> set[str]:
    """The candidates of library NAME that a results JSON already holds: each PATH is a
    ``<lib>.json`` or a folder searched (recursively) for ``NAME.json`` (or ``NAME.json.gz``: the
    older campaigns' folders are stored compressed, so that the working tree fits a device call)."""
    out: set[str] = set()
    for p in map(Path, paths):
        files = [p] if p.is_file() else sorted([*p.rglob(f"{name}.json"), *p.rglob(f"{name}.json.gz")])
        for f in files:
            res = json.loads(gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_text())
            if res.get("library") == name:
                out |= {r["qualname"] for r in res.get("candidates", [])}
    return out


def merge_shards(name: str, dirs: list[str]) -> dict:
    """One ``<lib>.json`` from the shards' (``--shard K/N``), candidates in enumeration order;
    the baseline of every shard is kept (``shard_baselines``), the first one as ``baseline``."""
    parts = [json.loads((Path(d) / f"{name}.json").read_text()) for d in dirs
             if (Path(d) / f"{name}.json").exists()]
    if not parts:
        raise SystemExit(f"--merge: no {name}.json in {', '.join(dirs)}")
    res = dict(parts[0])
    res.pop("shard", None)
    recs = [r for p in parts for r in p.get("candidates", [])]
    recs.sort(key=lambda r: (r["file"], r["line"]))
    res["candidates"] = recs
    res["shards"] = [p.get("shard") for p in parts]
    res["shard_baselines"] = [p.get("baseline") for p in parts]
    res["partial"] = any(p.get("partial") for p in parts)
    if not res["partial"]:
        res.pop("partial", None)
    res["wall_s"] = max((p.get("wall_s") or 0) for p in parts)
    return res


# ---------------------------------------------------------------- summary


def counts(res: dict) -> dict:
    recs = res.get("candidates", [])
    c = dict(candidates=res.get("candidates_total", 0), run=len(recs))
    for d in ("decouple", "decline", "unsafe"):
        c[d] = sum(1 for r in recs if r.get("decision") == d)
    c["other"] = c["run"] - c["decouple"] - c["decline"] - c["unsafe"]
    c["tracebacks"] = sum(1 for r in recs if r.get("traceback"))
    c["timeouts"] = sum(1 for r in recs if r.get("timed_out"))
    c["input_changed"] = sum(1 for r in recs if not r.get("input_unchanged", True))
    c["patches"] = sum(1 for r in recs if r.get("patch") or r.get("has_patch"))
    c["not_applied"] = sum(1 for r in recs if (r.get("patch") or r.get("has_patch"))
                           and not r.get("patch_applied"))
    c["broke"] = sum(1 for r in recs if r.get("broke_tests"))
    c["decouple_s"] = round(sum(r.get("wall_s", 0) for r in recs), 1)
    return c


def summary_md(results: list[dict]) -> str:
    lines = ["# Real-world campaign", "",
             "decouple versions: " + "; ".join(sorted({f"{r['library']}: {r.get('tool_commit')}"
                                                      for r in results})), "",
             "Generated by `benchmarks/real_world.py`; per-candidate detail in `<lib>.json`.", "",
             "| library | candidates | decouple | decline | unsafe | other | tracebacks | "
             "timeouts | input changed | patches | not applied | broke tests | baseline tests "
             "(stable pass / excluded) | decouple time | total time |",
             "|" + "---|" * 15]
    for res in results:
        if "setup_error" in res:
            lines.append(f"| {res['library']} {res['version']} | setup failed: "
                         f"{res['setup_error'].splitlines()[0][:120]} |" + " |" * 13)
            continue
        c = counts(res)
        b = res.get("baseline", {})
        bt = (f"{b.get('passed_both', '-')} / {len(b.get('flaky', [])) + len(b.get('failing', []))}"
              if b else "-")
        lines.append(f"| {res['library']} {res['version']}" + (" (stopped early)" if res.get("partial") else "")
                     + f" | {c['candidates']}"
                     + (f" ({c['run']} run)" if c['run'] != c['candidates'] else "")
                     + f" | {c['decouple']} | {c['decline']} | {c['unsafe']} | {c['other']} | "
                     f"{c['tracebacks']} | {c['timeouts']} | {c['input_changed']} | {c['patches']} "
                     f"| {c['not_applied']} | {c['broke']} | {bt} | {c['decouple_s']} s | "
                     f"{res.get('wall_s', '-')} s |")
    traced = [r for r in results if r.get("traced")]
    if traced:
        lines += ["", "## Traced runs (`--trace`)", "",
                  "| library | classes | decouple rc | suite exit | accesses | suite untraced | "
                  "suite traced | ratio | found only at run time | input changed | traceback |",
                  "|" + "---|" * 11]
        for res in traced:
            tr = res["traced"]
            t = tr.get("trace") or {}
            u = tr.get("untraced") or {}
            found = {q: v["found_at_run_time"] for q, v in tr["per_class"].items()
                     if v.get("found_at_run_time")}
            ratio = (f"{t['seconds'] / u['seconds']:.2f}x" if u.get("seconds") and t.get("seconds")
                     else "-")
            lines.append(f"| {res['library']} {res['version']} | {len(tr['per_class'])} | {tr['rc']} "
                         f"| {t.get('exit_status', '-')} | {t.get('accesses', '-')} | "
                         f"{u.get('seconds', '-')} s | {t.get('seconds', '-')} s | {ratio} | "
                         f"{sum(len(v) for v in found.values())} ({len(found)} classes) | "
                         f"{'no' if tr.get('input_unchanged') else 'YES'} | "
                         f"{'YES' if tr.get('traceback') else 'no'} |")
        for res in traced:
            for q, v in res["traced"]["per_class"].items():
                for f in v.get("found_at_run_time") or []:
                    lines.append(f"- {res['library']}: `{q}` ({v.get('decision')} {v.get('rule')}): "
                                 f"{f['member']} ({f['kind']}) at {f['file']}:{f['line']}")
    for res in results:
        recs = res.get("candidates", [])
        if not recs:
            continue
        lines += ["", f"## {res['library']} {res['version']}", ""]
        rules: dict = {}
        for r in recs:
            rules.setdefault((r.get("decision") or f"rc {r['rc']}", r.get("rule") or ""), 0)
            rules[(r.get("decision") or f"rc {r['rc']}", r.get("rule") or "")] += 1
        lines.append("By rule: " + ", ".join(f"{d} {ru}: {n}" for (d, ru), n in
                                             sorted(rules.items(), key=lambda x: -x[1])))
        lines += ["", "| class | parent | decision | rule | init kept/total | dropped side "
                  "effects | tests |", "|---|---|---|---|---|---|---|"]
        for r in recs:
            if r.get("decision") != "decouple" and not r.get("traceback") and r["rc"] != 3:
                continue
            ir = r.get("init_reuse") or {}
            dse = "; ".join(_short(x) for x in (r.get("dropped_side_effects") or []))[:300]
            t = r.get("tests")
            ts = "-"
            if t:
                ts = ("BROKE: " + ", ".join(t["new_failures"][:5] + t["new_collect_errors"][:3])
                      if r.get("broke_tests") else f"ok ({t['ran']} ran)")
                if r.get("broke_tests") and not t["import_ok"]:
                    ts += " (import failed)"
            elif (r.get("patch") or r.get("has_patch")) and not r.get("patch_applied"):
                ts = "patch did not apply"
            lines.append(f"| `{r['qualname']}` | `{r['parent']}` | {r.get('decision') or 'rc ' + str(r['rc'])}"
                         + (" TRACEBACK" if r.get("traceback") else "")
                         + f" | {r.get('rule') or ''} | {ir.get('statements_kept', '-')}/"
                         f"{ir.get('statements_total', '-')} | {dse or '-'} | {ts} |")
    return "\n".join(lines) + "\n"


def _short(x) -> str:
    if isinstance(x, dict):
        return str(x.get("statement") or x.get("what") or x.get("effect") or
                   json.dumps(x, sort_keys=True))
    return str(x)


def sanitize(res: dict) -> dict:
    """No library code in the results: the patch text and the test tracebacks (which quote the
    library's source) stay in the work dir; the JSON keeps their digests and the error lines."""
    for r in res.get("candidates", []):
        p = r.pop("patch", None)
        if p:
            r["patch_sha256"] = hashlib.sha256(p.encode()).hexdigest()
            r["patch_files"] = sorted({ln[6:] for ln in p.splitlines() if ln.startswith("+++ b/")})
            r["patch_added"] = sum(1 for ln in p.splitlines()
                                   if ln.startswith("+") and not ln.startswith("+++"))
            r["patch_removed"] = sum(1 for ln in p.splitlines()
                                     if ln.startswith("-") and not ln.startswith("---"))
        r["has_patch"] = bool(p) or bool(r.get("has_patch"))
        # A side effect's "code" is the library's source line: keep where it is and why, not the line.
        for effect in r.get("dropped_side_effects") or []:
            if isinstance(effect, dict):
                effect.pop("code", None)
        t = r.get("tests")
        if t:
            for k in ("failure_details", "collect_error_details"):
                t[k] = {n: [ln for ln in v.splitlines() if ln.startswith("E ")][-6:]
                        if isinstance(v, str) else v for n, v in t.get(k, {}).items()}
    return res


def main(argv=None) -> int:
    global DECOUPLE, TOOL_COMMIT, EXTRA, TOOL_CWD
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("libs", nargs="*", help="libraries of the pinned table")
    ap.add_argument("--jobs-timeout", type=int, default=120,
                    help="timeout of one decouple run, seconds (default 120)")
    ap.add_argument("--test-timeout", type=int, default=300,
                    help="timeout of one test-suite run on a patched copy (default 300)")
    ap.add_argument("--baseline-timeout", type=int, default=900)
    ap.add_argument("--maxfail", type=int, default=10,
                    help="stop a patched suite after N failures (default 10)")
    ap.add_argument("--limit", type=int, default=0, help="at most N candidates per library, evenly spread over the sorted list")
    ap.add_argument("--offset", type=float, default=0.0,
                    help="with --limit: start the spread this fraction of a step in (0 <= F < 1); "
                         "--limit 30 --offset 0.5 runs 30 other candidates than --limit 30")
    ap.add_argument("--out", default="", help=f"results dir (default {DEFAULT_OUT.relative_to(REPO)})")
    ap.add_argument("--work", default=str(DEFAULT_WORK), help="work dir (outside the repo)")
    ap.add_argument("--decouple", default="",
                    help="a decouple executable to use as is (default: a snapshot of this "
                         "checkout's codemod/, taken at start, run with --python)")
    ap.add_argument("--python", default=_default_python(),
                    help="a Python with decouple's dependencies (libcst, pyflakes, platformdirs)")
    ap.add_argument("--no-tests", action="store_true", help="skip every test-suite run")
    ap.add_argument("--gate", action="store_true",
                    help="also run each patched candidate with decouple --test (the library's suite as CMD) "
                         "and record whether its verdict agrees with the campaign's (gate.agrees)")
    ap.add_argument("--trace", action="store_true",
                    help="instead of the patches: one decouple run on all the candidates (after "
                         "--only, --limit) with --analyse-only --trace CMD, CMD the library's "
                         "suite; records each class's found_at_run_time (the members the static "
                         "analysis would drop and the suite read) in <lib>.json's traced "
                         "(default --out: benchmarks/results/real-world-trace)")
    ap.add_argument("--only", action="append", default=[], metavar="MOD:NAME",
                    help="run only these candidates (repeatable)")
    ap.add_argument("--skip-judged", action="append", default=[], metavar="PATH",
                    help="leave out the candidates already in a results JSON: PATH is a <lib>.json "
                         "or a folder searched recursively for <lib>.json (repeatable)")
    ap.add_argument("--shard", default="", metavar="K/N",
                    help="run only every N-th candidate from the K-th on (1 <= K <= N), after "
                         "--only, --skip-judged and before --limit; N campaigns with K = 1..N and "
                         "one --work run side by side (shared sdist and venv: set it up first, "
                         "e.g. with --no-tests), each with its own --out")
    ap.add_argument("--merge", action="append", default=[], metavar="DIR",
                    help="write <lib>.json in --out from the shards' DIR/<lib>.json (repeatable), "
                         "then the summary; runs nothing")
    ap.add_argument("--summary-only", action="store_true",
                    help="only rebuild summary.md from the JSON files in --out")
    ap.add_argument("--root-with-tests", action="store_true",
                    help="run decouple on the whole sdist (its tests included) instead of the "
                         "library's root (src/): a public attribute that only the tests read is "
                         "then a use; for the libraries whose root is '.' it changes nothing")
    ap.add_argument("--plain-gain", action="store_true",
                    help="with --stress: also decouple where the only gain is plain assignments (more patches to judge)")
    ap.add_argument("--list", action="store_true", help="print the pinned table")
    ap.add_argument("--stress", action="store_true",
                    help=f"run decouple with {' '.join(STRESS)}: the classes declined only for too "
                         "little gain (DC504, DC505) are patched too, so that the libraries' own "
                         "tests judge the analysis on many more classes (default --out: "
                         "benchmarks/results/real-world-stress)")
    args = ap.parse_args(argv)
    if args.shard:
        k, _, n = args.shard.partition("/")
        args.shard = (int(k), int(n))
        if not 1 <= args.shard[0] <= args.shard[1]:
            ap.error("--shard K/N needs 1 <= K <= N")
    if args.list:
        for n, s in LIBS.items():
            print(f"{n}=={s['version']}  root={s['root']}  tests: {' '.join(s['pytest'])}")
        return 0
    cp = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                        capture_output=True, text=True)
    # RW_TOOL_COMMIT: where the checkout is a copy without .git (another machine)
    TOOL_COMMIT = cp.stdout.strip() or os.environ.get("RW_TOOL_COMMIT", "unknown")
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "codemod"],
                           capture_output=True, text=True).stdout.strip()
    if args.decouple:
        DECOUPLE = [args.decouple]
        TOOL_COMMIT += " (--decouple " + args.decouple + ")"
    else:
        # Snapshot codemod/ now: the working tree may change while the campaign runs, and
        # every candidate must see the same tool. Run it from the snapshot with this Python.
        h = hashlib.sha256()
        for f in sorted((REPO / "codemod").rglob("*.py")):
            h.update(str(f.relative_to(REPO)).encode() + b"\0" + f.read_bytes())
        digest = h.hexdigest()[:12]
        snap = Path(args.work).resolve() / "_tool" / digest
        if not (snap / "codemod" / "__init__.py").exists():
            # a folder of this process's own, renamed into place: two campaigns starting
            # together must not copy into the same folder
            tmp = snap.with_name(f"{digest}.tmp{os.getpid()}")
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.copytree(REPO / "codemod", tmp / "codemod",
                            ignore=shutil.ignore_patterns("__pycache__"))
            shutil.rmtree(snap, ignore_errors=True)
            try:
                tmp.rename(snap)
            except OSError:  # the other campaign was first: its copy is the same
                shutil.rmtree(tmp, ignore_errors=True)
        DECOUPLE = ["env", f"PYTHONPATH={snap}", args.python, "-m", "codemod"]
        TOOL_CWD = snap
        TOOL_COMMIT += (f"+uncommitted codemod changes (snapshot {digest})" if dirty
                        else f" (codemod {digest})")
    if args.stress:
        EXTRA = list(STRESS) + (["--plain-gain"] if args.plain_gain else [])
        TOOL_COMMIT += " " + " ".join(EXTRA)
    log(f"decouple: {TOOL_COMMIT}")
    out = (Path(args.out) if args.out else DEFAULT_OUT.with_name("real-world-trace") if args.trace
           else DEFAULT_OUT.with_name("real-world-stress") if args.stress else DEFAULT_OUT)
    out.mkdir(parents=True, exist_ok=True)
    args.out_dir = out
    for n in args.libs:
        if n not in LIBS:
            ap.error(f"unknown library {n!r}; pinned: {', '.join(LIBS)}")
    for n in args.libs:
        if args.merge:
            res = merge_shards(n, args.merge)
            (out / f"{n}.json").write_text(json.dumps(sanitize(res), indent=1) + "\n")
            log(f"== {n}: merged {len(res['shards'])} shards: {counts(res)}")
            continue
        if args.summary_only:
            break
        res = campaign(n, args)
        (out / f"{n}.json").write_text(json.dumps(sanitize(res), indent=1, sort_keys=False) + "\n")
        c = counts(res) if "setup_error" not in res else {}
        log(f"== {n}: {c or res['setup_error'].splitlines()[0]}")
    results = []
    for f in sorted(out.glob("*.json")):
        try:
            res = json.loads(f.read_text())
        except ValueError:
            continue
        if any("patch" in r for r in res.get("candidates", [])):
            f.write_text(json.dumps(sanitize(res), indent=1) + "\n")
        results.append(res)
    (out / "summary.md").write_text(summary_md(results))
    log(f"wrote {out / 'summary.md'}")
    return 0


def _default_python() -> str:
    exe = shutil.which("decouple")
    if exe:  # the interpreter of the installed entry point has the dependencies
        first = Path(exe).read_text(errors="replace").splitlines()[0]
        if first.startswith("#!"):
            return first[2:].strip()
    return "/tmp/rw-tool/bin/python" if Path("/tmp/rw-tool/bin/python").exists() else sys.executable


DECOUPLE: list[str] = ["decouple"]
TOOL_CWD: Path | None = None  # the snapshot's folder, where decouple runs (None: --decouple)
TOOL_COMMIT = "unknown"
STRESS = ("--max-copied-share", "1", "--any-gain")
EXTRA: list[str] = []  # STRESS under --stress

if __name__ == "__main__":
    sys.exit(main())
