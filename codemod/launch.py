"""The console script's entry and ``python -m codemod``'s: the command line is imported under a
guard, so that a Ctrl-C while the tool loads (``codemod.cli`` and what it imports take tens of
milliseconds) ends in one line and exit 130, as at any later moment. Only the interpreter's own
start-up, before this module runs, is out of reach."""


def main() -> None:  # pragma: no cover - the console script
    try:
        from .cli import entry
    except KeyboardInterrupt:
        import os
        import sys

        sys.stderr.write("decouple: interrupted\n")
        os._exit(130)  # errors.EXIT_INTERRUPTED, not imported: the import is what was interrupted
    entry()
