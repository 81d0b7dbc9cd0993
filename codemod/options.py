"""The run's options: built once from the command line, frozen, read by every stage and the cache key."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from . import config
from .console import display_path, use_colour
from .discover import DEFAULT_CLASSES, DEFAULT_PACKAGE, DEFAULT_VERSION, Tree
from .errors import NothingSelected, UsageError
from .fileio import OUTPUT_MARKER, OWN_OUTPUT
from .model import Knowledge

_CLASS_MEMBER = config.CLASS_MEMBER

STDOUT = "-"  # --output -: report.json on stdout, nothing written


@dataclass(frozen=True)
class Options:
    root: str | None = None  # None: the SGLang release ``release`` (--sglang)
    release: str = DEFAULT_VERSION
    classes: tuple[str, ...] = ()
    parent: str | None = None
    base: str | None = None
    output: Path | None = None  # None: write no output folder
    output_ignored: bool = False  # the default output folder: it gets a .gitignore of "*"
    report_to_stdout: bool = False  # --output -
    diff: bool = False
    check: bool = False
    write: bool = False
    force: bool = False
    analyse_only: bool = False
    emit_tests: bool = False
    all_uses: bool = False
    outside_uses: bool = True  # DC115: the project's files outside ROOT are searched for uses (--no-outside-uses)
    keep: str = "possible"  # "proven": keep members only on uses shown on an instance (--keep)
    assume_unused: tuple[str, ...] = ()  # "Class.member" the user states nothing reads (--assume-unused)
    no_cache: bool = False
    max_copied_share: float = 0.5  # DC504: decline above this share of the parent's method lines
    plain_gain: bool = False  # DC505: decouple even when only plain assignments would be skipped
    any_gain: bool = False  # DC505: decouple even when nothing of the parent's __init__ would be skipped
    markers: bool = True  # the tool's "# decouple: ..." comments in the patch (--no-markers)
    colour: bool = False  # colour the diff (--color, resolved against the terminal and NO_COLOR)
    check_format: str = "text"  # how --check prints its findings: text or github
    test: str | None = None  # --test CMD: the project's tests judge the patch (codemod/gate.py)
    test_timeout: float = 20 * 60  # seconds, each run of CMD
    keep_test_copies: bool = False
    trace: str | None = None  # --trace CMD: the project's tests, traced, add the reads they make (DC120)
    issue: str | None = None  # --issue URL: the issue report.md links (not part of the cached result)
    returned: bool = False  # the Python API: the caller receives the patch and the report (codemod/api.py)
    progress: bool = True  # the progress line on a terminal (off in the scan's workers: the scan has its own)

    @classmethod
    def from_args(cls, args) -> "Options":
        """From the parsed command line over ROOT's ``[tool.decouple]``; a combination that
        makes no sense is a usage error."""
        if args.force and not args.write:
            raise UsageError("--force only applies to --write")
        if args.write and (args.diff or args.check):
            raise UsageError("--write cannot be combined with --diff or --check")
        if args.format != "text" and not args.check:
            raise UsageError(f"--format {args.format} only applies to --check")
        to_stdout = args.output == STDOUT
        if to_stdout and (args.diff or args.check):
            raise UsageError("--output - prints report.json on stdout, where --diff and --check print; give a folder")
        root, file = config.settle(args.root, args.sglang, DEFAULT_PACKAGE, DEFAULT_VERSION)
        # The selection is one thing: --class or --parent on the command line replaces the file's
        # classes and parent together, so that --parent alone still means "every subclass".
        if args.classes or args.parent:
            classes, parent = tuple(args.classes), args.parent
        else:
            classes, parent = tuple(file.get("classes", ())), file.get("parent")
        if not classes and not parent:
            if root is not None:  # the SGLang classes are the default of the SGLang release only
                shown = display_path(Path(root))
                raise NothingSelected(f"nothing to decouple in {shown}: pass --class NAME or --parent NAME, "
                                      "or list them in its pyproject.toml ([tool.decouple] classes = [...])",
                                      f"no class selected in {shown} (no --class or --parent, and no classes "
                                      "or parent in [tool.decouple] of its pyproject.toml)")
            classes = DEFAULT_CLASSES
        # --check and --diff stay static, as a pre-commit hook or a CI check expects: the table's
        # tests judge only a run that writes (--write, --output), the command line's any run.
        static = args.check or args.diff or args.analyse_only
        test = args.test if args.test is not None else (None if static else file.get("test"))
        timeout = args.test_timeout if args.test_timeout is not None else file.get("test-timeout", 20 * 60)
        if test is not None and not test.strip():
            raise UsageError("--test takes a shell command, such as 'python -m pytest -q tests'")
        trace = args.trace if args.trace is not None else file.get("trace")
        if trace is not None and not trace.strip():
            raise UsageError("--trace takes a shell command, such as 'python -m pytest -q tests'")
        if test is None and args.keep_test_copies:
            raise UsageError("--keep-test-copies only applies to --test")
        if test is None and trace is None and args.test_timeout is not None:
            raise UsageError("--test-timeout only applies to --test or --trace")
        if test is not None and args.analyse_only:
            raise UsageError("--test judges a patch, and --analyse-only makes none")
        share = args.max_copied_share if args.max_copied_share is not None else file.get("max-copied-share", 0.5)
        keep = args.keep or file.get("keep", "possible")
        assume_unused = tuple(dict.fromkeys(list(file.get("assume-unused", ())) + list(args.assume_unused or ())))
        check_values(timeout, share, keep, assume_unused, classes)
        # A patch of a release (--sglang) is a pull request for its maintainers: no marker of
        # this tool's belongs in it. A project's own patch keeps them unless its table says not.
        # Not a key of [tool.decouple]: the table is ROOT's, and a ROOT holding a pyproject.toml is a
        # project of its own, with nothing outside it to read.
        outside = getattr(args, "outside_uses", None) is not False
        markers = args.markers if args.markers is not None else file.get("markers", root is not None)
        quiet = args.check or args.diff or args.write or to_stdout
        output = Path(args.output) if args.output and not to_stdout else None
        if output is not None and root is not None:
            _refuse_source_folder(output, Path(root))
        own = output is None and not quiet
        if own:
            output = (Path(root) if root is not None else Path()) / OWN_OUTPUT
        return cls(
            root=root, release=args.sglang or DEFAULT_VERSION, classes=classes, parent=parent,
            base=args.base or file.get("base"), output=output, output_ignored=own,
            report_to_stdout=to_stdout, diff=args.diff, check=args.check, write=args.write, force=args.force,
            analyse_only=args.analyse_only, emit_tests=args.emit_tests, all_uses=args.all_uses, outside_uses=outside,
            no_cache=args.no_cache, max_copied_share=float(share), plain_gain=args.plain_gain or file.get("plain-gain", False),
            any_gain=args.any_gain or file.get("any-gain", False),
            markers=markers, colour=use_colour(args.color, sys.stdout), check_format=args.format,
            test=test, test_timeout=float(timeout), keep_test_copies=args.keep_test_copies, trace=trace,
            keep=keep, assume_unused=assume_unused, issue=getattr(args, "issue", None) or file.get("issue"),
        )

    @property
    def knowledge(self) -> Knowledge:
        """What the user states and the analysis cannot prove (the report shows it as assumed)."""
        return Knowledge(self.keep == "proven", frozenset(self.assume_unused))

    @property
    def presented(self) -> bool:
        """Whether the run shows or writes the patch or the report: a bare ``--check`` does
        neither, so its patch is only checked, not formatted, and no risk is assessed."""
        return (self.output is not None or self.report_to_stdout or self.diff or self.write or self.emit_tests
                or self.returned)

    def cache_key(self) -> list:
        """What a cached result depends on, beyond the tree and the tool's own code."""
        return [list(self.classes), self.parent, self.base, self.analyse_only, self.emit_tests, self.all_uses,
                self.max_copied_share, self.plain_gain, self.any_gain, self.markers, self.presented, self.test,
                self.keep, self.trace, sorted(self.assume_unused), self.outside_uses]


