"""``decouple --class C --hook``: a factory method on the parent, so that C no longer builds
an object only to replace it (DC408 finds them, DC616 rewrites).

``plan`` decides what changes and what is left (with the reason), ``edit`` makes the text of
each file, ``run`` is the command: the diff on stdout, the report on stderr, ``--write`` in place.
"""
