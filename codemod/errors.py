"""The two ways a run can fail on purpose, each with its exit code.

Everything the CLI cannot finish ends in one of these, so that the user sees one
line and an exit code, never a traceback.
"""

EXIT_OK = 0
EXIT_CHANGES = 1  # --check: the tree still needs the refactor (ruff/black style)
EXIT_USAGE = 2  # bad usage or bad input
EXIT_UNSAFE = 3  # refused: the analysis or the checks of the patch said no
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as a shell reports it)


class DecoupleError(Exception):
    exit_code = EXIT_USAGE


class UsageError(DecoupleError):
    """Bad arguments or input: exit 2."""

    exit_code = EXIT_USAGE


class NothingSelected(UsageError):
    """No class to work on: no --class or --parent, and no table that names one (or no project
    at all). Exit 2, or with ``--if-configured`` (the pre-commit hook) ``note`` and exit 0."""

    def __init__(self, message: str, note: str):
        super().__init__(message)
        self.note = note


class UnsafeError(DecoupleError):
    """The tool refuses to emit a patch: exit 3. ``rule``: the id of the rule that refused."""

    exit_code = EXIT_UNSAFE

    def __init__(self, message: str, rule: str = ""):
        super().__init__(message)
        self.rule = rule
