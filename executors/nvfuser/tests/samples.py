"""One sample program per translated symbol: what it must reach, and what nvFuser's fusion
math must then show.

``SAMPLES[symbol id] = (fn, input specs, expected substrings of print_math())``. Each sample
is planned for an h100 with fake CUDA inputs; the symbol must be inside an nvFuser region
(tests check this, so a sample that stops reaching its symbol fails rather than passing
vacuously). Inputs are float32 [4, 8] unless the op needs otherwise.
"""

import torch
import torch.nn.functional as F

f32, bf16, f16, i64, b8 = torch.float32, torch.bfloat16, torch.float16, torch.int64, torch.bool
X = ((4, 8), f32)
Y = ((4, 8), f32)
POS = X  # fake tensors: values never matter, only metadata


def _u(fn, math):
    return (fn, [X], math)


def _b(fn, math):
    return (fn, [X, Y], math)


def _i(fn, math):
    return (fn, [((4, 8), i64), ((4, 8), i64)], math)


SAMPLES = {
    "prims.abs": _u(torch.abs, ["= abs(T"]),
    "prims.neg": _u(torch.neg, ["-T"]),
    "prims.exp": _u(torch.exp, ["expf("]),
    "prims.exp2": _u(torch.exp2, ["exp2f("]),
    "prims.expm1": _u(torch.expm1, ["expm1f("]),
    "prims.log": _u(torch.log, ["logf("]),
    "prims.log1p": _u(torch.log1p, ["log1pf("]),
    "prims.log2": _u(torch.log2, ["log2f("]),
    "prims.log10": _u(torch.log10, ["log10f("]),
    "prims.sqrt": _u(torch.sqrt, ["sqrtf("]),
    "prims.rsqrt": _u(torch.rsqrt, ["rsqrtf("]),
    "prims.sin": _u(torch.sin, ["sinf("]),
    "prims.cos": _u(torch.cos, ["cosf("]),
    "prims.tan": _u(torch.tan, ["tanf("]),
    "prims.asin": _u(torch.asin, ["asinf("]),
    "prims.acos": _u(torch.acos, ["acosf("]),
    "prims.atan": _u(torch.atan, ["atanf("]),
    "prims.sinh": _u(torch.sinh, ["sinhf("]),
    "prims.cosh": _u(torch.cosh, ["coshf("]),
    "prims.tanh": _u(torch.tanh, ["tanhf("]),
    "prims.asinh": _u(torch.asinh, ["asinhf("]),
    "prims.acosh": _u(torch.acosh, ["acoshf("]),
    "prims.atanh": _u(torch.atanh, ["atanhf("]),
    "prims.sigmoid": _u(torch.sigmoid, ["sigmoid("]),
    "prims.reciprocal": _u(torch.reciprocal, ["reciprocal("]),
    "prims.erf": _u(torch.erf, ["erff("]),
    "prims.erfc": _u(torch.erfc, ["erfcf("]),
    "prims.erfinv": _u(torch.erfinv, ["erfinvf("]),
    "prims.lgamma": _u(torch.lgamma, ["lgammaf("]),
    "prims.floor": _u(torch.floor, ["floorf("]),
    "prims.ceil": _u(torch.ceil, ["ceilf("]),
    "prims.round": _u(torch.round, ["nearbyintf("]),
    "prims.trunc": _u(torch.trunc, ["truncf("]),
    "prims.sign": _u(torch.sign, ["> double(0)", "where("]),
    "prims.signbit": _u(torch.signbit, ["signbit("]),
    "prims.bitwise_not": (torch.bitwise_not, [((4, 8), i64)], ["~T"]),
    "prims.logical_not": (torch.logical_not, [((4, 8), b8)], ["!T"]),
    "prims.isnan": _u(torch.isnan, ["isnan("]),
    "prims.isinf": _u(torch.isinf, ["isinf("]),
    "prims.isfinite": _u(torch.isfinite, ["isfinite("]),
    "prims.add": _b(torch.add, [" + T"]),
    "prims.sub": _b(torch.sub, [" - T"]),
    "prims.mul": _b(torch.mul, [" * T"]),
    "prims.div": _b(torch.div, [" / T"]),
    "prims.pow": _b(torch.pow, ["= pow(T"]),
    "prims.maximum": _b(torch.maximum, ["= max(T"]),
    "prims.minimum": _b(torch.minimum, ["= min(T"]),
    "prims.atan2": _b(torch.atan2, ["atan2f("]),
    "prims.fmod": _b(torch.fmod, ["fmodf("]),
    "prims.nextafter": _b(torch.nextafter, ["= nextafter(T"]),
    "prims.eq": _b(torch.eq, [" == T"]),
    "prims.ne": _b(torch.ne, [" != T"]),
    "prims.lt": _b(torch.lt, [" < T"]),
    "prims.le": _b(torch.le, [" <= T"]),
    "prims.gt": _b(torch.gt, [" > T"]),
    "prims.ge": _b(torch.ge, [" >= T"]),
    "prims.logical_and": (torch.logical_and, [((4, 8), b8), ((4, 8), b8)], [" && T"]),
    "prims.logical_or": (torch.logical_or, [((4, 8), b8), ((4, 8), b8)], [" || T"]),
    "prims.bitwise_and": _i(torch.bitwise_and, [" & T"]),
    "prims.bitwise_or": _i(torch.bitwise_or, [" | T"]),
    "prims.bitwise_xor": _i(torch.bitwise_xor, [" ^ T"]),
    "prims.bitwise_left_shift": _i(torch.bitwise_left_shift, [" << T"]),
    "prims.bitwise_right_shift": _i(torch.bitwise_right_shift, [" >> T"]),
    "prims.where": (lambda c, x, y: torch.where(c, x, y), [((4, 8), b8), X, Y], ["where("]),
    "prims.convert_element_type": _u(lambda x: x.to(bf16), ["__float2bfloat("]),
    "prims.broadcast_in_dim": (lambda x, b: x * b, [X, ((8,), f32)], ["broadcast(", "expand("]),
    "prims.reshape": _u(lambda x: torch.exp(x).reshape(2, 16), ["reshape("]),
    "prims.transpose": _u(lambda x: torch.exp(x).permute(1, 0), ["Set.Permute("]),
    "prims.squeeze": (lambda x: torch.exp(x).squeeze(1), [((4, 1, 8), f32)], ["squeeze("]),
    "prims.slice": _u(lambda x: torch.exp(x)[:, 2:6], ["slice("]),
    "prims.cat": _b(lambda x, y: torch.cat([torch.exp(x), y], 1), ["cat("]),
    "ltorch.pad": _u(lambda x: F.pad(torch.exp(x), (1, 2, 0, 1), value=0.5), ["pad("]),
    "prims.sum": _u(lambda x: x.sum(1), ["op = add"]),
    "prims.prod": _u(lambda x: x.prod(1), ["op = mul"]),
    "prims.amax": _u(lambda x: x.amax(1), ["op = max"]),
    "prims.amin": _u(lambda x: x.amin(1), ["op = min"]),
    "prims.var": _u(lambda x: x.var(1), ["op = add", "reciprocal("]),
    "prims.cumsum": _u(lambda x: x.cumsum(1), ["scan("]),
    "prims.full": _u(lambda x: x + torch.full((4, 8), 2.0, device=x.device), ["full("]),
    "prims.iota": _u(lambda x: x + torch.arange(8, device=x.device, dtype=f32), ["iota("]),
    "ltorch.contiguous": _u(lambda x: torch.exp(x).t().contiguous(), ["Set("]),
}

