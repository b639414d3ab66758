"""Torch-level linear algebra and linear layers: the matmul family, einsum, linear,
bilinear and (transposed) convolutions.

The products check their shapes as torch does and decompose into ``prims.matmul``
(``torch.matmul`` semantics); the ``add*`` forms add ``beta * input`` with ``T.add``;
convolutions normalise their geometry (ints, tuples, ``padding="same"/"valid"``, unbatched
inputs) and decompose into ``prims.convolution``. ``einsum`` has no decomposition: executors
run it whole. Numbers that enter the arithmetic (``alpha``, ``beta``) are inputs; geometry
and flags are static. Every op here has the trait ``"matmul"`` (a library matrix-product
kernel; convolutions are implicit matrix products).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as _F

from ..ir.traits import MATMUL
from . import prims
from .registry import F, T, fake_meta, torch_op


def _need(op: str, **operands) -> None:
    """Raise like torch when an operand (``name=(tensor, ndim)``) has the wrong number of dimensions."""
    for name, (t, ndim) in operands.items():
        if t.ndim != ndim:
            raise RuntimeError(f"{op}: {name} must be a {ndim}-D tensor, got shape {list(t.shape)}.")


def _scale_add(product, input, beta, alpha):
    """``beta * input + alpha * product``; with ``beta == 0`` the input is ignored, as in torch
    (NaN and inf in it do not propagate). For integer tensors torch takes ``beta`` and ``alpha``
    as integers (truncated: ``beta=0.2`` is 0)."""
    if not (product.dtype.is_floating_point or product.dtype.is_complex or product.dtype is torch.bool):
        beta, alpha = int(beta), int(alpha)
    if alpha != 1:
        product = product * alpha
    return product if beta == 0 else T.add(product, input, alpha=beta)


@torch_op(torch.matmul, torch.Tensor.matmul, inputs=("input", "other"), method="matmul", tags=(MATMUL,))
def matmul(input, other):
    """Matrix product with broadcasting (``@``); see ``prims.matmul``."""
    return prims.matmul(input, other)


@torch_op(torch.mm, torch.Tensor.mm, inputs=("input", "mat2"), method="mm", tags=(MATMUL,))
def mm(input, mat2):
    """Product of two matrices."""
    _need("torch.mm", input=(input, 2), mat2=(mat2, 2))
    return prims.matmul(input, mat2)


@torch_op(torch.bmm, torch.Tensor.bmm, inputs=("input", "mat2"), method="bmm", tags=(MATMUL,))
def bmm(input, mat2):
    """Batched product of 3-D tensors with equal batch sizes (no broadcasting)."""
    _need("torch.bmm", input=(input, 3), mat2=(mat2, 3))
    if input.shape[0] != mat2.shape[0]:
        raise RuntimeError(f"torch.bmm: batch sizes differ: {list(input.shape)} and {list(mat2.shape)}.")
    return prims.matmul(input, mat2)


@torch_op(torch.mv, torch.Tensor.mv, inputs=("input", "vec"), method="mv", tags=(MATMUL,))
def mv(input, vec):
    """Matrix-vector product."""
    _need("torch.mv", input=(input, 2), vec=(vec, 1))
    return prims.matmul(input, vec)


@torch_op(torch.dot, torch.Tensor.dot, inputs=("input", "tensor"), method="dot", tags=(MATMUL,))
def dot(input, tensor):
    """Inner product of two vectors of one length and dtype."""
    _need("torch.dot", input=(input, 1), tensor=(tensor, 1))
    return prims.matmul(input, tensor)


@torch_op(torch.outer, torch.Tensor.outer, inputs=("input", "vec2"), method="outer", tags=(MATMUL,))
def outer(input, vec2):
    """Outer product of two vectors (with type promotion, like torch)."""
    _need("torch.outer", input=(input, 1), vec2=(vec2, 1))
    return input.reshape(input.shape[0], 1) * vec2


@torch_op(torch.addmm, torch.Tensor.addmm, inputs=("input", "mat1", "mat2", "beta", "alpha"), method="addmm",
          tags=(MATMUL,))
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``."""
    return _scale_add(T.mm(mat1, mat2), input, beta, alpha)


@torch_op(torch.baddbmm, torch.Tensor.baddbmm, inputs=("input", "batch1", "batch2", "beta", "alpha"),
          method="baddbmm", tags=(MATMUL,))
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)``."""
    return _scale_add(T.bmm(batch1, batch2), input, beta, alpha)


@torch_op(torch.addmv, torch.Tensor.addmv, inputs=("input", "mat", "vec", "beta", "alpha"), method="addmv",
          tags=(MATMUL,))
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``."""
    return _scale_add(T.mv(mat, vec), input, beta, alpha)


_einsum_fake = fake_meta(lambda pos, kw: torch.einsum(kw["equation"], *pos[0]))


def _einsum_meta(operands, *, equation):
    if not isinstance(equation, str):
        raise TypeError("torch.einsum: only the equation-string form (einsum('ij,jk->ik', a, b)) can be traced; "
                        "the sublist form einsum(a, [0, 1], b, [1, 2]) cannot. Write the equation as a string.")
    return _einsum_fake(operands, equation=equation)


