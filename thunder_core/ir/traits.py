"""Op traits: what an op *is*, declared where the op is defined and queried by one predicate.

A trait is a symbol tag from a fixed vocabulary (:data:`TRAITS`). Ops declare theirs where
they are defined (``@torch_op(..., tags=("elementwise",))``, ``@prim(tags=("view",))``, or
a table-driven helper passing them on); passes and executors ask :func:`has_trait` or
:func:`traits`, never the file an op lives in or a list of ids. An op defined by a plugin
with the right traits is treated exactly like a built-in one.

The vocabulary (an op may have several traits; each is a promise about every call):

``elementwise``
    Each output element depends only on the same-index elements of its (broadcast) inputs:
    unary and binary math, comparisons, ``where``, ``clamp``, activations such as ``relu`` and
    ``gelu``, dtype conversions (``to``), dropout (with ``random``), the elementwise backward
    kernels (``gelu_backward``...). ``glu`` is not (each output reads two elements half a dim
    apart).
``transcendental``
    An ``elementwise`` op whose math is expensive to evaluate again (exp, log, trigonometric
    and hyperbolic functions, sigmoid, erf, gamma functions, pow, sqrt/rsqrt, atan2, hypot,
    and activations built on them: gelu, silu, elu, mish, softplus...). Always comes with
    ``elementwise``. Cheap piecewise-linear activations (``relu``, ``hardswish``) are not.
``reduction``
    Some output elements combine many input elements with sums, products, extrema or logical
    and/or: reductions over dims (``sum``, ``mean``, ``var``, ``amax``, ``argmax``, ``all``,
    ``logsumexp``, norms), scans and sorts along a dim (``cumsum``, ``sort``, ``topk``),
    windowed reductions (pooling, ``fold``), losses (tagged for their default
    ``reduction="mean"``), distances (``cosine_similarity``), and the backward kernels of
    normalizations (``softmax_backward``, ``layer_norm_backward``: row sums combined with
    elementwise math).
``normalization``
    Normalizes its input with statistics it computes over some dims, output shaped like the
    input: ``softmax``, ``log_softmax``, ``softmin``, ``layer_norm``, ``rms_norm``,
    ``group_norm``, ``batch_norm``, ``instance_norm``, ``F.normalize``; also ``cross_entropy``
    (a ``log_softmax``, then a ``reduction``). These reduce internally but are not tagged
    ``reduction``: executors usually have one library kernel for them.
``view``
    Returns a view of its first tensor input: no data moves (``view``, ``permute``,
    ``transpose``, ``expand``, ``select``, ``split``, ``diagonal``, ``detach``, ``x[1:, None]``).
    Also an aliasing fact: a decomposition of a view op returns a view (``registry.own_outputs``).
    ``reshape``/``flatten`` are views here (traces do not model strides) and also carry
    ``shape``: eager copies when strides do not allow a view. ``x[index]`` (``getitem``) is a
    view for what basic indexing gives; an advanced index makes it copy (a gather).
``shape``
    Moves or copies elements to positions fixed by static arguments, without arithmetic:
    ``cat``, ``stack``, ``flip``, ``roll``, ``repeat``, ``tile``, ``pad``, ``tril``/``triu``
    (masked by position), ``pixel_shuffle``, ``unfold`` (im2col), copies to a new layout
    (``clone``, ``contiguous``), reshape that may copy. Gathers and scatters at positions held
    in an index tensor (``gather``, ``index_select``, ``embedding``...) are *not* shape ops:
    their access pattern depends on data (they are ``indexing``).
``indexing``
    Reads (a gather) or writes or adds (a scatter into a copy) elements at positions held in an
    integer index tensor; the output's shape comes from the arguments' shapes alone, never from
    the indices' values: ``index_select``, ``gather``, ``take_along_dim``, ``take``,
    ``embedding``, ``x[index_tensor, ...]`` (``index``), ``scatter``, ``scatter_add``, ``put``,
    ``index_add``, ``index_copy``, ``index_fill``, ``index_put``, and the gradients
    that scatter back (``embedding_dense_backward``, ``nll_loss_backward``). A compiler can
    generate them (an indirect load or store in the kernel); an out-of-range index is an error
    wherever it runs. Not ``nonzero_static`` or ``masked_scatter`` (positions counted from a
    mask), ``one_hot`` (sized by default by its largest value), nor reductions at index
    positions (``scatter_reduce``, ``index_reduce``).
``random``
    Draws from the random number generator, or reads or sets its state (``rand``,
    ``dropout``, ``manual_seed``): never recomputed, reordered or fused away. An op that draws
    only for some arguments (attention, with ``dropout_p > 0``) has the trait; whether a
    recorded call drew is :func:`draws_random`.
``inplace``
    Writes into a tensor argument: ``add_`` and ``x[i] = v`` into the first, ``batch_norm``
    into its running statistics.
``creation``
    Makes a fresh tensor from metadata and static arguments only, not from the values of
    tensor inputs: ``zeros``, ``full``, ``arange``, ``linspace``, ``eye``, ``empty``,
    ``tensor``, the ``*_like`` ops, and ``rand``/``randn``/``randint`` (with ``random``).
``matmul``
    A library kernel doing matrix products, FLOP-bound and not fusible into elementwise code:
    ``mm``, ``bmm``, ``matmul``, ``mv``, ``dot``, ``outer``, ``addmm``, ``baddbmm``,
    ``einsum``, ``linear``, ``bilinear``, convolutions (implicit GEMM) and their backward,
    scaled dot-product attention (two products around a softmax) and its backward.

Tags that are not traits stay as they are (:data:`NON_TRAIT_TAGS`): ``"may-return-input"``
and ``"fresh-output"`` (aliasing), ``"effect"``, ``"opaque"``, ``"region"``; bound symbols carry
pass facts such as ``"recomputed"`` in their own ``tags``.

Example::

    from thunder_core.ir.traits import has_trait, traits

    has_trait(bsym, "elementwise")              # a BoundSymbol or a Symbol
    traits(ltorch.gelu) == {"elementwise", "transcendental"}
    has_trait(bsym, "elementwize")              # ValueError: not a trait (typo protection)
"""

