"""DC108 outside-use: keep a parent member that code elsewhere reads on an object that may be the class.

## What it does
Searches the whole tree for ``.X`` (and ``getattr``/``hasattr``/``setattr`` with the literal
name ``"X"``, ``attrgetter("X")``, ``methodcaller("X")``, a format string's ``{0.X}``, a class
pattern's ``case K(X=...)``) for every parent member not yet kept, and types each receiver.
An accessor (``delattr`` too) whose name is computed but can only be one of literals the code
spells is a use of each of them (``codemod/literal_names.py``: a loop or comprehension over a
literal tuple, list or dict, or over a module constant holding one; a dict's keys, ``.keys()``,
``.items()``; an f-string, a ``+`` or a conditional of such names): ``{a: getattr(src, a) for a
in ("url", "timeout")}`` reads ``url`` and ``timeout``. Those sites are looked for in the files
the search parses, in the files where an accessor is given an f-string or a ``+`` of pieces of a
candidate's name, and in the files that name the class, a subclass, the parent or one of its
ancestors beside an accessor
(``codemod/receiver_typing/typing_flow.py``; the object ``attrgetter``, ``methodcaller`` or a format string is
applied to is not followed, and a class pattern's is judged by the pattern's class). A use on a receiver
that is, or may be, an instance of the class keeps the member; the evidence says how the
receiver was typed, and how strongly the use is established: *shown* when the receiver is
typed (by an annotation, an assignment or an ``isinstance`` guard) as the class, a subclass
or one of its bases, *unknown* when its type could not be told. Uses inside the parent's own code that no longer runs on the class do
not count, nor do uses on what ``self`` or ``cls`` reaches in the class's and its parents' code (the
usage analysis answers for those); a use there on an object handed in (a parameter that may
hold the class) is typed like any other. By default the search for a member stops at its first shown use; a member with
only unknown uses so far is still looked for in the files parsed for other members, but no
file is parsed only for that (``--all-uses`` searches and lists every use).

## Why
Other code reads attributes of the class's instances (a runner reading
``backend.max_context_len``); dropping such a member breaks it at run time.

## Known problems
A receiver is taken to be *not* the class only when that is clear: an ``isinstance`` guard,
an annotation, or every source of its value, followed backwards (``codemod/receiver_typing/type_exprs.py``):
every binding of a name (any binding it does not follow makes it unknown), the arguments at
every call that can reach a parameter (``codemod/receiver_typing/call_sites.py``: a function or class handed
to other code as a value makes them unknown), the return statements of whatever a call can
run, the stores that can reach an attribute (on an object of known classes, only those
classes' own stores and stores on what may be one of them: ``codemod/receiver_typing/type_attrs.py``,
``codemod/receiver_typing/confinement.py``), and what code adds to a container in place
(``codemod/receiver_typing/type_elements.py``). Another attribute read on the same object that the class
lacks also rules it out, if that read runs first on every path or always follows in plain
statements (``codemod/receiver_typing/dominance.py``), no base outside the tree may give the class that
attribute, none of the class's hierarchy answers any name (``__getattr__``) or stores on
``self`` by computed name, no subclass escapes the index (``codemod/receiver_typing/hidden_classes.py``: a
``class`` statement in a function, ``type(name, (C,), ns)``), and no code
stores that attribute on another object. For the same reason a ``hasattr`` test of the member
is not a use where it sits in an ``and`` beside a ``hasattr`` test of such a name on the same
object, before it or right after it (``codemod/receiver_typing/hasattr_tests.py``): no instance passes that
``and``, with the member or without it. A name from data (``getattr(x, name)``, ``name`` a
parameter or read from a file) is DC301's: refused on an object that may be the class and listed
under Risk on one of unknown type, in the files that name the class or its kin; in other files
it is not seen, and neither is ``vars(x)``, ``x.__dict__`` or ``dir(x)`` on a C elsewhere: on
SGLang such calls sit in some 1,400 of 4,700 files, too many to parse on every run (the rare
indirect forms, ``reduce(getattr, ...)``, ``attrgetter(name)``, are DC301's everywhere). A
name spelt in pieces and held in a variable (``n = f"{p}out"; getattr(x, n)``) in a file that
names none of those classes is not seen either: no text there says which member it reaches. Nor is a method of another class called unbound on a C (``Other.method(c)``, where
``self`` is then the C): finding those sites costs a search per method typed. Nor is a subclass made
at run time from computed bases (``type(name, bases, ns)``), or an assigned ``__class__``. ``report.md``'s
Risks section says both for every class it decouples. Anything unclear
counts as a use, and so
does a receiver whose sources take more than a fixed budget of steps, so members may be kept
on uses that can never see the class; the report lists such members apart ("kept because a
use could not be ruled out"). Annotations are trusted, and the tree is taken to be the whole
program: code outside it that stores into the tree's objects is not seen (when ROOT is the source
folder of a larger project, DC115 reads the project's other files for uses).
Writes count only for properties (a write elsewhere needs the setter).

What the user knows and the analysis cannot prove is theirs to state: under ``--keep proven``
(or ``--assume-unused C.member`` for one member) a use whose strength is *unknown* keeps
nothing; it is recorded as an assumption, and report.md lists it under "Assumptions to
review" with each such use. A shown use still keeps the member (and ``--assume-unused`` on such
a member is a usage error that prints the use). Before a use is taken as unknown there, a
witness is looked for (``Flow.witness``): the typing run again leniently, a source it cannot
follow adding nothing, so that an instance of the class shown to reach the receiver along the
routes it does follow (a list that also holds something unknown, a factory picked from a table)
makes the use shown. The witness proves reachability only, so it can make a use stronger, never
weaker; all of a class's witnesses share one budget of modules to parse (``WITNESS_PARSES``),
and one that runs out leaves the use an assumption, as before.

## Fix safety
Keeping is always safe. A member dropped on the user's word is as safe as the word: the report
shows it as an assumption, never as a fact.
"""

