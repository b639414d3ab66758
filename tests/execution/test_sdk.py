"""The executor SDK: thunder_core.extend's pinned names, executors written only against it,
checkers declining claims (shown by tc.explain), per-device overheads, typed claims."""

import ast
import pathlib

import pytest
import torch

import thunder_core as tc
from thunder_core import extend as tx
from thunder_core.execution.partition import LoweringError

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: The plugin contract of API_VERSION 1. Adding a name: add it here too. Removing or renaming
#: one breaks plugins: raise API_VERSION (see thunder_core/extend.py's compatibility policy).
PUBLIC = ["API_VERSION", "Artifact", "BoundSymbol", "Checker", "Claim", "ClaimContext", "ClaimFn", "CostModel",
          "DeviceProfile", "Executor", "F", "NumberProxy", "PROFILES", "PluginWarning", "Proxy", "Region",
          "RegionNumbers", "SharpEdge", "SharpEdgeChecker", "Symbol", "T", "TRAITS", "TensorProxy", "Trace",
          "draws_random", "flat_proxies", "has_trait", "higher_order_impls", "hookimpl", "prim", "prims", "profile", "python_impls",
          "read_state", "record_effect", "region_callable", "region_key", "region_of", "register", "registry",
          "substitute", "subtraces", "symbols", "tensor_leaves", "tensor_proxy", "torch_impls", "torch_op", "traits",
          "unregister",
          "with_tensors"]


def test_extend_public_names_are_pinned_and_resolve():
    assert tx.__all__ == PUBLIC
    for name in PUBLIC:
        assert getattr(tx, name) is not None, name
    assert tx.API_VERSION == 1
    with pytest.raises(AttributeError, match="public names are listed"):
        tx.partition  # noqa: B018


def _core_imports(path):
    """Modules of thunder_core imported by a file (absolute imports)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("thunder_core"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("thunder_core"):
            yield node.module


#: what plugin code may import of thunder_core: the plugin namespace; its tests may also use the
#: user's API (tc.jit, tc.explain...) and the example models
PLUGIN_API = {"thunder_core.extend"}
TEST_API = PLUGIN_API | {"thunder_core", "thunder_core.examples.models"}


@pytest.mark.parametrize("where", ["executors", "plugins", "tests/plugins", "docs/examples"])
def test_plugins_import_nothing_of_the_core_but_extend(where):
    files = sorted((ROOT / where).rglob("*.py"))
    assert files
    bad = {f"{f.relative_to(ROOT)}: {m}" for f in files for m in _core_imports(f)
           if m not in (TEST_API if "tests" in f.relative_to(ROOT / where).parts else PLUGIN_API)}
    assert not bad, f"private imports of the core: {sorted(bad)}"


def _code_strings(path):
    """String constants of a module that are not docstrings."""
    tree = ast.parse(path.read_text())
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def test_no_executor_name_in_the_core():
    """The core's behaviour never depends on an executor's name: no comparison of a name with
    a constant, no constant naming an installed executor other than "torch" (which is also
    the library's name, e.g. in generated code), and the fallback is a declared property."""
    names = set(tx.registry().executors) - {"torch"}
    found = []
    for f in sorted((ROOT / "thunder_core").rglob("*.py")):
        for line, s in _code_strings(f):
            if s in names:
                found.append(f"{f.relative_to(ROOT)}:{line}: {s!r}")
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Compare) and any(isinstance(x, ast.Attribute) and x.attr == "name"
                                                     for x in (node.left, *node.comparators)) and \
                    any(isinstance(x, ast.Constant) for x in (node.left, *node.comparators)):
                found.append(f"{f.relative_to(ROOT)}:{node.lineno}: compares a name with a constant")
    assert not found, found


# ---------------------------------------------------------------- checkers and claims

CALLS = []


def _add(a, b, alpha=1):
    CALLS.append("add")
    return torch.add(a, b, alpha=alpha)


def _only_float32(bsym):
    dt = bsym.output.dtype
    return None if dt == torch.float32 else f"{str(dt).removeprefix('torch.')} is not supported"


CHECKED = tx.Executor("checked", implementations=lambda: {"ltorch.add": _add},
                      checkers=lambda: {"ltorch.add": _only_float32}, dispatch_us=0.0, api_version=tx.API_VERSION)


def test_a_checker_declines_and_explain_says_why():
    CALLS.clear()
    f = tc.jit(lambda a, b: a + b, executors=[CHECKED, "torch"])
    x32, x64 = torch.randn(8), torch.randn(8, dtype=torch.float64)
    assert torch.equal(f(x32, x32), x32 + x32) and CALLS == ["add"]
    assert torch.equal(f(x64, x64), x64 + x64) and CALLS == ["add"]  # declined: the fallback ran it
    text = tc.explain(f)
    assert "declined: checked (ltorch.add): float64 is not supported" in text and "-> torch" in text


def _mul_add_claim(bsyms, ctx):
    """A region claim that (wrongly) does not consult its checker: the partitioner does."""
    for i in range(len(bsyms) - 1):
        if (bsyms[i].sym.id, bsyms[i + 1].sym.id) == ("ltorch.mul", "ltorch.add"):
            yield ctx.claim(i, i + 2, 0.0, lambda region: tx.region_callable(region, tx.torch_impls()), "mul+add")


