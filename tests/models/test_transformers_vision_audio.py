"""Hugging Face vision and audio models (the text ones are in test_transformers.py), built from
small configs with random weights, through tc.jit with the default executors: the forward in
eval mode equals eager's and a second call is a cache hit; in training mode (dropout drawing
under the same seed) the loss and every parameter's gradient equal eager's. Convolutions,
batch and group norms, pooling, windowed attention, in-place dropout (MobileViT) and a feature
encoder that sets ``requires_grad`` on a traced tensor (wav2vec2) are what they add."""

import pytest
import torch

import thunder_core as tc

transformers = pytest.importorskip("transformers")

_S = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)


def _image(seed=0):
    return dict(pixel_values=torch.randn(2, 3, 32, 32, generator=torch.Generator().manual_seed(seed)))


def _audio(seed=0):
    return dict(input_values=torch.randn(2, 400, generator=torch.Generator().manual_seed(seed)))


#: name -> (model class, config class, config arguments, inputs)
MODELS = {
    "vit": ("ViTForImageClassification", "ViTConfig", dict(_S, image_size=32, patch_size=8, num_labels=5), _image),
    "resnet": ("ResNetForImageClassification", "ResNetConfig",
               dict(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], layer_type="basic", num_labels=5), _image),
    "convnext": ("ConvNextForImageClassification", "ConvNextConfig",
                 dict(hidden_sizes=[16, 32], depths=[1, 1], num_stages=2, num_labels=5), _image),
    "swin": ("SwinForImageClassification", "SwinConfig",
             dict(image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4,
                  num_labels=5), _image),
    "mobilevit": ("MobileViTForImageClassification", "MobileViTConfig",
                  dict(image_size=32, hidden_sizes=[16, 24, 32], neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64],
                       num_labels=5), _image),
    "wav2vec2": ("Wav2Vec2ForCTC", "Wav2Vec2Config",
                 dict(_S, vocab_size=20, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
                      num_feat_extract_layers=2, num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4,
                      layerdrop=0.0, mask_time_prob=0.0), _audio),
}


def _build(name):
    model_cls, config_cls, config, _ = MODELS[name]
    torch.manual_seed(0)
    return getattr(transformers, model_cls)(getattr(transformers, config_cls)(**config)).eval()


def _floats(out):
    if isinstance(out, torch.Tensor):
        return [out] if out.is_floating_point() else []
    if isinstance(out, dict):
        return [t for v in out.values() for t in _floats(v)]
    if isinstance(out, (tuple, list)):
        return [t for v in out for t in _floats(v)]
    return []


@pytest.fixture(autouse=True)
def default_executors(monkeypatch):
    monkeypatch.delenv("THUNDER_CORE_EXECUTORS", raising=False)  # as users get them (inductor in the background)


@pytest.mark.parametrize("name", MODELS)
def test_forward_in_eval_mode_and_cache_hit(name):
    model, make = _build(name), MODELS[name][3]
    jm = tc.jit(model)
    with torch.no_grad():
        for seed in (0, 1):
            kw = make(seed=seed)
            want, got = _floats(model(**kw)), _floats(jm(**kw))
            assert len(got) == len(want) > 0
            for g, w in zip(got, want):
                torch.testing.assert_close(g, w, atol=1e-4, rtol=1e-4)
    assert (tc.cache_misses(jm), tc.cache_hits(jm)) == (1, 1)


@pytest.mark.parametrize("name", MODELS)
def test_training_loss_and_every_gradient(name):
    model, kw = _build(name).train(), MODELS[name][3]()
    jm = tc.jit(model)

    def step(m):
        model.zero_grad(set_to_none=True)
        torch.manual_seed(1)  # the same dropout masks
        loss = sum(t.sum() for t in _floats(m(**kw)))
        loss.backward()
        return loss.detach(), [p.grad for p in model.parameters()]

    want_loss, want = step(model)
    got_loss, got = step(jm)
    torch.testing.assert_close(got_loss, want_loss, atol=1e-4, rtol=1e-4)
    for (pname, _), g, w in zip(model.named_parameters(), got, want):
        assert (g is None) == (w is None), pname
        if w is not None:
            torch.testing.assert_close(g, w, atol=1e-4, rtol=1e-3, msg=lambda m: f"{name} {pname}: {m}")