from __future__ import annotations

import ast
import re

from ..ast_util import dotted_name, first_param, is_static
from ..index import enclosing_def
from ..literal_names import names as literal_names
from ..model import Evidence, Receiver, Scanned
from ..reflection import ACCESSORS, class_site_files, computed_name
from ..state import inside_any
from ..word_search import case_lines, read_or_quoted, spelt_whole
from .. import text_facts
from . import drop_equal_fallback

ID = "DC108"
NAME = "outside-use"
CONFIRM_PARSES = 2  # modules the typing of a plainly shown use may look at (it only confirms)


def run(st, out: Scanned) -> bool:
    """Search the tree; False when there was nothing to search for (every candidate kept)."""
    a = st.a
    satisfied = st.satisfied()
    # Kept only because the inlined __init__ reads them: a use elsewhere is looked for too, so
    # that DC617 knows whether the attribute can become a local of the __init__.
    local_only = {n for n, evs in a.kept.items() if a.members.get(n, (None,))[0] is not None
                  and a.members[n][0].kind == "instance_attribute" and evs and all(e.rule == "DC105" for e in evs)}
    a.init_local_candidates = set(local_only)
    cands = sorted({n for n in a.members if n not in a.kept and not satisfied(n) and not n.startswith("__")} | local_only)
    if not cands:
        return False
    from ..receiver_typing.typing_flow import Flow

    flow = st.flow = Flow(st.index, a.cls, site_filter=st.in_dropped_parent_code, gone=st.gone)
    # A use that merely could not be ruled out keeps a member, but is weak evidence: the files
    # parsed anyway are still searched for a use on a receiver shown to hold an instance.
    # (Parsing more files only for that costs more than the rest of the search.)
    strong = set(a.kept)
    tree = st.index.tree
    alts = "|".join(re.escape(c) for c in cands)
    rx = re.compile(r"(?:\.|['\"])(" + alts + r")\b")
    rx_keyword = re.compile(r"\b(" + alts + r")\s*=")

    def in_patterns(text: str) -> set[str]:
        """Names of keywords on ``case`` lines (``case C(name=pattern)``)."""
        return {n for line in case_lines(text) for n in rx_keyword.findall(line)}

    # What each file that names a candidate reads of them, found once: it is searched only if it
    # reads one, and parsed only while one of those is not kept yet. In an ASCII text a name
    # that follows a dot or a quote and ends at a word boundary is a word of the index (both end
    # it at the same characters), so only the names the index lists for the file are looked
    # for, each as a literal (``read_or_quoted``); in any other text the regex stays, since a
    # non-ASCII character ends such a name for the regex but not for the index.
    listed: dict[str, list[str]] = {}
    for c in cands:
        for rel in tree.files_with_words((c,)):
            listed.setdefault(rel, []).append(c)
    other = [c for c in cands if not spelt_whole(c)]
    mentioned: dict[str, set[str]] = {}
    for rel in tree.files_with_words(tuple(cands)):
        text = tree.searchable(rel)
        if text is None:
            continue
        read = read_or_quoted(text, listed.get(rel, []) + other) if text.isascii() else set(rx.findall(text))
        if names := read | in_patterns(text):
            mentioned[rel] = names
    files = list(mentioned)
    cand_set = set(cands)
    chain_nodes = {id(c.node) for c in a.chain} | {id(a.cls.node)}
    chain_files = {c.file for c in a.chain} | {a.cls.file}
    consider = _each_use(st, out, strong, chain_nodes, chain_files, local_only)
    searched: set[str] = set()
    for i, rel in enumerate(files):
        if st.progress:
            st.progress(i + 1, len(files), f"uses of {a.parent.name}'s members")
        # A file whose every mention is of members already kept is not even parsed
        # (most of the cost of a run is parsing).
        # An init-local candidate already found read elsewhere is decided: it no longer makes a
        # file worth parsing (its word is in hundreds of files when the name is common).
        if not st.all_uses and mentioned[rel] <= set(a.kept) - (local_only - a.read_outside):
            continue
        mod = st.index.module(rel)
        if mod is None:
            error = st.index.syntax_errors.get(rel)
            a.skipped_files[rel] = f"line {error[0]}: {error[1]}" if error else tree.unreadable.get(rel, "unreadable")
            continue
        flow.looked_at(rel)  # parsed for this search anyway: free for the typing that follows
        searched.add(rel)
        for node in mod.nodes:
            if node.__class__ not in USE_NODES:
                continue  # a name, an operator, a statement: nothing attr_use answers for
            hit = attr_use(node, cand_set)
            if hit is not None:
                consider(rel, mod, node, *hit)
            elif node.__class__ is ast.Call and computed_name(node) is not None:
                for hit in literal_uses(mod, node, cand_set):
                    consider(rel, mod, node, *hit)
    # A name spelt in pieces (f"{axis}_scale", "ca" + "che") is in none of the texts searched
    # above: the files where an accessor is given such pieces of a candidate's name, and those
    # that name the class or its kin beside an accessor, are looked at for those too.
    pieced = tree.grep(lambda text: _pieces_of(text, cands), words=(text_facts.PIECED_NAME,),
                       among=set(tree.files_with_words(tuple(sorted(ACCESSORS)))))
    for rel in sorted(set(pieced) | set(class_site_files(st))):
        mod = None if rel in searched else st.index.module(rel)
        for node in mod.nodes if mod is not None else ():
            if node.__class__ is ast.Call and computed_name(node) is not None:
                for hit in literal_uses(mod, node, cand_set):
                    consider(rel, mod, node, *hit)
    return True


