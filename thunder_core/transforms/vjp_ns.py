"""The ``autograd`` namespace printed traces import (``autograd.torch_vjp``)."""

from .vjp import torch_vjp  # noqa: F401
