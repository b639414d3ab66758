"""torch's own state is not the program's: bookkeeping of torch's compiler is no user effect,
torch.compiler.is_compiling() is True while tracing, and the RNG seed set inside the function is
set on every call."""

import torch

import thunder_core as tc


def test_module_created_inside_after_torch_compile_ran():
    torch.compile(lambda x: x + 1, backend="eager")(torch.ones(2))  # patches Module.__init__ (dynamo)

    class Scale(torch.nn.Module):
        def __init__(self, s):
            super().__init__()
            self.s = s

        def forward(self, x):
            return x * self.s

    def f(x):
        return torch.nn.ReLU()(Scale(2.0)(x))

    jf = tc.jit(f)
    x = torch.randn(4)
    for _ in range(2):
        torch.testing.assert_close(jf(x), f(x))
    assert jf._last.epilogue is None  # nothing to replay: torch's bookkeeping is not an effect


def test_is_compiling_is_true_while_tracing():
    def f(x):
        if torch.compiler.is_compiling():
            return x * 2
        return x.nonzero()  # a data-dependent path a library would avoid while compiled

    torch.testing.assert_close(tc.jit(f)(torch.ones(3)), torch.ones(3) * 2)


def test_cuda_is_available_is_evaluated_not_traced_into():
    """A CUDA build of torch reads the environment inside torch.cuda.is_available(); the
    opaque-call checker must not see it (torch 2.10's freeze_rng_state calls it)."""
    def f(x):
        return x.to("cuda") if torch.cuda.is_available() else x * 2

    jf = tc.jit(f, sharp_edges="error")
    expected = f(torch.ones(3))
    torch.testing.assert_close(jf(torch.ones(3)), expected)


def test_manual_seed_inside_the_function_reseeds_on_every_call():
    def f(x):
        torch.manual_seed(7)
        a = torch.rand(3)
        g = torch.manual_seed(8)
        return x + a, torch.randn(2), g is torch.default_generator

    jf = tc.jit(f)
    for _ in range(3):
        torch.rand(5)  # moves the global generator between calls
        out, ref = jf(torch.ones(3)), f(torch.ones(3))
        torch.testing.assert_close(out[0], ref[0])
        torch.testing.assert_close(out[1], ref[1])
        assert out[2] is True
    assert tc.cache_hits(jf) == 2


def test_manual_seed_under_training():
    w = torch.randn(3, requires_grad=True)

    def f(x):
        torch.manual_seed(3)
        return (torch.nn.functional.dropout(x * w, 0.5) * torch.rand(3)).sum()

    jf = tc.jit(f)
    for _ in range(2):
        torch.rand(5)
        w.grad = None
        out = jf(torch.ones(3))
        out.backward()
        g = w.grad.clone()
        w.grad = None
        ref = f(torch.ones(3))
        ref.backward()
        torch.testing.assert_close(out, ref)
        torch.testing.assert_close(g, w.grad)