def _refuse_source_folder(output: Path, root: Path) -> None:
    """An ``--output`` that is ROOT, lies inside it or holds it must not hold the project's
    sources: the run would write report.json and files/ among them. The tool's own folder (it
    holds the marker) is the exception: its files/ are patched copies, never read as source."""
    out, top = output.resolve(), root.resolve()
    if (out / OUTPUT_MARKER).is_file():
        return
    if top.is_relative_to(out) and top != out:
        held = f"ROOT {display_path(root)} lies in it"
    elif out.is_relative_to(top) and out.is_dir():
        files = Tree(out).files
        if not files:
            return
        held = display_path(output / files[0])
    else:
        return
    raise UsageError(f"--output {display_path(output)} holds the project's sources ({held}); give a folder of "
                     f"its own, or leave --output out to write {display_path(root / OWN_OUTPUT)}/")


def check_values(timeout: float, share: float, keep: str, assume_unused: tuple[str, ...], classes: tuple[str, ...]) -> None:
    """The checks of single values, shared by the command line and the Python API (whose
    arguments of the same names are said in the options' words)."""
    if not timeout > 0:
        raise UsageError(f"--test-timeout takes a number of seconds above 0, got {timeout}")
    if not 0 <= share <= 1:
        raise UsageError(f"--max-copied-share takes a number from 0 to 1, got {share}")
    if keep not in ("possible", "proven"):
        raise UsageError(f"--keep takes possible or proven, got {keep!r}")
    for q in assume_unused:
        if not _CLASS_MEMBER.fullmatch(q):
            raise UsageError(f"--assume-unused takes Class.member, got {q!r}")
        if classes and q.partition(".")[0] not in classes:
            raise UsageError(f"--assume-unused {q}: {q.partition('.')[0]} is not a class of this run ({', '.join(classes)})")
