"""Command line: ``decouple [ROOT | --sglang [VERSION]] [--class NAME ...] [--output DIR]``, and its
``scan`` and ``verify`` subcommands.

Exit codes follow ruff and black: 0 done (or nothing to change), 1 ``--check``
found classes that still need the refactor, 2 bad usage or input (one line on
stderr, no traceback), 3 refused as unsafe (the report says why; no patch).
"""

from __future__ import annotations

import argparse
import gc
import os
import signal
import sys
from pathlib import Path

from .version import __version__
from .console import display_path
from .discover import DEFAULT_CLASSES, DEFAULT_PACKAGE, DEFAULT_VERSION
from .errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, DecoupleError, NothingSelected
from .interrupt import end_workers, ignoring_ctrl_c

HELP = f"""\
Decouple a class from a heavyweight parent: find which members of the parent the
class and the rest of the checkout really use (with file:line evidence), inline
only those, reparent the class onto the parent's own base, and fix the imports.

With no ROOT, ROOT is the project of the working folder: the nearest folder from there up whose
pyproject.toml has a [tool.decouple] table (as ruff finds its settings), else the nearest with a
pyproject.toml, setup.cfg, setup.py or .git. A run needs --class, --parent, or the table's classes
or parent (the pre-commit hook passes --if-configured: with none, it checks nothing and exits 0).
--sglang [VERSION] runs on that {DEFAULT_PACKAGE} release from PyPI instead (default {DEFAULT_VERSION};
downloaded once, cached), on {', '.join(DEFAULT_CLASSES)}
unless --class or --parent names others. The report goes to .decouple/ at ROOT (for --sglang, in
the working folder), which keeps itself out of git.

ROOT's pyproject.toml may hold the defaults, so that CI can run `decouple ROOT --check` alone:
  [tool.decouple]
  classes = ["Name", "package.module:Name"]   # --class
  parent = "Name"                             # --parent
  base = "Name"                               # --base
  max-copied-share = 0.5                      # --max-copied-share
  plain-gain = false                          # --plain-gain
  any-gain = false                            # --any-gain
  test = "python -m pytest -q tests"          # --test (not for --check or --diff)
  test-timeout = 1200                         # --test-timeout
  trace = "python -m pytest -q tests"         # --trace
The command line wins: --class or --parent replaces both classes and parent, any other option
its own key.

`decouple scan [ROOT | --sglang [VERSION]]` lists the classes of a tree that pay for parent work they do not use,
ranked by what they would save (see `decouple scan --help`). A ROOT folder literally named
`scan` or `verify` is given with a path (`decouple ./scan`): the bare word names the command.

`decouple verify --output DIR` then runs SGLang's attention kit on the original and the
patched sources on a CUDA GPU (see `decouple verify --help`).
"""


def add_tree_arguments(p: argparse.ArgumentParser, root_help: str) -> None:
    """ROOT and --sglang, the two ways to name the tree, as ``decouple`` and ``decouple scan`` take them."""
    p.add_argument("root", nargs="?", metavar="ROOT", help=root_help)
    p.add_argument("--sglang", nargs="?", const=DEFAULT_VERSION, metavar="VERSION",
                   help=f"work on this {DEFAULT_PACKAGE} release from PyPI (default {DEFAULT_VERSION}), downloaded once "
                        "into the user cache directory, instead of ROOT")


