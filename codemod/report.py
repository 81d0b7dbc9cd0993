"""The report: ``report.json`` (a contract that scripts and CI parse) and ``report.md``.

report.json schema (keys are only ever added, never renamed):
{"tool": {"name", "version"}, "root", "classes": [{"name", "qualname", "file", "line",
 "parent", "new_base", "decision": "decouple"|"decline"|"unsafe", "reason", "rule", "refused_by"?,
 "reuse": {"members_used", "members_total", "ratio"},
 "kept": [{"member", "kind", "evidence": [{"file", "line", "use", "rule"}]}],
 "dropped": [{"member", "kind"}],
 "dropped_side_effects": [{"file", "line", "code", "why", "rule"}],
 "kept_for_effect": [{"file", "line", "code", "why", "rule"}],
 "hazards": [{"file", "line", "what", "rule"}], "inlined": [str],
 "comments_to_review": [{"file", "line", "comment", "why", "rule"}], ...}], "checks"?: [{"file", "result"}]}

Every "rule" is a rule id of ``codemod/rules/`` (``docs/rules.md``). The report is built once,
from the analyses, their verdicts and the patches.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import TOOL_NAME, __version__
from .fileio import atomic_write
from .model import ClassAnalysis, ModulePatch, Verdict

KIND_ORDER = {"instance_attribute": 0, "class_attribute": 1, "property": 2, "method": 3}


def class_entry(a: ClassAnalysis, v: Verdict, inlined: list[str]) -> dict:
    cls = a.cls
    members = a.members
    kept = [
        {"member": n, "kind": members[n][0].kind, "evidence": [e.as_dict() for e in sorted(evs, key=lambda e: (e.file, e.line))]}
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
    }
    if v.refused_by:
        entry["refused_by"] = v.refused_by
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


def build(root: Path, judged: list[tuple[ClassAnalysis, Verdict]], patches: list[ModulePatch]) -> dict:
    """The report of a run: each class with its verdict, and what the patches did."""
    inlined = _inlined(patches)
    comments = {name: [{"file": p.rel, "line": line, "comment": text, "why": why, "rule": "DC611"} for line, text, why in plan.comments]
                for p in patches for name, plan in p.plans.items()}
    rep = {"tool": {"name": TOOL_NAME, "version": __version__}, "root": str(root),
           "classes": [class_entry(a, v, inlined.get(a.cls.name, [])) for a, v in judged]}
    for c in rep["classes"]:
        c["comments_to_review"] = comments.get(c["name"], [])
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
        if p.imports_added or p.imports_removed:
            for name in p.plans:
                out.setdefault(name, []).extend(
                    [f"import added: `{i}`" for i in p.imports_added] + [f"import removed: `{r}`" for r in p.imports_removed]
                )
    return out


def render_md(rep: dict) -> str:
    out = []
    classes = rep["classes"]
    decoupled = [c for c in classes if c["decision"] == "decouple"]
    title = ", ".join(c["name"] for c in decoupled) or ", ".join(c["name"] for c in classes)
    out.append(f"# Decouple {title} from {'their parents' if len(decoupled) > 1 else 'its parent'}\n" if decoupled else f"# Decouple report: {title}\n")
    for c in decoupled:
        effects = c["dropped_side_effects"]
        built = sorted({e["why"].split()[1] for e in effects if e["why"].startswith("constructs ")})
        allocs = sum(1 for e in effects if e["why"].startswith("allocation"))
        waste = []
        if built:
            waste.append("constructs " + ", ".join(f"`{b}`" for b in built))
        if allocs:
            waste.append(f"makes {allocs} allocation{'s' if allocs > 1 else ''}")
        out.append(
            f"`{c['name']}` inherits `{_short(c['parent'])}` but uses {c['reuse']['members_used']} of its "
            f"{c['reuse']['members_total']} members. Every instance still runs `{_short(c['parent'])}.__init__`"
            + (f", which {' and '.join(waste)} that `{c['name']}` never uses." if waste else ".")
            + f" This change reparents it onto `{_short(c['new_base'])}` and inlines only what it uses;"
            f" each kept member below comes with the line that needs it.\n"
        )
    if decoupled:
        out.append("Checked: every patched file parses, compiles and adds no pyflakes finding; a second run of the tool changes nothing.\n")
    out.append(f"Generated by `{rep['tool']['name']} {rep['tool']['version']}` on `{rep['root']}`.\n")
    out.append("| class | parent | new base | decision | members used | `__init__` statements kept |")
    out.append("|---|---|---|---|---|---|")
    for c in classes:
        r, ir = c["reuse"], c.get("init_reuse", {})
        out.append(
            f"| `{c['name']}` | `{_short(c['parent'])}` | `{_short(c['new_base'])}` | **{c['decision']}** | "
            f"{r['members_used']} / {r['members_total']} ({r['ratio']:.0%}) | {ir.get('statements_kept', 0)} / {ir.get('statements_total', 0)} |"
        )
    out.append("")
    for c in classes:
        out.append(f"## `{c['name']}` ({c['file']}:{c['line']})\n")
        out.append(f"**{c['decision']}**: {c['reason']}\n")
        if c.get("nothing_to_do"):
            continue
        if c["kept"]:
            out.append(f"### Kept from `{_short(c['parent'])}` ({len(c['kept'])})\n")
            out.append("Each member is kept because of the evidence listed; the first use is shown. Outside the class "
                       "and its parent, the search for a member's uses stops at the first one found (`--all-uses` lists every one).\n")
            out.append("| member | kind | evidence |")
            out.append("|---|---|---|")
            for k in c["kept"]:
                ev = k["evidence"]
                first = f"`{ev[0]['file']}:{ev[0]['line']}` {ev[0]['use']}" if ev else ""
                more = f" (+{len(ev) - 1} more)" if len(ev) > 1 else ""
                out.append(f"| `{k['member']}` | {k['kind']} | {_md(first)}{more} |")
            out.append("")
        if c["dropped"]:
            out.append(f"### Dropped ({len(c['dropped'])})\n")
            by_kind: dict[str, list[str]] = {}
            for d in c["dropped"]:
                by_kind.setdefault(d["kind"], []).append(f"`{d['member']}`")
            for kind, names in by_kind.items():
                out.append(f"- {kind.replace('_', ' ')}s: {', '.join(names)}")
            out.append("")
        _listing(out, "Side effects of the parent's `__init__` that no longer run", "", c["dropped_side_effects"], "code")
        _listing(out, "Kept for their effect", "Statements of the parent's `__init__` that define nothing the class needs, "
                 "kept because they are behaviour:", c.get("kept_for_effect"), "code")
        if c["hazards"]:
            out.append("### Hazards checked\n")
            for h in c["hazards"]:
                out.append(f"- `{h['file']}:{h['line']}` {_md(h['what'])}")
            out.append("")
        if c.get("super_calls"):
            out.append("### `super()` calls after reparenting\n")
            for s in c["super_calls"]:
                out.append(f"- `{s['file']}:{s['line']}` `super().{s['method']}()` in `{s['in']}` resolves to `{s['resolves_to_after']}`")
            out.append("")
        _listing(out, "Comments to review", "Comments the patch copies or leaves beside the change that may no longer be true:",
                 c.get("comments_to_review"), "comment")
        if c.get("inlined"):
            out.append("### What was inlined\n")
            for item in c["inlined"]:
                out.append(f"- {item}")
            out.append("")
    if rep.get("checks"):
        out.append("## Checks on the patched files\n")
        for ch in rep["checks"]:
            out.append(f"- `{ch['file']}`: {ch['result']}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _listing(out: list[str], title: str, intro: str, items, code_key: str) -> None:
    """A section listing ``file:line`` `code`: why, for each item; nothing when there are none."""
    if not items:
        return
    out.append(f"### {title}\n")
    if intro:
        out.append(intro + "\n")
    for s in items:
        out.append(f"- `{s['file']}:{s['line']}` `{_md(s[code_key])}`: {s['why']}")
    out.append("")


def _short(q: str | None) -> str:
    return (q or "object").rsplit(":", 1)[-1]


def _md(s: str) -> str:
    return s.replace("|", "\\|")


def json_text(rep: dict) -> str:
    return json.dumps(rep, indent=2) + "\n"


def write(out_dir: Path, rep: dict) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(out_dir / "report.json", json_text(rep).encode())
    atomic_write(out_dir / "report.md", render_md(rep).encode())
