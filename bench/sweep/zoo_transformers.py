"""transformers for the breadth sweep: every architecture of AutoModel whose forward takes text
(input_ids) or an image (pixel_values), built from its config class shrunk generically.

Shrinking: hidden 64, 4 heads of 16, 2 key/value heads, 2 layers, intermediate 128, vocab 1024,
4 experts, applied to every (sub)config; per-layer lists follow the layer count. When the shrunk
config cannot be built or run, the default config is tried if it has under 60M parameters.
"""

import inspect
import re

import torch

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, LAYERS, FFN, VOCAB = 64, 4, 2, 16, 2, 128, 1024
MAX_DEFAULT_PARAMS = 60_000_000

_HIDDEN_KEYS = ["hidden_size", "d_model", "n_embd", "embed_dim", "embedding_size",
                "word_embed_proj_dim", "d_embed", "projection_dim", "text_embed_dim",
                "vision_embed_dim", "hidden_dim", "dim"]
_LAYER_KEYS = ["num_hidden_layers", "num_layers", "n_layer", "n_layers", "encoder_layers",
               "decoder_layers", "num_decoder_layers", "num_encoder_layers", "depth"]
_HEAD_KEYS = ["num_attention_heads", "n_head", "n_heads", "encoder_attention_heads",
              "decoder_attention_heads"]
_KV_KEYS = ["num_key_value_heads", "n_kv_heads", "num_kv_heads", "multi_query_group_num"]
_FFN_KEYS = ["intermediate_size", "ffn_dim", "encoder_ffn_dim", "decoder_ffn_dim", "n_inner",
             "d_ff", "moe_intermediate_size", "shared_expert_intermediate_size",
             "ffn_hidden_size"]
_HEAD_DIM_KEYS = ["head_dim", "d_kv", "attention_head_size", "kv_channels", "qk_rope_head_dim",
                  "v_head_dim", "qk_nope_head_dim"]
_EXPERT_KEYS = ["num_experts", "num_local_experts", "n_routed_experts"]
_PRIORITY = ["bert", "gpt2", "llama", "t5", "vit", "bart", "roberta", "distilbert", "mistral",
             "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text", "phi", "phi3", "opt", "gpt_neox",
             "falcon", "mixtral", "qwen2_moe", "deepseek_v3", "whisper", "clip", "siglip",
             "convnext", "resnet", "swin", "deit", "beit", "dinov2", "mobilevit", "efficientnet",
             "albert", "electra", "deberta-v2", "xlm-roberta", "mpnet", "mbart", "marian",
             "pegasus", "mt5", "bloom", "gptj", "codegen", "starcoder2", "olmo", "stablelm",
             "granite", "cohere", "smollm3", "segformer", "detr", "levit", "regnet", "poolformer"]


def _model_class(model_type):
    import transformers
    from transformers.models.auto import modeling_auto
    name = modeling_auto.MODEL_MAPPING_NAMES[model_type]
    if isinstance(name, (list, tuple)):
        name = name[0]
    return getattr(transformers, name)


def _main_input(cls):
    return getattr(cls, "main_input_name", "input_ids")


def list_models():
    """Model types with a text or vision forward: a few common ones first, then the rest."""
    from transformers.models.auto import modeling_auto
    names = []
    for model_type in modeling_auto.MODEL_MAPPING_NAMES:
        try:
            if _main_input(_model_class(model_type)) in ("input_ids", "pixel_values"):
                names.append(model_type)
        except Exception:
            names.append(model_type)  # import fails: the sweep records why
    first = [n for n in _PRIORITY if n in names]
    return first + sorted(n for n in names if n not in first)


