"""Receiver typing: what an expression may hold, for telling whether a read of a member's
name is a read on an instance of the class.

One engine in several modules: ``typing_flow.Flow`` answers the questions the analysis asks
(is this receiver an instance of the class, a subclass, unrelated?); ``type_exprs.Types``
types an expression, with its mixins for names (``type_names``), calls (``type_calls``),
attributes (``type_attrs``), stores (``type_stores``), container elements (``type_elements``,
``type_containers``) and tables of factories (``type_dispatch``); annotations are read by ``type_annotations``; ``hidden_classes``,
``confinement``, ``call_sites``, ``dominance`` and ``hasattr_tests`` answer the narrower
questions the typing needs (classes made at run time, attributes that never leave an object,
where a function is called, which statement runs before which, duck-typing tests).
"""
