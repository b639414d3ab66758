"""Every **Example** block in thunder_core/hookspecs.py runs, and the hook function it defines
returns what its docstring says (called directly, as the plugin manager would)."""

import inspect
import os
import pathlib
import subprocess
import sys
import textwrap
import time
import types

import pytest
import torch

import thunder_core as tc
import thunder_core.ops  # noqa: F401 - the symbol tables are filled when the op language loads
from thunder_core import hookspecs
from thunder_core.capture import capture
from thunder_core.extend import API_VERSION, Executor, SharpEdge, SharpEdgeChecker, Trace, has_trait, symbols

ROOT = pathlib.Path(__file__).resolve().parent.parent
HOOKS = sorted(name for name, fn in vars(hookspecs).items() if hasattr(fn, "thunder_core_spec"))


def example(hook: str) -> str:
    """The code of the ``**Example**...::`` block in ``hook``'s docstring."""
    lines = inspect.getdoc(getattr(hookspecs, hook)).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("**Example**"))
    while not lines[start].rstrip().endswith("::"):
        start += 1
    block = []
    for line in lines[start + 1:]:
        if line.strip() and not line.startswith("    "):
            break
        block.append(line)
    return textwrap.dedent("\n".join(block)).strip() + "\n"


def mylib() -> types.ModuleType:
    """The library the examples extend: an op of its own and a timing helper."""
    m = types.ModuleType("mylib")

    def fused_gelu(x):
        return torch.nn.functional.gelu(x)

    def timed(fn, *args, **kwargs):
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        m.seconds = time.perf_counter() - start
        return out

    m.fused_gelu, m.timed = fused_gelu, timed
    return m


@pytest.fixture
def run(monkeypatch):
    """run(hook) -> the namespace its example leaves, with ``mylib`` importable."""
    lib = mylib()
    monkeypatch.setitem(sys.modules, "mylib", lib)

    def run_example(hook):
        ns = {"__name__": f"hookspec_example_{hook}"}
        exec(compile(example(hook), f"<example of {hook}>", "exec"), ns)
        assert callable(ns.get(hook)), f"the example of {hook} defines no function {hook}"
        return ns
    return run_example


def test_every_hook_has_an_example_checked_here():
    assert HOOKS == ["thunder_core_executors", "thunder_core_lookasides", "thunder_core_sharp_edge_checkers",
                     "thunder_core_symbols", "thunder_core_transforms", "thunder_core_vjp_rules"]
    for hook in HOOKS:
        code = example(hook)
        assert "@hookimpl" in code and f"def {hook}():" in code
        assert "thunder_core." not in code.replace("thunder_core.extend", ""), f"{hook}: import only extend"


def test_the_executors_hook_doc_names_the_contract():
    doc = inspect.getdoc(hookspecs.thunder_core_executors)
    for word in ("claim", "Claim", "lower", "Region", "region_callable", "region_key", "CostModel", "checkers",
                 "fuses", "fallback", "artifacts", "dispatch_us", "docs/writing-an-executor.md"):
        assert word in doc, word


# ---------------------------------------------------------------- executors

#: Until the op traits land (the traits branch), torch-level symbols carry none; the example's
#: claim then sees these as elementwise, as the real traits will. Off with the real traits.
REAL_TRAITS = has_trait(symbols()["ltorch.add"], "elementwise")


def test_executors_example(run):
    ns = run("thunder_core_executors")
    if not REAL_TRAITS:
        ns["has_trait"] = lambda b, t: t == "elementwise" and b.sym.id in {"ltorch.add", "ltorch.mul"}
    (ex,) = ns["thunder_core_executors"]()
    assert isinstance(ex, Executor) and ex.name == "myexec" and ex.api_version == API_VERSION and ex.fuses

    # ltorch.add alone: as cheap as torch's, and named first, so it wins the tie
    add = tc.jit(lambda a, b: a + b, executors=[ex, "torch"])
    x = torch.randn(8)
    torch.testing.assert_close(add(x, x), x + x)
    assert "-> myexec" in tc.explain(add)
    xd = x.double()
    torch.testing.assert_close(add(xd, xd), xd + xd)
    assert "-> torch" in tc.explain(add)
    assert "declined: myexec (ltorch.add): torch.float64 is not supported" in tc.explain(add)

    # a run of elementwise symbols: one region, built once per structure
    fused = tc.jit(lambda a, b: a * b + a, executors=[ex, "torch"])
    y = torch.randn(256, 256)
    torch.testing.assert_close(fused(y, y), y * y + y)
    final = tc.last_traces(fused)[-1]
    assert [b.sym.id.split(".")[0] for b in final.bound_symbols] == ["myexec"]
    assert len(ns["COMPILED"]) == 1


