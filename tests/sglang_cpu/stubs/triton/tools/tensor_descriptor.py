"""Stand-in for ``triton.tools.tensor_descriptor``."""

from dataclasses import dataclass
from typing import Any


@dataclass
class TensorDescriptor:
    base: Any
    shape: Any
    strides: Any
    block_shape: Any

    @staticmethod
    def from_tensor(tensor, block_shape):
        return TensorDescriptor(tensor, tensor.shape, tensor.stride(), list(block_shape))
