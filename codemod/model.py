"""The records every stage passes on: what the analysis found, what the verdict is, what a run produced.

Records only: no stage logic lives here, and every stage imports these types instead of
another stage's module. Each record that the report shows carries the id of the rule that
produced it (``codemod/rules/``; ``docs/rules.md`` lists them).
"""

from __future__ import annotations

import ast
from dataclasses import asdict, dataclass, field
from enum import Enum

from .ast_util import Pos


class _Word(str, Enum):
    """An enum whose members print and format as their value (``f"{Decision.DECLINE}"`` is "decline")."""

    __str__ = str.__str__
    __format__ = str.__format__


class Decision(_Word):
    """A class's verdict; the value is what ``report.json`` says."""

    DECOUPLE = "decouple"
    DECLINE = "decline"
    UNSAFE = "unsafe"


class Receiver(_Word):
    """Whether an expression may evaluate to an instance of the class being decoupled."""

    YES = "yes"
    MAYBE = "maybe"
    NO = "no"


@dataclass
class ReadLog:
    """What a run depended on, for the warm-run cache: the files whose text it read (beyond the
    word index), and the words it looked files up by. The run owns it; the tree writes into it."""

    consulted: set[str] = field(default_factory=set)
    queried: set[str] = field(default_factory=set)

    def merge(self, other: "ReadLog") -> None:
        """Add what another process of the same run read (the scan worker's log)."""
        self.consulted |= other.consulted
        self.queried |= other.queried


@dataclass
class Evidence:
    """Why a member is kept: one use, at ``file:line``."""

    file: str
    line: int
    use: str
    rule: str = ""
    # How strongly the use is established: "own" (the class's own code, or the parent code it
    # keeps), "shown" (a receiver shown to be able to hold an instance), "unknown" (a receiver
    # that could not be ruled out).
    strength: str = "own"

    def as_dict(self):
        return {"file": self.file, "line": self.line, "use": self.use, "rule": self.rule, "strength": self.strength}


@dataclass
class Hazard:
    """Something checked that may change meaning after reparenting (or, in ``unsafe``, cannot be decided)."""

    file: str
    line: int
    what: str
    changes_meaning: bool = True
    rule: str = ""

    def as_dict(self):
        return {"file": self.file, "line": self.line, "what": self.what, "rule": self.rule}

    def key(self):
        return (self.file, self.line, self.what)


@dataclass
class SideEffect:
    """A statement of the parent's ``__init__`` that no longer runs, and what it did beyond the instance."""

    file: str
    line: int
    code: str
    why: str
    rule: str = ""

    def as_dict(self):
        return {"file": self.file, "line": self.line, "code": self.code, "why": self.why, "rule": self.rule}

    def key(self):
        return (self.file, self.line, self.code, self.why)


@dataclass
class SuperCall:
    file: str
    line: int
    method: str
    in_method: str
    resolves_to: str  # qualified "Class.method", or "nothing"
    reaches_parent: bool
    needs_dropped: list[str] = field(default_factory=list)  # what the target reads that the parent's __init__ constructs or allocates
    read: bool = False  # super().X read as a value (a property, a class attribute, a bound method), not called


@dataclass
class Fusion:
    """A parent loop that appends to ``self.L`` whose elements the subclass overwrites one by one."""

    attr: str
    parent_loop: ast.For
    child_loop: ast.For
    child_store: ast.Assign  # self.L[i] = E2 inside child_loop


@dataclass
class SliceResult:
    """The statements of the parent's ``__init__`` that the class still needs, and what they need."""

    kept: set[Pos] = field(default_factory=set)
    dead: set[Pos] = field(default_factory=set)  # never runs for the subclass (folded)
    reads_attrs: dict[str, list[int]] = field(default_factory=dict)  # needed at entry, with lines
    calls_methods: dict[str, list[int]] = field(default_factory=dict)
    # attribute -> lines of kept statements that read it through a method they call (or a
    # property setter they run): where such a read is, for the evidence
    read_by_call: dict[str, list[int]] = field(default_factory=dict)
    free_locals: set[str] = field(default_factory=set)  # parameters (or globals) the slice reads
    dropped: list[tuple[ast.stmt, str, str]] = field(default_factory=list)  # (statement, side effect, rule)
    for_effect: dict[Pos, tuple[ast.stmt, str, str]] = field(default_factory=dict)  # kept for its effect alone: (statement, why, rule)
    total: int = 0
    kept_count: int = 0
    dynamic: list[tuple[int, str]] = field(default_factory=list)
    fusions: list[Fusion] = field(default_factory=list)
    folded: dict[int, bool] = field(default_factory=dict)  # line of a constant ``if`` -> branch taken


