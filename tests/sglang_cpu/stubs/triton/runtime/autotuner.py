"""Stand-in for ``triton.runtime.autotuner``: Config, autotune, heuristics."""

from __future__ import annotations

from .._placeholder import copy_metadata, module_getattr
from .jit import KernelInterface


class OutOfResources(Exception):
    pass


class PTXASError(Exception):
    pass


class Config:
    """One autotuning candidate (kwargs plus launch settings)."""

    def __init__(
        self,
        kwargs=None,
        num_warps=4,
        num_stages=3,
        num_ctas=1,
        maxnreg=None,
        pre_hook=None,
        **extra,
    ):
        self.kwargs = dict(kwargs or {})
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.extra = extra

    def all_kwargs(self):
        out = dict(self.kwargs)
        out.update(num_warps=self.num_warps, num_stages=self.num_stages)
        return out

    def __repr__(self) -> str:
        return f"Config({self.kwargs}, num_warps={self.num_warps}, num_stages={self.num_stages})"


class Autotuner(KernelInterface):
    def __init__(self, fn, arg_names=None, configs=None, key=None, **options):
        self.fn = fn
        self.configs = list(configs or [])
        self.key = list(key or [])
        self.arg_names = arg_names
        self.options = options
        copy_metadata(self, fn)


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names=None, values=None):
        self.fn = fn
        self.values = dict(values or {})
        self.arg_names = arg_names
        copy_metadata(self, fn)


def autotune(configs=None, key=None, **options):
    def wrap(fn):
        return Autotuner(fn, configs=configs, key=key, **options)

    return wrap


def heuristics(values):
    def wrap(fn):
        return Heuristics(fn, values=values)

    return wrap


__getattr__ = module_getattr("triton.runtime.autotuner")
