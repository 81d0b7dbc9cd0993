"""Stand-in for ``triton.language.core``: constexpr, dtypes, tensor types."""

from __future__ import annotations

from .._placeholder import module_getattr


class constexpr:
    """Compile-time constant marker; also usable as ``x: tl.constexpr``."""

    def __init__(self, value=None):
        if isinstance(value, constexpr):
            value = value.value
        self.value = value

    def __repr__(self) -> str:
        return f"constexpr[{self.value!r}]"

    def __index__(self):
        return int(self.value)

    def __int__(self):
        return int(self.value)

    def __bool__(self):
        return bool(self.value)

    def __hash__(self):
        return hash(self.value)

    def __eq__(self, other):
        other = other.value if isinstance(other, constexpr) else other
        return self.value == other


class dtype:
    """A named element type; instances are module constants such as ``tl.float16``."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"triton.language.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other):
        return isinstance(other, dtype) and other.name == self.name

    def __hash__(self):
        return hash(("triton-dtype", self.name))

    @property
    def primitive_bitwidth(self) -> int:
        digits = "".join(ch for ch in self.name if ch.isdigit())
        if self.name.startswith("fp8") or self.name.startswith("float8"):
            return 8
        return int(digits[:2]) if digits else 0

    def to(self, *args, **kwargs):  # pragma: no cover - kernel-only
        return self


class pointer_type(dtype):
    def __init__(self, element_ty: dtype, address_space: int = 1, const: bool = False):
        super().__init__(f"pointer<{element_ty}>")
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const


class block_type(dtype):
    def __init__(self, element_ty: dtype, shape):
        super().__init__(f"block<{element_ty}>")
        self.element_ty = element_ty
        self.shape = tuple(shape)


class tensor:
    """Type of values inside kernels; never instantiated on the CPU stand-in."""

    def __init__(self, handle=None, type=None):
        self.handle = handle
        self.type = type


void = dtype("void")
int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")
float8e5 = dtype("fp8e5")
float8e5b16 = dtype("fp8e5b16")
float8e4nv = dtype("fp8e4nv")
float8e4b8 = dtype("fp8e4b8")
float8e4b15 = dtype("fp8e4b15")

__getattr__ = module_getattr("triton.language.core")
