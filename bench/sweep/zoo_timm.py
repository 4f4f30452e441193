"""timm for the breadth sweep: one model per family (the module that registers it), the smallest.

The smallest variant of a family is chosen without building real weights: the names are ranked
by the size words timm uses (atto < femto < pico < nano < tiny < ...), the best few are built on
the meta device and the one with the fewest parameters wins.
"""

import collections
import re

import torch

_SIZE_WORDS = ["atto", "femto", "pico", "nano", "xxs", "mini", "micro", "tiny", "xs", "small",
               "s", "0", "lite", "18", "light", "base", "b", "medium", "m"]


def _size_rank(name):
    parts = re.split(r"[_\.\-]", name)
    best = len(_SIZE_WORDS)
    for part in parts:
        for rank, word in enumerate(_SIZE_WORDS):
            if part == word or part.startswith(word) and word in ("atto", "femto", "pico", "nano",
                                                                   "tiny", "small", "mini",
                                                                   "micro"):
                best = min(best, rank)
    return (best, len(name))


def _param_count(name):
    import timm
    try:
        with torch.device("meta"):
            model = timm.create_model(name, pretrained=False)
        return sum(p.numel() for p in model.parameters())
    except Exception:  # a variant that cannot be built on meta: rank it last
        return float("inf")


def list_models():
    """One name per timm family, the smallest; sorted by family."""
    import timm
    from timm.models import _registry
    families = collections.defaultdict(list)
    for name in timm.list_models():
        families[_registry._model_to_module[name]].append(name)
    chosen = []
    for family in sorted(families):
        candidates = sorted(families[family], key=_size_rank)[:6]
        chosen.append(min(candidates, key=_param_count))
    return chosen


def build(name):
    """Returns (model, args, kwargs) with random weights."""
    import timm
    model = timm.create_model(name, pretrained=False)
    config = timm.data.resolve_data_config({}, model=model)
    channels, height, width = config["input_size"]
    return model, (torch.randn(1, channels, height, width),), {}
