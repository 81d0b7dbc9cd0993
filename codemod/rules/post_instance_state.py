"""DC703 post-instance-state: refuse a patch after which an instance lacks an attribute it had, other than those dropped as unused.

## What it does
Compares what an instance of the class has before and after the patch, outside the analysis:
the names its MRO's classes of the tree define (methods, properties, class attributes), and
the attributes construction stores on it (``type(self).__init__`` followed through ``self.m()``,
``super()``, ``X.m(self)``, property setters and data descriptors' ``__set__`` run by an
assignment, ``setattr(self, "name", ...)``; every branch). A name the instance had that it no
longer has refuses the patch, unless it is one of the parent's members that the analysis
dropped as unused and no code still running on the class reads. An attribute construction
stored that it no longer stores counts as lost even where the class still defines the name at
class level: the instance's value shadowed the class's (wtforms' ``Input.__init__`` storing
``self.input_type`` over ``TextInput.input_type``). Where a class that stays in the MRO defines
``__setattr__``, every store is a call to it: construction must store every attribute it
stored before, but for the names the hook only stores (``codemod/attribute_hooks.py``: a
``__setattr__`` copied from the parent that forwards the store and does nothing else for it).
Names are compared as Python stores them: a private ``__x`` (a store on ``self``, a method, a
class attribute) is ``_P__x`` when written in the parent's body and ``_C__x`` in the class's, so
moved code that kept the spelling ``__x`` (another name in the class) loses ``_P__x``.

## Why
An assignment can run code: ``self.max_bs = max_bs`` runs a property's setter that also sets
``capture_bs``. Dropping the assignment leaves an instance without attributes that the class
reads, and nothing in the patched file is undefined for pyflakes to see.

## Known problems
Stores by computed name (``setattr(self, name, v)``, ``self.__dict__.update``) and stores made
by code outside the class's MRO are not followed, before or after alike. Classes outside the
tree contribute nothing.

## Fix safety
A post-condition: no patch is written (exit 3) when it fails.
"""

from __future__ import annotations

import ast

from ..ast_util import first_param, mangled, walk
from ..attribute_hooks import silent_for

ID = "DC703"
NAME = "post-instance-state"


def check(ctx) -> None:
    if ctx.old.error or ctx.new.error:
        return  # DC701 reports it
    name = ctx.a.cls.name
    before = _class_level(ctx.old.infos)
    after = _class_level(ctx.new.infos)
    # A member proved unused may go, unless code that still runs on the class reads it.
    dropped = {mangled(ctx.a.members[n][1].name, n) for n in ctx.dropped}
    may_go = dropped - self_reads([c for c in ctx.new.infos if c is not None])
    lost = sorted(before - after - may_go - {"__init__"})
    if lost:
        ctx.violate(ID, f"after the patch {name} no longer has {', '.join(lost)}, which the analysis did not prove unused")
    # A __setattr__ sees every store: then none may go, used or not, unless for that name it
    # does nothing but the store (attribute_hooks.silent_for).
    # One bound in the class body to other code (``__setattr__ = _logged``) is never silent.
    hooks = [c.methods.get("__setattr__") for c in ctx.new.infos
             if c is not None and "__setattr__" in c.members and c.members["__setattr__"].kind != "instance_attribute"]
    unset = sorted(x for x in ctx.built_before - ctx.built_after
                   if x not in may_go or not all(fn is not None and silent_for(fn, x) for fn in hooks))
    if unset:
        ctx.violate(ID, f"after the patch constructing {name} no longer sets {', '.join('self.' + x for x in unset)}, "
                        f"which the analysis did not prove unused")


def self_reads(infos) -> set[str]:
    """What the methods of ``infos`` read as ``self.X`` or ``getattr(self, "X")``."""
    out: set[str] = set()
    for c in infos:
        for fn in c.methods.values():
            sn = first_param(fn)
            if sn is None:
                continue
            for n in walk(fn):
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name) and n.value.id == sn:
                    out.add(mangled(c.name, n.attr))
                elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "hasattr")
                      and len(n.args) >= 2 and isinstance(n.args[0], ast.Name) and n.args[0].id == sn
                      and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str)):
                    out.add(n.args[1].value)
    return out


def _class_level(infos) -> set[str]:
    """The names the classes define at class level, as Python stores them (``_P__x`` for ``__x``)."""
    return {mangled(c.name, n) for c in infos if c is not None for n, m in c.members.items() if m.kind != "instance_attribute"}
