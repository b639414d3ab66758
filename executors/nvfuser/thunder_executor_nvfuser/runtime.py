"""Running regions: one ``FusionDefinition`` per region structure and input layout.

``lower(region)`` (called when a claim wins) returns the region's callable. On each call it
reads the layout of every tensor input (:func:`.layout.of_tensor`: nvFuser's contiguity and
stride order, which traces do not model), finds or builds the definition for that layout,
and executes it (``fd.execute``; nvFuser schedules, compiles and caches kernels per input
sizes itself). Definitions are cached by ``(region_key(region), layouts)``, so the same
region of every layer of a model is defined once. Symbolic numbers the definition takes as
extra scalar inputs are computed from each call's inputs (``RegionNumbers``): one
definition serves every size.

NOT verified here: executing needs a CUDA device, and the machine this package was written
on has none.
"""

from __future__ import annotations

import threading

import torch

from thunder_core.extend import RegionNumbers, region_key

from . import layout

_LOCK = threading.Lock()
#: (region_key, input layouts) -> (FusionDefinition, its extra scalar inputs)
DEFINITIONS: dict = {}


def definition(region, key, layouts):
    """``(fd, extra)`` for ``region`` with inputs of ``layouts`` (see ``definition.build``)."""
    from .definition import build

    with _LOCK:
        made = DEFINITIONS.get((key, layouts))
        if made is None:
            made = DEFINITIONS[(key, layouts)] = build(region, layouts)
    return made


def lower(region):
    """The callable running ``region``: takes ``region.inputs`` (tensors, numbers), returns the
    tuple of ``region.outputs``."""
    key = region_key(region)
    numbers = RegionNumbers(region)  # (regions of one key have their symbols in the same order)
    getters = [numbers.getter(p) for p in numbers.symbols]

    def run(*inputs):
        layouts = tuple(layout.of_tensor(x) if isinstance(x, torch.Tensor) else None for x in inputs)
        fd, extra = definition(region, key, layouts)
        return tuple(fd.execute([*inputs, *(getters[k](inputs) for k in extra)]))

    run.__name__ = region.name or "nvfuser_region"
    return run