@dataclass(frozen=True)
class Knowledge:
    """What the user states and the analysis cannot prove: the report shows it as an assumption.

    ``proven`` (``--keep proven``): a member is kept only on a use shown on an instance of the
    class; a use on an object of unknown type is an assumption, not a reason to keep.
    ``unused`` (``--assume-unused C.member``): the same for single members."""

    proven: bool = False
    unused: frozenset = frozenset()  # "Class.member"

    def assumes(self, cls: str, member: str) -> bool:
        return self.proven or f"{cls}.{member}" in self.unused


@dataclass
class ClassAnalysis:
    """Everything the analysis found for one class: the input of the verdict and the rewrite."""

    cls: object  # index.ClassInfo
    parent: object | None  # index.ClassInfo
    base: str  # qualified name of the new base ("builtins.object" for none)
    chain: list = field(default_factory=list)  # P and any classes between P and B
    # The chain's other bases (``class P(Mixin, Base)``: Mixin's place is taken by B, Base stays too):
    # qualified names, in order; C keeps them after the new base.
    extra_bases: list[str] = field(default_factory=list)
    former: str | None = None  # the parent a marker comment says the class was decoupled from
    inherits: bool = True  # the class really has P among its bases
    members: dict[str, tuple] = field(default_factory=dict)  # name -> (Member, owner ClassInfo)
    kept: dict[str, list[Evidence]] = field(default_factory=dict)
    # Members dropped on the user's word (Knowledge): their uses on objects of unknown type.
    assumptions: dict[str, list[Evidence]] = field(default_factory=dict)
    # Members whose every outside read gives the same result without them (DC154): those reads, each with its proof.
    proofs: dict[str, list[Evidence]] = field(default_factory=dict)
    # DC617: members kept only for reads of the inlined __init__, and those of them read elsewhere too.
    init_local_candidates: set[str] = field(default_factory=set)
    read_outside: set[str] = field(default_factory=set)
    may_have_known: bool = False  # every attribute an instance may carry is known (no computed stores, no hidden subclass)
    made_local: set[str] = field(default_factory=set)  # what DC617 turned into locals of the __init__ (the rewrite's)
    unsafe: list[Hazard] = field(default_factory=list)
    hazards: list[Hazard] = field(default_factory=list)
    side_effects: list[SideEffect] = field(default_factory=list)
    kept_for_effect: list[SideEffect] = field(default_factory=list)  # statements kept though nothing reads what they define
    super_calls: list[SuperCall] = field(default_factory=list)
    init_slice: SliceResult | None = None
    init_consts: dict[str, object] = field(default_factory=dict)
    super_init_stmt: ast.stmt | None = None
    super_init_call: ast.Call | None = None
    child_end_state: set[str] = field(default_factory=set)
    fusions: list[Fusion] = field(default_factory=list)
    generated_init: bool = False  # a decorator (@dataclass) writes C's __init__
    read_through: dict = field(default_factory=dict)  # position -> (new value, its source)
    recomputed: dict = field(default_factory=dict)  # position of a kept parent statement -> the class's repeat of it (DC612)
    moved: list = field(default_factory=list)  # (kept parent statement, the class statement it moves after): DC612
    skipped_files: dict[str, str] = field(default_factory=dict)
    # The generated __init__ of a @dataclass parent, read as its source (DC313's DataclassInit).
    dataclass_init: object | None = None

    @property
    def nothing_to_do(self) -> bool:
        return self.parent is None or not self.inherits

    @property
    def parent_init(self) -> ast.FunctionDef | None:
        if self.dataclass_init is not None:
            return self.dataclass_init.fn
        owner = self.parent_init_owner
        return owner.methods["__init__"] if owner is not None else None

    @property
    def parent_init_owner(self):
        if self.dataclass_init is not None:
            return self.parent
        for c in self.chain:
            if "__init__" in c.methods:
                return c
        return None

    def kind(self, name: str) -> str:
        return self.members[name][0].kind

    @property
    def reuse(self) -> dict:
        total = len(self.members)
        used = len(self.kept)
        return {"members_used": used, "members_total": total, "ratio": round(used / total, 3) if total else 0.0}

    @property
    def init_reuse(self) -> dict:
        sl = self.init_slice
        if sl is None:
            return {"statements_kept": 0, "statements_total": 0}
        return {"statements_kept": sl.kept_count, "statements_total": sl.total}


