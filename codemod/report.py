"""The report: ``report.json`` (a contract that scripts and CI parse) and ``report.md``.

report.json schema (keys are only ever added, never renamed):
{"tool": {"name", "version"}, "root", "classes": [{"name", "qualname", "file", "line",
 "parent", "new_base", "decision": "decouple"|"decline"|"unsafe", "reason", "rule", "refused_by"?,
 "figures": {name: number|bool|[str]} (what the verdict rule compared; {} when it compared none),
 "reuse": {"members_used", "members_total", "ratio"},
 "kept": [{"member", "kind", "certain", "evidence": [{"file", "line", "use", "rule", "strength"}]}],
 "dropped": [{"member", "kind"}],
 "dropped_on_proof"?: [{"member", "kind", "reads": [{"file", "line", "use", "rule", "strength"}]}]
   (--keep proven: members whose every outside read gives the same result without them, DC154),
 "dropped_side_effects": [{"file", "line", "code", "why", "rule"}],
 "kept_for_effect": [{"file", "line", "code", "why", "rule"}],
 "hazards": [{"file", "line", "what", "rule"}], "inlined": [str],
 "comments_to_review": [{"file", "line", "comment", "why", "rule"}],
 "risk"?: {"global_writes": [{..., "name"?, "other_uses"?, "other_uses_total"?, "value_bytes"?,
                             "readers"?: [{"place", "runs": "declares"|"import"|"construction"|"call",
                                           "in"?, "default_bytes"?}]}],
           "unused_parameters": [{"parameter", "passed_by": [str]}], "class_attributes_gone": [str],
           "passed_on": [{"member", "to", "parameter", "use": {"how", "lines"?}, "lines"}],
           "raising_calls"?: [{"file", "line", "call", "raises", "at", "rule"}],
           "estimated_bytes"?: [{"file", "line", "code", "bytes", "how"}],
           "still_defined"?: {member: class}}, ...}],
   ("dropped" lists every member of the parent the patch does not keep; those in
   "still_defined" the class or its new base defines itself, so instances still have them.)
 "checks"?: [{"file", "result"}], "warnings"?: [str],
 "outside"?: {"project", "files", "dirs", "searched"}  (DC115: the project's Python files outside ROOT, read
   as evidence of use when "searched"; the evidence there is relative to "project")
 "tests"?: {"command", "per_test", "before": {"exit_status", "passed", "failed", "skipped"}, "after": {...},
            "seconds", "flaky": [str], "failed_before": [{"test", "error"}], "broken": [{"test", "error"}],
            "not_run_after"?: [str], "copies"?}}  (--test; codemod/gate.py)
 "trace"?: {"command", "exit_status", "seconds", "timed_out", "accesses", "failed"?}  (--trace; codemod/runtime_trace/)
 and in each class, with --trace: "found_at_run_time": [{"member", "kind", "file", "line", "use"}]
   (the members DC120 kept: each a use the static analysis missed)

Every "rule" is a rule id of ``codemod/rules/`` (``docs/rules.md``). The report is built once,
from the analyses, their verdicts and the patches.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from . import provenance
from .version import TOOL_NAME, __version__
from .ast_util import statements
from .fileio import atomic_write
from .model import ClassAnalysis, ModulePatch, Verdict
from .report_md import NOT_CHECKED, render_md
from .rules import keep_runtime_read

KIND_ORDER = {"instance_attribute": 0, "class_attribute": 1, "property": 2, "method": 3}
# Strongest evidence first: the class's own code (or the parent code it keeps), then a use on
# a receiver shown to be able to hold an instance, then one that merely could not be ruled out.
STRENGTH_ORDER = {"own": 0, "shown": 1, "unknown": 2}
# Within "own": the class's own code reads the member, then the parent's code it keeps does.
OWN_CODE_RULES = ("DC101", "DC102", "DC107")


def evidence_order(cls_name: str):
    """The sort key of a member's evidence: strongest first, and among the uses outside the
    class, a receiver typed as the class itself (or tested with ``isinstance``) ahead of one
    typed only as a base, which may hold an unrelated subclass that reads the same name."""
    def key(e):
        typed_as_base = e.rule == "DC108" and not ("isinstance guard" in e.use or re.search(
            rf"typed [\w, ]*\b{re.escape(cls_name)}\b", e.use))
        return (STRENGTH_ORDER.get(e.strength, 9), e.rule not in OWN_CODE_RULES, typed_as_base, e.file, e.line)
    return key


def class_entry(a: ClassAnalysis, v: Verdict, inlined: list[str]) -> dict:
    cls = a.cls
    members = a.members
    kept = [
        {"member": n, "kind": members[n][0].kind, "certain": any(e.strength != "unknown" for e in evs),
         "evidence": [e.as_dict() for e in sorted(evs, key=evidence_order(cls.name))]}
        for n, evs in sorted(a.kept.items(), key=lambda kv: (KIND_ORDER.get(members[kv[0]][0].kind, 9), kv[0]))
        if n in members
    ]
    dropped = [
        {"member": n, "kind": m.kind}
        for n, (m, _) in sorted(members.items(), key=lambda kv: (KIND_ORDER.get(kv[1][0].kind, 9), kv[0]))
        if n not in a.kept
    ]
    entry = {
        "name": cls.name,
        "qualname": cls.cli_name,
        "file": cls.file,
        "line": cls.line,
        "parent": a.parent.cli_name if a.parent else None,
        "new_base": _cli(a.base),
        "decision": str(v.decision),
        "reason": v.reason,
        "nothing_to_do": a.nothing_to_do,
        "reuse": a.reuse,
        "init_reuse": a.init_reuse,
        "kept": kept,
        "dropped": dropped,
        # Dropped on the user's word (--keep proven, --assume-unused): the uses not ruled out.
        "assumptions": [
            {"member": n, "kind": members[n][0].kind, "uses": [e.as_dict() for e in sorted(evs, key=evidence_order(cls.name))]}
            for n, evs in sorted(a.assumptions.items()) if n in members
        ],
        # Dropped because every outside read computes the same without the member (DC154, --keep proven).
        **({"dropped_on_proof": [
            {"member": n, "kind": members[n][0].kind, "reads": [e.as_dict() for e in sorted(evs, key=evidence_order(cls.name))]}
            for n, evs in sorted(a.proofs.items()) if n in members]} if a.proofs else {}),
        "dropped_side_effects": [s.as_dict() for s in _dedup(a.side_effects)],
        "kept_for_effect": [s.as_dict() for s in _dedup(a.kept_for_effect)],
        "hazards": [h.as_dict() for h in _dedup(a.hazards + a.unsafe)],
        "super_calls": [
            {"file": s.file, "line": s.line, "method": s.method, "in": s.in_method, "resolves_to_after": s.resolves_to, "reaches_parent": s.reaches_parent}
            for s in a.super_calls
        ],
        "skipped_files": [{"file": f, "why": w} for f, w in sorted(a.skipped_files.items())],
        "inlined": inlined,
        "rule": v.rule,
        "figures": dict(v.figures),
    }
    if v.refused_by:
        entry["refused_by"] = v.refused_by
    runtime = keep_runtime_read.found(a)
    if runtime:
        entry["found_at_run_time"] = [{"member": n, "kind": members[n][0].kind, "file": ev.file, "line": ev.line, "use": ev.use}
                                      for n, ev in runtime if n in members]
    return entry


def _cli(qual: str) -> str:
    mod, _, name = qual.rpartition(".")
    return f"{mod}:{name}" if mod and mod != "builtins" else name


def _dedup(items):
    seen, out = set(), []
    for i in items:
        key = i.key()
        if key not in seen:
            seen.add(key)
            out.append(i)
    return out


def build(root: Path, judged: list[tuple[ClassAnalysis, Verdict]], patches: list[ModulePatch], risks: dict | None = None,
          warnings: list[str] | None = None, tests: dict | None = None, trace: dict | None = None,
          memory: dict | None = None, outside: dict | None = None) -> dict:
    """The report of a run: each class with its verdict, and what the patches did.
    ``risks``: class name -> what ``risk.assess`` found, for the decoupled classes.
    ``warnings``: what the run went on without (said on stderr too). ``tests``: what ``--test``
    found (``gate.judge``). ``trace``: ``--trace``'s run (``runtime_trace.trace``)."""
    inlined = _inlined(patches)
    comments = {name: [{"file": p.rel, "line": line, "comment": text, "why": why, "rule": "DC611"} for line, text, why in plan.comments]
                for p in patches for name, plan in p.plans.items()}
    removed = {name: [{"comment": r.comment, "file": r.file, "line": r.line, "why": r.why, "rule": "DC611"} for r in sorted(plan.removed_comments, key=lambda r: (r.file, r.line or 0))]
               for p in patches for name, plan in p.plans.items()}
    rep = {"tool": {"name": TOOL_NAME, "version": __version__}, "root": str(root),
           "classes": [class_entry(a, v, inlined.get(a.cls.name, [])) for a, v in judged], "not_checked": NOT_CHECKED}
    for c in rep["classes"]:
        c["comments_to_review"] = comments.get(c["name"], [])
        if removed.get(c["name"]):
            c["comments_removed"] = removed[c["name"]]
        if risks and c["name"] in risks:
            c["risk"] = risks[c["name"]]
    if memory:
        rep["memory"] = memory
    if warnings:
        rep["warnings"] = list(warnings)
    if outside is not None:
        rep["outside"] = outside
    if tests is not None:
        rep["tests"] = tests
    if trace is not None:
        rep["trace"] = trace
    if patches:
        rep["checks"] = [{"file": p.rel, "result": "parses, compiles, no new pyflakes findings" if p.before is not None else "new regression test (--emit-tests)"} for p in patches]
    return rep


