"""Models beyond the first families, for the core-ATen coverage work (issue 15); see
gen_aten.py. Tiny configurations, random initialisation (models_families.randomize_constant_tensors),
eval mode.

Each MODELS row is (name, module factory, seed, inputs(generator) -> (args, kwargs), rtol = atol).
"""

import torch
import torch.nn.functional as F
import torchvision
from torch import nn
from transformers import (BloomConfig, BloomForCausalLM, DebertaV2Config, DebertaV2Model,
                          CodeGenConfig, CodeGenForCausalLM, DistilBertConfig, DistilBertModel,
                          FalconConfig, FalconForCausalLM, GPTJConfig, GPTJForCausalLM,
                          MistralConfig, MistralForCausalLM, MixtralConfig, MixtralForCausalLM,
                          Qwen3MoeConfig, Qwen3MoeForCausalLM, SwinConfig, SwinModel, T5Config,
                          T5Model, ViTConfig, ViTModel, Wav2Vec2Config, Wav2Vec2Model,
                          WhisperConfig)
from transformers.models.whisper.modeling_whisper import WhisperEncoder

from models_families import HF_COMMON, VOCAB, check_sdpa, randomize_constant_tensors, token_ids


class TrainingIrOps(nn.Module):
    """The ops that stopped real imports: in-place activations and detach_ of the training IR,
    weight.T (numpy_T), fill_, int32 position arithmetic, where with a scalar, minimum,
    fmod."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(12, 8))
        self.lin = nn.Linear(8, 12)

    def forward(self, x):
        h = self.lin(x)
        F.silu(h, inplace=True)
        g = x @ self.w.T
        g.relu_()
        d = g.clone()
        d.detach_()
        m = torch.empty_like(h)
        m.fill_(0.25)
        pos = torch.arange(x.shape[1], dtype=torch.int32) + torch.ones(x.shape[1], dtype=torch.int32)
        p = pos.to(torch.float32).unsqueeze(-1)
        y = torch.where(h > 0.1, h, 0.0) + torch.minimum(g, d * 0.5) + m
        return y + torch.fmod(p, 3.0), pos.long()


class TransposedConvs(nn.Module):
    """Decoders that upsample with transposed convolutions (a vocoder's 1-D, a segmentation
    head's grouped and dilated 2-D, a video decoder's 3-D), and the ops the training IR keeps
    that the importer writes as others: clamp_min/clamp_max, broadcast_to, selu, celu,
    fliplr/flipud, zero_, tile, new_full, multiply, square."""

    def __init__(self):
        super().__init__()
        self.up1 = nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1)
        self.up2 = nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0), groups=2,
                                      dilation=(1, 2), bias=False)
        self.up3 = nn.ConvTranspose3d(4, 2, 2, stride=2)

    def forward(self, a, b, c, y):
        z = y.clone()
        z.zero_()
        part = y.clone()
        part[1:3].zero_()  # through a view: swin_v2's qkv bias
        tail = (torch.clamp_min(y, 0.1) + torch.clamp_max(y, 0.2) + torch.broadcast_to(y[0], y.shape)
                + F.selu(y) + F.celu(y, 0.7) + torch.fliplr(y) + torch.flipud(y) + z)
        tiled = torch.tile(y, (2,)) + torch.tile(y, (2, 1)).new_full((4, 10), 0.5)
        return (F.relu(self.up1(a)), self.up2(b), self.up3(c), tail, torch.multiply(tiled, 2.0),
                part + torch.square(y))


class Recurrent(nn.Module):
    """torch.nn.LSTM and GRU as the training IR keeps them (aten::lstm.input, gru.input): two
    bidirectional batch-first LSTM layers, a GRU without biases, an unbatched LSTM."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 4, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(5, 3, bias=False)
        self.single = nn.LSTM(5, 4)

    def forward(self, x, y):
        o, (h, c) = self.lstm(x)
        g, hg = self.gru(y)
        u, (hu, cu) = self.single(y[:, 0])
        return o, h, c, g, hg, u, hu, cu


class SpeechFrontEnd(nn.Module):
    """1-D convolutions, group norm, reflection padding, average pooling (a speech encoder's
    feature extractor)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(1, 8, 5, stride=2)
        self.norm = nn.GroupNorm(4, 8)
        self.conv2 = nn.Conv1d(8, 8, 3, padding=1, groups=2)
        self.pool = nn.AvgPool1d(2)

    def forward(self, wav):
        h = F.gelu(self.norm(self.conv1(F.pad(wav, (2, 2), mode="reflect"))))
        h = F.leaky_relu(self.conv2(h), 0.1)
        return self.pool(h).transpose(1, 2)


class SegHead(nn.Module):
    """A segmentation head: padding, average pooling, bilinear and nearest upsampling,
    per-pixel argmax and max."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, stride=2)
        self.cls = nn.Conv2d(6, 4, 1)

    def forward(self, x):
        h = F.elu(self.conv(F.pad(x, (1, 1, 1, 1), value=0.5)))
        h = F.avg_pool2d(h, 3, stride=1, padding=1, count_include_pad=False)
        ctx = F.interpolate(F.adaptive_avg_pool2d(h, 1), size=h.shape[-2:], mode="nearest")
        logits = self.cls(h + ctx)
        up = F.interpolate(logits, scale_factor=2.0, mode="bilinear", align_corners=False)
        return up, up.argmax(1), up.max(1).values


