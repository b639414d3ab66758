"""``toy``: a small fusing executor for thunder_core, written only against thunder_core.extend.

It claims maximal runs of elementwise symbols as regions, declines what its checker rejects
(tensors other than float32/float16/bfloat16 ones on the CPU), prices a region with the cost
model and its own per-call overhead, and lowers a region by generating Python source for it
and compiling that, once per region structure. docs/writing-an-executor.md walks through it;
tests/test_docs_executor.py runs it against eager PyTorch.
"""

from __future__ import annotations

import linecache
import math

import torch

from thunder_core.extend import (API_VERSION, Artifact, Executor, Proxy, TensorProxy, has_trait, hookimpl,
                                 region_key, torch_impls, traits)

THUNDER_CORE_API = API_VERSION  # the plugin API this module was written for


# ---------------------------------------------------------------- what it fuses

#: ops the code generator prints as Python operators or torch functions, by the op name after
#: "prims." or "ltorch."; other torch-level symbols are printed as calls of their torch function
OPERATORS = {"add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "div": "{} / {}", "pow": "{} ** {}",
             "neg": "-{}", **{f: f"torch.{f}({{}})" for f in ("exp", "log", "tanh", "sigmoid", "erf", "sqrt", "abs")}}


def fusible(bsym) -> bool:
    """May ``bsym`` join a region? Elementwise (by its trait, never by a list of ids), neither
    random nor in place, one output, and printable by :func:`generate`."""
    if not has_trait(bsym, "elementwise") or traits(bsym) & {"random", "inplace"} or len(bsym.flat_outs) != 1:
        return False
    family, _, op = bsym.sym.id.partition(".")
    return ((op in OPERATORS and not bsym.kwargs and OPERATORS[op].count("{}") == len(bsym.args))
            or (family == "ltorch" and bsym.sym.id in torch_impls()))


# ---------------------------------------------------------------- what it declines

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def check(bsym) -> str | None:
    """The checker: None accepts the call, a string declines it and says why."""
    for p in (*bsym.flat_args, *bsym.flat_outs):
        if isinstance(p, TensorProxy):
            if p.device.type != "cpu":
                return f"toy runs on CPU tensors only, not {p.device}"
            if p.dtype not in SUPPORTED_DTYPES:
                return f"toy computes in float32, float16 and bfloat16, not {p.dtype}"
    return None


# ---------------------------------------------------------------- claims and their cost

def claim(bsyms, ctx):
    """One claim per maximal run of two or more fusible symbols its checker accepts."""
    i, n = 0, len(bsyms)
    while i < n:
        j = i
        while j < n and fusible(bsyms[j]) and ctx.check(bsyms[j]) is None:
            j += 1
        if j - i >= 2:
            region = ctx.region(i, j)
            # region_us: the bytes crossing the region's boundary, its FLOPs, one launch, and
            # this executor's dispatch_us on the target device
            yield ctx.claim(i, j, ctx.region_us(region), lower, f"{j - i} fused symbols")
        i = max(j, i + 1)


# ---------------------------------------------------------------- lowering: generate, compile, cache

def generate(region) -> tuple[str, dict]:
    """Python source of ``toy_fused(*region.inputs) -> tuple(region.outputs)``, and the
    globals it needs. Names depend only on positions, so regions with one region_key get one
    source."""
    names = {id(p): f"a{k}" for k, p in enumerate(region.inputs)}
    namespace = {"torch": torch}

    def text(x):
        if isinstance(x, Proxy):
            return names[id(x)]
        if isinstance(x, (tuple, list)):
            inner = "".join(f"{text(y)}, " for y in x).rstrip()
            return f"({inner})" if isinstance(x, tuple) else f"[{inner}]"
        if x is None or isinstance(x, (bool, int, str)) or (isinstance(x, float) and math.isfinite(x)):
            return repr(x)
        name = f"c{len(namespace)}"  # anything else (a dtype, inf) is bound by name
        namespace[name] = x
        return name

    lines = [f"def toy_fused({', '.join(names[id(p)] for p in region.inputs)}):"]
    for k, b in enumerate(region.bsyms):
        op = b.sym.id.partition(".")[2]
        # (an operator only for its own arguments: add/sub with alpha become calls)
        if op in OPERATORS and not b.kwargs and OPERATORS[op].count("{}") == len(b.args):
            expr = OPERATORS[op].format(*map(text, b.args))
        else:
            namespace[f"f{k}"] = torch_impls()[b.sym.id]
            args = [*map(text, b.args), *(f"{key}={text(v)}" for key, v in b.kwargs.items())]
            expr = f"f{k}({', '.join(args)})"
        names[id(b.flat_outs[0])] = f"v{k}"
        lines.append(f"    v{k} = {expr}  # {b.sym.id}")
    lines.append(f"    return {text(tuple(region.outputs))}")
    return "\n".join(lines) + "\n", namespace


COMPILED: dict = {}  # region_key(region) -> compiled function: one compile per region structure


def lower(region):
    """The callable running ``region``: its generated source, compiled once per structure."""
    key = region_key(region)
    fn = COMPILED.get(key)
    if fn is None:
        source, namespace = generate(region)
        filename = f"<toy region {len(COMPILED)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # tracebacks show it
        exec(compile(source, filename, "exec"), namespace)
        fn = COMPILED[key] = namespace["toy_fused"]
    return fn


# ---------------------------------------------------------------- ahead-of-time artifacts

def artifacts(region, profile):
    """What tc.plan collects for a region: the source lower() would compile."""
    source, _ = generate(region)
    yield Artifact("source", source, f"Python for {len(region.bsyms)} symbols, {profile.name}")


# ---------------------------------------------------------------- the executor and its hook

TOY = Executor("toy", version="0.1.0", api_version=API_VERSION,
               device_types=("cpu",),      # the devices it compiles for (tc.plan's targets)
               dispatch_us={"cpu": 20.0},  # declared per-call overhead of one region, per device
               check=check, claim=claim, fuses=True, artifacts=artifacts)


@hookimpl
def thunder_core_executors():
    return [TOY]
