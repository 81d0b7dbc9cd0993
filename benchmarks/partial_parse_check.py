#!/usr/bin/env python3
"""``cst_partial.parse_classes`` against libcst's whole parse on every module of a tree.

    python benchmarks/partial_parse_check.py [ROOT ...]

For every module of each ROOT (default: the pinned SGLang release) that has a top-level class,
parses it three ways with the classes' statements compared to the whole parse's
(``tests/units/test_cst_partial.py``'s ``same_inside``): all its top-level classes together, the
first alone, the last alone. Prints how many modules, statements and partial parses, and every
difference (exit 1 when there is one). SGLang 0.5.23 takes about 14 minutes on one core.
"""

from __future__ import annotations

import ast
import gc
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "units")]

from test_cst_partial import same_inside  # noqa: E402

from codemod.cst_partial import PartialLocated, parse_classes  # noqa: E402


def main(roots: list[str]) -> int:
    gc.disable()  # libcst's trees are large and acyclic enough: as the tool runs
    if not roots:
        from codemod.discover import fetch_release

        roots = [str(fetch_release())]
    modules = compared = partial = whole = 0
    failures = []
    start = time.perf_counter()
    for root in roots:
        for folder, _, names in os.walk(root, followlinks=True):
            for name in sorted(n for n in names if n.endswith(".py")):
                path = os.path.join(folder, name)
                try:
                    text = Path(path).read_text(encoding="utf-8")
                    tree = ast.parse(text)
                except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
                    continue
                classes = [s for s in tree.body if isinstance(s, ast.ClassDef)]
                if not classes:
                    continue
                modules += 1
                for chosen in (classes, classes[:1], classes[-1:]):
                    try:
                        compared += same_inside(text, [c.name for c in chosen])
                    except Exception as exc:  # noqa: BLE001 - every difference is listed
                        failures.append(f"{path} {[c.name for c in chosen][:3]}: {exc!r}"[:300])
                    if isinstance(parse_classes(text, tree, chosen), PartialLocated):
                        partial += 1
                    else:
                        whole += 1
    print(f"{modules} modules, {compared} statements compared, {partial} partial parses, {whole} whole, "
          f"{len(failures)} differences, {time.perf_counter() - start:.0f} s")
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