class MainParser(argparse.ArgumentParser):
    """``decouple``'s parser, whose usage also shows the subcommands' usage; built only when
    printed, since building those parsers would cost every run 15 ms."""

    def _add_commands(self) -> None:
        if self.usage is None:
            lines = [argparse.ArgumentParser.format_usage(self)]
            lines += [build().format_usage() for build in (build_scan_parser, build_verify_parser)]
            self.usage = "".join(lines).replace("usage: ", " " * len("usage: "))[len("usage: "):].rstrip()

    def format_usage(self) -> str:
        self._add_commands()
        return super().format_usage()

    def format_help(self) -> str:
        self._add_commands()
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    p = MainParser(
        prog="decouple", description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="exit codes: 0 done (or nothing to change), 1 --check found changes, 2 bad usage or input, "
               "3 refused as unsafe (report.json says why; no patch is written)",
    )
    add_tree_arguments(p, "a source tree: a git checkout (packages under python/ or src/), an unpacked wheel, or "
                          "site-packages. Default: the project of the working folder (the nearest folder up with "
                          "[tool.decouple] in its pyproject.toml, else with a pyproject.toml, setup.cfg, setup.py or .git)")
    p.add_argument("--class", dest="classes", action="append", metavar="NAME", default=[],
                   help="class to decouple: Name, package.module:Name or package.module.Name (repeatable); a name not found is an error "
                        "that suggests the closest class names of the tree")
    p.add_argument("--parent", metavar="NAME",
                   help="the parent to decouple from, a direct base of each --class (if not: exit 2, unless the tool's "
                        "marker, or with --no-markers its absence from the MRO, says the class was decoupled from it); "
                        "without --class, selects every subclass of it in the tree")
    p.add_argument("--base", metavar="NAME", help="the new base (default: the parent's first base, or object)")
    p.add_argument("--output", "-o", metavar="DIR",
                   help="where report.json, report.md, patch.diff and files/ go (default: .decouple/ at ROOT, for --sglang in "
                        "the working folder, with a .gitignore of its own; a folder that holds the project's sources is "
                        "refused; the run ends with a line on stdout saying what it wrote); '-' prints report.json on "
                        "stdout and writes nothing else")
    p.add_argument("--diff", action="store_true", help="print the unified diff and write nothing (with --check: also the diff)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; print what would change and why, one line each on stdout (the other classes' "
                        "verdicts go to stderr); exit 1 if a selected class still needs the refactor, 0 if not (for CI)")
    p.add_argument("--write", action="store_true",
                   help="apply the patch in place under ROOT, each file atomically; refuses a file it would write that "
                        "has uncommitted git changes (see --force); with nothing left to decouple, writes nothing")
    p.add_argument("--force", action="store_true", help="with --write: also overwrite files with uncommitted git changes")
    p.add_argument("--hook", action="store_true",
                   help="instead of decoupling: add a factory method to the parent for each object the parent's __init__ "
                        "builds that the --class replaces before any read (DC408), override it in the class (and its "
                        "subclasses that replace it too), and drop the replacement; prints the diff (--write applies it, "
                        "--check exits 1 if there is one), and on stderr what no longer runs and what stays")
    p.add_argument("--no-parent-edit", action="store_true",
                   help="with --hook: leave the parent's file as it is (a dependency, vendored code): the class's "
                        "__init__ runs the parent's inlined instead of calling it, storing its own objects in place of "
                        "the ones it replaced (DC618); the report counts the lines copied")
    p.add_argument("--analyse-only", action="store_true", help="write the report only, no patch")
    p.add_argument("--emit-tests", action="store_true",
                   help="also add a test file to the target tree (beside its own tests) that pins the result: "
                        "the bases, no parent-only objects built, every kept member still defined (for SGLang's "
                        "TRTLLM MHA backends: a CUDA test on SGLang's attention kit, under test/registered/attention/)")
    p.add_argument("--issue", metavar="URL", default=None,
                   help="the issue the change answers: report.md links it (as issue = \"URL\" in [tool.decouple])")
    p.add_argument("--all-uses", action="store_true",
                   help="list every use elsewhere in the tree of each kept member as evidence, not only the first "
                        "found (slower; the kept members are the same)")
    p.add_argument("--no-outside-uses", dest="outside_uses", action="store_false", default=None,
                   help="when ROOT is the source folder of a larger project (src/ beside tests/), do not search the "
                        "project's other Python files (tests, examples, docs) for uses of the parent's members (DC115); "
                        "by default a use there keeps the member")
    p.add_argument("--keep", choices=("possible", "proven"), default=None,
                   help="possible (the default): keep every parent member whose use cannot be ruled out; proven: keep "
                        "a member only on a use shown on an instance of the class, and list each use on an object of "
                        "unknown type in report.md under 'Assumptions to review' (or keep = \"proven\" in [tool.decouple])")
    p.add_argument("--assume-unused", action="append", metavar="CLASS.MEMBER",
                   help="drop this member even though uses on objects of unknown type could not be ruled out; shown "
                        "as an assumption in the report (repeatable; an error when the member has a shown use)")
    p.add_argument("--no-cache", action="store_true",
                   help="do not reuse or store results in the user cache directory (a warm --check reuses the last "
                        "run's result while no file that the run read, and no file mentioning the names it looked for, changed)")
    p.add_argument("--max-copied-share", type=float, metavar="SHARE",
                   help="decline when the parent's methods the class needs copied exceed this share of the parent's "
                        "method lines (default 0.5; rule DC504)")
    p.add_argument("--plain-gain", action="store_true",
                   help="decouple even when the parent's __init__ work the class would skip is only plain assignments "
                        "(by default that declines: rule DC505)")
    p.add_argument("--any-gain", action="store_true",
                   help="decouple even when the class skips none of the parent's __init__ work: it still sheds the "
                        "parent's members it does not use (a design change, not a saving; implies --plain-gain; rule DC505)")
    p.add_argument("--markers", action=argparse.BooleanOptionalAction, default=None,
                   help="--no-markers: write no '# decouple: ...' comments in the patch (a second run with --parent and "
                        "--no-markers still finds nothing to do); the default for --sglang, whose patch is a pull request "
                        "(or markers = false in [tool.decouple])")
    p.add_argument("--if-configured", action="store_true",
                   help="with no class selected (no --class or --parent, and no classes or parent in [tool.decouple]), "
                        "or outside any project, say so in one line and exit 0 instead of 2 (the pre-commit hook "
                        "passes it, so that a project without the table is not checked)")
    p.add_argument("--test", metavar="CMD",
                   help="judge the patch by the project's own tests: run the shell command CMD in the root of a "
                        "throw-away copy of ROOT, twice unpatched (a test whose outcome differs is flaky: reported, "
                        "not evidence), then patched; a test that passed before and fails or no longer runs after refuses the run "
                        "(exit 3, nothing written, rule DC512). With --check or --diff only CMD given here runs, never "
                        "test = ... of [tool.decouple]. pytest (CMD starting with pytest or python -m pytest) "
                        "is judged test by test, any other command by its exit status; a command that fails before "
                        "the patch with no per-test outcomes, or with no test passing, is exit 2. ROOT is never touched")
    p.add_argument("--trace", metavar="CMD",
                   help="before the analysis decides, run the shell command CMD once in a throw-away copy of ROOT with "
                        "each analysed class instrumented, and keep every parent member it reads on an instance of the "
                        "class that the static analysis would drop (rule DC120; report.md lists them under 'Found only "
                        "at run time'). A failing CMD still counts, and the report says so. Only code touching instances "
                        "of the class pays: sqlparse's suite runs 1.17x its time with TokenList traced, a loop doing "
                        "nothing but read attributes of an instance up to 15x. ROOT is never touched")
    p.add_argument("--test-timeout", type=float, metavar="SECONDS",
                   help="with --test: the limit of each run of CMD (default 1200, 20 minutes); also --trace's")
    p.add_argument("--keep-test-copies", action="store_true",
                   help="with --test: keep the copies of ROOT the tests ran in (their folder is named on stderr)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the diff: auto (the default) when stdout is a terminal and NO_COLOR is not set")
    p.add_argument("--format", choices=("text", "github"), default="text",
                   help="with --check: text prints file:line: message; github prints GitHub Actions "
                        "::warning annotations, which show on the pull request's lines")
    p.add_argument("--version", action="version", version=f"decouple {__version__}")
    return p