@torch_op(torch.einsum, inputs=("operands",), meta=_einsum_meta, tags=(MATMUL,))
def einsum(equation, *operands):
    """Einstein summation; the equation is static, the operands positional. No decomposition."""


@torch_op(_F.linear, inputs=("input", "weight", "bias"), tags=(MATMUL,))
def linear(input, weight, bias=None):
    """``input @ weight.T + bias``."""
    out = T.matmul(input, weight.transpose(0, 1) if weight.ndim == 2 else weight)
    return out if bias is None else out + bias


@torch_op(_F.bilinear, inputs=("input1", "input2", "weight", "bias"), tags=(MATMUL,))
def bilinear(input1, input2, weight, bias=None):
    """``out[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]``, as one
    matmul against the reshaped weight followed by a product and a sum over ``j``."""
    _need("F.bilinear", weight=(weight, 3))
    n_out, n1, n2 = weight.shape
    batch = input1.shape[:-1]
    if input1.ndim == 0 or input1.shape[-1] != n1 or input2.ndim == 0 or input2.shape[-1] != n2 \
            or input2.shape[:-1] != batch:
        raise RuntimeError(f"F.bilinear: inputs of shapes {list(input1.shape)} and {list(input2.shape)} do not fit "
                           f"weight {list(weight.shape)}: expected (..., {n1}) and (..., {n2}) with one batch shape.")
    rows = math.prod(batch)
    w = weight.permute(1, 0, 2).reshape(n1, n_out * n2)
    t = T.matmul(input1.reshape(rows, n1), w).reshape(rows, n_out, n2)
    out = T.sum(t * input2.reshape(rows, 1, n2), -1).reshape(*batch, n_out)
    return out if bias is None else out + bias


# ---------------------------------------------------------------- convolutions

def _ntuple(value, n: int, name: str, op: str) -> tuple:
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    if len(value) != n or not all(isinstance(v, int) for v in value):
        raise RuntimeError(f"{op}: {name} must be an int or a sequence of {n} ints, got {value!r}.")
    return value


def _same_padding(op, x, weight, stride, dilation):
    """torch's ``padding="same"``: symmetric padding, plus one zero on the right of each
    dimension whose total padding is odd (applied to the input with ``F.pad``)."""
    if any(s != 1 for s in stride):
        raise RuntimeError(f"{op}: padding='same' is not supported for strided convolutions.")
    total = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
    left = tuple(t // 2 for t in total)
    extra = [t - 2 * p for t, p in zip(total, left)]
    if any(extra):
        x = F.pad(x, [v for e in reversed(extra) for v in (0, e)])
    return x, left


def _convolution(op, n, input, weight, bias, stride, padding, dilation, groups, transposed=False,
                 output_padding=0):
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{op}: expected a {n + 1}-D (unbatched) or {n + 2}-D (batched) input, got shape "
                           f"{list(input.shape)}.")
    batched = input.ndim == n + 2
    x = input if batched else input.unsqueeze(0)
    stride, dilation = _ntuple(stride, n, "stride", op), _ntuple(dilation, n, "dilation", op)
    if padding == "same" and not transposed:
        x, padding = _same_padding(op, x, weight, stride, dilation)
    elif padding == "valid" and not transposed:
        padding = (0,) * n
    elif isinstance(padding, str):
        raise ValueError(f"{op}: padding={padding!r} is not one of 'valid', 'same' or an int/tuple.")
    out = prims.convolution(x, weight, bias, stride=stride, padding=_ntuple(padding, n, "padding", op),
                            dilation=dilation, transposed=transposed,
                            output_padding=_ntuple(output_padding, n, "output_padding", op), groups=groups)
    return out if batched else out.squeeze(0)


def _define_conv(n):
    torch_fn = getattr(torch, f"conv{n}d")

    @torch_op(torch_fn, inputs=("input", "weight", "bias"), name=f"conv{n}d", tags=(MATMUL,))
    def conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        """Convolution over the trailing spatial dimensions of a (batched or unbatched) input."""
        return _convolution(f"conv{n}d", n, input, weight, bias, stride, padding, dilation, groups)

    return conv


def _define_conv_transpose(n):
    torch_fn = getattr(torch, f"conv_transpose{n}d")

    @torch_op(torch_fn, inputs=("input", "weight", "bias"), name=f"conv_transpose{n}d", tags=(MATMUL,))
    def conv_transpose(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
        """Transposed convolution (the gradient of a convolution with respect to its input)."""
        return _convolution(f"conv_transpose{n}d", n, input, weight, bias, stride, padding, dilation, groups,
                            transposed=True, output_padding=output_padding)

    return conv_transpose


conv1d, conv2d, conv3d = (_define_conv(n) for n in (1, 2, 3))
conv_transpose1d, conv_transpose2d, conv_transpose3d = (_define_conv_transpose(n) for n in (1, 2, 3))
