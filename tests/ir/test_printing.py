"""Values print as Python expressions that evaluate back to themselves."""

import math

import pytest
import torch

from thunder_core.ir import PrintingError, TensorProxy, print_value
from thunder_core.ir.printing import annotation, format_source
from thunder_core.ir.proxies import NumberProxy

CASES = [
    (None, "None"), (True, "True"), (3, "3"), (-0.5, "-0.5"), (1e-30, "1e-30"),
    (float("inf"), "float('inf')"), (-math.inf, "float('-inf')"),
    (complex(1, -2.5), "complex(1.0, -2.5)"), ("it's", '"it\'s"'),
    (torch.float32, "torch.float32"), (torch.bfloat16, "torch.bfloat16"),
    (torch.device("cpu"), "torch.device('cpu')"), (torch.device("cuda", 1), "torch.device('cuda:1')"),
    (slice(None, 3, None), "slice(None, 3, None)"), (..., "..."), ((), "()"), ((1,), "(1,)"),
    ([1, [2.0, (3, None)]], "[1, [2.0, (3, None)]]"), ({"a": (1, 2), 3: [4]}, "{'a': (1, 2), 3: [4]}"),
    (torch.Size([2, 3]), "torch.Size([2, 3])"), (int, "int"), (complex, "complex"),
    (torch.strided, "torch.strided"), (torch.channels_last, "torch.channels_last"),
]


@pytest.mark.parametrize("value, text", CASES, ids=[t for _, t in CASES])
def test_values_print_and_evaluate_back(value, text):
    assert print_value(value) == text
    assert eval(text, {"torch": torch}) == value


def test_nan_and_proxies():
    assert math.isnan(eval(print_value(float("nan"))))
    t = TensorProxy("t3", (2,), torch.float32, "cpu")
    assert print_value((t, slice(t, None), {"k": [t]})) == "(t3, slice(t3, None, None), {'k': [t3]})"


@pytest.mark.parametrize("value, message", [
    (torch.zeros(2), "A torch.Tensor of shape \\[2\\] appears as a constant"),
    (object(), "A value of type object .* reached an operation as a constant"),
    (bytes, "A value of type type"),
])
def test_unprintable_values(value, message):
    with pytest.raises(PrintingError, match=message):
        print_value(value)


def test_annotations_and_sources():
    assert annotation(TensorProxy("t0", (2, 3), torch.float32, "cpu")) == '"cpu f32[2, 3]"'
    assert annotation(TensorProxy("t0", (), torch.int64, "meta", True)) == '"meta i64[] requires_grad"'
    assert annotation(TensorProxy("t0", (1,), torch.float8_e4m3fn, "cpu")) == '"cpu float8_e4m3fn[1]"'
    assert annotation(NumberProxy("i0", int, 4)) == '"int 4"' and annotation(NumberProxy("f0", float)) == '"float ?"'
    assert format_source(("/src/model.py", 12, "    return x +\\\n y\n")) == "model.py:12: \treturn x +\\  y"
