"""Small Hugging Face ``transformers`` models built from configs with random weights (never
downloaded), for the real-model tests and benchmarks. ``transformers`` is imported when a
model is built; it is a test/benchmark dependency, not one of thunder_core's.

``build(name)`` returns the model in eval mode; ``inputs(name, seed)`` a padded batch as the
library expects it (``input_ids``, an ``attention_mask`` with left padding on the first row,
``decoder_input_ids`` for encoder-decoders); ``GENERATES`` names the models with a ``generate``.
"""

from __future__ import annotations

import torch

VOCAB = 128
_SMALL = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
              max_position_embeddings=64)
_GQA = dict(_SMALL, num_key_value_heads=2)  # grouped-query attention: 2 key/value heads for 4 query heads

#: name -> (transformers Auto class name, config model_type, config overrides)
SPECS = {
    "gpt2": ("AutoModelForCausalLM", "gpt2", dict(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                                                  bos_token_id=0, eos_token_id=1)),
    "llama": ("AutoModelForCausalLM", "llama", _GQA),
    "bert": ("AutoModelForMaskedLM", "bert", _SMALL),
    "t5": ("AutoModelForSeq2SeqLM", "t5", dict(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                                              decoder_start_token_id=0)),
    "mistral": ("AutoModelForCausalLM", "mistral", _GQA),
    "qwen2": ("AutoModelForCausalLM", "qwen2", _GQA),
    "opt": ("AutoModelForCausalLM", "opt", dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                                                num_attention_heads=4, ffn_dim=64, max_position_embeddings=64,
                                                word_embed_proj_dim=32)),
    "gpt_neox": ("AutoModelForCausalLM", "gpt_neox", _SMALL),
    "phi": ("AutoModelForCausalLM", "phi", _SMALL),
    "falcon": ("AutoModelForCausalLM", "falcon", dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                                                      num_attention_heads=4)),
    "mixtral": ("AutoModelForCausalLM", "mixtral", dict(_GQA, num_local_experts=4, num_experts_per_tok=2)),
}
NAMES = list(SPECS)
GENERATES = [n for n, (auto, _, _) in SPECS.items() if auto != "AutoModelForMaskedLM"]

