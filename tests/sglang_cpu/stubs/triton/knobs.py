"""Stand-in for ``triton.knobs`` (settings objects only)."""

from types import SimpleNamespace


class HookChain:
    def __init__(self, *hooks):
        self.calls = list(hooks)

    def add(self, fn):
        self.calls.append(fn)

    def remove(self, fn):
        if fn in self.calls:
            self.calls.remove(fn)

    def __call__(self, *args, **kwargs):
        for fn in self.calls:
            fn(*args, **kwargs)


cache = SimpleNamespace(dir=None, dump_dir=None, override_dir=None)
compilation = SimpleNamespace(always_compile=False, listener=None, use_block_pingpong=False)
runtime = SimpleNamespace(
    debug=False,
    interpret=False,
    launch_enter_hook=HookChain(),
    launch_exit_hook=HookChain(),
    jit_post_compile_hook=None,
    jit_cache_hook=None,
)
nvidia = SimpleNamespace(ptxas_path=None)
amd = SimpleNamespace()
autotuning = SimpleNamespace(cache=False, print=False)