#: torch-level ops the issue names (norms, softmax, their backward, casts with broadcasting):
#: (fn, specs, ids that must be inside nvFuser regions of the forward or backward trace)
COMPOSITES = {
    "softmax": (lambda x: torch.softmax(x, -1), [((4, 64), bf16)], {"ltorch.softmax"}),
    "log_softmax": (lambda x: torch.log_softmax(x.float(), 1), [((4, 64), f16)], {"ltorch.log_softmax"}),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (64,), w, b), [((4, 16, 64), bf16), ((64,), bf16), ((64,), bf16)],
                   {"ltorch.layer_norm"}),
    "rms_norm": (lambda x, w: F.rms_norm(x, (64,), w), [((4, 64), f32), ((64,), f32)], {"ltorch.rms_norm"}),
    "gelu_cast_bias": (lambda x, b: F.gelu(x.float() + b), [((4, 64), bf16), ((64,), f32)],
                       {"ltorch.gelu", "ltorch.add"}),
    "softmax_backward": (lambda x: torch.softmax(x, -1), [((4, 64), f32, True)], {"ltorch.softmax_backward"}),
    "layer_norm_backward": (lambda x, w, b: F.layer_norm(x, (64,), w, b),
                            [((4, 16, 64), f32, True), ((64,), f32, True), ((64,), f32, True)],
                            {"ltorch.layer_norm_backward"}),
    "gelu_backward": (lambda x: F.gelu(x, approximate="tanh"), [((4, 64), bf16, True)], {"ltorch.gelu_backward"}),
    "sum_mean_keepdim": (lambda x: x - x.mean((0, 2), keepdim=True), [((4, 8, 16), f32)], {"ltorch.mean"}),
}