def _each_use(st, out: Scanned, strong: set[str], chain_nodes: set[int], chain_files: set[str], local_only: set[str]):
    """The function that weighs one use found (``attr_use``'s answer) and keeps what it shows."""
    from ..receiver_typing.typing_flow import SHOWN

    a, flow = st.a, st.flow

    def consider(rel, mod, node, name, recv, how, line):
        if name in local_only:
            if name not in out.read_outside and not (rel in chain_files and inside_any(mod, node, chain_nodes)
                                                     and _on_own_instance(mod, node, recv)):
                verdict = (_unseen_receiver(flow, mod, node) if recv is node else flow.classify(mod, recv, node))[0]
                if verdict != Receiver.NO:
                    out.read_outside.append(name)
                    a.read_outside.add(name)
            return
        if name in strong and not st.all_uses:
            return
        confirm = name in a.kept and not st.all_uses
        if confirm and not flow.plainly_shown(mod, recv, node):
            # Kept already on an unknown receiver: only one typed right where it is used is
            # looked at (typing others would search the tree again); a typing on a small
            # budget then says whether it holds (an annotated parameter whose every call
            # site is in code the rewrite drops does not; past the budget, the annotation does).
            return
        if rel in chain_files and inside_any(mod, node, chain_nodes) and _on_own_instance(mod, node, recv):
            return
        if how == "hasattr()" and a.members[name][0].kind != "property" and flow.hasattr_decided(mod, node):
            return  # an `and` of duck-typing tests that no instance passes anyway
        if recv is node:  # read on an object the code does not write out
            verdict, note, strength = _unseen_receiver(flow, mod, node)
        else:
            verdict, note, strength = flow.classify(mod, recv, node, CONFIRM_PARSES if confirm else None)
        if verdict == Receiver.NO:
            return
        kind = a.members[name][0].kind
        if how == "write" and kind not in ("property",):
            return
        if name in a.kept and strength != SHOWN and not st.all_uses:
            return  # already kept on a use as weak as this one
        if how == "getattr()" and st.knowledge.proven and name not in a.kept:
            why = drop_equal_fallback.proof(st, mod, node, name)
            if why is not None:
                ev = Evidence(rel, line, f"getattr() of .{name} on {ast.unparse(recv)[:60]} with a fallback: {why}",
                              drop_equal_fallback.ID, strength)
                st.prove(name, ev)
                out.proofs.append((name, ev))
                return
        if strength != SHOWN and st.knowledge.assumes(a.cls.name, name) and recv is not node:
            # About to be dropped on the user's word: first look for a route the typing
            # follows that shows an instance of the class reaching the receiver.
            route = flow.witness(mod, recv, node)
            if route is not None:
                verdict, note, strength = Receiver.YES, route, SHOWN
        sure = "an instance of" if verdict == Receiver.YES else "possibly an instance of"
        ev = Evidence(rel, line, f"{how} of .{name} on {ast.unparse(recv)[:60]} ({sure} {a.cls.name}; {note})", ID, strength)
        if strength != SHOWN and st.knowledge.assumes(a.cls.name, name):
            st.assume(name, ev)  # the user's word: no reason to keep (an assumption in the report)
            out.assumptions.append((name, ev))
            return
        if strength == SHOWN:
            strong.add(name)
        st.need(name, ev)
        out.needs.append((name, ev))

    return consider
    return True