class TailOps(nn.Module):
    """The last inference ops of core ATen (issue 15): instance norm and batch norm over batch
    statistics (_native_batch_norm_legit.no_stats), the eval-mode _native_batch_norm_legit,
    grid sampling in all three modes, 3-D adaptive average and max pooling (with indices),
    fold/unfold (col2im, im2col in the training IR), cdist/pdist and embedding bags (sum with
    per-sample weights, mean, max with a padding index)."""

    def __init__(self):
        super().__init__()
        self.inorm = nn.InstanceNorm2d(3, affine=True)
        self.bn_w = nn.Parameter(torch.rand(3) + 0.5)
        self.register_buffer("rm", torch.randn(3))
        self.register_buffer("rv", torch.rand(3) + 0.5)
        self.bag_mean = nn.EmbeddingBag(10, 4, mode="mean")
        self.bag_max = nn.EmbeddingBag(10, 4, mode="max", padding_idx=2)
        self.bag_sum = nn.EmbeddingBag(10, 4, mode="sum")

    def forward(self, x, vol, grid, idx, off, psw, pts):
        # BatchNorm2d(track_running_stats=False) in the core IR (the training IR keeps batch_norm)
        a = self.inorm(x) + torch.ops.aten._native_batch_norm_legit.no_stats(
            x, self.bn_w, None, True, 0.1, 1e-5)[0]
        b = torch.ops.aten._native_batch_norm_legit(x, None, None, self.rm, self.rv, False, 0.1,
                                                    1e-5)[0]
        s1 = F.grid_sample(a + b, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
        s2 = F.grid_sample(a, grid, mode="nearest", padding_mode="border", align_corners=True)
        s3 = F.grid_sample(b, grid, mode="bicubic", padding_mode="reflection", align_corners=False)
        p1 = F.adaptive_avg_pool3d(vol, (2, 3, 2))
        p2, p2i = F.max_pool3d(vol, 2, stride=1, padding=1, return_indices=True)
        cols = F.unfold(x, 2, padding=1, stride=(1, 2))
        f = F.fold(cols * 0.5, (4, 4), 2, padding=1, stride=(1, 2))
        d1 = torch.cdist(pts, pts[:, :3], p=2.0)
        d2 = torch.cdist(pts, pts[:, 1:], p=1.0)
        d3 = F.pdist(pts[0], p=3.0)
        e1 = self.bag_mean(idx, off)
        e2 = self.bag_max(idx, off)
        e3 = self.bag_sum(idx, off, per_sample_weights=psw)
        return s1, s2, s3, p1, p2, p2i, f, d1, d2, d3, e1 + e2 + e3


def tail_ops_inputs(g):
    grid = torch.rand(2, 3, 5, 2, generator=g) * 2.4 - 1.2
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 2, 0])
    off = torch.tensor([0, 3, 3, 7])
    return ((torch.randn(2, 3, 4, 4, generator=g), torch.randn(1, 2, 4, 5, 4, generator=g), grid,
             idx, off, torch.rand(10, generator=g), torch.randn(2, 5, 3, generator=g)), {})


def lraspp():
    """torchvision's LR-ASPP segmentation head on a quarter-width MobileNetV3-small."""
    from torchvision.models.segmentation.lraspp import LRASPP
    backbone = torchvision.models.mobilenet_v3_small(width_mult=0.25).features
    from torchvision.models._utils import IntermediateLayerGetter
    body = IntermediateLayerGetter(backbone[:4], return_layers={"1": "low", "3": "high"})
    low = backbone[1].out_channels
    high = backbone[3].out_channels
    model = LRASPP(body, low, high, num_classes=3, inter_channels=16)
    return OutOnly(randomize_constant_tensors(model))


