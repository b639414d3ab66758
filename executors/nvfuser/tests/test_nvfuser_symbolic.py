"""Symbolic sizes (cache="symbolic values", the default): one FusionDefinition serves every
size. Tensor inputs have symbolic extents; a symbolic number an operation needs (a mean's
divisor x_0 * x_2, a reshape's shape) is an extra scalar input the launcher computes from each
call's inputs. Executing needs a GPU: here the definition's ``execute`` is replaced by one that
records what it is given."""

import pytest
import torch

from nvfuser_helpers import fake, plan, region_leaves, regions
import thunder_executor_nvfuser.runtime as runtime
from thunder_core.extend import RegionNumbers, region_key
from thunder_executor_nvfuser import layout
from thunder_executor_nvfuser.definition import build

pytestmark = pytest.mark.needs_nvfuser
f32 = torch.float32


def _centered(x):
    return x - x.mean((0, 2), keepdim=True)


def test_a_symbolic_divisor_is_a_scalar_input_of_one_definition():
    p = plan(_centered, ((4, 8, 16), f32))
    ((name, region),) = regions(p).items()
    assert {"ltorch.mean", "ltorch.sub"} <= {b.sym.id for b in region.bsyms}, p.explain()
    assert "prims.py_mul" in region_leaves(region)  # computed on the host: not an operation of the definition
    fd, extra = build(region)
    text = repr(fd)
    assert "shape=[-1, -1, -1]" in text and "fd.ops.mul" not in text, text
    # the reshape's x_1, the divisor x_0 * x_2, the broadcast's x_0 and x_2: scalar inputs
    assert len(extra) == 4 and text.count("define_scalar(None, dtype=DataType.Int)") == 4, text
    (art, _) = p.artifacts[name]
    assert "4 of them symbolic sizes computed per call" in art.note


def test_the_launcher_passes_each_calls_sizes(monkeypatch):
    p = plan(_centered, ((4, 8, 16), f32))
    ((_, region),) = regions(p).items()
    executed = []

    class Recording:
        def __init__(self, fd):
            self.fd = fd

        def execute(self, inputs):
            executed.append(inputs)
            return [inputs[0]]

    made = runtime.definition
    monkeypatch.setattr(runtime, "definition", lambda *a: (Recording(made(*a)[0]), made(*a)[1]))
    run = runtime.lower(region)
    for shape in ((4, 8, 16), (3, 8, 5), (4, 8, 16)):
        (x,) = fake((shape, f32))
        run(x)
    numbers = RegionNumbers(region)
    _, extra = made(region, region_key(region), (layout.contiguous(region.inputs[0].shape),))
    names = [numbers.symbols[k].name if numbers.symbols[k].expr is None else "x_0 * x_2" for k in extra]
    assert [dict(zip(names, inputs[1:])) for inputs in executed] == [
        {"x_0": 4, "x_1": 8, "x_2": 16, "x_0 * x_2": 64}, {"x_0": 3, "x_1": 8, "x_2": 5, "x_0 * x_2": 15},
        {"x_0": 4, "x_1": 8, "x_2": 16, "x_0 * x_2": 64}]
    assert len({id(fd) for fd, _ in runtime.DEFINITIONS.values()}) == len(runtime.DEFINITIONS)


def test_a_reshape_to_symbolic_sizes_takes_them_as_scalars():
    p = plan(lambda x: (x.reshape(x.shape[0] * x.shape[1], x.shape[2]) * 2).exp(), ((4, 8, 16), f32))
    defined = [build(r) for r in regions(p).values()]
    assert defined, p.explain()
    assert any("fd.ops.reshape" in repr(fd) and "define_scalar(None" in repr(fd) for fd, _ in defined), \
        [repr(fd) for fd, _ in defined]