@dataclass(frozen=True)
class Former:
    """What ``--parent`` named, for a class that no longer has it anywhere in its MRO: the class
    is already decoupled from it, and there is nothing to do."""

    name: str


@dataclass
class Scanned:
    """What the scan of the rest of the tree found for one class, in order: enough to replay it elsewhere."""

    needs: list[tuple[str, Evidence]] = field(default_factory=list)
    assumptions: list[tuple[str, Evidence]] = field(default_factory=list)
    proofs: list[tuple[str, Evidence]] = field(default_factory=list)  # DC154: reads shown not to depend on the member
    read_outside: list[str] = field(default_factory=list)  # DC617's candidates read outside the __init__
    init_local_candidates: list[str] = field(default_factory=list)
    may_have_known: bool = False
    closed: bool = False  # the scan ended with a closure over the members it kept
    skipped_files: dict[str, str] = field(default_factory=dict)
    hazards: list[Hazard] = field(default_factory=list)
    unsafe: list[Hazard] = field(default_factory=list)
    syntax_errors: dict[str, tuple[int, str]] = field(default_factory=dict)  # what the scanning process could not parse


@dataclass(frozen=True)
class Verdict:
    """The decision on one class, the rule that made it, and why."""

    decision: Decision
    rule: str
    reason: str
    refused_by: str | None = None  # the rewrite or check rule that refused the patch
    # The numbers the rule compared, for report.json; not part of the verdict's identity, so
    # two verdicts that decide the same way compare equal whatever they measured.
    figures: dict = field(default_factory=dict, compare=False, hash=False)


@dataclass
class Refusal:
    """A rewrite, check or test run that refused the patch (an input to the verdict)."""

    rule: str
    message: str
    stage: str  # "rewrite", "check" or "tests"


@dataclass
class ClassPlan:
    """What one class rewrite did, for the report."""

    inlined: list[str] = field(default_factory=list)
    comments: list[tuple[int, str, str]] = field(default_factory=list)  # (line in the patched file, comment, why): DC611
    removed_comments: list = field(default_factory=list)  # the copied comments left out (rewrite_flag_comments.Removed): DC611
    locals: list[str] = field(default_factory=list)  # attributes the __init__ now keeps as locals: DC617


@dataclass
class ModulePatch:
    rel: str
    before: str | None  # None: a new file
    after: str
    plans: dict[str, ClassPlan]
    imports_added: list[str] = field(default_factory=list)
    imports_removed: list[str] = field(default_factory=list)
    imports_kept: list[str] = field(default_factory=list)  # unused here now, but re-exported or imported from here elsewhere
    encoding: str = "utf-8"


@dataclass
class Emitted:
    """One file the run would write: what emit needs, and all that the cache keeps."""

    rel: str
    before: str | None  # None: a new file
    after: str
    encoding: str = "utf-8"


@dataclass
class Result:
    """Everything a run decided, independent of the mode it emits in (so it can be cached)."""

    report: dict
    files: list[Emitted]
    diff: str
    summary: list[str]  # "Class: decision: reason", for stderr
    check_lines: list[tuple[str, int, str]]  # (file, line, "Class would be decoupled from Parent: why")
    unsafe: bool
    changes: bool

    def to_json(self) -> dict:
        return {**asdict(self), "files": [asdict(f) for f in self.files]}

    @classmethod
    def from_json(cls, data: dict) -> "Result":
        return cls(**{**data, "files": [Emitted(**f) for f in data["files"]]})
