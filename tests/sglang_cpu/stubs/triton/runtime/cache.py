"""Stand-in for ``triton.runtime.cache``."""

from .. import knobs  # noqa: F401


def triton_key() -> str:
    return "triton-cpu-stand-in"


def get_cache_manager(key):
    raise RuntimeError("triton stand-in has no kernel cache")


def default_cache_dir() -> str:
    return ""
