"""The project around ROOT: its Python files outside ROOT, read as evidence of use (DC115).

A src-layout project keeps its package under ``src/`` and its tests, examples and documentation
snippets beside it; ROOT is ``src/`` (or the package), and code outside it may read members of
ROOT's classes. Those files are read only: never edited, never candidates, never part of the
index the analysis types receivers with.
"""

from __future__ import annotations

import os
import subprocess
from functools import cached_property
from pathlib import Path

from .config import PROJECT_FILES
from .discover import _SKIP_DIRS, Tree
from .fileio import OUTPUT_MARKER, cache_dir

# Folders of a project that hold no code of the project: built copies, installed environments.
SKIP_DIRS = _SKIP_DIRS | {"build", "dist", "site-packages", "env", "htmlcov", "__pypackages__"}


def project_of(root: Path) -> Path | None:
    """The project ROOT is the source folder of, when that is a larger folder than ROOT: ROOT,
    or the folder above the packages ROOT lies in, is ``src/``-like (no project file of its own)
    and its parent holds one of ``PROJECT_FILES``; or ROOT is a package whose folder holds one.
    None for a ROOT that is itself a project, lies in this tool's cache (a fetched release), or
    sits deeper in a repository than its import root (a fixture folder is not that repository's
    program)."""
    root = root.resolve()
    if root.is_relative_to(cache_dir().resolve()) or _is_project(root):
        return None
    top = root
    while (top / "__init__.py").is_file() and top.parent != top:
        top = top.parent
    if top != root and _is_project(top):
        return top
    parent = top.parent
    if parent != top and parent != Path.home() and _is_project(parent):
        return parent
    return None


def _is_project(folder: Path) -> bool:
    return any((folder / name).exists() for name in PROJECT_FILES)


class OutsideTree(Tree):
    """The project's Python files that are not under ROOT, relative to the project's folder."""

    def __init__(self, project: Path, inner: Tree):
        super().__init__(project)
        self.inner_tree = inner  # ROOT's tree: what a qualified name of the project's code may name
        self.inner = inner.root.resolve().relative_to(project).as_posix()

    @cached_property
    def index(self):
        """Parses of the files searched, apart from ROOT's index."""
        from .index import Index

        return Index(self)

    @cached_property
    def files(self) -> list[str]:
        listed = self._git_files()
        walked = listed if listed is not None else self._walk()
        inner = self.inner + "/"
        return sorted(rel for rel in walked if not rel.startswith(inner) and not _skipped(rel))

    def _git_files(self) -> list[str] | None:
        """What git tracks or would track (its ignores honoured), when the project is a checkout."""
        if not (self.root / ".git").exists():
            return None
        try:
            done = subprocess.run(["git", "-C", str(self.root), "ls-files", "-z", "--cached", "--others",
                                   "--exclude-standard", "--", "*.py"], capture_output=True, timeout=30, check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        if done.returncode != 0:
            return None
        return [rel for rel in done.stdout.decode("utf-8", "replace").split("\0")
                if rel and os.path.isfile(os.path.join(self._root_str, rel))]

    def _walk(self) -> list[str]:
        out, todo = [], [""]
        while todo:
            rel_dir = todo.pop()
            try:
                entries = list(os.scandir(os.path.join(self._root_str, rel_dir) if rel_dir else self._root_str))
            except OSError:
                continue
            if any(e.name == OUTPUT_MARKER or e.name == "pyvenv.cfg" for e in entries):
                continue  # this tool's output, a virtual environment
            for e in entries:
                rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
                if e.is_dir(follow_symlinks=False):
                    if rel != self.inner:
                        todo.append(rel)
                elif e.name.endswith(".py") and not e.is_symlink():
                    out.append(rel)
        return out

    @cached_property
    def dirs(self) -> list[str]:
        """The top-level folders the files lie in ("." for the project's own folder)."""
        return sorted({rel.split("/", 1)[0] if "/" in rel else "." for rel in self.files})


def _skipped(rel: str) -> bool:
    parts = rel.split("/")[:-1]
    return any(p in SKIP_DIRS or p.startswith(".") or p.endswith(".egg-info") for p in parts)


def outside_tree(tree: Tree) -> OutsideTree | None:
    """The files of ROOT's project outside ROOT, or None when ROOT is not inside a larger project."""
    project = project_of(tree.root)
    return None if project is None else OutsideTree(project.resolve(), tree)


def outside_line(o: dict) -> str:
    """report.md's line that says which of the project's files outside ROOT the run read (DC115)."""
    n = o["files"]
    files = f"{n} Python file{'' if n == 1 else 's'} of the project at `{o['project']}`"
    were = "was" if n == 1 else "were"
    if not o["searched"]:
        return f"Outside ROOT: {files} {were} not read (`--no-outside-uses`)."
    dirs = ", ".join(f"`{d}/`" if d != "." else "its top folder" for d in o["dirs"][:8]) + (", ..." if len(o["dirs"]) > 8 else "")
    return (f"Outside ROOT: {files} ({dirs or 'none'}) {were} searched for uses (DC115), read only; the evidence "
            "found there is relative to the project's folder.")
