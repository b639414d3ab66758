"""``tc.jit(module)``: the module itself, with its calls compiled.

The jitted module is an instance of a subclass of the module's own class (``ThunderModule``
first in its MRO) that shares the original's instance ``__dict__``: the same parameters,
buffers, submodules, hooks, config and training flag, no copies, and ``isinstance(jm,
type(model))``. Only calling it differs: ``jm(...)`` and ``jm.forward(...)`` run the jitted
``model(...)``. So every method the class inherits that calls ``self(...)`` or
``self.forward(...)`` (Hugging Face's ``generate``, a ``predict`` helper, ...) runs compiled,
and so does ``GenerationMixin.generate(jm, ...)``; attributes set through either object are
seen by both.
"""

from __future__ import annotations

import functools

import torch

__all__ = ["ThunderModule", "jit_module"]


class ThunderModule(torch.nn.Module):
    """Base of every jitted module's class: ``__call__`` (and each class's ``forward``, made by
    ``_class_for`` with the model's signature) go through the compiled function (``_tc_jfn``)
    applied to the original module (``_tc_module``). Its state lives in slots, outside the
    ``__dict__`` it shares with the original module."""

    __slots__ = ("_tc_jfn", "_tc_module")

    def __call__(self, *args, **kwargs):
        return self._tc_jfn(self._tc_module, *args, **kwargs)

    def __reduce_ex__(self, protocol):
        raise TypeError(f"a jitted {type(self._tc_module).__qualname__} cannot be pickled or copied: "
                        f"pickle or copy the original module and jit the copy.")


_CLASSES: dict = {}  # model class -> its jitted subclass (made once; it refers to its base, like any subclass)


def _class_for(cls: type) -> type:
    c = _CLASSES.get(cls)
    if c is None:
        # Named like the original (repr, error messages and libraries that look at
        # type(self).__name__ see the model's own class name).
        # forward keeps the original's signature: libraries inspect it to choose which inputs
        # to pass (generate computes position_ids only for a forward that takes them).
        @functools.wraps(cls.forward)
        def forward(self, *args, **kwargs):
            return self._tc_jfn(self._tc_module, *args, **kwargs)

        c = type(cls.__name__, (ThunderModule, cls), {"__slots__": (), "__module__": cls.__module__,
                                                       "__qualname__": cls.__qualname__, "forward": forward})
        _CLASSES[cls] = c
    return c


def jit_module(module: torch.nn.Module, jfn) -> ThunderModule:
    """The jitted view of ``module`` whose calls run ``jfn(module, *args, **kwargs)``."""
    jm = object.__new__(_class_for(type(module)))
    object.__setattr__(jm, "__dict__", module.__dict__)
    object.__setattr__(jm, "_tc_jfn", jfn)
    object.__setattr__(jm, "_tc_module", module)
    return jm
