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
from ..rules import rewrite_inline_hook as dc618
from .edit import rewrite
from .inline import InlinePlan, plan_inline, rewrite_inline
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
    why = _parent_fixed(args)
    if why:
        the_inline = plan_inline(index, cls, why)
        changed = rewrite_inline(the_inline, tree) if not the_inline.refused else {}
        lines = report_inline(the_inline)
        todo = f"{counted(len(the_inline.done), 'construction')} to put in place of {the_inline.parent.name}'s ({dc618.ID})"
    else:
        the_plan = plan(index, cls)
        changed = rewrite(the_plan, tree) if the_plan.hooks else {}
        lines = report(the_plan, index)
        todo = f"{counted(len(the_plan.hooks), 'hook')} to add"
    diff = "".join(line for rel, (old, new) in sorted(changed.items())
                   for line in difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                                    f"a/{rel}", f"b/{rel}"))
    if args.check:
        print(f"{cls.name}: {todo}" if changed else f"{cls.name}: nothing to hook")
        return EXIT_CHANGES if changed else EXIT_OK
    if args.output is not None:
        write_folder(Path(args.output), changed, diff, lines)
    if args.write:
        refuse_dirty_files(tree.root, sorted(changed), args.force)
        for rel, (_, new) in sorted(changed.items()):
            atomic_write(tree.root / rel, new.encode())
        print(f"decouple: wrote {counted(len(changed), 'file')}" if changed else "decouple: nothing to write")
        return EXIT_OK
    if args.output is None:
        sys.stdout.write(diff)
    return EXIT_OK


def _parent_fixed(args) -> str:
    """Why the parent's file must not be edited (then DC618 copies its ``__init__`` into C), or "".
    A parent outside ROOT is not among them: the tree holds only ROOT's files (a link out of it is
    skipped), so such a parent is not found, and there is nothing to copy it from."""
    return "--no-parent-edit" if getattr(args, "no_parent_edit", False) else ""


def write_folder(out: Path, changed: dict, diff: str, lines: list[str]) -> None:
    """``--output DIR``: ``patch.diff`` and ``files/<rel>``, the patched files (as a normal run's
    folder holds them), and ``report.md``, the report's lines."""
    from ..console import display_path
    from ..emit import clear_outputs, write_outputs
    from ..fileio import atomic_write

    if out.exists() and not out.is_dir():
        raise UsageError(f"cannot write to {display_path(out)}: it is a file; give --output a folder")
    files = [SimpleNamespace(rel=rel, after=new) for rel, (_, new) in sorted(changed.items())]
    try:
        clear_outputs(out)
        write_outputs(out, files, diff)
        atomic_write(out / "report.md", ("# decouple --hook\n\n" + "".join(f"- {line}\n" for line in lines)).encode())
    except OSError as exc:
        raise UsageError(f"cannot write to {display_path(out)}: {exc.strerror or exc}") from None
    print(f"decouple: wrote {display_path(out / 'patch.diff')}, {display_path(out / 'files')}/" if files
          else f"decouple: nothing to hook: {display_path(out / 'patch.diff')} is empty", file=sys.stderr)


def _sayer(lines: list[str]):
    def say(msg: str) -> None:
        lines.append(msg)
        print(f"decouple --hook: {msg}", file=sys.stderr)
    return say


def report(the_plan: Plan, index) -> list[str]:
    """What no longer runs for the class, what it cost, its side effects, and what stays."""
    from ..scan.replaced import cost_text

    lines: list[str] = []
    say = _sayer(lines)

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
    if the_plan.hooks:
        owners = sorted({h.owner.name for h in the_plan.hooks})
        say(f"{dc615.ID}: chosen: a factory method on {', '.join(owners)}, whose file lies in ROOT and may be edited "
            f"(--no-parent-edit copies the parent's __init__ into {the_plan.cls.name} instead, {dc618.ID})")
    return lines


def report_inline(p: InlinePlan) -> list[str]:
    """DC618's report: which alternative and why, what no longer runs, what it cost, the lines copied."""
    from ..scan.replaced import cost_text

    lines: list[str] = []
    say = _sayer(lines)
    pname = p.parent.name if p.parent is not None else "its parent"
    if p.refused or p.patch is None:
        say(f"refused: {p.refused or dc618.ID + ': nothing to inline'}; nothing is changed "
            f"(chosen for {p.why}: {pname}'s file is not edited)")
        for what, why in p.left:
            say(f"left: {what}: {why}")
        return lines
    n, first, last = p.copied
    say(f"{dc618.ID}: chosen: {p.cls.name}.__init__ runs {pname}.__init__ inlined instead of calling it, since {p.why}: "
        f"{pname}'s file is not edited (--hook without it adds a factory method to {pname}, {dc615.ID})")
    for item, b in p.done:
        say(f"{dc618.ID}: {item['at']} ({item['code']}) no longer runs for {p.cls.name}: it stores {p.cls.name}'s own object "
            f"(its replacement at {item['replaced_at']} goes); it no longer builds {cost_text(item)}")
        for r in item["reads"]:
            say(f"{dc618.ID}: {r['at']} reads the object before the replacement; it gives the same value ({r['code']})")
    say(f"{dc618.ID}: {p.cls.name}'s construction now runs where {pname}'s ran, before the rest of {pname}.__init__; "
        "any parameters it builds draw their random numbers earlier, and what was built and dropped no longer draws any "
        "(weights differ unless loaded from a checkpoint)")
    old, new = p.patch.before.splitlines(), p.patch.after.splitlines()
    added = sum(1 for line in difflib.ndiff(old, new) if line.startswith("+ "))
    say(f"{dc618.ID}: copied: {n} lines of {pname}.__init__ ({p.parent.file}:{first}-{last}) into {p.cls.name}.__init__ "
        f"({p.patch.rel}: {added} lines added); they no longer follow changes to {pname}.__init__")
    say(f"{dc618.ID}: {pname} and its other subclasses are unchanged; {p.cls.name} still inherits {pname}, and its "
        "subclasses run its __init__ as before")
    for line in p.patch.imports_added:
        say(f"{dc618.ID}: import added: {line}")
    for what, why in p.left:
        say(f"left: {what}: {why}")
    return lines