def build_verify_parser() -> argparse.ArgumentParser:
    from .gpu.verify import add_arguments

    p = argparse.ArgumentParser(
        prog="decouple verify",
        description="Run SGLang's own attention kit on the original and the patched sources on a CUDA GPU, "
                    "each in a fresh process, and compare outputs, GPU and pinned host memory (the first construction "
                    "in a process, each later one, one EAGLE process's backends) and latency; then run the SGLang "
                    "test that --emit-tests writes on both sides. Writes DIR/verify.json (with the patch's sha256) "
                    "and DIR/report.md. Needs a previous `decouple --output DIR` run.",
    )
    add_arguments(p)
    return p


SCAN_HELP = """\
Find every class of ROOT whose parent (any ancestor with an __init__ in the tree, along first
bases) does construction work the class does not use, ranked by what an instance would stop
paying: statements of that __init__ skipped, objects built, allocations (with their size where
the source states it), loops, calls. A cheap pass covers the whole tree; the full analysis of a
normal run (its verdict: decouple, decline with its reason, unsafe) runs on the --top N and on
every class at or above --min-saving. Progress goes to stderr, the table to stdout.

ROOT is found as for `decouple`: with none given, the project of the working folder (the
nearest folder up with [tool.decouple] in its pyproject.toml, else with a pyproject.toml,
setup.cfg, setup.py or .git); --sglang [VERSION] scans that SGLang release instead. A ROOT folder literally named `scan` or
`verify` is given with a path: `decouple ./scan`, `decouple scan ./scan`.

--check (for CI) exits 1 when a class the scan would decouple is not in ROOT's allow list:
  [tool.decouple]
  scan-ignore = ["Name", "package.module:Name"]
"""