def _on_own_instance(mod, node: ast.AST, recv: ast.AST) -> bool:
    """Whether a use in the class's or its parents' code is on what the method reaches from its
    own ``self`` or ``cls`` (``self.x.y``, ``type(self)``), which the usage analysis of that code
    answers for. A use there on an object handed in or made otherwise is typed like any other:
    the parent's code still runs on the parent and may be handed an instance of the class
    (mutagen's ``MetadataBlock._writeblock(cls, block)`` reads ``block._invalid_overflow_size``
    on a ``Picture``)."""
    if recv is node:
        return True  # attrgetter, methodcaller, a format string, a class pattern: as before
    fn, _ = enclosing_def(mod, node)
    if fn is None:
        return True
    sn = None if is_static(fn) else first_param(fn)
    root = recv
    while True:
        if isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        elif isinstance(root, ast.Call) and dotted_name(root.func) == "type" and len(root.args) == 1:
            root = root.args[0]
        else:
            break
    return isinstance(root, ast.Name) and root.id == sn


_MATCH_CLASS = getattr(ast, "MatchClass", None)
# The node classes ``attr_use`` (and the computed-name branch beside it) answers for.
USE_NODES = frozenset({ast.Attribute, ast.Call, ast.Constant} | ({_MATCH_CLASS} if _MATCH_CLASS else set()))