def _inlined(patches: list[ModulePatch]) -> dict[str, list[str]]:
    """Class name -> what its rewrite did, as the report lists it."""
    out: dict[str, list[str]] = {}
    for p in patches:
        for name, plan in p.plans.items():
            out.setdefault(name, []).extend(plan.inlined)
            out[name].extend(f"import kept although unused here: `{k}` (re-exported, or imported from this module elsewhere)" for k in p.imports_kept)
        if p.before is not None:
            added, removed = import_changes(p.before, p.after)
            for name in p.plans:
                out.setdefault(name, []).extend([f"import added: `{i}`" for i in added] + [f"import removed: `{r}`" for r in removed])
    return out


def import_changes(before: str, after: str) -> tuple[list[str], list[str]]:
    """The names imported in ``after`` and not ``before``, and the other way round, each spelt
    as the patched (or the original) file spells its import: what the diff shows."""
    old, new = _imported(before), _imported(after)
    return _spelt(k for k in new if k not in old), _spelt(k for k in old if k not in new)


def _imported(text: str) -> dict[tuple[str, str, str | None], None]:
    """(``from`` part or "", name, alias) of every import statement, in order."""
    out: dict = {}
    for node in statements(ast.parse(text)):  # an import is a statement: no expression walked
        if isinstance(node, ast.ImportFrom):
            src = "." * node.level + (node.module or "")
            out.update(dict.fromkeys((src, a.name, a.asname) for a in node.names))
        elif isinstance(node, ast.Import):
            out.update(dict.fromkeys(("", a.name, a.asname) for a in node.names))
    return out


def _spelt(keys) -> list[str]:
    by_source: dict[str, list[str]] = {}
    for src, name, alias in keys:
        by_source.setdefault(src, []).append(name + (f" as {alias}" if alias else ""))
    return [f"from {src} import {', '.join(names)}" if src else f"import {', '.join(names)}" for src, names in by_source.items()]


def json_text(rep: dict) -> str:
    return json.dumps(rep, indent=2) + "\n"


def write(out_dir: Path, rep: dict) -> None:
    """report.json and report.md; a ``verify.json`` of this very patch (its sha256) is shown in
    report.md, and none of another patch (``provenance``)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    patch = out_dir / "patch.diff"
    digest = provenance.sha256(patch.read_bytes()) if patch.is_file() else None
    verify, others = provenance.matching_verify(out_dir, digest)
    if verify is not None and others:
        verify = {**verify, "other_latency_ratios": others}
    atomic_write(out_dir / "report.json", json_text(rep).encode())
    atomic_write(out_dir / "report.md", render_md(rep, verify).encode())