class OutOnly(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def fpn_backbone():
    """A detection backbone: torchvision's FeaturePyramidNetwork (nearest upsampling, max-pool
    extra level) over a small conv body."""
    from torchvision.ops import FeaturePyramidNetwork
    from torchvision.ops.feature_pyramid_network import LastLevelMaxPool

    class Body(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.c2 = nn.Conv2d(8, 12, 3, stride=2, padding=1)
            self.fpn = FeaturePyramidNetwork([8, 12], 8, extra_blocks=LastLevelMaxPool())

        def forward(self, x):
            a = F.relu(self.c1(x))
            b = F.relu(self.c2(a))
            return tuple(self.fpn({"a": a, "b": b}).values())

    return randomize_constant_tensors(Body())


class Hidden(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *args):
        return self.model(*args).last_hidden_state


def distilbert():
    cfg = DistilBertConfig(dim=16, n_layers=1, n_heads=2, hidden_dim=32, vocab_size=VOCAB,
                           max_position_embeddings=32, initializer_range=0.2,
                           attn_implementation="sdpa", pad_token_id=0)
    return Hidden(randomize_constant_tensors(DistilBertModel(cfg)))


class CausalLogits(nn.Module):
    """Causal LM with the default use_cache=True (a DynamicCache inside the graph)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids).logits


def mistral():
    cfg = MistralConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                        num_attention_heads=2, num_key_value_heads=1, vocab_size=VOCAB,
                        max_position_embeddings=64, sliding_window=None, **HF_COMMON)
    return CausalLogits(randomize_constant_tensors(check_sdpa(MistralForCausalLM(cfg))))


class T5Hidden(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, decoder_input_ids):
        return self.model(input_ids=input_ids, decoder_input_ids=decoder_input_ids,
                          use_cache=False).last_hidden_state


def t5():
    cfg = T5Config(vocab_size=VOCAB, d_model=16, d_kv=8, d_ff=32, num_layers=1,
                   num_decoder_layers=1, num_heads=2, relative_attention_num_buckets=8,
                   relative_attention_max_distance=16, initializer_factor=1.0,
                   decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    return T5Hidden(randomize_constant_tensors(T5Model(cfg)))


def hf_vit():
    cfg = ViTConfig(image_size=16, patch_size=4, num_channels=3, hidden_size=16,
                    num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                    initializer_range=0.2, attn_implementation="sdpa")
    return Hidden(randomize_constant_tensors(ViTModel(cfg, add_pooling_layer=False)))


def wav2vec2():
    cfg = Wav2Vec2Config(hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=32, conv_dim=(8, 8), conv_stride=(5, 2),
                         conv_kernel=(10, 3), num_conv_pos_embeddings=8,
                         num_conv_pos_embedding_groups=4, feat_extract_norm="group",
                         do_stable_layer_norm=False, initializer_range=0.2,
                         attn_implementation="sdpa", apply_spec_augment=False)
    return Hidden(randomize_constant_tensors(Wav2Vec2Model(cfg)))


def whisper_encoder():
    cfg = WhisperConfig(d_model=16, encoder_layers=1, encoder_attention_heads=2,
                        encoder_ffn_dim=32, num_mel_bins=8, max_source_positions=8,
                        decoder_layers=1, decoder_attention_heads=2, decoder_ffn_dim=64,
                        vocab_size=VOCAB, attn_implementation="sdpa", init_std=0.2)
    return Hidden(randomize_constant_tensors(WhisperEncoder(cfg)))


def convnext():
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    settings = [CNBlockConfig(8, 16, 1), CNBlockConfig(16, None, 1)]
    return randomize_constant_tensors(ConvNeXt(settings, num_classes=5))


def image(g, n=1, c=3, h=32, w=32):
    return torch.randn(n, c, h, w, generator=g)


class SuperResolution(nn.Module):
    """ESPCN-style upscaling (a convolution to C*r*r channels, then pixel_shuffle) and the
    space-to-depth inverse image-restoration nets use (pixel_unshuffle), on a batch of 2."""

    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(3, 12, 3, padding=1)
        self.tail = nn.Conv2d(12, 4, 1)

    def forward(self, x):
        up = F.pixel_shuffle(torch.tanh(self.head(x)), 2)
        return up, self.tail(F.pixel_unshuffle(up, 2)), F.pixel_unshuffle(x, 3)


# Issue 26: the ops real models still missed.
# GPT-J and CodeGen have no SDPA path in transformers ("does not support an attention
# implementation through torch.nn.functional.scaled_dot_product_attention yet"): eager attention.
# Their rotary embeddings interleave sin/cos with repeat_interleave.self_int.
HF_EAGER = {**HF_COMMON, "attn_implementation": "eager"}


def gptj():
    cfg = GPTJConfig(n_layer=2, n_head=4, n_embd=32, rotary_dim=4, vocab_size=VOCAB,
                     n_positions=32, **HF_EAGER)
    return CausalLogits(randomize_constant_tensors(GPTJForCausalLM(cfg)))


def codegen():
    cfg = CodeGenConfig(n_layer=2, n_head=4, n_embd=32, rotary_dim=4, vocab_size=VOCAB,
                        n_positions=32, n_ctx=32, **HF_EAGER)
    return CausalLogits(randomize_constant_tensors(CodeGenForCausalLM(cfg)))


def falcon_mqa():
    """Multi-query attention: one key/value head for 4 query heads, passed to SDPA unexpanded
    (torch broadcasts the head dim; no enable_gqa)."""
    cfg = FalconConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                       multi_query=True, new_decoder_architecture=False, vocab_size=VOCAB,
                       **HF_COMMON)
    return CausalLogits(randomize_constant_tensors(check_sdpa(FalconForCausalLM(cfg))))


def bloom():
    """ALiBi attention: a float bias built from int64 positions times float slopes (type
    promotion, issue 25)."""
    cfg = BloomConfig(vocab_size=VOCAB, hidden_size=32, n_layer=2, n_head=4, **HF_EAGER)
    return CausalLogits(randomize_constant_tensors(BloomForCausalLM(cfg)))


def deberta_v2():
    """Disentangled attention: relative positions (int64) bucketed in float (log), gathered."""
    cfg = DebertaV2Config(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                          num_attention_heads=4, intermediate_size=64, max_position_embeddings=64,
                          relative_attention=True, position_buckets=8, max_relative_positions=16,
                          pos_att_type=["p2c", "c2p"], **HF_EAGER)
    return Hidden(randomize_constant_tensors(DebertaV2Model(cfg)))


def mixtral():
    """Mixtral's sparse mixture of experts as transformers exports it: the router's top-k, then
    the experts' GEMMs as transformers::grouped_mm_fallback (a torch.library op of
    transformers' integrations/moe.py, run by tir's own kernel)."""
    cfg = MixtralConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=48,
                        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                        num_local_experts=4, num_experts_per_tok=2, max_position_embeddings=64,
                        **HF_COMMON)
    return CausalLogits(randomize_constant_tensors(check_sdpa(MixtralForCausalLM(cfg))))


def qwen3_moe():
    """Qwen3-MoE: every layer sparse, the experts' GEMMs as transformers::grouped_mm_fallback."""
    cfg = Qwen3MoeConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=48,
                         moe_intermediate_size=24, num_hidden_layers=2, num_attention_heads=4,
                         num_key_value_heads=2, head_dim=8, num_experts=4, num_experts_per_tok=2,
                         max_position_embeddings=64, decoder_sparse_step=1, mlp_only_layers=[],
                         **HF_COMMON)
    return CausalLogits(randomize_constant_tensors(check_sdpa(Qwen3MoeForCausalLM(cfg))))