def build_scan_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="decouple scan", description=SCAN_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="exit codes: 0 done (with --check: nothing new to decouple), 1 --check found a class to decouple "
               "that scan-ignore does not list, 2 bad usage or input",
    )
    add_tree_arguments(p, "the source tree (default: the project of the working folder, as for decouple)")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                   help="text: a table for a terminal; markdown: for an issue or a pull request; json: a list of rows")
    p.add_argument("--top", type=int, default=5, metavar="N",
                   help="run the full analysis on the N classes of highest score (default 5); the table lists those")
    p.add_argument("--min-saving", type=int, metavar="POINTS",
                   help="also run it on every class whose saving is at least POINTS (docs/scan.md says how it is counted)")
    p.add_argument("--check", action="store_true",
                   help="print one line per class the scan would decouple that scan-ignore does not list; exit 1 if any")
    p.add_argument("--replaced", action="store_true",
                   help="list instead the classes whose __init__ replaces objects their parent's __init__ built "
                        "(built then replaced, DC408), the first N by what the thrown-away objects cost, each with a "
                        "verdict on a factory hook; no full analysis runs")
    p.add_argument("--no-cache", action="store_true", help="do not reuse or store results in the user cache directory")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = argv[0] if argv and argv[0] in ("verify", "scan") else None
    try:
        parser = {"verify": build_verify_parser, "scan": build_scan_parser}.get(command, build_parser)()
        args = parser.parse_args(argv[1:] if command else argv)
        if command == "verify":
            from .gpu.verify import run_verify

            return run_verify(args.root, Path(args.output), args)
        # A run builds hundreds of thousands of long-lived AST nodes and frees them only at
        # exit: the cycle collector would rescan them over and over (it doubled the run time)
        # while finding nothing to free, so this short-lived process goes without it.
        gc.disable()
        if command == "scan":
            from .scan.report import run_scan

            return run_scan(args)
        return run(args)
    except DecoupleError as exc:
        print(f"decouple: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt as exc:
        return interrupted(exc)
    except OSError as exc:
        where = f" {display_path(Path(exc.filename))}" if exc.filename else ""
        print(f"decouple: error: cannot use{where}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # a bug of ours: still one line, with a way to see more
        if isinstance(exc.__cause__, KeyboardInterrupt):  # Ctrl-C that Python wrapped (in a class's __set_name__)
            return interrupted(exc.__cause__)
        if os.environ.get("DECOUPLE_DEBUG"):
            raise
        print(f"decouple: internal error: {type(exc).__name__}: {exc} (set DECOUPLE_DEBUG=1 for the traceback)", file=sys.stderr)
        return EXIT_USAGE


def run(args) -> int:
    from .options import Options
    from .session import Session

    if args.hook:
        from .factory_hook.run import run_hook

        return run_hook(args)
    if args.no_parent_edit:
        from .errors import UsageError

        raise UsageError("--no-parent-edit applies to --hook only")
    try:
        options = Options.from_args(args)
    except NothingSelected as exc:
        if not args.if_configured:
            raise
        print(f"decouple: nothing checked: {exc.note}", file=sys.stderr)
        return EXIT_OK
    session = Session(options)  # before the pipeline's imports: it may start the word index
    from .pipeline import run_pipeline

    return run_pipeline(session)


def interrupted(exc: KeyboardInterrupt) -> int:
    """Ctrl-C: the workers end, and one line says so (and which files ``--write`` wrote)."""
    with ignoring_ctrl_c():  # a second Ctrl-C while the run stops says nothing more
        end_workers()
        print(f"decouple: interrupted{' ' if str(exc) else ''}{exc}", file=sys.stderr)
    return EXIT_INTERRUPTED


def entry() -> None:  # pragma: no cover - the console script
    """Run ``main`` and leave without tearing down the interpreter.

    Freeing a run's several hundred thousand AST nodes one by one at exit took a quarter of
    a whole run; every output is written and closed by then, so only the streams need a flush.
    """
    try:
        code = main()
    except KeyboardInterrupt as exc:  # a second Ctrl-C before the first was acted on
        code = interrupted(exc)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the run is over: nothing left to stop
    # A run that ended early (a usage error once the word index's workers had started) leaves
    # workers that nobody joins, and os._exit does not end daemonic children as exit does.
    end_workers()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a closed pipe (decouple ... | head): nothing more can be said
        pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()