#: More architectures, checked for the forward, a cache hit, a training step's gradients and
#: (the generative ones) greedy generate (tests/models/test_transformers.py): none of them was
#: looked at while writing the core
MORE_SPECS = {
    "gemma": ("AutoModelForCausalLM", "gemma", dict(_GQA, head_dim=8)),
    "gemma2": ("AutoModelForCausalLM", "gemma2", dict(_GQA, head_dim=8)),
    "qwen3": ("AutoModelForCausalLM", "qwen3", dict(_GQA, head_dim=8)),
    "phi3": ("AutoModelForCausalLM", "phi3", dict(_GQA, pad_token_id=0)),
    "stablelm": ("AutoModelForCausalLM", "stablelm", _GQA),
    "olmo": ("AutoModelForCausalLM", "olmo", _GQA),
    "starcoder2": ("AutoModelForCausalLM", "starcoder2", _GQA),
    "granite": ("AutoModelForCausalLM", "granite", _GQA),
    "gptj": ("AutoModelForCausalLM", "gptj", dict(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                                                  rotary_dim=4)),
    "codegen": ("AutoModelForCausalLM", "codegen", dict(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4,
                                                        n_positions=64, rotary_dim=4)),
    "bloom": ("AutoModelForCausalLM", "bloom", dict(vocab_size=VOCAB, hidden_size=32, n_layer=2, n_head=4)),
    "mpt": ("AutoModelForCausalLM", "mpt", dict(vocab_size=VOCAB, d_model=32, n_layers=2, n_heads=4, max_seq_len=64)),
    "roberta": ("AutoModelForMaskedLM", "roberta", dict(_SMALL, pad_token_id=1)),
    "distilbert": ("AutoModelForMaskedLM", "distilbert", dict(vocab_size=VOCAB, dim=32, n_layers=2, n_heads=4,
                                                              hidden_dim=64, max_position_embeddings=64)),
    "electra": ("AutoModelForMaskedLM", "electra", dict(_SMALL, embedding_size=32)),
    "albert": ("AutoModelForMaskedLM", "albert", dict(_SMALL, embedding_size=16)),
    "deberta-v2": ("AutoModelForMaskedLM", "deberta-v2", _SMALL),
    "bart": ("AutoModelForSeq2SeqLM", "bart", dict(vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2,
                                                  encoder_attention_heads=4, decoder_attention_heads=4,
                                                  encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64)),
    # (added 2026-11-27: Llama 4's complex rotary embedding found the complex-gradient bug)
    "llama4_text": ("AutoModelForCausalLM", "llama4_text", dict(_GQA, head_dim=8, num_local_experts=2,
                                                                intermediate_size_mlp=64)),
    "qwen3_moe": ("AutoModelForCausalLM", "qwen3_moe", dict(_GQA, num_experts=4, num_experts_per_tok=2,
                                                            moe_intermediate_size=32, head_dim=8)),
    "gemma3_text": ("AutoModelForCausalLM", "gemma3_text", dict(_GQA, head_dim=8)),
    "cohere": ("AutoModelForCausalLM", "cohere", _GQA),
    "nemotron": ("AutoModelForCausalLM", "nemotron", _GQA),
    "gpt_bigcode": ("AutoModelForCausalLM", "gpt_bigcode", dict(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4,
                                                                n_positions=64)),
    "esm": ("AutoModelForMaskedLM", "esm", dict(_SMALL, pad_token_id=1, mask_token_id=2)),
    "big_bird": ("AutoModelForMaskedLM", "big_bird", dict(_SMALL, attention_type="original_full")),
    "funnel": ("AutoModelForMaskedLM", "funnel", dict(vocab_size=VOCAB, d_model=32, n_head=4, d_head=8, d_inner=64,
                                                     block_sizes=[1, 1], num_decoder_layers=1)),
    "mbart": ("AutoModelForSeq2SeqLM", "mbart", dict(vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2,
                                                    encoder_attention_heads=4, decoder_attention_heads=4,
                                                    encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64)),
    "mt5": ("AutoModelForSeq2SeqLM", "mt5", dict(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2,
                                                num_heads=4, decoder_start_token_id=0)),
    # (added 2026-11-28: state-space models; a traced shape's numel() and torch's associative_scan)
    "mamba": ("AutoModelForCausalLM", "mamba", dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                                                    state_size=8, expand=2)),
    "jamba": ("AutoModelForCausalLM", "jamba", dict(_GQA, num_experts=2, expert_layer_period=2, attn_layer_period=2,
                                                    attn_layer_offset=1, mamba_d_state=8)),
    # (added 2026-11-28, later: a NumPy scalar as an op's argument (CTRL), torch.concatenate's
    # `dim` (Zamba2); FNet's Fourier transforms, Mamba2's chunked
    # scan and ModernBERT's alternating local attention passed as they were)
    "ctrl": ("AutoModelForCausalLM", "ctrl", dict(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, dff=64,
                                                  n_positions=64)),
    "zamba2": ("AutoModelForCausalLM", "zamba2", dict(_GQA, mamba_d_state=8, mamba_headdim=8, n_mamba_heads=8,
                                                      layers_block_type=["mamba", "hybrid"], hybrid_layer_ids=[1],
                                                      mamba_expand=2, adapter_rank=4)),
    "fnet": ("AutoModelForMaskedLM", "fnet", dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                                                 intermediate_size=64, max_position_embeddings=64)),
    "mamba2": ("AutoModelForCausalLM", "mamba2", dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                                                      state_size=8, expand=2, num_heads=8, head_dim=8, n_groups=1,
                                                      chunk_size=4)),
    "modernbert": ("AutoModelForMaskedLM", "modernbert", dict(_SMALL, global_attn_every_n_layers=2,
                                                             local_attention=8, pad_token_id=0)),
    # (FSMT and I-BERT branch on predicates of input tensors: `if not padding_mask.any()`, a
    # buffer's range; decided while tracing and guarded since guards/truth.py)
    "fsmt": ("AutoModelForSeq2SeqLM", "fsmt", dict(src_vocab_size=VOCAB, tgt_vocab_size=VOCAB, d_model=32,
                                                 encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                                                 decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
                                                 max_position_embeddings=64, langs=["en", "de"])),
    "ibert": ("AutoModelForMaskedLM", "ibert", dict(_SMALL, pad_token_id=1)),
    # (GPT-OSS: its MoE experts write into a custom op's result, `out.add_(bias)`)
    "gpt_oss": ("AutoModelForCausalLM", "gpt_oss", dict(_GQA, head_dim=8, num_local_experts=4, num_experts_per_tok=2,
                                                        sliding_window=4)),
}
MORE_NAMES = list(MORE_SPECS)
MORE_GENERATES = [n for n, (auto, _, _) in MORE_SPECS.items() if auto != "AutoModelForMaskedLM"]


def _spec(name: str):
    return SPECS[name] if name in SPECS else MORE_SPECS[name]


def build(name: str, seed: int = 0) -> torch.nn.Module:
    import transformers

    auto, model_type, overrides = _spec(name)
    config = transformers.AutoConfig.for_model(model_type, **overrides)
    torch.manual_seed(seed)
    return getattr(transformers, auto).from_config(config).eval()


def inputs(name: str, seed: int = 0, batch: int = 2, seq: int = 8) -> dict:
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(2, VOCAB, (batch, seq), generator=g)
    mask = torch.ones(batch, seq, dtype=torch.long)
    mask[0, : seq // 3] = 0  # left padding on the first row
    kw = dict(input_ids=ids, attention_mask=mask)
    if _spec(name)[0] == "AutoModelForSeq2SeqLM":
        kw["decoder_input_ids"] = torch.randint(2, VOCAB, (batch, max(1, seq // 2)), generator=g)
    return kw


def labels(name: str, kw: dict) -> torch.Tensor:
    """Labels for a training loss: the decoder inputs for encoder-decoders, else the inputs."""
    return (kw.get("decoder_input_ids", kw["input_ids"])).clone()