class Promotion(nn.Module):
    """Mixed dtypes that torch promotes (torch.result_type): int64 / int64 true division,
    int32 + int64, a float tensor compared with an int64 one, where() over int64 and float32,
    float32 x int32, and an int64 tensor with a float number."""

    def forward(self, a, b, c, x):
        c = c.int()
        return a / b, c + a, (x > a).long(), torch.where(x > 0, a, x), x * c, a * 0.5


def promotion_inputs(g):
    a = torch.randint(-9, 10, (2, 3), generator=g)
    b = torch.randint(1, 5, (2, 3), generator=g) * (torch.randint(0, 2, (2, 3), generator=g) * 2 - 1)
    c = torch.randint(-5, 6, (2, 3), generator=g)
    return (a, b, c, torch.randn(2, 3, generator=g) * 5), {}


class MoeRouter(nn.Module):
    """Mixtral's router and its load statistics: softmax over the gate logits, top-2 experts,
    the tokens per expert counted with histc as transformers' load_balancing_loss_func does on
    CPU (float32 indices, bins = experts, range [0, experts]), and a histc whose min == max
    takes the data's range. The tiny MixtralForCausalLM itself does not export for tir: its
    experts run transformers' custom op transformers::grouped_mm_fallback (and the eager
    experts path fails torch.export on a data-dependent guard)."""

    def __init__(self, experts=4):
        super().__init__()
        self.experts = experts
        self.gate = nn.Linear(16, experts, bias=False)

    def forward(self, h):
        probs = F.softmax(self.gate(h), dim=-1)
        weights, selected = torch.topk(probs, 2, dim=-1)
        counts = torch.histc(selected.reshape(-1).to(torch.float32), bins=self.experts, min=0,
                             max=self.experts)
        spread = torch.histc(h, bins=7)
        return weights / weights.sum(-1, keepdim=True), counts / selected.numel(), spread


def video_resnet():
    """torchvision's r3d_18 blocks at a width tir's fixtures can hold: r3d_18 itself has a
    fixed 64-channel stem and 33M parameters. The real VideoResNet pieces (BasicBlock with
    Conv3DSimple, Conv3d + BatchNorm3d + ReLU stem, AdaptiveAvgPool3d) at 8 and 16 channels,
    plus a MaxPool3d after the stem (as the R(2+1)D / mixed-convolution stems' users add)."""
    from torchvision.models.video.resnet import BasicBlock, Conv3DSimple

    def down(cin, cout):
        return nn.Sequential(nn.Conv3d(cin, cout, 1, stride=2, bias=False), nn.BatchNorm3d(cout))

    model = nn.Sequential(
        nn.Conv3d(3, 8, (3, 7, 7), stride=(1, 2, 2), padding=(1, 3, 3), bias=False),
        nn.BatchNorm3d(8), nn.ReLU(inplace=True),
        nn.MaxPool3d((1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)),
        BasicBlock(8, 8, Conv3DSimple),
        BasicBlock(8, 16, Conv3DSimple, stride=2, downsample=down(8, 16)),
        nn.AdaptiveAvgPool3d((1, 1, 1)), nn.Flatten(1), nn.Linear(16, 5))
    return randomize_constant_tensors(model)


def swin():
    """torchvision's Swin Transformer (swin_t's blocks, shifted windows) at width 16: its
    shifted-window attention mask is built with in-place fills of slices (fill_ left in the
    training IR)."""
    from torchvision.models.swin_transformer import SwinTransformer
    return randomize_constant_tensors(SwinTransformer(
        patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
        num_classes=5))


def hf_swin():
    cfg = SwinConfig(image_size=32, patch_size=4, embed_dim=16, depths=[2, 2], num_heads=[2, 4],
                     window_size=4, num_channels=3, initializer_range=0.2)
    return Hidden(randomize_constant_tensors(SwinModel(cfg)))