def _shrink_value(key, value, layers_before):
    if isinstance(value, bool) or not isinstance(value, (int, list, tuple)):
        return value
    if isinstance(value, int):
        if key in _HIDDEN_KEYS:
            return min(value, HIDDEN)
        if key in _LAYER_KEYS:
            return min(value, LAYERS)
        if key in _HEAD_KEYS:
            return min(value, HEADS)
        if key in _FFN_KEYS:
            return min(value, FFN)
        if key in _HEAD_DIM_KEYS:
            return min(value, HEAD_DIM)
        if key in _EXPERT_KEYS:
            return min(value, 4)
        if key in ("num_experts_per_tok", "index_topk"):
            return min(value, 2)
        if key in ("n_group", "num_expert_group", "topk_group"):
            return 1
        if key in ("kv_lora_rank", "q_lora_rank"):
            return min(value, 32)
        if key == "index_head_dim":
            return min(value, HEAD_DIM)
        if key == "index_n_heads":
            return min(value, HEADS)
        if key == "vocab_size":
            return min(value, VOCAB)
        return value
    if key in ("depths", "num_layers_per_stage", "layers", "block_layers"):
        return type(value)(min(v, 1) if isinstance(v, int) else v for v in value)
    if key in ("hidden_sizes", "embed_dims", "embed_dim", "neck_hidden_sizes", "dims"):
        return type(value)(max(8, v // 4) if isinstance(v, int) else v for v in value)
    if key == "num_heads" and all(isinstance(v, int) for v in value):
        return type(value)(min(v, 2 << i) for i, v in enumerate(value))
    if layers_before and len(value) == layers_before and len(value) > LAYERS:
        distinct = [value[0]] + [v for v in value if v != value[0]][:1]
        return type(value)((distinct * LAYERS)[:LAYERS])
    return value


def _set_mrope(config, target, sections):
    """Multimodal rotary sections (Qwen2-VL, GLM-4V; the model's default when the config has
    none) must sum to half the rotary dimension, which the shrunk config made smaller."""
    from transformers import PretrainedConfig
    scaled = [max(1, s * target // sum(sections)) for s in sections]
    scaled[0] += target - sum(scaled)
    for value in list(vars(config).values()):
        if isinstance(value, PretrainedConfig):
            _set_mrope(value, target, sections)
    if isinstance(getattr(config, "rope_parameters", None), dict):
        config.rope_parameters["mrope_section"] = scaled


def shrink(config):
    """Shrinks config in place, its sub-configs too."""
    from transformers import PretrainedConfig
    layers_before = next((getattr(config, k) for k in _LAYER_KEYS
                          if isinstance(getattr(config, k, None), int)), 0)
    heads_before = next((getattr(config, k) for k in _HEAD_KEYS
                         if isinstance(getattr(config, k, None), int)), 0)
    for key, value in list(vars(config).items()):
        if isinstance(value, PretrainedConfig):
            shrink(value)
            continue
        new = _shrink_value(key, value, layers_before)
        if key in _KV_KEYS and isinstance(value, int):
            new = KV_HEADS if value < heads_before else HEADS
        if new is not value:
            try:
                setattr(config, key, new)
            except Exception:
                pass
    if "head_dim" in vars(config) and config.head_dim is None and heads_before:
        config.head_dim = HEAD_DIM  # models that read it without a fallback
    if isinstance(getattr(config, "qk_nope_head_dim", None), int) and \
            isinstance(getattr(config, "qk_rope_head_dim", None), int) and \
            hasattr(config, "qk_head_dim"):
        config.qk_head_dim = config.qk_nope_head_dim + config.qk_rope_head_dim
    vocab = getattr(config, "vocab_size", None)
    if isinstance(vocab, int):
        for key, value in list(vars(config).items()):
            if key.endswith("token_id") and isinstance(value, int) and value >= vocab:
                setattr(config, key, vocab - 1)
    for key in ("use_cache",):
        if hasattr(config, key):
            config.use_cache = False
    # Models that sample in their forward (VITS's noise_scale, noise_scale_duration): no noise,
    # so torch and tir compute the same numbers (their random streams differ by design).
    for key in ("noise_scale", "noise_scale_duration"):
        if isinstance(getattr(config, key, None), float):
            setattr(config, key, 0.0)
    return config


def _image_size(config):
    for cfg in (getattr(config, "vision_config", None), config):
        size = getattr(cfg, "image_size", None) if cfg is not None else None
        if isinstance(size, int):
            return size, size
        if isinstance(size, (list, tuple)) and len(size) == 2:
            return tuple(size)
        if isinstance(size, dict) and "height" in size:
            return size["height"], size["width"]
    return 224, 224


def _inputs(model, config, both):
    """The main input; with both, also the other of input_ids / pixel_values (CLIP-like)."""
    gen = torch.Generator().manual_seed(0)
    main = model.main_input_name
    params = inspect.signature(model.forward).parameters
    kwargs = {}
    if main == "pixel_values" or both and "pixel_values" in params:
        channels = getattr(getattr(config, "vision_config", None) or config, "num_channels", 3)
        height, width = _image_size(config)
        kwargs["pixel_values"] = torch.randn(1, channels, height, width, generator=gen)
        patch = getattr(getattr(config, "vision_config", None) or config, "patch_size", None)
        if "noise" in params and isinstance(patch, int):
            # ViT-MAE masks patches by sorting noise it would draw itself (torch.rand): given,
            # torch and tir mask the same patches.
            kwargs["noise"] = torch.rand(1, (height // patch) * (width // patch), generator=gen)
    if main != "pixel_values" or both and "input_ids" in params:
        vocab = getattr(config, "vocab_size", None) or getattr(
            getattr(config, "text_config", None), "vocab_size", 1000)
        kwargs["input_ids"] = torch.randint(3, min(vocab, 1000), (1, 12), generator=gen)
        if "decoder_input_ids" in params and getattr(config, "is_encoder_decoder", False):
            kwargs["decoder_input_ids"] = torch.randint(3, min(vocab, 1000), (1, 6),
                                                        generator=gen)
    return kwargs


def _param_count(cls, config):
    with torch.device("meta"):
        return sum(p.numel() for p in cls(config).parameters())


def build(name):
    """Returns (model, args, kwargs) with random weights."""
    from transformers import AutoConfig
    cls = _model_class(name)
    errors = []
    for shrunk in (True, False):
        config = AutoConfig.for_model(name)
        if shrunk:
            shrink(config)
        elif _param_count(cls, config) > MAX_DEFAULT_PARAMS:
            break
        attempts = [False, True]
        while attempts:
            both = attempts.pop(0)
            try:
                torch.manual_seed(0)
                model = cls(config).eval()
                kwargs = _inputs(model, config, both)
                with torch.no_grad():
                    model(**kwargs)
                return model, (), kwargs
            except Exception as exc:
                lines = str(exc).strip().splitlines() or [""]
                mrope = re.search(r"split_sizes to sum exactly to (\d+).*split_sizes=\[([\d, ]+)\]",
                                  lines[0])
                if mrope and shrunk and len(attempts) < 2:
                    _set_mrope(config, int(mrope.group(1)),
                               [int(v) for v in mrope.group(2).split(",")])
                    attempts.insert(0, both)
                    continue
                errors.append(f"{type(exc).__name__}: {lines[0]}"[:200])
    raise RuntimeError(" / ".join(errors) or "default config too large")


def total():
    """How many architectures AutoModel maps, text and vision or not."""
    from transformers.models.auto import modeling_auto
    return len(modeling_auto.MODEL_MAPPING_NAMES)
