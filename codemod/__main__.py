try:
    from .cli import entry
except KeyboardInterrupt:  # Ctrl-C while the tool loads: one line, as at any later moment
    import os
    import sys

    sys.stderr.write("decouple: interrupted\n")
    os._exit(130)  # errors.EXIT_INTERRUPTED, not imported: the import is what was interrupted

entry()