class Resampling(nn.Module):
    """Every F.interpolate mode the training IR keeps as its own op: nearest and nearest-exact
    (1-D to 3-D), linear/bilinear/trilinear with and without align_corners, bicubic (ViT
    position-embedding interpolation), antialiased bilinear and bicubic (torchvision's resize);
    sizes and scale factors, up and down."""

    def forward(self, a, b, c):
        out = [F.interpolate(a, size=11, mode="nearest"), F.interpolate(a, scale_factor=1.7, mode="nearest-exact"),
               F.interpolate(a, size=9, mode="linear", align_corners=True),
               F.interpolate(a, scale_factor=0.6, mode="linear")]
        out += [F.interpolate(b, size=(9, 13), mode="nearest-exact"),
                F.interpolate(b, scale_factor=(1.5, 2.25), mode="bicubic"),
                F.interpolate(b, size=(5, 4), mode="bicubic", align_corners=True),
                F.interpolate(b, size=(4, 5), mode="bilinear", antialias=True),
                F.interpolate(b, size=(3, 9), mode="bicubic", antialias=True)]
        out += [F.interpolate(c, size=(3, 5, 7), mode="nearest"),
                F.interpolate(c, scale_factor=1.5, mode="nearest-exact"),
                F.interpolate(c, size=(5, 4, 6), mode="trilinear"),
                F.interpolate(c, scale_factor=(2.0, 0.5, 1.25), mode="trilinear", align_corners=True)]
        return tuple(out)


class StoredViews(nn.Module):
    """Parameters, buffers and constants stored as views of larger or strided storages
    (Ultralytics YOLO's anchors buffer is a transposed cat; a transposed or sliced parameter;
    an expanded buffer with stride 0): imported materialised contiguous. `row` and `col` are
    two views of one storage, `weight_t` and `weight_t_again` one view under two names (tied)."""

    def __init__(self):
        super().__init__()
        base = torch.randn(6, 8)
        self.register_buffer(
            "anchors", torch.cat([torch.randn(8, 2), torch.randn(8, 2)], 1).transpose(0, 1))
        self.weight_t = nn.Parameter(torch.randn(8, 5).t())
        self.weight_t_again = self.weight_t
        self.row = nn.Parameter(base[2:4])
        self.col = nn.Parameter(base[:, 1:7:2])
        self.register_buffer("expanded", torch.randn(1, 8).expand(3, 8))
        self.const = torch.arange(24.0).reshape(4, 6)[:, ::2]

    def forward(self, x):  # x [3, 8]
        y = x @ self.weight_t.t() + x @ self.weight_t_again.t()
        z = x + self.anchors[:3] + self.expanded
        w = self.row.sum(0) + self.col.sum(1).sum() + self.const.sum()
        return y, z * w


class OpForms(nn.Module):
    """Op spellings and forms of real programs: PatchTST/HaloNet's unfold (a view, also of a
    view), DeepSeek-style attention's new_empty filled by copy_, concat/concatenate, and the
    channel and alpha dropouts in eval mode (the identity)."""

    def __init__(self):
        super().__init__()
        self.drop2d = nn.Dropout2d(0.3)
        self.adrop = nn.AlphaDropout(0.2)
        self.fadrop = nn.FeatureAlphaDropout(0.2)

    def forward(self, x, img):  # x [2, 9, 4], img [1, 3, 4, 5]
        w = x.unfold(1, 3, 2)
        v = img.unfold(3, 2, 1).unfold(2, 2, 2)
        buf = x.new_empty((2, 4))
        buf.copy_(x[:, 0, :])
        c = torch.concat([x, x * 2], dim=1)
        c2 = torch.concatenate([c, c], 2)
        d = self.drop2d(img) + self.fadrop(img) + self.adrop(img)
        return w.sum(-1), v * 2, buf + 1, c2, d


class CreationPatterns(nn.Module):
    """Tensors made from patterns, as detection heads and routers build them: meshgrid anchors
    (ij and xy), eye, linspace/logspace, one_hot, cumprod (a diffusion schedule's alphas)."""

    def forward(self, x, idx):
        ys, xs = torch.meshgrid(torch.arange(3) * 8.0, torch.arange(4) * 8.0, indexing="ij")
        gx, gy = torch.meshgrid(torch.linspace(-1, 1, 4), torch.linspace(0, 2, 3), indexing="xy")
        anchors = torch.stack([xs, ys, gx, gy], dim=-1)
        eye = torch.eye(4) + torch.eye(4, 6, dtype=torch.float64)[:, :4].float()
        ramp = torch.logspace(-2, 1, 7, base=3.0) + torch.linspace(0, 1, 7, dtype=torch.float64).float()
        onehot = F.one_hot(idx, num_classes=5)
        alphas = torch.cumprod(1.0 - torch.sigmoid(x) * 0.5, dim=-1)
        return (anchors + x.mean(), x[:4, :4] @ eye, ramp * x.sum(), onehot * 2,
                alphas, torch.cumprod(idx + 1, dim=0))


