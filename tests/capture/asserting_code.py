"""User code for test_tensor_asserts.py: functions asserting on tensor contents. (Not in the
test file: pytest rewrites the asserts of test modules into its own ``if``/``raise``.)"""

import torch


def nan_check(x):  # HF I-BERT's QuantAct in training
    y = x.data.max() * 2
    assert y.isnan().sum() == 0 and x.min().isnan().sum() == 0, "NaN detected when computing min/max"
    return x + y


def negation(x):
    assert not (x < -100).any()
    return x * 2


def comparison(x):
    assert x.sum() > 0, "not positive"
    return x - 1


def in_training(lin):
    def f(x):
        y = lin(x)
        assert y.abs().sum(), "all zero"  # a tensor requiring grad
        assert torch.isfinite(y).all(), "not finite"
        return y.tanh().sum()
    return f


def raises_value_error(x):
    if x.sum() > 0:
        raise ValueError("positive")
    return x


def message_of_the_tensor(x):
    assert x.sum() > 0, f"sum is {x.sum()}"
    return x


def either(x):
    assert x.sum() > 0 or x.max() > 5
    return x
