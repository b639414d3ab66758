"""The ``autograd`` namespace printed traces import (``autograd.torch_vjp``, ``autograd.add_cotangent``)."""

from .vjp import add_cotangent, torch_vjp  # noqa: F401