class MathTail(nn.Module):
    """Binary math beyond arithmetic (fmax/fmin, hypot, logaddexp(2), copysign, xlogy,
    heaviside), a mixture of experts' sum over tokens (index_add_), two-operand einsums
    (window attention, a head projection), and cat/stack of float, int64 and bool tensors (torch
    promotes them)."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Parameter(torch.randn(2, 3, 5))

    def forward(self, a, b, idx, q, k):
        nan = torch.where(a > 1.0, torch.nan, a)
        m = torch.fmax(nan, b) + torch.fmin(b, nan) + torch.hypot(a, b)
        m = m + torch.logaddexp(a, b) + torch.logaddexp2(a, -b) + torch.copysign(a, b)
        m = m + torch.xlogy(torch.relu(a), torch.abs(b) + 0.5) + torch.xlogy(2.0, torch.abs(b) + 1)
        m = m + torch.heaviside(torch.round(a), b)
        tokens = torch.zeros(4, 6)
        tokens.index_add_(0, idx, a[:, :6], alpha=0.5)
        att = torch.einsum("bhid,bhjd->bhij", q, k)
        out = torch.einsum("bhij,bhjd->bihd", att.softmax(-1), k)
        mixed = torch.cat([a[:, :2], idx.unsqueeze(1), (idx > 1).unsqueeze(1)], dim=1)
        stacked = torch.stack([idx, idx > 1])
        return (m, tokens, torch.einsum("bihd,hdm->bim", out, self.proj),
                torch.einsum("ii->i", a[:, :5]), mixed, stacked)


class LayerTail(nn.Module):
    """torch.nn layers the training IR keeps as ops of their own: LSTM/GRU/RNN cells stepped in
    a loop, a bidirectional ReLU RNN, Bilinear, CosineSimilarity, PairwiseDistance,
    ChannelShuffle, adaptive max pooling, convolutions with padding="same"/"valid"; and the
    products and statistics written as one call (outer, dot, mv, addmv, addr, addbmm, trace,
    diag, var_mean, std_mean), take_along_dim, index_fill, rot90, searchsorted/bucketize,
    logcumsumexp, cummax/cummin, aminmax, count_nonzero, InstanceNorm over running statistics
    (eval)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTMCell(6, 4)
        self.gru = nn.GRUCell(6, 4)
        self.rnn_cell = nn.RNNCell(6, 4)
        self.rnn = nn.RNN(6, 3, nonlinearity="relu", bidirectional=True, batch_first=True)
        self.bilinear = nn.Bilinear(6, 4, 5)
        self.shuffle = nn.ChannelShuffle(2)
        self.same = nn.Conv1d(6, 4, 3, padding="same", dilation=2)
        self.valid = nn.Conv2d(4, 2, 3, padding="valid")
        self.inorm = nn.InstanceNorm2d(4, affine=True, track_running_stats=True)
        self.register_buffer("edges", torch.linspace(-1.5, 1.5, 7))

    def forward(self, seq, img, m):
        h = c = g = r = torch.zeros(seq.shape[0], 4)
        for t in range(seq.shape[1]):
            h, c = self.lstm(seq[:, t], (h, c))
            g = self.gru(seq[:, t], g)
            r = self.rnn_cell(seq[:, t], r)
        rnn_out, _ = self.rnn(seq)
        cells = torch.cat([h, c, g, r, self.bilinear(seq[:, 0], h)], dim=1)
        sims = torch.stack([F.cosine_similarity(seq[:, 0], seq[:, 1]),
                            F.pairwise_distance(seq[:, 0], seq[:, 1])])
        pooled = torch.cat([F.adaptive_max_pool2d(self.shuffle(img), (2, 3)).flatten(1),
                            F.adaptive_max_pool1d(img.flatten(2), 4).flatten(1)], dim=1)
        convs = self.valid(img).flatten(1).sum(1) + self.same(seq.transpose(1, 2)).flatten(1).sum(1)
        v = m[0]
        prods = torch.stack([torch.dot(v, m[1]), torch.trace(m), torch.mv(m, v).sum(),
                             torch.addmv(v, m, m[2], beta=0.5, alpha=2.0).sum(),
                             torch.outer(v, m[3]).sum(), torch.addr(m, v, m[1]).sum(),
                             torch.addbmm(m, m.unsqueeze(0).expand(2, 4, 4), m.unsqueeze(0).expand(2, 4, 4)).sum()])
        var, mean = torch.var_mean(m, 1)
        std, mean2 = torch.std_mean(m, dim=0, correction=0)
        gathered = torch.take_along_dim(m, torch.argsort(m, dim=1), dim=1)
        filled = m.index_fill(1, torch.tensor([0, 3]), -1.5)
        searched = torch.stack([torch.searchsorted(self.edges, m), torch.bucketize(m, self.edges, right=True),
                                torch.searchsorted(torch.sort(m, dim=1)[0], m, side="right")])
        return (rnn_out, cells, sims, pooled, convs, prods, torch.diag(m) + torch.diag(v)[0],
                torch.stack([var, mean, std, mean2]), gathered, filled, torch.rot90(m, 1, (0, 1)),
                searched, torch.logcumsumexp(m, 0), self.inorm(img),
                torch.stack([t.float() for t in (*torch.cummax(m, 1), *torch.cummin(m, 0))]),
                torch.stack(torch.aminmax(m, dim=0)),
                torch.stack([torch.count_nonzero(torch.relu(m), dim=1), torch.count_nonzero(m > 0, 0)]))