# ---------------------------------------------------------------- lookasides

def test_lookasides_example(run):
    ns = run("thunder_core_lookasides")
    import mylib

    table = ns["thunder_core_lookasides"]()
    assert list(table) == [mylib.timed]
    x = torch.randn(4)
    with_it = capture(lambda x: mylib.timed(torch.sin, x), (x,), {}, extra_lookasides=table)
    assert [b.sym.id for b in with_it.trace.bound_symbols] == ["ltorch.sin"]
    assert not any(e.kind.startswith("write") for e in with_it.events)  # m.seconds = ... is not traced
    without = capture(lambda x: mylib.timed(torch.sin, x), (x,), {})
    assert any(e.kind == "write-attr" for e in without.events)  # the helper itself would write mylib.seconds


# ---------------------------------------------------------------- symbols and their VJP rules

_IN_A_FRESH_PROCESS = """
import sys, torch
sys.path.insert(0, {tests!r})
import test_hookspec_examples as t
sys.modules["mylib"] = mylib = t.mylib()
import thunder_core as tc
from thunder_core.extend import symbols

def run(hook):
    ns = {{"__name__": "mylib_thunder_plugin"}}
    exec(t.example(hook), ns)
    return ns[hook]()

assert run("thunder_core_symbols") is None
assert "ltorch.fused_gelu" in symbols()
x = torch.randn(64, requires_grad=True)
jf = tc.jit(lambda x: mylib.fused_gelu(x) * 2)
torch.testing.assert_close(jf(x.detach()), torch.nn.functional.gelu(x.detach()) * 2)
assert [b.sym.id for b in tc.last_traces(jf)[0].bound_symbols] == ["ltorch.fused_gelu", "ltorch.mul"]

rules = run("thunder_core_vjp_rules")
assert list(rules) == ["ltorch.fused_gelu"]
from thunder_core.transforms import vjp
vjp.rule_for("ltorch.add")                   # the built-in tables load first,
vjp.VJP.update(rules)                        # then the rules, as if the plugin were installed
out = jf(x)
(grad,) = torch.autograd.grad(out.sum(), x)
xe = x.detach().requires_grad_()
(want,) = torch.autograd.grad((torch.nn.functional.gelu(xe) * 2).sum(), xe)
torch.testing.assert_close(grad, want)
backward = [b.sym.id for b in tc.last_backward_traces(jf)[0].bound_symbols]
assert "ltorch.erf" in backward and "ltorch.exp" in backward, backward   # the rule, not gelu's
print("ok")
"""


def test_symbols_and_vjp_rules_examples_in_a_fresh_process():
    # defining a symbol changes the op language for the rest of the process: not in this one
    env = dict(os.environ)
    run = subprocess.run([sys.executable, "-c", _IN_A_FRESH_PROCESS.format(tests=str(ROOT / "tests"))], env=env,
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


# ---------------------------------------------------------------- transforms

def test_transforms_example(run):
    ns = run("thunder_core_transforms")
    table = ns["thunder_core_transforms"]()
    assert list(table) == ["identity"]

    def f(x):
        return torch.relu(x) + 1

    jf = tc.jit(f, transforms=[table["identity"]])
    x = torch.randn(5)
    torch.testing.assert_close(jf(x), f(x))
    captured = tc.last_traces(jf)[0]
    out = table["identity"](captured)
    assert isinstance(out, Trace) and out is not captured and out.bound_symbols == captured.bound_symbols


# ---------------------------------------------------------------- sharp edges

SCALE = 3.0


def test_sharp_edge_checkers_example(run):
    ns = run("thunder_core_sharp_edge_checkers")
    (checker,) = ns["thunder_core_sharp_edge_checkers"]()
    assert isinstance(checker, SharpEdgeChecker) and checker.name == "constants" and checker.default_level == "warn"

    def scaled(x):
        return x * SCALE

    found = list(checker.check(capture(scaled, (torch.randn(3),), {})))
    assert found == [SharpEdge("constants", found[0].message)]
    assert "test_hookspec_examples.py" in found[0].message and found[0].message.endswith("reads the constant SCALE")
    assert list(checker.check(capture(lambda x: x * 2, (torch.randn(3),), {}))) == []
