"""One run of the tool: its tree, its cache entry and its result, whoever asked for it.

The command line (``cli.run``) and the Python API (``api.decouple``) both go through a
``Session``; neither keeps anything of a run anywhere else. Opening one starts the word index
(``cache.open_run``), so it comes before the pipeline's imports, which then overlap with it.
"""

from __future__ import annotations

from .cache import open_run
from .discover import open_tree
from .model import Result
from .options import Options


class Session:
    """A run's state: ``tree`` (the sources, read once), ``cache`` (None when off) and, once
    ``result`` has run, whether it was the previous run's result (``reused``)."""

    def __init__(self, options: Options):
        self.options = options
        self.tree = open_tree(options.root, options.release)
        self.cache = open_run(self.tree, options)
        self.reused = False

    def result(self) -> Result:
        """The previous run's result when the cache holds one that still stands, else the
        pipeline's (stored for the next run)."""
        result = self.cache.load() if self.cache is not None else None
        self.reused = result is not None
        if result is None:
            from .pipeline import compute

            result = compute(self.tree, self.options)
            if self.cache is not None:
                self.cache.store(result)
        return result

    def close(self, wait: bool = False) -> None:
        """Keep the word index this run built for the next one (``wait``: until it is written,
        rather than in a child left to finish on its own)."""
        self.tree.write_index_snapshot(wait)
