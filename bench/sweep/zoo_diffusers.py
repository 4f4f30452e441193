"""diffusers for the breadth sweep: the model classes that have a tiny config here (the sizes of
diffusers' own unit tests), random weights, one forward (the denoiser step, the VAE round trip).
"""

import torch

_CROSS = ("CrossAttnDownBlock2D", "DownBlock2D")
_VAE = dict(block_out_channels=[32, 64], in_channels=3, out_channels=3,
            down_block_types=["DownEncoderBlock2D"] * 2, up_block_types=["UpDecoderBlock2D"] * 2)


def _randn(*shape):
    return torch.randn(*shape)


# name -> (config, inputs as a function of nothing); all seeded by the caller.
TINY = {
    "UNet2DConditionModel": (
        dict(block_out_channels=(32, 64), layers_per_block=2, sample_size=32, in_channels=4,
             out_channels=4, down_block_types=_CROSS, up_block_types=("UpBlock2D",
                                                                     "CrossAttnUpBlock2D"),
             cross_attention_dim=32, attention_head_dim=8),
        lambda: dict(sample=_randn(1, 4, 32, 32), timestep=torch.tensor([10]),
                     encoder_hidden_states=_randn(1, 4, 32))),
    "UNet2DModel": (
        dict(block_out_channels=(32, 64), down_block_types=("DownBlock2D", "AttnDownBlock2D"),
             up_block_types=("AttnUpBlock2D", "UpBlock2D"), attention_head_dim=8,
             in_channels=3, out_channels=3, layers_per_block=2, sample_size=32),
        lambda: dict(sample=_randn(1, 3, 32, 32), timestep=torch.tensor([10]))),
    "AutoencoderKL": (dict(_VAE, latent_channels=4),
                      lambda: dict(sample=_randn(1, 3, 32, 32))),
    "VQModel": (dict(_VAE, latent_channels=3), lambda: dict(sample=_randn(1, 3, 32, 32))),
    "AutoencoderTiny": (
        dict(in_channels=3, out_channels=3, encoder_block_out_channels=(32, 32),
             decoder_block_out_channels=(32, 32), num_encoder_blocks=(1, 1),
             num_decoder_blocks=(1, 1), latent_channels=4),
        lambda: dict(sample=_randn(1, 3, 32, 32))),
    "DiTTransformer2DModel": (
        dict(in_channels=4, out_channels=8, num_layers=2, num_attention_heads=2,
             attention_head_dim=8, sample_size=8, patch_size=2, num_embeds_ada_norm=1000,
             norm_type="ada_norm_zero"),
        lambda: dict(hidden_states=_randn(1, 4, 8, 8), timestep=torch.tensor([10]),
                     class_labels=torch.tensor([1]))),
    "PixArtTransformer2DModel": (
        dict(sample_size=8, num_layers=2, patch_size=2, attention_head_dim=8,
             num_attention_heads=3, caption_channels=32, in_channels=4, cross_attention_dim=24,
             out_channels=8, attention_bias=True, activation_fn="gelu-approximate",
             num_embeds_ada_norm=1000, norm_type="ada_norm_single",
             norm_elementwise_affine=False, norm_eps=1e-6),
        lambda: dict(hidden_states=_randn(1, 4, 8, 8), encoder_hidden_states=_randn(1, 8, 32),
                     timestep=torch.tensor([10]),
                     added_cond_kwargs={"aspect_ratio": None, "resolution": None})),
    "SD3Transformer2DModel": (
        dict(sample_size=32, patch_size=1, in_channels=4, num_layers=2, attention_head_dim=8,
             num_attention_heads=4, caption_projection_dim=32, joint_attention_dim=32,
             pooled_projection_dim=64, out_channels=4),
        lambda: dict(hidden_states=_randn(1, 4, 32, 32), encoder_hidden_states=_randn(1, 8, 32),
                     pooled_projections=_randn(1, 64), timestep=torch.tensor([10]))),
    "FluxTransformer2DModel": (
        dict(patch_size=1, in_channels=4, num_layers=1, num_single_layers=1,
             attention_head_dim=16, num_attention_heads=2, joint_attention_dim=32,
             pooled_projection_dim=32, axes_dims_rope=[4, 4, 8]),
        lambda: dict(hidden_states=_randn(1, 16, 4), encoder_hidden_states=_randn(1, 8, 32),
                     pooled_projections=_randn(1, 32), img_ids=_randn(16, 3),
                     txt_ids=_randn(8, 3), timestep=torch.tensor([1.0]))),
    "ControlNetModel": (
        dict(block_out_channels=(32, 64), layers_per_block=2, in_channels=4,
             down_block_types=_CROSS, cross_attention_dim=32,
             conditioning_embedding_out_channels=(16, 32)),
        lambda: dict(sample=_randn(1, 4, 32, 32), timestep=torch.tensor([10]),
                     encoder_hidden_states=_randn(1, 4, 32), controlnet_cond=_randn(1, 3, 64, 64))),
    "UNet1DModel": (
        dict(block_out_channels=(32, 64, 128, 256), in_channels=14, out_channels=14,
             time_embedding_type="positional", use_timestep_embedding=True,
             flip_sin_to_cos=False, freq_shift=1.0, out_block_type="OutConv1DBlock",
             mid_block_type="MidResTemporalBlock1D", down_block_types=("DownResnetBlock1D",) * 4,
             up_block_types=("UpResnetBlock1D",) * 3, act_fn="swish"),
        lambda: dict(sample=_randn(1, 14, 16), timestep=torch.tensor([10]))),
    "PriorTransformer": (
        dict(num_attention_heads=2, attention_head_dim=4, num_layers=2, embedding_dim=8,
             num_embeddings=7, additional_embeddings=4),
        lambda: dict(hidden_states=_randn(1, 8), timestep=torch.tensor([2]),
                     proj_embedding=_randn(1, 8), encoder_hidden_states=_randn(1, 7, 8))),
    "AuraFlowTransformer2DModel": (
        dict(sample_size=32, patch_size=2, in_channels=4, num_mmdit_layers=1,
             num_single_dit_layers=1, attention_head_dim=8, num_attention_heads=4,
             caption_projection_dim=32, joint_attention_dim=32, out_channels=4,
             pos_embed_max_size=256),
        lambda: dict(hidden_states=_randn(1, 4, 32, 32), encoder_hidden_states=_randn(1, 8, 32),
                     timestep=torch.tensor([10]))),
    "SanaTransformer2DModel": (
        dict(patch_size=1, in_channels=4, out_channels=4, num_layers=1, attention_head_dim=4,
             num_attention_heads=2, num_cross_attention_heads=2, cross_attention_head_dim=4,
             cross_attention_dim=8, caption_channels=8, sample_size=32),
        lambda: dict(hidden_states=_randn(1, 4, 32, 32), encoder_hidden_states=_randn(1, 8, 8),
                     timestep=torch.tensor([10]))),
    "UNet3DConditionModel": (
        dict(block_out_channels=(32, 64), down_block_types=("CrossAttnDownBlock3D",
                                                             "DownBlock3D"),
             up_block_types=("UpBlock3D", "CrossAttnUpBlock3D"), cross_attention_dim=32,
             attention_head_dim=8, in_channels=4, out_channels=4, layers_per_block=1,
             sample_size=32),
        lambda: dict(sample=_randn(1, 4, 4, 32, 32), timestep=torch.tensor([10]),
                     encoder_hidden_states=_randn(1, 4, 32))),
    "T2IAdapter": (
        dict(in_channels=3, channels=[32, 64, 128], num_res_blocks=2, downscale_factor=4,
             adapter_type="full_adapter"),
        lambda: dict(x=_randn(1, 3, 64, 64))),
    "WanTransformer3DModel": (
        dict(patch_size=(1, 2, 2), num_attention_heads=2, attention_head_dim=12, in_channels=4,
             out_channels=4, text_dim=16, freq_dim=256, ffn_dim=32, num_layers=2,
             cross_attn_norm=True, qk_norm="rms_norm_across_heads", rope_max_seq_len=32),
        lambda: dict(hidden_states=_randn(1, 4, 2, 16, 16), encoder_hidden_states=_randn(1, 12, 16),
                     timestep=torch.tensor([10]))),
    "AutoencoderKLWan": (
        dict(base_dim=3, z_dim=16, dim_mult=[1, 1, 1, 1], num_res_blocks=1,
             temperal_downsample=[False, True, True]),
        lambda: dict(sample=_randn(1, 3, 9, 16, 16))),
    "LTXVideoTransformer3DModel": (
        dict(in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=8,
             cross_attention_dim=16, num_layers=1, qk_norm="rms_norm_across_heads",
             caption_channels=16),
        lambda: dict(hidden_states=_randn(1, 2 * 8 * 8, 4), encoder_hidden_states=_randn(1, 16, 16),
                     timestep=torch.tensor([10]), encoder_attention_mask=torch.ones(1, 16),
                     num_frames=2, height=8, width=8)),
    "CogVideoXTransformer3DModel": (
        dict(num_attention_heads=4, attention_head_dim=8, in_channels=4, out_channels=4,
             time_embed_dim=2, text_embed_dim=8, num_layers=1, sample_width=8, sample_height=8,
             sample_frames=8, patch_size=2, temporal_compression_ratio=4,
             max_text_seq_length=8),
        lambda: dict(hidden_states=_randn(1, 1, 4, 8, 8), encoder_hidden_states=_randn(1, 8, 8),
                     timestep=torch.tensor([10]))),
    "Lumina2Transformer2DModel": (
        dict(sample_size=16, patch_size=2, in_channels=4, hidden_size=24, num_layers=2,
             num_refiner_layers=1, num_attention_heads=3, num_kv_heads=1, multiple_of=16,
             ffn_dim_multiplier=None, norm_eps=1e-5, scaling_factor=1.0, axes_dim_rope=(4, 2, 2),
             cap_feat_dim=8),
        lambda: dict(hidden_states=_randn(1, 4, 16, 16), encoder_hidden_states=_randn(1, 8, 8),
                     timestep=torch.tensor([1.0]),
                     encoder_attention_mask=torch.ones(1, 8, dtype=torch.bool))),
}


def total():
    """How many model classes diffusers has (ModelMixin subclasses it exports)."""
    import diffusers
    count = 0
    for name in dir(diffusers):
        try:
            obj = getattr(diffusers, name)
        except Exception:
            continue
        if isinstance(obj, type) and issubclass(obj, diffusers.ModelMixin) and \
                obj is not diffusers.ModelMixin:
            count += 1
    return count


def list_models():
    return list(TINY)


def build(name):
    import diffusers
    config, inputs = TINY[name]
    model = getattr(diffusers, name)(**config)
    return model, (), inputs()
