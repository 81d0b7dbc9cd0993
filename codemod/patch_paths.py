"""Where the paths of patch.diff start, so that the patch applies to the project as its maintainer has it.

On a git checkout the paths are the repository's, from its top (``python/sglang/...`` when
ROOT is the checkout's ``python/`` folder): ``git apply`` takes them so from any folder of
the checkout. Anywhere else (an unpacked wheel, site-packages, a release this tool fetched)
the paths are ROOT's, and the report gives the ``git apply --directory=...`` line for a
checkout of the same release, where the folder that holds the package is known.

Only patch.diff (and ``--diff``) change: ``--write`` and ``--check`` name files from ROOT,
and ``files/`` keeps ROOT's layout.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

# Where a project keeps its package in its repository, for projects whose wheel and sdist do
# not say it. A wheel records nothing of the repository's layout, and an sdist is laid out from
# the folder it was built in: SGLang builds both from ``python/`` (its pyproject.toml is
# there), so the sdist's root is that folder, not the repository's. Keyed by the project's
# name (for these projects also the name of the package they install).
KNOWN_FOLDERS = {"sglang": "python"}


@dataclass
class Placement:
    """How the patch's paths relate to a checkout: ``prefix`` is put before ROOT's paths in the
    patch; ``directory`` is what ``git apply --directory`` needs on a checkout (None: not known)."""

    prefix: str  # "" or "python/": ROOT's place in the git work tree it lies in
    directory: str | None
    how: str  # "repository": the paths are the checkout's; "package": they are ROOT's

    def to_json(self) -> dict:
        return {"paths": self.how, "prefix": self.prefix, "git_apply_directory": self.directory, "line": self.line()}

    def line(self) -> str:
        """The one line of report.md that says how to apply the patch."""
        if self.how == "repository":
            where = f" (they start at the repository's top, `{self.prefix}` being ROOT)" if self.prefix else ""
            return f"Apply: `git apply patch.diff` in the checkout; the paths are the repository's{where}."
        if self.directory is None:
            return ("Apply: the paths are the installed package's; on a checkout, `git apply --directory=DIR patch.diff`, "
                    "DIR being the folder that holds the package (nothing in the release says which).")
        if self.directory == "":
            return "Apply: `git apply patch.diff` at the top of a checkout of the same release (laid out as its sdist is)."
        return (f"Apply: `git apply --directory={self.directory} patch.diff` at the top of a checkout of the same release "
                f"(the paths are the installed package's; the repository keeps it under `{self.directory}/`).")


def place(root: Path, rels: list[str], changed: list[str]) -> Placement:
    """Where the patch of ``rels`` (files under ROOT; ``changed``: those that exist already) applies."""
    prefix = _repository_prefix(root, changed)
    if prefix is not None:
        return Placement(prefix, None, "repository")
    return Placement("", _checkout_folder(root, rels), "package")


def _repository_prefix(root: Path, changed: list[str]) -> str | None:
    """ROOT's path from the top of the git work tree it lies in (``"python/"``, or ``""`` at the
    top), when that repository tracks every file the patch changes; else None (a wheel unpacked
    inside some other repository is not that repository's code)."""
    if not changed or not any((d / ".git").exists() for d in (root, *root.parents)):
        return None
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or _git(root, "ls-files", "--error-unmatch", "--", *changed) is None:
        return None
    rel = os.path.relpath(root.resolve(), Path(top.strip()).resolve())
    return "" if rel == "." else Path(rel).as_posix() + "/"


def _checkout_folder(root: Path, rels: list[str]) -> str | None:
    """The folder of a checkout that holds ROOT's paths: from the table above, else from the
    layout of the sdist this tool fetched ("": its paths are already the checkout's), else None."""
    release = root.parent / "COMPLETE" if root.name == "src" else None
    project = None
    if release is not None and release.is_file():
        project = root.parent.name.rsplit("-", 1)[0]
    tops = {r.split("/", 1)[0] for r in rels}
    for name in filter(None, [project, *sorted(tops)]):
        if name.lower().replace("_", "-") in KNOWN_FOLDERS:
            return KNOWN_FOLDERS[name.lower().replace("_", "-")]
    if release is not None and release.is_file() and not release.read_text().strip().endswith(".whl"):
        return ""  # an sdist: unpacked from its root, which is most often the repository's
    return None


def _git(root: Path, *args: str) -> str | None:
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    except OSError:
        return None
    return proc.stdout if proc.returncode == 0 else None
