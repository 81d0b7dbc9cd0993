"""DC616 factory-hook: move a construction the class throws away into a method of the parent that the class overrides.

## What it does
``decouple --class C --hook``: for each statement DC408 finds (P's ``__init__`` builds
``self.a`` or ``self.L[i]``, C replaces it after ``super().__init__()`` before any read) whose
hook the scan judges possible, P's statement stores ``self._build_a(...)`` instead, a new
method of P whose body returns P's old expression (its parameters: the locals of P's
``__init__`` the expression reads, the loop variable first); C gets an override returning its
own construction, and C's replacement statement goes. A parameter of C that C's construction
reads is the matching parameter of P's ``__init__`` when C passes it on unchanged, else it is
stored on ``self`` before ``super().__init__()``. Each subclass of C that replaces the same
object in the same shape gets its own override, and its replacement goes too.

## Why
The construction C throws away is real work (GPU allocations, random numbers drawn for
parameters); decoupling cannot remove it where P is really reused. With the hook every other
subclass of P runs P's own code, now inside the method, and builds what it built before.

## Known problems
Refused, with the reason: a replacement in the two branches of an ``if``, or a loop that does
more than the store; a local of C's ``__init__`` other than a parameter; an attribute C sets
after ``super().__init__()``; a name of C's construction that a hook parameter would shadow;
a subclass of P anywhere in the tree that defines the method already (P's ``__init__`` would
call it). A subclass of C that replaces in another shape, or reads the object first, is left
as it is (it keeps replacing what C's override built: what it did before). P's file is
edited: where it must not be (``--no-parent-edit``, or outside ROOT), DC618 copies P's
``__init__`` into C instead.

## Fix safety
Each hook needs the scan's proof that every read of the object in P's ``__init__`` before the
replacement gives the same value with C's object; C's construction now runs where P's
statement ran, so its side effects move earlier, before the rest of P's ``__init__`` (listed
in the report). The patched files are compiled before anything is written.
"""

from __future__ import annotations

ID = "DC616"
NAME = "factory-hook"