def attr_use(node: ast.AST, names: set[str]):
    """(name, receiver, how, line) for ``recv.name``, getattr/hasattr/setattr(recv, "name"),
    ``attrgetter("name")``, ``methodcaller("name")``, a format string's ``{0.name}`` and a class pattern's
    ``C(name=...)``, else None. The receiver is an expression to type, or for the last three
    ``node`` itself: it reads the name on an object not written in the code (``_unseen_receiver``)."""
    cls = node.__class__  # called for every node of every file searched: one dispatch on the class
    if cls is ast.Attribute:
        if node.attr in names:
            how = "write" if isinstance(node.ctx, ast.Store) else "read"
            return node.attr, node.value, how, getattr(node, "end_lineno", node.lineno)
    elif cls is ast.Call:
        func = node.func
        called = func.id if func.__class__ is ast.Name else func.attr if func.__class__ is ast.Attribute else None
        if called in ACCESSORS and func.__class__ is ast.Name and len(node.args) >= 2:
            lit = node.args[1]
            if isinstance(lit, ast.Constant) and lit.value in names:
                how = "write" if called == "setattr" else f"{called}()"
                return lit.value, node.args[0], how, lit.lineno
        elif called == "attrgetter" or called == "methodcaller":
            # methodcaller's later arguments are the call's, not names
            for arg in node.args if called == "attrgetter" else node.args[:1]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    hit = next((p for p in arg.value.split(".") if p in names), None)
                    if hit:
                        return hit, node, f"{called}()", node.lineno
    elif cls is ast.Constant:
        if node.value.__class__ is str and "{" in node.value:
            hit = next((m for m in _FORMAT_FIELD.findall(node.value) if m in names), None)
            if hit:
                return hit, node, "format string read", node.lineno
    elif cls is _MATCH_CLASS:
        hit = next((k for k in node.kwd_attrs if k in names), None)
        if hit:
            return hit, node, "class pattern read", node.lineno
    return None


def literal_uses(mod, call: ast.Call, names: set[str]) -> list[tuple]:
    """``attr_use``'s answers for an accessor whose name is computed from literals only
    (``for a in ("url", "timeout"): getattr(src, a)``): a use of each of them among ``names``."""
    spelt = literal_names(computed_name(call), mod.parents)
    if not spelt:
        return []
    called, name = call.func.id, call.args[1]
    how = "write" if called == "setattr" else f"{called}() by a name among {', '.join(sorted(spelt)[:4])}{', ...' if len(spelt) > 4 else ''}"
    return [(n, call.args[0], how, name.lineno) for n in sorted(spelt & names)]


_ARGS = re.compile(r"\s*[^,()]+,\s*([^)\n]*)")
_QUOTED = re.compile(r"""(['"])(.*?)\1""")
_FIELD = re.compile(r"\{[^{}]*\}")
_HEADS = {"get", "has", "set", "del"}


def _shape(name: str) -> re.Pattern | None:
    """The names an f-string or a ``+`` of quoted pieces can spell, as a pattern: the pieces in
    their order, anything where a field or another operand sits (None when no piece is quoted)."""
    quoted = _QUOTED.search(name)
    if quoted is None:
        return None
    if name.startswith(("f'", 'f"')) and quoted.start() == 1 and "+" not in name[quoted.end():]:
        return re.compile(".*".join(re.escape(p) for p in _FIELD.split(quoted.group(2))), re.S)
    return re.compile(".*" + ".*".join(re.escape(p) for q in _QUOTED.findall(name) for p in _FIELD.split(q[1]) if p) + ".*", re.S)


def _pieces_of(text: str, cands: list[str]) -> bool:
    """Whether an accessor's name argument in ``text`` is an f-string or a ``+`` of quoted
    pieces that can spell some candidate's name. (Found by hand after ``attr(``: a regex that
    starts with the accessors' names is slow on these files.)"""
    at = text.find("attr(")
    while at >= 0:
        if at >= 3 and text[at - 3:at] in _HEADS and not (text[at - 4:at - 3].isalnum() or text[at - 4:at - 3] == "_"):
            m = _ARGS.match(text, at + 5)
            name = m.group(1) if m else ""
            if name.startswith(("f'", 'f"')) or "+" in name:
                shape = _shape(name)
                if shape is not None and any(shape.fullmatch(c) for c in cands):
                    return True
        at = text.find("attr(", at + 5)
    return False


_FORMAT_FIELD = re.compile(r"\{[^{}!:]*?\.(\w+)")  # {0.name}, {obj.name[k]}: str.format reads the attribute


def _unseen_receiver(flow, mod, node: ast.AST) -> tuple[str, str, str]:
    """(verdict, note, strength) for a read on an object the code does not write out: a class
    pattern reads only on instances of its class; ``attrgetter``, ``methodcaller`` and format strings, on
    whatever they are given."""
    from ..receiver_typing.typing_flow import UNKNOWN

    if type(node).__name__ == "MatchClass" and dotted_name(node.cls) is not None:
        verdict = flow.rel.combine([mod.qualify(node.cls)])
        return verdict, f"the pattern's class is {ast.unparse(node.cls)}", UNKNOWN
    return Receiver.MAYBE, "what it is applied to is not followed", UNKNOWN