class FluxRope(nn.Module):
    """Flux's rotary position embedding (EmbedND: rope per position axis), whose frequencies
    are computed in float64: arange(dtype=float64) / dim, theta ** scale, the outer product
    with the positions, cos and sin stacked into 2x2 rotations, then .float(). The float64
    angles are an output too, so they are checked at float64 precision (rtol = atol = 1e-12)."""

    def __init__(self, theta=10000, axes_dim=(4, 6, 6)):
        super().__init__()
        self.theta, self.axes_dim = theta, axes_dim

    def forward(self, ids):  # ids [N, 3]: float32 positions per axis
        rotations, angles = [], []
        for i, dim in enumerate(self.axes_dim):
            scale = torch.arange(0, dim, 2, dtype=torch.float64) / dim
            omega = 1.0 / (self.theta ** scale)
            freqs = torch.outer(ids[:, i], omega)  # float32 x float64: float64
            out = torch.stack([torch.cos(freqs), -torch.sin(freqs), torch.sin(freqs),
                               torch.cos(freqs)], dim=-1)
            rotations.append(out.view(*out.shape[:-1], 2, 2).float())
            angles.append(freqs)
        return torch.cat(rotations, dim=-3), torch.cat(angles, dim=-1)


def flux_rope_inputs(g):
    """Text tokens at 0 and a 4x4 latent grid: (0, row, column) positions, as Flux's ids."""
    rows, cols = torch.meshgrid(torch.arange(4), torch.arange(4), indexing="ij")
    img = torch.stack([torch.zeros(16), rows.flatten().float(), cols.flatten().float()], dim=1)
    return (torch.cat([torch.zeros(3, 3), img + torch.rand(16, 3, generator=g) * 0.1]),), {}
class SpecialOps(nn.Module):
    """Issue 47 item 6: the special functions (erfinv, lgamma, digamma, polygamma, i0, also of
    an int tensor), broadcast_tensors, and the order statistics median/nanmedian (whole tensor
    and along a dim, NaN rows included; an all-NaN row's index is left out: torch's comes from
    std::nth_element's order of equal NaNs) and kthvalue."""

    def forward(self, x, y, n, nan_rows):
        a, b, c = torch.broadcast_tensors(x[:, :1], y[:1], x)
        u = torch.tanh(x)
        pos = x.abs() + 0.25
        return (a + 2 * b - c, torch.erfinv(u), torch.erfinv(torch.tensor([1.0, -1.0, 0.0])),
                torch.lgamma(x), torch.lgamma(n), torch.digamma(pos), torch.digamma(-pos),
                torch.polygamma(1, pos), torch.polygamma(3, pos), torch.i0(x), torch.i0(n),
                torch.median(x), torch.median(x, 1), torch.median(x, 0, keepdim=True),
                torch.nanmedian(nan_rows), torch.nanmedian(nan_rows, 1)[0],
                torch.nanmedian(nan_rows[::2], 1), torch.median(nan_rows, 1)[0],
                torch.kthvalue(x, 2, 1), torch.kthvalue(x, 3, 0, keepdim=True), torch.median(n))


class Losses(nn.Module):
    """Issue 47 item 6: the element-wise losses the training IR keeps as ops (mse, l1,
    smooth_l1, huber, binary_cross_entropy with a weight, with logits, kl_div in both target
    forms), each reduction."""

    def forward(self, x, y, w):
        p, q = torch.sigmoid(x), torch.sigmoid(y)
        return (F.mse_loss(x, y), F.mse_loss(x, y, reduction="none"), F.l1_loss(x, y, reduction="sum"),
                F.smooth_l1_loss(x, y, beta=0.5), F.smooth_l1_loss(x, y, reduction="none", beta=0.0),
                F.huber_loss(x, y, delta=0.7, reduction="none"), F.huber_loss(x, y),
                F.binary_cross_entropy(p, q), F.binary_cross_entropy(p, q, weight=w, reduction="none"),
                F.binary_cross_entropy_with_logits(x, q, reduction="sum"),
                F.binary_cross_entropy_with_logits(x, q, weight=w),
                F.kl_div(F.log_softmax(x, 1), F.softmax(y, 1), reduction="batchmean"),
                F.kl_div(F.log_softmax(x, 1), F.log_softmax(y, 1), reduction="none", log_target=True))


class SdpaBatchDims(nn.Module):
    """scaled_dot_product_attention over [B, T, H, L, E] (NesT, Twins, Hiera attend per block
    with an extra batch dim), with a float mask broadcast over the batch dims and causal."""

    def forward(self, q, k, v, mask):
        return (F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
                F.scaled_dot_product_attention(q, k, v, is_causal=True))