FUSER = tx.Executor("fuser", claim=_mul_add_claim, check=lambda b: None if b.output.dtype == torch.float32 else
                    "float32 only", api_version=tx.API_VERSION)


def test_region_claims_are_checked_symbol_by_symbol():
    fn = lambda a, b: a * b + a  # noqa: E731
    f = tc.jit(fn, executors=[FUSER, "torch"])
    x = torch.randn(4)
    assert torch.equal(f(x, x), fn(x, x))
    assert "fuser_region" in tc.last_traces(f)[-1].python()
    xd = x.double()
    assert torch.equal(f(xd, xd), fn(xd, xd))
    assert "fuser_region" not in tc.last_traces(f)[-1].python()
    assert "declined: fuser (ltorch.mul): float32 only" in tc.explain(f)


def test_region_names_differ_between_forward_and_backward():
    fn = lambda a, b: a * b + a  # noqa: E731
    f = tc.jit(fn, executors=[FUSER, "torch"])
    x = torch.randn(4, requires_grad=True)
    f(x, x).sum().backward()
    fwd = {b.sym.name for b in tc.last_traces(f)[-1].bound_symbols if "region" in b.sym.tags}
    bwd = {b.sym.name for b in tc.last_backward_traces(f)[-1].bound_symbols if "region" in b.sym.tags}
    assert fwd and not fwd & bwd


def test_a_claim_outside_the_list_is_an_error_naming_the_executor():
    bad = tx.Executor("bad", claim=lambda bsyms, ctx: [ctx.claim(0, len(bsyms) + 1, 0.0, None)],
                      api_version=tx.API_VERSION)
    with pytest.raises(LoweringError, match="executor 'bad' claimed"):
        tc.jit(lambda a: a + 1, executors=[bad, "torch"])(torch.ones(2))


def test_overheads_are_declared_per_device():
    ex = tx.Executor("perdev", dispatch_us={"cpu": 2.0, "cuda": 7.0, "h100": 4.0})
    assert ex.overhead_us(tx.profile("cpu")) == 2.0
    assert ex.overhead_us(tx.profile("a100")) == 7.0 and ex.overhead_us(tx.profile("h100")) == 4.0
    with pytest.raises(ValueError, match="no dispatch_us for h100"):
        tx.Executor("cpuonly", dispatch_us={"cpu": 1.0}).overhead_us(tx.profile("h100"))
    assert tx.CostModel("h100").dispatch(ex) == 4.0


def test_fallback_is_a_declared_property_ordered_last():
    from thunder_core.api import _resolve_executors

    chosen = _resolve_executors(None)
    assert chosen[-1].fallback and not any(ex.fallback for ex in chosen[:-1])


def test_profiles_are_data_and_replaceable():
    h = tx.profile("h100")
    assert h.device_type == "cuda" and h.bandwidth_gbs == 3350.0
    assert h.flops_per_us(torch.bfloat16, matmul=True) == pytest.approx(989e6)
    assert h.flops_per_us(torch.float32, matmul=False) == pytest.approx(67e6)
    slow = h.replace(bandwidth_gbs=1000.0)
    assert tx.CostModel(slow).profile.bandwidth_gbs == 1000.0 and tx.PROFILES["h100"].bandwidth_gbs == 3350.0


def test_region_key_is_structural():
    from thunder_core.capture import capture
    from thunder_core.execution.claims import ClaimContext
    from thunder_core.execution.partition import last_use_of

    def two(x, y):
        a = (x * 2).sin()
        b = (y * 2).sin()
        return a, b

    t = capture(two, (torch.randn(3), torch.randn(3)), {}).trace
    bs = t.bound_symbols
    ctx = ClaimContext(CHECKED, bs, last_use_of(bs, tx.flat_proxies(t.output)), tx.CostModel(), [])
    r1, r2 = ctx.region(0, 2), ctx.region(2, 4)
    assert [p.name for p in r1.inputs] != [p.name for p in r2.inputs] and tx.region_key(r1) == tx.region_key(r2)
    fn = tx.region_callable(r1, tx.torch_impls())
    x = torch.randn(3)
    assert torch.equal(fn(x)[0], (x * 2).sin())


def test_an_executor_name_that_is_not_an_identifier_still_names_its_regions():
    named = tx.Executor("my-fuser", claim=_mul_add_claim, api_version=tx.API_VERSION)
    fn = lambda a, b: a * b + a  # noqa: E731
    f = tc.jit(fn, executors=[named, "torch"])
    x = torch.randn(4)
    assert torch.equal(f(x, x), fn(x, x)) and "my_fuser_region0" in tc.last_traces(f)[-1].python()


def test_a_claim_function_can_decline_a_run_with_a_reason():
    def claim(bsyms, ctx):
        for i in range(len(bsyms) - 1):
            if (bsyms[i].sym.id, bsyms[i + 1].sym.id) == ("ltorch.mul", "ltorch.add"):
                ctx.decline(i, i + 2, "outputs of different shapes")
        return []

    ex = tx.Executor("picky", claim=claim, api_version=tx.API_VERSION)
    f = tc.jit(lambda a, b: a * b + a, executors=[ex, "torch"])
    f(torch.ones(2), torch.ones(2))
    assert "declined: picky (ltorch.mul .. ltorch.add): outputs of different shapes" in tc.explain(f)
