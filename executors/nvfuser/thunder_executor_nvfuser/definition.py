"""``FusionDefinition``s from regions, with ``nvfuser_direct`` (imported when first used).

:class:`FdBuilder` is the builder :func:`.translate.translate` emits to: inputs become
``fd.define_tensor(shape=, contiguity=, dtype=, is_cpu=False, stride_order=)`` and
``fd.define_scalar(dtype=)`` (the region's number inputs, then the symbolic numbers it needs
as extra inputs), constants ``fd.define_scalar(value, dtype=)``, operations
``fd.ops.<name>(...)``, and a result whose dtype nvFuser inferred differently from the
trace's gets an ``fd.ops.cast``. :func:`build` returns the finished definition. Building needs
no GPU (only executing and printing kernels do).
"""

from __future__ import annotations

from .translate import translate


class FdBuilder:
    def __init__(self, fd, DataType):
        self.fd, self.DataType = fd, DataType

    def tensor(self, p, layout):
        return self.fd.define_tensor(shape=list(layout.shape), contiguity=list(layout.contiguity),
                                     dtype=self.datatype(_dtype_name(p.dtype)), is_cpu=False,
                                     stride_order=list(layout.stride_order))

    def scalar_input(self, p):
        from .dtypes import scalar_type

        return self.fd.define_scalar(dtype=self.datatype(scalar_type(p.python_type)))

    def const(self, value, type_name):
        return self.fd.define_scalar(value, dtype=self.datatype(type_name))

    def datatype(self, name):
        return getattr(self.DataType, name)

    def op(self, name, *args, **kwargs):
        return getattr(self.fd.ops, name)(*args, **kwargs)

    def ensure(self, v, dtype_name):
        want = self.datatype(dtype_name)
        return v if v.dtype() == want else self.fd.ops.cast(v, dtype=want)

    def cast(self, v, dtype_name):
        return self.fd.ops.cast(v, dtype=self.datatype(dtype_name))

    def output(self, v):
        self.fd.add_output(v)


def _dtype_name(dtype):
    from .dtypes import DTYPES

    return DTYPES[dtype]


def build(region, input_layouts=None):
    """``(fd, extra)``: the ``FusionDefinition`` of ``region`` (inputs described by
    ``input_layouts``, one :class:`.layout.Layout` per tensor input; contiguous when None),
    and its extra scalar inputs after the region's (symbolic numbers, see :mod:`.translate`:
    indices into ``RegionNumbers(region).symbols``). Raises :class:`.ops.Unsupported`, or
    nvFuser's own error, when it cannot be defined."""
    from nvfuser_direct import DataType, FusionDefinition

    fd = FusionDefinition()
    fd.__enter__()
    try:
        extra = translate(region, FdBuilder(fd, DataType), input_layouts)
    finally:
        fd.__exit__(None, None, None)  # leaves the definition; with no exception given, prints nothing
    return fd, extra


def rebuild(source: str):
    """A ``FusionDefinition`` from the text ``repr(fd)`` prints (``def nvfuser_fusion(fd)``)."""
    from nvfuser_direct import DataType, FusionDefinition

    namespace = {"FusionDefinition": FusionDefinition, "DataType": DataType}
    exec(compile(source, "<nvfuser definition>", "exec"), namespace)
    with FusionDefinition() as fd:
        namespace["nvfuser_fusion"](fd)
    return fd
