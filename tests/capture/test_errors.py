"""Errors of tracing name the user's line (the outermost line of their own code that led to
the failure, and the line where it was met), say what is not supported and what to do; they
never print a whole tensor. Exceptions the program raises itself stay CPython's."""

import sys

import pytest
import torch

import thunder_core as tc
from thunder_core.ir import TracingError

from . import user_code


def _notes(e):
    return "\n".join(getattr(e, "__notes__", []))


def test_data_dependent_branch_names_the_users_line():
    jm = tc.jit(user_code.Branchy())
    with pytest.raises(TypeError, match="truth value of a tensor computed inside the jitted function") as ei:
        jm(torch.randn(2, 4))
    notes = _notes(ei.value)
    assert "while tracing Branchy" in notes
    assert f"your code: {user_code.__file__}:{user_code.BRANCH_LINE}: if y.sum() > 0:" in notes


def test_failure_inside_a_library_names_the_users_line_and_the_library_line():
    # F.gaussian_nll_loss branches on tensor values inside torch (on a variance drawn at random
    # here: a predicate of inputs alone would be guarded): the note names the user's line that
    # called it and the library line where tracing stopped
    def f(x, t, v):
        return user_code.loss(x, t, torch.rand_like(v))

    with pytest.raises(TypeError) as ei:
        tc.jit(f)(torch.randn(3), torch.randn(3), torch.rand(3))
    notes = _notes(ei.value)
    assert f"your code: {__file__}:{f.__code__.co_firstlineno + 1}: return user_code.loss(x, t, torch.rand_like(v))" in notes
    assert "reached: " in notes and "torch/nn/functional.py" in notes


def test_the_programs_own_exception_is_unchanged():
    def f(x):
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="^bad input$") as ei:
        tc.jit(f)(torch.ones(1))
    assert not getattr(ei.value, "__notes__", None)


class _Stop(Exception):
    pass


def _raise_the_class(x):
    raise _Stop  # the code's last instruction: the class is instantiated while ip is past the end


def test_an_exception_class_raised_by_the_last_instruction_is_caught():
    def f(x):
        try:
            _raise_the_class(x)
        except _Stop:
            return x + 1

    torch.testing.assert_close(tc.jit(f)(torch.ones(2)), f(torch.ones(2)))
    with pytest.raises(_Stop):
        tc.jit(_raise_the_class)(torch.ones(2))


def test_errors_never_print_a_whole_tensor():
    big = torch.arange(1000.0)

    def f(x):
        return torch.tensor_split(x, (x[:2] > 0).long())

    with pytest.raises(TracingError) as ei:
        tc.jit(f)(big)
    text = str(ei.value) + _notes(ei.value)
    assert "999." not in text and "tensor([" not in text


def test_tolist_of_a_computed_tensor_says_it_depends_on_values():
    # (the message was torch's own about fake tensor subclasses, a name users never met)
    def f(x):
        return (x * 2).tolist()

    with pytest.raises(TracingError, match=r"tolist returns something that depends on tensor values.*") as ei:
        tc.jit(f)(torch.randn(3))
    assert "FakeTensor" not in str(ei.value)


def _autograd_grad(x):
    y = (x ** 3).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    return g.sum()


def _tensor_backward(x):
    (x ** 2).sum().backward()
    return x.grad


def _functional_jacobian(x):
    return torch.autograd.functional.jacobian(lambda a: a.sin(), x)


@pytest.mark.parametrize("f, name", [(_autograd_grad, "torch.autograd.grad"), (_tensor_backward, "Tensor.backward"),
                                     (_functional_jacobian, "torch.autograd.grad")])
def test_autograd_inside_a_jitted_function_is_refused_saying_what_to_do(f, name):
    # torch.autograd.grad on traced tensors crashed the process (a segfault in the engine);
    # .backward() was a silent no-op (x.grad stayed None where eager fills it)
    with pytest.raises(NotImplementedError, match=rf"{name} inside a jitted function is not supported.*Return the loss"):
        tc.jit(f)(torch.randn(3, requires_grad=True))


def test_a_module_built_inside_a_jitted_function_is_refused_saying_what_to_do():
    # nn.Parameter of a traced tensor crashed the process (torch's C code needs real storage)
    def f(x):
        return torch.nn.Linear(4, 4)(x)

    with pytest.raises(TracingError, match=r"Parameter\(...\) of a tensor computed inside the jitted function.*create "
                                           r"the module or parameter outside"):
        tc.jit(f)(torch.randn(2, 4))


def test_a_module_backward_hook_is_refused_with_grad_and_traced_without():
    # (it failed reading grad_fn, naming neither the hook nor what to do)
    lin = torch.nn.Linear(4, 4)
    lin.register_full_backward_hook(lambda mod, gi, go: None)
    model = torch.nn.Sequential(lin, torch.nn.ReLU())
    jm = tc.jit(model)
    x = torch.randn(2, 4)
    with torch.no_grad():  # torch sets no hook up without grad: traced as usual
        torch.testing.assert_close(jm(x), model(x))
    with pytest.raises(TracingError, match="Linear has a backward hook .* Hook the tensors instead"):
        jm(x)


def test_a_numpy_array_reaching_an_op_names_the_users_line_and_what_to_do():
    # (the message spoke of printing constants and of plugin authors' printers)
    np = pytest.importorskip("numpy")
    table = np.arange(4, dtype=np.float32)

    def made(x):
        return x * torch.from_numpy(table)

    def operand(x):
        return x + table

    x = torch.randn(4)
    with pytest.raises(tc.ir.PrintingError, match=r"your line test_errors.py:\d+: return x \* torch.from_numpy\(table\)"
                                                  r"\): A NumPy array \(shape \[4\], float32\) .*torch.from_numpy\(a\)"):
        tc.jit(made)(x)
    with pytest.raises(TypeError, match=r"got array\(.*\(a ndarray\)\. A trace holds tensors.*pass it in"):
        tc.jit(operand)(x)
