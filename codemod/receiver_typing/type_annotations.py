"""What an annotation says: the classes it allows (``annotation_types``), and the names that the
typing modules share.
"""

from __future__ import annotations

import ast

from ..ast_util import dotted_name
from ..index import ModuleInfo

UNREACHED = "<unreached>"  # the value comes only from code that no longer runs
EXACT = "="  # prefix of a type known exactly (a constructor call), not "this class or a subclass"

_CONTAINERS = {"List", "list", "Sequence", "Tuple", "tuple", "Iterable", "Set", "set", "FrozenSet", "Deque", "deque", "Iterator", "MutableSequence"}
_WRAPPERS = {"Optional", "Final", "ClassVar", "Annotated"}

# Outside bases that give instances no public attribute: a class with only these outside the tree
# has no attribute that its classes in the tree do not define.
NAMELESS_BASES = {"builtins.object", "object", "abc.ABC", "ABC", "typing.Generic", "Generic", "typing.Protocol",
                  "Protocol", "typing_extensions.Protocol"}
PROPERTIES = {"property", "functools.cached_property", "cached_property"}  # what makes a method an attribute
# Outside bases that give their subclasses' instances no attributes of their own choosing, so a
# class with only these outside the tree has all its stores in the tree.
PLAIN_BASES = {"builtins.object", "object", "abc.ABC", "ABC", "typing.Generic", "Generic", "typing.Protocol",
                "Protocol", "typing_extensions.Protocol", "enum.Enum", "enum.IntEnum", "enum.Flag",
                "builtins.Exception", "Exception", "builtins.BaseException", "BaseException",
                "builtins.ValueError", "ValueError", "RuntimeError", "builtins.RuntimeError"}
# Metaclasses whose __call__ is type's: calling the class makes an instance of it.
PLAIN_METACLASSES = {"abc.ABCMeta", "ABCMeta", "builtins.type", "type"}


def annotation_types(mod: ModuleInfo, ann: ast.AST | None, element: bool = False) -> list[str] | None:
    """Qualified class names an annotation allows; None when it says nothing useful."""
    if ann is None:
        return None
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(ann, ast.Constant) and ann.value is None:
        return []
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        a = annotation_types(mod, ann.left, element)
        b = annotation_types(mod, ann.right, element)
        return None if a is None or b is None else a + b
    if isinstance(ann, ast.Subscript):
        head = (dotted_name(ann.value) or "").rsplit(".", 1)[-1]
        args = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        if head in _WRAPPERS:
            return annotation_types(mod, args[0], element)
        if head == "Union":
            out = []
            for a in args:
                t = annotation_types(mod, a, element)
                if t is None:
                    return None
                out += t
            return out
        if head in _CONTAINERS:
            if not element:
                return [f"builtins.{head.lower()}"]
            out = []
            for a in args:
                if isinstance(a, ast.Constant) and a.value is Ellipsis:
                    continue
                t = annotation_types(mod, a, False)
                if t is None:
                    return None
                out += t
            return out
        return [mod.qualify(ann.value)] if not element else None
    name = dotted_name(ann)
    if name is None:
        return None
    if element:
        return None
    return [mod.qualify(ann)]


def shown_code(node: ast.AST) -> str:
    """``node``'s source, short enough for a note."""
    text = ast.unparse(node)
    return f"`{text if len(text) <= 40 else text[:37] + '...'}`"