# (name, module factory, seed, inputs(generator) -> (args, kwargs), rtol = atol)
MODELS = [
    ("training_ir_ops", TrainingIrOps, 31, lambda g: ((torch.randn(2, 5, 8, generator=g),), {}),
     1e-4),
    ("tail_ops", TailOps, 43, tail_ops_inputs, 1e-4),
    ("speech_front_end", SpeechFrontEnd, 32, lambda g: ((torch.randn(2, 1, 40, generator=g),), {}),
     1e-4),
    ("seg_head", SegHead, 33, lambda g: ((image(g, 1, 3, 12, 12),), {}), 1e-4),
    ("lraspp", lraspp, 34, lambda g: ((image(g, 1, 3, 16, 16),), {}), 1e-4),
    ("fpn_backbone", fpn_backbone, 35, lambda g: ((image(g, 1, 3, 16, 16),), {}), 1e-4),
    ("convnext", convnext, 36, lambda g: ((image(g),), {}), 1e-4),
    ("distilbert", distilbert, 37, lambda g: ((token_ids(g, 2, 8),), {}), 1e-4),
    ("mistral", mistral, 38, lambda g: ((token_ids(g, 1, 8),), {}), 1e-4),
    ("t5", t5, 39, lambda g: ((token_ids(g, 1, 8), token_ids(g, 1, 4)), {}), 1e-4),
    ("hf_vit", hf_vit, 40, lambda g: ((image(g, 1, 3, 16, 16),), {}), 1e-4),
    ("wav2vec2", wav2vec2, 41, lambda g: ((torch.randn(1, 400, generator=g),), {}), 1e-4),
    ("whisper_encoder", whisper_encoder, 42, lambda g: ((torch.randn(1, 8, 16, generator=g),), {}),
     1e-4),
    ("super_resolution", SuperResolution, 44, lambda g: ((image(g, 2, 3, 6, 6),), {}), 1e-4),
    ("gptj", gptj, 45, lambda g: ((token_ids(g, 1, 8),), {}), 1e-4),
    ("codegen", codegen, 46, lambda g: ((token_ids(g, 1, 8),), {}), 1e-4),
    ("falcon_mqa", falcon_mqa, 47, lambda g: ((token_ids(g, 1, 8),), {}), 1e-4),
    ("moe_router", MoeRouter, 48, lambda g: ((torch.randn(12, 16, generator=g),), {}), 1e-4),
    ("video_resnet", video_resnet, 49,
     lambda g: ((torch.randn(1, 3, 4, 16, 16, generator=g),), {}), 1e-4),
    ("swin", swin, 50, lambda g: ((image(g),), {}), 1e-4),
    ("hf_swin", hf_swin, 51, lambda g: ((image(g),), {}), 1e-4),
    ("mixtral", mixtral, 52, lambda g: ((token_ids(g, 1, 8),), {}), 1e-4),
    ("qwen3_moe", qwen3_moe, 53, lambda g: ((token_ids(g, 1, 8),), {}), 1e-4),
    ("promotion", Promotion, 54, promotion_inputs, 1e-5),
    ("bloom", bloom, 55, lambda g: ((token_ids(g, 1, 8),), {}), 1e-4),
    ("deberta_v2", deberta_v2, 56, lambda g: ((token_ids(g, 2, 8),), {}), 1e-4),
    ("recurrent", Recurrent, 58,
     lambda g: ((torch.randn(2, 6, 5, generator=g), torch.randn(7, 2, 5, generator=g)), {}), 1e-4),
    ("transposed_convs", TransposedConvs, 57,
     lambda g: ((torch.randn(2, 4, 7, generator=g), torch.randn(2, 4, 5, 6, generator=g),
                 torch.randn(1, 4, 3, 4, 5, generator=g), torch.randn(4, 5, generator=g)), {}),
     1e-4),
    ("resampling", Resampling, 59,
     lambda g: ((torch.randn(2, 3, 7, generator=g), torch.randn(1, 2, 6, 7, generator=g),
                 torch.randn(1, 2, 3, 4, 5, generator=g)), {}), 1e-4),
    ("math_tail", MathTail, 61,
     lambda g: ((torch.randn(5, 7, generator=g), torch.randn(5, 7, generator=g),
                 torch.tensor([3, 0, 3, 1, 2]), torch.randn(2, 2, 4, 3, generator=g),
                 torch.randn(2, 2, 6, 3, generator=g)), {}), 1e-4),
    ("layer_tail", LayerTail, 62,
     lambda g: ((torch.randn(2, 5, 6, generator=g), torch.randn(2, 4, 5, 6, generator=g),
                 torch.randn(4, 4, generator=g)), {}), 1e-4),
    ("stored_views", StoredViews, 63, lambda g: ((torch.randn(3, 8, generator=g),), {}), 1e-5),
    ("op_forms", OpForms, 64,
     lambda g: ((torch.randn(2, 9, 4, generator=g), torch.randn(1, 3, 4, 5, generator=g)), {}),
     1e-5),
    ("flux_rope", FluxRope, 65, flux_rope_inputs, 1e-12),
    ("special_ops", SpecialOps, 65,
     lambda g: ((torch.randn(5, 7, generator=g), torch.randn(3, 7, generator=g),
                 torch.randint(1, 9, (6,), generator=g),
                 torch.tensor([[1.0, float("nan"), 3.0, 0.5], [float("nan")] * 4,
                               [2.0, -1.0, float("nan"), 4.0]])), {}), 1e-4),
    ("losses", Losses, 66,
     lambda g: ((torch.randn(4, 5, generator=g), torch.randn(4, 5, generator=g),
                 torch.rand(5, generator=g)), {}), 1e-4),
    ("sdpa_batch_dims", SdpaBatchDims, 67,
     lambda g: ((torch.randn(2, 3, 2, 4, 8, generator=g), torch.randn(2, 3, 2, 5, 8, generator=g),
                 torch.randn(2, 3, 2, 5, 8, generator=g), torch.randn(4, 5, generator=g)), {}),
     1e-4),
    ("creation_patterns", CreationPatterns, 60,
     lambda g: ((torch.randn(6, 7, generator=g), torch.randint(0, 5, (3, 4), generator=g)), {}),
     1e-4),
]