from __future__ import annotations

__all__ = ["TRAITS", "NON_TRAIT_TAGS", "traits", "has_trait", "draws_random", "ELEMENTWISE", "TRANSCENDENTAL", "REDUCTION",
           "NORMALIZATION", "VIEW", "SHAPE", "INDEXING", "RANDOM", "INPLACE", "CREATION", "MATMUL"]

ELEMENTWISE = "elementwise"
TRANSCENDENTAL = "transcendental"
REDUCTION = "reduction"
NORMALIZATION = "normalization"
VIEW = "view"
SHAPE = "shape"
INDEXING = "indexing"
RANDOM = "random"
INPLACE = "inplace"
CREATION = "creation"
MATMUL = "matmul"

#: The trait vocabulary (see the module docstring for what each promises).
TRAITS = frozenset({ELEMENTWISE, TRANSCENDENTAL, REDUCTION, NORMALIZATION, VIEW, SHAPE, INDEXING, RANDOM, INPLACE,
                    CREATION, MATMUL})

#: Symbol tags that are facts other than traits: ``"may-return-input"`` (eager may return the
#: input object itself: ``contiguous``, ``to``), ``"effect"`` (changes state outside the
#: trace: ``manual_seed``), ``"opaque"`` (a torch call recorded without a symbol of its own),
#: ``"fresh-output"`` (an opaque call whose outputs share no memory with its arguments: the
#: torch operator's schema says so), ``"region"`` (an executor's fused region).
NON_TRAIT_TAGS = frozenset({"may-return-input", "effect", "opaque", "fresh-output", "region"})


def traits(x) -> frozenset:
    """The traits of ``x`` (a Symbol, or a BoundSymbol: its symbol's), a subset of TRAITS."""
    return getattr(x, "sym", x).tags & TRAITS


def has_trait(x, trait: str) -> bool:
    """Does ``x`` (a Symbol or BoundSymbol) have ``trait``? Raises ValueError when ``trait``
    is not in the vocabulary, so a typo never silently answers False."""
    if trait not in TRAITS:
        raise ValueError(f"has_trait: {trait!r} is not an op trait; the traits are {', '.join(sorted(TRAITS))} "
                         f"(thunder_core.ir.traits.TRAITS).")
    return trait in getattr(x, "sym", x).tags


def writes_into(bsym) -> list:
    """The tensors a call (a BoundSymbol) writes into, by the ``inplace`` trait: an op run
    whole writes its first argument (``add_``, ``x[i] = v``), a decomposed one what the
    in-place calls of its decomposition write (``F.batch_norm`` writes its running statistics,
    not its input).

    Example::

        from thunder_core.ir.traits import writes_into

        written = {id(t) for t in writes_into(bsym)}  # which of its arguments it changes
    """
    if bsym.subsymbols:
        return [t for s in bsym.subsymbols for t in writes_into(s)]
    first = bsym.args[0] if bsym.args else None
    return [first] if INPLACE in bsym.sym.tags and getattr(first, "shape", None) is not None else []


def draws_random(bsym) -> bool:
    """Does this call (a BoundSymbol) draw random numbers? The ``random`` trait says an op *may*
    (attention draws only with ``dropout_p > 0``); what a recorded call did is in its
    decomposition: a call of a ``random`` op without one (a draw itself) draws, and a call
    whose decomposition holds such a call draws. So ``scaled_dot_product_attention(...,
    dropout_p=0.0)`` is an attention that draws nothing, and an executor may treat it as one.

    Example::

        from thunder_core.extend import draws_random

        if has_trait(bsym, "random") and not draws_random(bsym):
            ...  # fusible like the same op without dropout
    """
    stack = [bsym]
    while stack:
        b = stack.pop()
        if RANDOM in b.sym.tags and not b.subsymbols:
            return True
        stack += b.subsymbols
    return False
