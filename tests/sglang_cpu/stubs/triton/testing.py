"""Stand-in for ``triton.testing``: benchmarking helpers that refuse to run."""

from ._placeholder import module_getattr, unavailable


def do_bench(*args, **kwargs):
    unavailable("triton.testing.do_bench")


def do_bench_cudagraph(*args, **kwargs):
    unavailable("triton.testing.do_bench_cudagraph")


class Benchmark:
    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs


def perf_report(benchmarks):
    def wrap(fn):
        return fn

    return wrap


__getattr__ = module_getattr("triton.testing")
