"""Hugging Face ``transformers`` workloads of the side-by-side suite (``hf-gpt2``, ``hf-llama``...).

The models are the ten of ``thunder_core.examples.transformers_models`` (its ``SPECS``, ``inputs``
and ``labels``, imported, not copied), built from configs with random weights, never downloaded,
resized here for benchmarking (hidden size, layers, heads, feed-forward size; ``--quick`` keeps the
test configs' hidden size 32). Every dropout probability in the config (``*dropout*``, ``*pdrop*``,
``layerdrop``) is set to 0, so training steps are deterministic and every system's loss and
gradients can be checked against eager's (torch.compile draws dropout noise with its own RNG).

- forward: ``model.eval()``, under ``torch.no_grad()``, ``model(**inputs)`` with the library's
  defaults (``return_dict=True``, ``use_cache`` as the config says, an attention mask with left
  padding on the first row; ``decoder_input_ids`` for T5). The output is the ``ModelOutput``.
- forward+backward: ``model.train()``, ``model(**inputs, labels=labels)``, ``out.loss.backward()``;
  every parameter's gradient is compared against eager's.

``transformers`` is imported lazily, only when an HF workload is selected; when it is not
importable the HF rows are reported as skipped with the reason (``unavailable``).
"""

from __future__ import annotations

import functools

import torch

from thunder_core.examples import transformers_models as hf_models

#: key suffix -> label name; the order of the suite
MODELS = {
    "gpt2": "GPT-2", "llama": "Llama", "bert": "BERT", "t5": "T5", "mistral": "Mistral", "qwen2": "Qwen2",
    "opt": "OPT", "gpt_neox": "GPT-NeoX", "phi": "Phi", "falcon": "Falcon",
}
#: the ones in a plain ``python -m benchmarks`` (the others: ``--workloads hf-all`` or by name)
DEFAULT = ("gpt2", "llama", "bert", "t5")

# Timing budget per row of a full run: a call takes milliseconds, so 8 s still gives the suite's
# minimum of 21 interleaved repetitions (at most 200); the compiles (up to ~30 s for torch.compile)
# come on top.
BUDGET_S = 8.0

# hidden, layers, heads, vocab, batch, seq (feed-forward: 4 x hidden; T5's decoder: seq // 2 tokens)
FULL_DIMS = (128, 2, 4, 1024, 4, 64)
QUICK_DIMS = (32, 2, 4, hf_models.VOCAB, 2, 16)

_HIDDEN = ("hidden_size", "n_embd", "d_model", "word_embed_proj_dim")
_FFN = ("intermediate_size", "ffn_dim", "d_ff")
_LAYERS = ("num_hidden_layers", "n_layer", "num_layers")
_HEADS = ("num_attention_heads", "n_head", "num_heads")
_POSITIONS = ("n_positions", "max_position_embeddings")
# feed-forward sizes that are not in the test configs (their default is 4 x hidden, said explicitly)
_EXTRA_FFN = {"gpt2": "n_inner", "falcon": "ffn_hidden_size"}


def dims(quick):
    return QUICK_DIMS if quick else FULL_DIMS


def unavailable():
    """None when ``transformers`` imports here, else why the HF workloads are skipped."""
    try:
        import transformers
    except Exception as e:  # noqa: BLE001 - a missing or broken package: reported, never raised
        return f"transformers is not importable ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"
    return None if hasattr(transformers, "AutoConfig") else "the importable 'transformers' has no AutoConfig"


def transformers_version():
    import transformers

    return transformers.__version__


def config(name, quick):
    """The model's config: the test config of ``transformers_models.SPECS`` resized to ``dims``,
    every dropout probability 0."""
    import transformers

    hidden, layers, heads, vocab, _, seq = dims(quick)
    _, model_type, base = hf_models.SPECS[name]
    over = dict(base)
    for keys, value in ((_HIDDEN, hidden), (_FFN, 4 * hidden), (_LAYERS, layers), (_HEADS, heads)):
        over.update({k: value for k in keys if k in over})
    over["vocab_size"] = vocab
    over.update({k: max(over[k], 2 * seq) for k in _POSITIONS if k in over})
    if "d_kv" in over:
        over["d_kv"] = hidden // heads
    if name in _EXTRA_FFN:
        over[_EXTRA_FFN[name]] = 4 * hidden
    cfg = transformers.AutoConfig.for_model(model_type, **over)
    for key, value in cfg.to_dict().items():
        if ("drop" in key) and isinstance(value, float) and value:
            setattr(cfg, key, 0.0)
    return cfg


def build(name, quick, train):
    """A Setup for the suite: the model (eval or train mode), its keyword inputs, the loss."""
    import transformers

    from benchmarks.workloads import Setup

    auto = hf_models.SPECS[name][0]
    torch.manual_seed(0)
    model = getattr(transformers, auto).from_config(config(name, quick)).train(train)
    _, _, _, _, batch, seq = dims(quick)
    kw = hf_models.inputs(name, seed=0, batch=batch, seq=seq)
    if not train:
        return Setup(model, (), kwargs=kw)
    kw["labels"] = hf_models.labels(name, kw)
    names, params = zip(*model.named_parameters())
    return Setup(model, (), kwargs=kw, grads_of=list(params), grad_names=list(names), loss=_model_loss)


def _model_loss(out):
    return out.loss


def label(name, quick):
    hidden, layers, heads, vocab, batch, seq = dims(quick)
    dec = f", decoder seq {max(1, seq // 2)}" if hf_models.SPECS[name][0] == "AutoModelForSeq2SeqLM" else ""
    return (f"HF {MODELS[name]} ({layers} layers, hidden {hidden}, {heads} heads, vocab {vocab}, "
            f"batch {batch}, seq {seq}{dec})" + (" [quick shapes]" if quick else ""))


def workloads(Workload):
    """The HF workloads, as ``Workload`` objects (the class is passed in: workloads.py imports
    this module), in suite order."""
    return [Workload(f"hf-{name.replace('_', '-')}", functools.partial(label, name),
                     functools.partial(build, name), kind="hf", memory=False,
                     unavailable=unavailable, default=name in DEFAULT, budget_s=BUDGET_S)
            for name in MODELS]

