"""``python -m libcst.tool codemod decouple_class.DecoupleClassCommand --class NAME --no-format .``

decouple as a LibCST codemod command, run by LibCST's own driver (``docs/api.md`` gives the
set-up: ``modules: ['codemod.commands']`` in ``.libcst.codemod.yaml``). The analysis needs the
whole tree, not one file: it runs once per invocation, on the first file the driver hands over
(``shared_analysis``), over ROOT (``--root``, else LibCST's ``repo_root``); every file then
becomes what the patch makes of it, the files the patch does not touch staying as they are.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import libcst
from libcst.codemod import CodemodCommand, SkipFile

from ..errors import UnsafeError, UsageError
from .shared_analysis import SharedAnalysis


class DecoupleClassCommand(CodemodCommand):
    DESCRIPTION = ("Decouple a class from a heavyweight parent it barely uses: inline only what the class and the rest "
                   "of the tree use of the parent, and reparent the class onto the parent's base (decouple's analysis, "
                   "run once over the whole tree). Pass --no-format: the patch is formatted in the tree's style already.")

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        arg_parser.add_argument("--class", dest="classes", action="append", metavar="NAME", required=True,
                                help="class to decouple: Name or package.module:Name (repeatable)")
        arg_parser.add_argument("--parent", metavar="NAME",
                                help="the parent to decouple from, a direct base of each --class")
        arg_parser.add_argument("--base", metavar="NAME", help="the new base (default: the parent's first base, or object)")
        arg_parser.add_argument("--keep", choices=("possible", "proven"), default="possible",
                                help="possible (the default): keep every member whose use cannot be ruled out; "
                                     "proven: only those with a use shown on an instance")
        arg_parser.add_argument("--assume-unused", dest="assume_unused", action="append", metavar="CLASS.MEMBER",
                                default=None, help="drop this member though uses on objects of unknown type remain")
        arg_parser.add_argument("--no-markers", dest="no_markers", action="store_true",
                                help="write no '# decouple: ...' comments")
        arg_parser.add_argument("--root", metavar="DIR",
                                help="the tree to analyse (default: LibCST's repo_root, the folder of "
                                     ".libcst.codemod.yaml when it says repo_root: '.'); give PATH that covers "
                                     "every file the patch changes")

    def __init__(self, context, classes: list[str] | None = None, parent: str | None = None, base: str | None = None,
                 keep: str = "possible", assume_unused: list[str] | None = None, no_markers: bool = False,
                 root: str | None = None) -> None:
        super().__init__(context)
        self.options = {"classes": tuple(classes or ()), "parent": parent, "base": base, "keep": keep,
                        "assume_unused": tuple(assume_unused or ()), "markers": not no_markers}
        self.root = root

    def _root(self) -> Path:
        manager = self.context.metadata_manager
        if self.root is not None:
            return Path(self.root).resolve()
        return Path(manager.root_path if manager is not None else os.getcwd()).resolve()

    def transform_module_impl(self, tree: libcst.Module) -> libcst.Module:
        if self.context.filename is None:
            raise UsageError("decouple analyses a whole tree: give the codemod paths, not stdin")
        root = self._root()
        path = Path(self.context.filename).resolve()
        if not path.is_relative_to(root):
            raise SkipFile(f"outside the tree decouple analyses ({root}); see --root")
        rel = path.relative_to(root).as_posix()
        shared = SharedAnalysis(root, self.options)
        record = shared.record()
        if record.error is not None:
            if shared.made_here:
                raise UsageError(record.error)
            raise SkipFile(f"decouple: {record.error}")
        if shared.made_here:
            for line in record.warnings + record.summary:
                self.warn(f"decouple: {line}")
            if record.unsafe:  # nothing is patched; the invocation fails, on this one file
                raise UnsafeError("refused as unsafe, so no file is changed: " + "; ".join(record.summary))
        new = shared.new_text(record, rel, tree.code)
        if new is None:
            return tree
        others = sorted(set(record.files) - {rel})
        if others:
            self.warn(f"decouple: the patch also changes {', '.join(others)}: a PATH that leaves any out applies half of it")
        text, encoding = new
        return libcst.parse_module(text.encode(encoding))
