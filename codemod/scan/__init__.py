"""``decouple scan``: which classes of a tree pay for parent ``__init__`` work they do not use.

``sketch`` parses the files cheaply (imports and the classes of interest); ``estimate`` ranks
every (class, parent) pair by what an instance would stop paying (the first pass); ``report``
runs the full analysis on the top of that ranking and prints the table (the second pass).
"""
