"""The classes the user names: ``--class`` and ``--parent`` looked up in the tree, and the
one-line errors when they cannot be (not found, ambiguous, in a file that does not parse).
"""

from __future__ import annotations

import difflib
import re

from .console import display_path
from .errors import UsageError
from .index import ClassInfo, Index

CLASS_STATEMENT = re.compile(r"^[ \t]*class[ \t]+([A-Za-z_]\w*)", re.M)


def did_you_mean(name: str, known) -> str:
    """``; did you mean X?`` for the closest of ``known`` to a name not found, or nothing."""
    # 0.8 rather than difflib's 0.6: in a tree of thousands of "...Backend" classes a looser
    # cutoff suggests siblings that merely share the suffix.
    close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.8)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def require_module(index: Index, qualname: str) -> None:
    """A usage error when the module that should hold ``qualname`` (a class, or a module)
    is in the tree but does not parse; nothing otherwise."""
    parts = qualname.replace(":", ".").split(".")
    for i in range(len(parts), 0, -1):
        rel = index.tree.modules.get(".".join(parts[:i]))
        if rel is not None:
            if index.module(rel) is None and rel in index.syntax_errors:
                raise index.parse_error(rel)
            return


def find_class_by_name(index: Index, name: str) -> list[ClassInfo]:
    """Every class of the tree named ``name``; a usage error when only a file that does not
    parse has a class statement of that name."""
    rx = re.compile(rf"^\s*class\s+{re.escape(name)}\b", re.M)
    out, unparsable = [], []
    for rel in index.tree.grep(rx, words=(name,)):
        mod = index.module(rel)
        if mod is None and rel in index.syntax_errors:
            unparsable.append(rel)
        if mod and name in mod.classes:
            out.append(mod.classes[name])
    if unparsable and not out:
        raise index.parse_error(unparsable[0])  # the class is there, in a file that cannot be read
    return out


DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def lookup(index: Index, spec: str) -> ClassInfo:
    """``Name``, ``package.module:Name`` or ``package.module.Name``; exit 2 on none or several.

    The dotted spelling, as a traceback or an import statement shows it, is the colon one with
    its last dot for the colon (a class nested in another is not looked up either way)."""
    if ":" not in spec and DOTTED.fullmatch(spec):
        modname, _, clsname = spec.rpartition(".")
        spec = f"{modname}:{clsname}"
    if ":" in spec:
        modname, _, clsname = spec.partition(":")
        mod = index.module_by_name(modname)
        if mod is None:
            require_module(index, modname)
            raise UsageError(f"module {modname} not found under {display_path(index.tree.root)}{did_you_mean(modname, index.tree.modules)}")
        cls = mod.classes.get(clsname) or index.resolve_class(f"{modname}.{clsname}")
        if cls is None:
            raise UsageError(f"class {clsname} not found in module {modname}{did_you_mean(clsname, mod.classes)}")
        return cls
    if not re.fullmatch(r"[A-Za-z_]\w*", spec):
        raise UsageError(f"--class/--parent takes Name, package.module:Name or package.module.Name, got {spec!r}")
    found = find_class_by_name(index, spec)
    if not found:
        raise UsageError(f"class {spec} not found under {display_path(index.tree.root)}{did_you_mean(spec, class_names(index))}")
    if len(found) > 1:
        names = ", ".join(c.cli_name for c in found)
        raise UsageError(f"class name {spec} is ambiguous; use one of: {names}")
    return found[0]


def class_names(index: Index) -> set[str]:
    """Every name a class statement of the tree defines, by a grep (no parse): only a
    misspelled name asks for them, so they are never indexed."""
    names: set[str] = set()

    def collect(text: str) -> bool:
        names.update(CLASS_STATEMENT.findall(text))
        return False

    index.tree.grep(collect, words=("class",))
    return names
