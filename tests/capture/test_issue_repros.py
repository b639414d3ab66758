"""The exact repros of the tracing-fidelity reports, each compared with eager (the mechanisms
have their own tests in this directory; these keep the user-visible cases honest)."""

import collections
import copy

import torch

import thunder_core as tc


def test_type_of_tensor():
    def f(x):
        return x * 2 if type(x) is torch.Tensor else x

    torch.testing.assert_close(tc.jit(f)(torch.ones(2)), torch.tensor([2.0, 2.0]))


W = [torch.ones(3), torch.ones(3)]


def test_starred_unpacking_of_a_global_list():
    def f(x):
        w, *_ = W
        return x * w

    torch.testing.assert_close(tc.jit(f)(torch.ones(3)), torch.ones(3))


class NextParams(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x.to(next(self.parameters()).dtype))


def test_next_parameters_dtype():
    m = NextParams()
    x = torch.randn(2, 4, dtype=torch.float64)
    torch.testing.assert_close(tc.jit(m)(x), m(x))


class Registry(dict):
    def update(self, *a, **k):
        raise RuntimeError("disabled")


REG = Registry()


def test_dict_subclass_with_disabled_update():
    def f(x):
        REG["n"] = 1
        return x * 2

    torch.testing.assert_close(tc.jit(f)(torch.ones(2)), torch.tensor([2.0, 2.0]))
    assert REG == {"n": 1}
    REG.clear()


class State:
    pass


class Reg:
    state = None


REG2 = Reg()


def test_library_refreshing_its_state():
    def f(x):
        REG2.state = State()
        return x * 2

    jf = tc.jit(f)
    for _ in range(2):
        torch.testing.assert_close(jf(torch.ones(2)), torch.tensor([2.0, 2.0]))
        assert type(REG2.state) is State


class Out(collections.OrderedDict):
    pass


def test_ordered_dict_subclass_output_under_grad_and_no_grad():
    lin = torch.nn.Linear(2, 2)

    def f(x):
        o = Out()
        o["y"] = lin(x)
        return o

    assert type(tc.jit(f)(torch.ones(2))) is Out
    with torch.no_grad():
        assert type(tc.jit(f)(torch.ones(2))) is Out


class Config:
    def __init__(self):
        self.scale = 2.0
        self.layers = {"n": [1, 2, 3]}


CFG = Config()


class CopiesConfig(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.config = CFG
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x):
        cfg = copy.deepcopy(self.config)
        cfg.scale = cfg.scale * 3
        return self.lin(x) * cfg.scale * len(cfg.layers["n"])


def test_deepcopy_of_the_config_inside_the_model():
    m = CopiesConfig()
    jm = tc.jit(m)
    x = torch.randn(2, 3)
    for _ in range(2):
        torch.testing.assert_close(jm(x), m(x))
    assert CFG.scale == 2.0 and tc.cache_hits(jm) == 1
    CFG.layers["n"].append(4)  # the copy reads the config on every call: a changed config recompiles
    torch.testing.assert_close(jm(x), m(x))
    CFG.layers["n"].pop()


def test_cummax_values_attribute():
    f = lambda x: torch.cummax(x, 0).values * 2  # noqa: E731
    x = torch.randn(5)
    torch.testing.assert_close(tc.jit(f)(x), f(x))


def test_thunder_core_imported_through_a_path_with_dotdot(tmp_path):
    """A script that puts ``scripts/..`` on sys.path imports thunder_core as
    ``/repo/scripts/../thunder_core``: its code objects carry that spelling, and the core's own
    code (the IR's replay, reached from a traced ``mean``) must still run natively, not be
    interpreted as the program's."""
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(tc.__file__))
    (tmp_path / "sub").mkdir()
    script = tmp_path / "sub" / "s.py"
    script.write_text(
        "import os, sys\n"
        f"sys.path.insert(0, os.path.join({root!r}, 'tests', '..'))\n"
        "import torch, thunder_core as tc\n"
        "assert '..' in tc.__file__, tc.__file__\n"
        "def f(x):\n"
        "    y = x * 0.5 + 1.0\n"
        "    return y - y.mean(-1, keepdim=True)\n"
        "x = torch.randn(4, 8)\n"
        "torch.testing.assert_close(tc.jit(f)(x), f(x))\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]
