"""The ``--hook`` command: plan, rewrite, show the diff (or ``--write`` it), and say what no
longer runs, what it cost, and why the other subclasses of the parent are unchanged."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path
from types import SimpleNamespace

from ..console import counted
from ..errors import EXIT_CHANGES, EXIT_OK, UsageError
from ..rules import rewrite_factory_hook as dc615
from .edit import rewrite
from .plan import Plan, plan


def run_hook(args) -> int:
    from .. import config
    from ..discover import DEFAULT_PACKAGE, DEFAULT_VERSION, open_tree
    from ..emit import refuse_dirty_files
    from ..fileio import atomic_write
    from ..lookup import lookup
    from ..scan.sketch import SketchIndex, class_statements

    if len(args.classes) != 1:
        raise UsageError("--hook takes one --class")
    other = [flag for flag, given in (("--parent", args.parent), ("--base", args.base),
                                      ("--analyse-only", args.analyse_only), ("--emit-tests", args.emit_tests),
                                      ("--test", args.test), ("--trace", args.trace)) if given]
    if other:
        raise UsageError(f"{other[0]} does not apply to --hook (the parent is the class's first base)")
    if args.write and args.check:
        raise UsageError("--write cannot be combined with --check")
    if args.write and args.sglang is not None:
        raise UsageError("--hook --write with --sglang would change the cached release: give ROOT, a copy of it")
    root, _ = config.settle(args.root, args.sglang, DEFAULT_PACKAGE, DEFAULT_VERSION)
    tree = open_tree(root, args.sglang or DEFAULT_VERSION)
    defined, _ = class_statements(tree)
    index = SketchIndex(tree, dict.fromkeys(defined, True), defined)
    cls = lookup(index, args.classes[0])
    the_plan = plan(index, cls)
    changed = rewrite(the_plan, tree) if the_plan.hooks else {}
    report(the_plan, index)
    diff = "".join(line for rel, (old, new) in sorted(changed.items())
                   for line in difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                                    f"a/{rel}", f"b/{rel}"))
    if args.check:
        print(f"{cls.name}: {counted(len(the_plan.hooks), 'hook')} to add" if changed else f"{cls.name}: nothing to hook")
        return EXIT_CHANGES if changed else EXIT_OK
    if args.output is not None:
        write_folder(Path(args.output), changed, diff)
    if args.write:
        refuse_dirty_files(tree.root, sorted(changed), args.force)
        for rel, (_, new) in sorted(changed.items()):
            atomic_write(tree.root / rel, new.encode())
        print(f"decouple: wrote {counted(len(changed), 'file')}" if changed else "decouple: nothing to write")
        return EXIT_OK
    if args.output is None:
        sys.stdout.write(diff)
    return EXIT_OK


def write_folder(out: Path, changed: dict, diff: str) -> None:
    """``--output DIR``: ``patch.diff`` and ``files/<rel>``, the patched files (as a normal run's folder holds them)."""
    from ..console import display_path
    from ..emit import clear_outputs, write_outputs

    if out.exists() and not out.is_dir():
        raise UsageError(f"cannot write to {display_path(out)}: it is a file; give --output a folder")
    files = [SimpleNamespace(rel=rel, after=new) for rel, (_, new) in sorted(changed.items())]
    try:
        clear_outputs(out)
        write_outputs(out, files, diff)
    except OSError as exc:
        raise UsageError(f"cannot write to {display_path(out)}: {exc.strerror or exc}") from None
    print(f"decouple: wrote {display_path(out / 'patch.diff')}, {display_path(out / 'files')}/" if files
          else f"decouple: nothing to hook: {display_path(out / 'patch.diff')} is empty", file=sys.stderr)


def report(the_plan: Plan, index) -> None:
    """What no longer runs for the class, what it cost, its side effects, and what stays."""
    from ..scan.replaced import cost_text

    def say(msg: str) -> None:
        print(f"decouple --hook: {msg}", file=sys.stderr)

    for h in the_plan.hooks:
        who = ", ".join(o.cls.name for o in h.overrides)
        say(f"{dc615.ID}: {h.item['at']} ({h.item['code']}) now calls {h.owner.name}.{h.name}; "
            f"overridden by {who}: for them it no longer builds {cost_text(h.item)}")
        allocs = h.item["allocations"] + [c for c in h.item["constructions"] if (c.get("own_init") or {}).get("allocations")]
        if allocs:
            say(f"{dc615.ID}: side effects that no longer run for them: the allocations of what it built "
                "(a buffer shared between instances may still be allocated by another)")
        say(f"{dc615.ID}: any parameters of what it built no longer draw random numbers for them: the weights then "
            "differ unless loaded from a checkpoint; their own construction now runs where the statement ran, "
            "before the rest of " + f"{h.owner.name}.__init__")
        changed = {o.cls.cli_name for o in h.overrides}
        below = {s.cli_name for o in h.overrides for s in index.subclasses_deep(o.cls)}
        others = [s.name for s in index.subclasses_deep(h.owner) if s.cli_name not in changed | below]
        say(f"{dc615.ID}: {h.owner.name}.{h.name} returns the old expression, so every other subclass builds what it "
            f"built before" + (f" ({', '.join(sorted(others))})" if others else ""))
        for o in h.overrides:
            if o.store_first:
                say(f"{dc615.ID}: {o.cls.name} stores " + ", ".join(f"{n} as self._{n.lstrip('_')}" for n in o.store_first)
                    + f" before super().__init__(): {h.name} reads it there (a new attribute of its instances)")
        for r in h.item["reads"]:
            say(f"{dc615.ID}: {r['at']} reads the object before the replacement; it gives the same value ({r['code']})")
    for what, why in the_plan.left:
        say(f"left: {what}: {why}")
