"""diffusers for the breadth sweep: the model classes that have a tiny config here (the sizes of
diffusers' own unit tests), random weights, one forward (the denoiser step, the VAE round trip).

A name is a class, or a variant of one named in _CLASS (UNet2DConditionModel_sdxl); a config is a
dict of constructor arguments or a function that returns one (MultiAdapter takes built adapters).
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
             sample_frames=5, patch_size=2, temporal_compression_ratio=4,
             max_text_seq_length=8),
        lambda: dict(hidden_states=_randn(1, 2, 4, 8, 8), encoder_hidden_states=_randn(1, 8, 8),
                     timestep=torch.tensor([10]))),  # 2 latent frames of 5: the pos. embedding buffer
    "Lumina2Transformer2DModel": (
        dict(sample_size=16, patch_size=2, in_channels=4, hidden_size=24, num_layers=2,
             num_refiner_layers=1, num_attention_heads=3, num_kv_heads=1, multiple_of=16,
             ffn_dim_multiplier=None, norm_eps=1e-5, scaling_factor=1.0, axes_dim_rope=(4, 2, 2),
             cap_feat_dim=8),
        lambda: dict(hidden_states=_randn(1, 4, 16, 16), encoder_hidden_states=_randn(1, 8, 8),
                     timestep=torch.tensor([1.0]),
                     encoder_attention_mask=torch.ones(1, 8, dtype=torch.bool))),
}

# More classes (the sizes of diffusers' own tests, tests/models/*): transformers for video and image.
_T = torch.tensor
TINY.update({
    "HunyuanVideoTransformer3DModel": (
        dict(in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=10,
             num_layers=1, num_single_layers=1, num_refiner_layers=1, patch_size=1,
             patch_size_t=1, guidance_embeds=True, text_embed_dim=16, pooled_projection_dim=8,
             rope_axes_dim=(2, 4, 4)),
        lambda: dict(hidden_states=_randn(1, 4, 1, 16, 16), timestep=_T([10.0]),
                     encoder_hidden_states=_randn(1, 12, 16), encoder_attention_mask=torch.ones(1, 12),
                     pooled_projections=_randn(1, 8), guidance=_T([3.0]))),
    "MochiTransformer3DModel": (
        dict(patch_size=2, num_attention_heads=2, attention_head_dim=8, num_layers=2,
             pooled_projection_dim=16, in_channels=4, qk_norm="rms_norm", text_embed_dim=16,
             time_embed_dim=4, activation_fn="swiglu", max_sequence_length=16),
        lambda: dict(hidden_states=_randn(1, 4, 2, 16, 16), encoder_hidden_states=_randn(1, 16, 16),
                     timestep=_T([10]), encoder_attention_mask=torch.ones(1, 16, dtype=torch.bool))),
    "AllegroTransformer3DModel": (
        dict(num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4,
             num_layers=1, cross_attention_dim=16, sample_width=8, sample_height=8,
             sample_frames=8, caption_channels=8),
        lambda: dict(hidden_states=_randn(1, 4, 2, 8, 8), encoder_hidden_states=_randn(1, 16, 8),
                     timestep=_T([10]))),
    "HunyuanDiT2DModel": (
        dict(sample_size=8, patch_size=2, in_channels=4, num_layers=1, attention_head_dim=8,
             num_attention_heads=2, cross_attention_dim=8, cross_attention_dim_t5=8,
             pooled_projection_dim=4, hidden_size=16, text_len=4, text_len_t5=4,
             activation_fn="gelu-approximate"),
        lambda: dict(hidden_states=_randn(1, 4, 8, 8), timestep=_T([10.0]),
                     encoder_hidden_states=_randn(1, 4, 8), text_embedding_mask=torch.ones(1, 4),
                     encoder_hidden_states_t5=_randn(1, 4, 8),
                     text_embedding_mask_t5=torch.ones(1, 4),
                     image_meta_size=_T([[1024.0, 1024.0, 16.0, 16.0, 0.0, 0.0]]),
                     style=torch.zeros(1, dtype=torch.long),
                     image_rotary_emb=[_randn(16, 8).cos(), _randn(16, 8).sin()])),
    "CogView3PlusTransformer2DModel": (
        dict(patch_size=2, in_channels=4, num_layers=2, attention_head_dim=4,
             num_attention_heads=2, out_channels=4, text_embed_dim=8, time_embed_dim=8,
             condition_dim=2, pos_embed_max_size=8, sample_size=8),
        lambda: dict(hidden_states=_randn(1, 4, 8, 8), encoder_hidden_states=_randn(1, 8, 8),
                     timestep=_T([10]), original_size=_T([[64, 64]]), target_size=_T([[64, 64]]),
                     crop_coords=_T([[0, 0]]))),
    "CogView4Transformer2DModel": (
        dict(patch_size=2, in_channels=4, num_layers=2, attention_head_dim=4,
             num_attention_heads=4, out_channels=4, text_embed_dim=8, time_embed_dim=8,
             condition_dim=4),
        lambda: dict(hidden_states=_randn(1, 4, 8, 8), encoder_hidden_states=_randn(1, 8, 8),
                     timestep=_T([10]), original_size=_T([[64, 64]]), target_size=_T([[64, 64]]),
                     crop_coords=_T([[0, 0]]))),
    "ChromaTransformer2DModel": (
        dict(patch_size=1, in_channels=4, num_layers=1, num_single_layers=1,
             attention_head_dim=16, num_attention_heads=2, joint_attention_dim=32,
             axes_dims_rope=[4, 4, 8], approximator_num_channels=8, approximator_hidden_dim=16,
             approximator_layers=1),
        lambda: dict(hidden_states=_randn(1, 16, 4), encoder_hidden_states=_randn(1, 8, 32),
                     img_ids=_randn(16, 3), txt_ids=_randn(8, 3), timestep=_T([1.0]))),
    "HiDreamImageTransformer2DModel": (
        dict(patch_size=2, in_channels=4, out_channels=4, num_layers=1, num_single_layers=1,
             attention_head_dim=8, num_attention_heads=4, caption_channels=[8, 4],
             text_emb_dim=8, num_routed_experts=2, num_activated_experts=2,
             axes_dims_rope=(4, 2, 2), max_resolution=(32, 32), llama_layers=(0, 1),
             force_inference_output=True),
        lambda: dict(hidden_states=_randn(1, 4, 16, 16), timesteps=_T([10]),
                     encoder_hidden_states_t5=_randn(1, 8, 8),
                     encoder_hidden_states_llama3=_randn(2, 1, 8, 4), pooled_embeds=_randn(1, 8))),
    "QwenImageTransformer2DModel": (
        dict(patch_size=2, in_channels=16, out_channels=4, num_layers=2, attention_head_dim=16,
             num_attention_heads=4, joint_attention_dim=16, guidance_embeds=False,
             axes_dims_rope=(8, 4, 4)),
        lambda: dict(hidden_states=_randn(1, 16, 16), encoder_hidden_states=_randn(1, 8, 16),
                     encoder_hidden_states_mask=torch.ones(1, 8, dtype=torch.long),
                     timestep=_T([1.0]), img_shapes=[(1, 4, 4)])),
    "SkyReelsV2Transformer3DModel": (
        dict(patch_size=(1, 2, 2), num_attention_heads=2, attention_head_dim=12, in_channels=4,
             out_channels=4, text_dim=16, freq_dim=256, ffn_dim=32, num_layers=2,
             cross_attn_norm=True, qk_norm="rms_norm_across_heads", rope_max_seq_len=32),
        lambda: dict(hidden_states=_randn(1, 4, 2, 16, 16), timestep=_T([10]),
                     encoder_hidden_states=_randn(1, 12, 16))),
    "CosmosTransformer3DModel": (
        dict(in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=12,
             num_layers=2, mlp_ratio=2, text_embed_dim=16, adaln_lora_dim=4, max_size=(4, 32, 32),
             patch_size=(1, 2, 2), rope_scale=(2.0, 1.0, 1.0), concat_padding_mask=True,
             extra_pos_embed_type="learnable"),
        lambda: dict(hidden_states=_randn(1, 4, 1, 16, 16), timestep=_T([10]),
                     encoder_hidden_states=_randn(1, 12, 16), attention_mask=torch.ones(1, 12),
                     fps=30, padding_mask=torch.zeros(1, 1, 16, 16))),
    "OmniGenTransformer2DModel": (
        dict(hidden_size=16, num_attention_heads=4, num_key_value_heads=4, intermediate_size=32,
             num_layers=2, pad_token_id=0, vocab_size=1000, in_channels=4, time_step_dim=4,
             rope_scaling={"long_factor": [1, 2], "short_factor": [1, 2]}),
        lambda: dict(hidden_states=_randn(1, 4, 8, 8), timestep=_T([0.5]),
                     input_ids=torch.randint(0, 10, (1, 24)), input_img_latents=[_randn(1, 4, 8, 8)],
                     input_image_sizes={0: [[0, 16]]}, attention_mask=torch.ones(1, 41, 41),
                     position_ids=torch.arange(41).unsqueeze(0))),
})

# UNets.
TINY.update({
    "UNet2DConditionModel_sdxl": (  # SDXL: added text and time ids ("text_time")
        dict(block_out_channels=(32, 64), layers_per_block=2, sample_size=32, in_channels=4,
             out_channels=4, down_block_types=_CROSS, up_block_types=("UpBlock2D",
                                                                     "CrossAttnUpBlock2D"),
             cross_attention_dim=32, attention_head_dim=(2, 4), use_linear_projection=True,
             addition_embed_type="text_time", addition_time_embed_dim=8,
             transformer_layers_per_block=(1, 2), projection_class_embeddings_input_dim=80),
        lambda: dict(sample=_randn(1, 4, 32, 32), timestep=torch.tensor([10]),
                     encoder_hidden_states=_randn(1, 4, 32),
                     added_cond_kwargs={"text_embeds": _randn(1, 32),
                                        "time_ids": _T([[64.0, 64.0, 0.0, 0.0, 64.0, 64.0]])})),
    "UNetSpatioTemporalConditionModel": (
        dict(block_out_channels=(32, 64), down_block_types=("CrossAttnDownBlockSpatioTemporal",
                                                             "DownBlockSpatioTemporal"),
             up_block_types=("UpBlockSpatioTemporal", "CrossAttnUpBlockSpatioTemporal"),
             cross_attention_dim=32, num_attention_heads=8, out_channels=4, in_channels=4,
             layers_per_block=2, sample_size=32, projection_class_embeddings_input_dim=96,
             addition_time_embed_dim=32),
        lambda: dict(sample=_randn(1, 2, 4, 32, 32), timestep=_T([10]),
                     encoder_hidden_states=_randn(1, 1, 32), added_time_ids=_T([[6, 127, 0.02]]))),
    "UNetMotionModel": (
        dict(block_out_channels=(16, 32), norm_num_groups=16,
             down_block_types=("CrossAttnDownBlockMotion", "DownBlockMotion"),
             up_block_types=("UpBlockMotion", "CrossAttnUpBlockMotion"), cross_attention_dim=16,
             num_attention_heads=2, out_channels=4, in_channels=4, layers_per_block=1,
             sample_size=16),
        lambda: dict(sample=_randn(1, 4, 2, 16, 16), timestep=_T([10]),
                     encoder_hidden_states=_randn(2, 4, 16))),
    "UNetControlNetXSModel": (
        dict(sample_size=16, down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
             up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"), block_out_channels=(4, 8),
             cross_attention_dim=8, transformer_layers_per_block=1, num_attention_heads=2,
             norm_num_groups=4, upcast_attention=False, ctrl_block_out_channels=[2, 4],
             ctrl_num_attention_heads=4, ctrl_max_norm_num_groups=2,
             ctrl_conditioning_embedding_out_channels=(2, 2)),
        lambda: dict(sample=_randn(1, 4, 16, 16), timestep=_T([10]),
                     encoder_hidden_states=_randn(1, 4, 8), controlnet_cond=_randn(1, 3, 32, 32),
                     conditioning_scale=1.0)),
    "I2VGenXLUNet": (
        dict(block_out_channels=(32, 64), down_block_types=("CrossAttnDownBlock3D", "DownBlock3D"),
             up_block_types=("UpBlock3D", "CrossAttnUpBlock3D"), cross_attention_dim=32,
             attention_head_dim=8, in_channels=4, out_channels=4, layers_per_block=1,
             sample_size=16, norm_num_groups=32),
        lambda: dict(sample=_randn(1, 4, 2, 16, 16), timestep=_T([10]), fps=_T([8]),
                     image_latents=_randn(1, 4, 2, 16, 16), image_embeddings=_randn(1, 32),
                     encoder_hidden_states=_randn(1, 4, 32))),
    "Kandinsky3UNet": (
        dict(in_channels=4, time_embedding_dim=4, groups=2, attention_head_dim=4,
             layers_per_block=3, block_out_channels=(32, 64), cross_attention_dim=4,
             encoder_hid_dim=32),
        lambda: dict(sample=_randn(1, 4, 16, 16), timestep=_T([10]),
                     encoder_hidden_states=_randn(1, 8, 32), encoder_attention_mask=torch.ones(1, 8))),
    "StableCascadeUNet": (
        dict(in_channels=4, out_channels=4, conditioning_dim=32, block_out_channels=(32, 32),
             num_attention_heads=(2, 2), down_num_layers_per_block=(1, 1),
             up_num_layers_per_block=(1, 1), switch_level=(False,), clip_image_in_channels=16,
             clip_text_in_channels=16, clip_text_pooled_in_channels=16, dropout=(0.0, 0.0)),
        lambda: dict(sample=_randn(1, 4, 16, 16), timestep_ratio=_T([0.5]),
                     clip_text_pooled=_randn(1, 1, 16), clip_text=_randn(1, 8, 16),
                     clip_img=_randn(1, 1, 16))),
})
# Autoencoders (the round trip; the posterior's mode, not a sample).
TINY.update({
    "AsymmetricAutoencoderKL": (
        dict(in_channels=3, out_channels=3, down_block_types=["DownEncoderBlock2D"] * 2,
             down_block_out_channels=[8, 16], layers_per_down_block=1,
             up_block_types=["UpDecoderBlock2D"] * 2, up_block_out_channels=[8, 16],
             layers_per_up_block=1, act_fn="silu", latent_channels=4, norm_num_groups=4,
             sample_size=32, scaling_factor=0.18215),
        lambda: dict(sample=_randn(1, 3, 32, 32), mask=torch.ones(1, 1, 32, 32))),
    "AutoencoderDC": (
        dict(in_channels=3, latent_channels=4, attention_head_dim=2,
             encoder_block_types=("ResBlock", "EfficientViTBlock"),
             decoder_block_types=("ResBlock", "EfficientViTBlock"),
             encoder_block_out_channels=(8, 8), decoder_block_out_channels=(8, 8),
             encoder_qkv_multiscales=((), (5,)), decoder_qkv_multiscales=((), (5,)),
             encoder_layers_per_block=(1, 1), decoder_layers_per_block=[1, 1],
             downsample_block_type="conv", upsample_block_type="interpolate",
             decoder_norm_types="rms_norm", decoder_act_fns="silu", scaling_factor=0.41407),
        lambda: dict(sample=_randn(1, 3, 32, 32))),
    "AutoencoderKLHunyuanVideo": (
        dict(in_channels=3, out_channels=3, latent_channels=4,
             down_block_types=("HunyuanVideoDownBlock3D",) * 4,
             up_block_types=("HunyuanVideoUpBlock3D",) * 4, block_out_channels=(8, 8, 8, 8),
             layers_per_block=1, act_fn="silu", norm_num_groups=4, scaling_factor=0.476986,
             spatial_compression_ratio=8, temporal_compression_ratio=4,
             mid_block_add_attention=True),
        lambda: dict(sample=_randn(1, 3, 9, 16, 16))),
    "AutoencoderKLCogVideoX": (
        dict(in_channels=3, out_channels=3, down_block_types=("CogVideoXDownBlock3D",) * 4,
             up_block_types=("CogVideoXUpBlock3D",) * 4, block_out_channels=(8, 8, 8, 8),
             latent_channels=4, layers_per_block=1, norm_num_groups=2,
             temporal_compression_ratio=4),
        lambda: dict(sample=_randn(1, 3, 8, 16, 16))),
    "AutoencoderKLTemporalDecoder": (
        dict(block_out_channels=[32, 64], in_channels=3, out_channels=3,
             down_block_types=["DownEncoderBlock2D", "DownEncoderBlock2D"], latent_channels=4,
             layers_per_block=2),
        lambda: dict(sample=_randn(2, 3, 32, 32), num_frames=2)),
    "AutoencoderKLLTXVideo": (
        dict(in_channels=3, out_channels=3, latent_channels=8, block_out_channels=(8, 8, 8, 8),
             decoder_block_out_channels=(8, 8, 8, 8), layers_per_block=(1, 1, 1, 1, 1),
             decoder_layers_per_block=(1, 1, 1, 1, 1),
             spatio_temporal_scaling=(True, True, False, False),
             decoder_spatio_temporal_scaling=(True, True, False, False),
             decoder_inject_noise=(False, False, False, False, False),
             upsample_residual=(False, False, False, False), upsample_factor=(1, 1, 1, 1),
             timestep_conditioning=False, patch_size=1, patch_size_t=1, encoder_causal=True,
             decoder_causal=False),
        lambda: dict(sample=_randn(1, 3, 9, 16, 16))),
    "AutoencoderKLMochi": (
        dict(in_channels=15, out_channels=3, latent_channels=4,
             encoder_block_out_channels=(32, 32, 32, 32),
             decoder_block_out_channels=(32, 32, 32, 32), layers_per_block=(1, 1, 1, 1, 1),
             act_fn="silu", scaling_factor=1),
        lambda: dict(sample=_randn(1, 3, 7, 16, 16))),
    "AutoencoderOobleck": (
        dict(encoder_hidden_size=12, decoder_channels=12, decoder_input_channels=6,
             audio_channels=2, downsampling_ratios=[2, 4], channel_multiples=[1, 2]),
        lambda: dict(sample=_randn(1, 2, 24), sample_posterior=False)),
    "ConsistencyDecoderVAE": (
        dict(encoder_block_out_channels=[8, 16], encoder_in_channels=3, encoder_out_channels=4,
             encoder_down_block_types=["DownEncoderBlock2D"] * 2, decoder_add_attention=False,
             decoder_block_out_channels=[8, 16],
             decoder_down_block_types=["ResnetDownsampleBlock2D"] * 2,
             decoder_downsample_padding=1, decoder_in_channels=7, decoder_layers_per_block=1,
             decoder_norm_eps=1e-05, decoder_norm_num_groups=4, encoder_norm_num_groups=4,
             decoder_num_train_timesteps=1024, decoder_out_channels=6,
             decoder_resnet_time_scale_shift="scale_shift", decoder_time_embedding_type="learned",
             decoder_up_block_types=["ResnetUpsampleBlock2D"] * 2, scaling_factor=1,
             latent_channels=4),
        lambda: dict(sample=_randn(1, 3, 32, 32))),
    "AutoencoderKLCosmos": (
        dict(in_channels=3, out_channels=3, latent_channels=4,
             encoder_block_out_channels=(8, 8, 8, 8), decode_block_out_channels=(8, 8, 8, 8),
             attention_resolutions=(8,), resolution=64, num_layers=2, patch_size=4,
             patch_type="haar", scaling_factor=1.0, spatial_compression_ratio=4,
             temporal_compression_ratio=4),
        lambda: dict(sample=_randn(1, 3, 9, 32, 32))),
    "AutoencoderKLMagvit": (
        dict(in_channels=3, latent_channels=4, out_channels=3, block_out_channels=[8, 8, 8, 8],
             down_block_types=["SpatialDownBlock3D"] + ["SpatialTemporalDownBlock3D"] * 3,
             up_block_types=["SpatialUpBlock3D"] + ["SpatialTemporalUpBlock3D"] * 3,
             layers_per_block=1, norm_num_groups=8, spatial_group_norm=True),
        lambda: dict(sample=_randn(1, 3, 9, 16, 16))),
})
# More transformers.
TINY.update({
    "LatteTransformer3DModel": (
        dict(sample_size=8, num_layers=1, patch_size=2, attention_head_dim=4,
             num_attention_heads=2, caption_channels=8, in_channels=4, cross_attention_dim=8,
             out_channels=8, attention_bias=True, activation_fn="gelu-approximate",
             num_embeds_ada_norm=1000, norm_type="ada_norm_single", norm_elementwise_affine=False,
             norm_eps=1e-6, video_length=2),
        lambda: dict(hidden_states=_randn(1, 4, 2, 8, 8), encoder_hidden_states=_randn(1, 8, 8),
                     timestep=_T([10]), enable_temporal_attentions=True)),
    "TransformerTemporalModel": (
        dict(num_attention_heads=8, attention_head_dim=4, in_channels=4, num_layers=1,
             norm_num_groups=1),
        lambda: dict(hidden_states=_randn(2, 4, 16, 16), timestep=_T([10]), num_frames=2)),
    "Transformer2DModel": (
        dict(num_attention_heads=2, attention_head_dim=8, in_channels=8, num_layers=1,
             norm_num_groups=4, cross_attention_dim=16),
        lambda: dict(hidden_states=_randn(1, 8, 8, 8), encoder_hidden_states=_randn(1, 4, 16))),
    "LuminaNextDiT2DModel": (
        dict(sample_size=16, patch_size=2, in_channels=4, hidden_size=24, num_layers=2,
             num_attention_heads=3, num_kv_heads=1, multiple_of=16, ffn_dim_multiplier=None,
             norm_eps=1e-5, learn_sigma=False, qk_norm=True, cross_attention_dim=32,
             scaling_factor=1.0),
        lambda: dict(hidden_states=_randn(1, 4, 16, 16), encoder_hidden_states=_randn(1, 16, 32),
                     timestep=_T([0.5]), encoder_mask=torch.ones(1, 16),
                     image_rotary_emb=_randn(384, 384, 4), cross_attention_kwargs={})),
    "EasyAnimateTransformer3DModel": (
        dict(attention_head_dim=16, num_attention_heads=2, in_channels=4, mmdit_layers=2,
             num_layers=2, out_channels=4, patch_size=2, sample_height=60, sample_width=90,
             text_embed_dim=16, time_embed_dim=8, time_position_encoding_type="3d_rope",
             timestep_activation_fn="silu"),
        lambda: dict(hidden_states=_randn(1, 4, 2, 16, 16), timestep=_T([10]),
                     encoder_hidden_states=_randn(1, 16, 16))),
    "ConsisIDTransformer3DModel": (
        dict(num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4,
             time_embed_dim=2, text_embed_dim=8, num_layers=1, sample_width=8, sample_height=8,
             sample_frames=5, patch_size=2, temporal_compression_ratio=4, max_text_seq_length=8,
             cross_attn_interval=1, is_kps=False, is_train_face=True, cross_attn_dim_head=1,
             cross_attn_num_heads=1, LFE_id_dim=2, LFE_vit_dim=2, LFE_depth=5, LFE_dim_head=8,
             LFE_num_heads=2, LFE_num_id_token=1, LFE_num_querie=1, LFE_output_dim=10,
             LFE_ff_mult=1, LFE_num_scale=1),
        lambda: dict(hidden_states=_randn(1, 2, 4, 8, 8), encoder_hidden_states=_randn(1, 8, 8),
                     timestep=_T([10]), id_vit_hidden=[torch.ones(1, 2, 2)],
                     id_cond=torch.ones(1, 2))),
    "WanVACETransformer3DModel": (
        dict(patch_size=(1, 2, 2), num_attention_heads=2, attention_head_dim=12, in_channels=16,
             out_channels=16, text_dim=32, freq_dim=256, ffn_dim=32, num_layers=4,
             cross_attn_norm=True, qk_norm="rms_norm_across_heads", rope_max_seq_len=32,
             vace_layers=[0, 2], vace_in_channels=48),
        lambda: dict(hidden_states=_randn(1, 16, 2, 16, 16), encoder_hidden_states=_randn(1, 12, 32),
                     control_hidden_states=_randn(1, 48, 2, 16, 16), timestep=_T([10]))),
    "ChronoEditTransformer3DModel": (
        dict(patch_size=(1, 2, 2), num_attention_heads=2, attention_head_dim=8, in_channels=16,
             out_channels=16, text_dim=32, freq_dim=16, ffn_dim=32, num_layers=2,
             cross_attn_norm=True, qk_norm="rms_norm_across_heads", eps=1e-06,
             rope_max_seq_len=64, rope_temporal_skip_len=8),
        lambda: dict(hidden_states=_randn(1, 16, 2, 8, 8), timestep=_T([10]),
                     encoder_hidden_states=_randn(1, 12, 32))),
    "HunyuanVideoFramepackTransformer3DModel": (
        dict(in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=10,
             num_layers=1, num_single_layers=1, num_refiner_layers=1, patch_size=2,
             patch_size_t=1, guidance_embeds=True, text_embed_dim=16, pooled_projection_dim=8,
             rope_axes_dim=(2, 4, 4), image_condition_type=None, has_image_proj=True,
             image_proj_dim=16, has_clean_x_embedder=True),
        lambda: dict(hidden_states=_randn(1, 4, 3, 4, 4), timestep=_T([10]),
                     encoder_hidden_states=_randn(1, 12, 16), pooled_projections=_randn(1, 8),
                     encoder_attention_mask=torch.ones(1, 12), guidance=_T([3]),
                     image_embeds=_randn(1, 12, 16), indices_latents=torch.ones(3),
                     latents_clean=_randn(1, 4, 2, 4, 4), indices_latents_clean=torch.ones(2),
                     latents_history_2x=_randn(1, 4, 2, 4, 4),
                     indices_latents_history_2x=torch.ones(2),
                     latents_history_4x=_randn(1, 4, 8, 4, 4),
                     indices_latents_history_4x=torch.ones(8))),
    "Flux2Transformer2DModel": (
        dict(patch_size=1, in_channels=4, num_layers=1, num_single_layers=1,
             attention_head_dim=16, num_attention_heads=2, joint_attention_dim=32,
             timestep_guidance_channels=256, axes_dims_rope=[4, 4, 4, 4]),
        lambda: dict(hidden_states=_randn(1, 16, 4), encoder_hidden_states=_randn(1, 8, 32),
                     img_ids=torch.cartesian_prod(torch.arange(1), torch.arange(4), torch.arange(4),
                                                  torch.arange(1)).unsqueeze(0),
                     txt_ids=torch.cartesian_prod(torch.arange(1), torch.arange(1), torch.arange(1),
                                                  torch.arange(8)).unsqueeze(0),
                     timestep=_T([1.0]), guidance=_T([1.0]))),
    "ZImageTransformer2DModel": (
        dict(all_patch_size=(2,), all_f_patch_size=(1,), in_channels=16, dim=16, n_layers=1,
             n_refiner_layers=1, n_heads=1, n_kv_heads=2, qk_norm=True, cap_feat_dim=16,
             rope_theta=256.0, t_scale=1000.0, axes_dims=[8, 4, 4], axes_lens=[256, 32, 32]),
        lambda: dict(x=[_randn(16, 1, 16, 16)], cap_feats=[_randn(16, 16)], t=_T([0.5]))),
    "BriaTransformer2DModel": (
        dict(patch_size=1, in_channels=4, num_layers=1, num_single_layers=1,
             attention_head_dim=8, num_attention_heads=2, joint_attention_dim=32,
             pooled_projection_dim=None, axes_dims_rope=[0, 4, 4]),
        lambda: dict(hidden_states=_randn(1, 16, 4), encoder_hidden_states=_randn(1, 8, 32),
                     img_ids=_randn(16, 3), txt_ids=_randn(8, 3), timestep=_T([1.0]))),
    "SanaVideoTransformer3DModel": (
        dict(in_channels=16, out_channels=16, num_attention_heads=2, attention_head_dim=12,
             num_layers=2, num_cross_attention_heads=2, cross_attention_head_dim=12,
             cross_attention_dim=24, caption_channels=16, mlp_ratio=2.5, dropout=0.0,
             attention_bias=False, sample_size=8, patch_size=(1, 2, 2),
             norm_elementwise_affine=False, norm_eps=1e-6, qk_norm="rms_norm_across_heads",
             rope_max_seq_len=32),
        lambda: dict(hidden_states=_randn(1, 16, 2, 16, 16), encoder_hidden_states=_randn(1, 12, 16),
                     timestep=_T([10]))),
})
# ControlNets.
_SDXL_ADDED = lambda: {"text_embeds": _randn(1, 32),
                       "time_ids": _T([[64.0, 64.0, 0.0, 0.0, 64.0, 64.0]])}
TINY.update({
    "SD3ControlNetModel": (
        dict(sample_size=16, patch_size=1, in_channels=4, num_layers=1, attention_head_dim=8,
             num_attention_heads=4, joint_attention_dim=32, caption_projection_dim=32,
             pooled_projection_dim=64, out_channels=4),
        lambda: dict(hidden_states=_randn(1, 4, 16, 16), controlnet_cond=_randn(1, 4, 16, 16),
                     encoder_hidden_states=_randn(1, 8, 32), pooled_projections=_randn(1, 64),
                     timestep=_T([10]))),
    "FluxControlNetModel": (
        dict(patch_size=1, in_channels=4, num_layers=1, num_single_layers=1,
             attention_head_dim=16, num_attention_heads=2, joint_attention_dim=32,
             pooled_projection_dim=32, axes_dims_rope=[4, 4, 8]),
        lambda: dict(hidden_states=_randn(1, 16, 4), controlnet_cond=_randn(1, 16, 4),
                     encoder_hidden_states=_randn(1, 8, 32), pooled_projections=_randn(1, 32),
                     img_ids=_randn(16, 3), txt_ids=_randn(8, 3), timestep=_T([1.0]))),
    "SparseControlNetModel": (
        dict(block_out_channels=(32, 64), layers_per_block=2, in_channels=4,
             conditioning_channels=3, down_block_types=("CrossAttnDownBlockMotion",
                                                        "DownBlockMotion"),
             cross_attention_dim=32, conditioning_embedding_out_channels=(8, 8), norm_num_groups=1,
             use_simplified_condition_embedding=False),
        lambda: dict(sample=_randn(1, 4, 2, 16, 16), timestep=_T([10]),
                     encoder_hidden_states=_randn(2, 4, 32), controlnet_cond=_randn(1, 3, 2, 32, 32),
                     conditioning_mask=torch.ones(1, 1, 2, 32, 32))),
    "ControlNetUnionModel": (  # SDXL's
        dict(block_out_channels=(32, 64), layers_per_block=2, in_channels=4,
             down_block_types=_CROSS, cross_attention_dim=32, attention_head_dim=(2, 4),
             use_linear_projection=True, addition_embed_type="text_time",
             addition_time_embed_dim=8, transformer_layers_per_block=(1, 2),
             projection_class_embeddings_input_dim=80,
             conditioning_embedding_out_channels=(16, 32), num_control_type=2,
             num_trans_channel=32, num_trans_head=2, num_proj_channel=32),
        lambda: dict(sample=_randn(1, 4, 32, 32), timestep=_T([10]),
                     encoder_hidden_states=_randn(1, 4, 32),
                     controlnet_cond=[_randn(1, 3, 64, 64), _randn(1, 3, 64, 64)],
                     control_type=_T([[1.0, 1.0]]), control_type_idx=[0, 1],
                     added_cond_kwargs=_SDXL_ADDED())),
    "HunyuanDiT2DControlNetModel": (
        dict(sample_size=8, transformer_num_layers=4, patch_size=2, attention_head_dim=8,
             num_attention_heads=3, in_channels=4, cross_attention_dim=32,
             cross_attention_dim_t5=32, pooled_projection_dim=16, hidden_size=24,
             activation_fn="gelu-approximate", text_len=4, text_len_t5=4),
        lambda: dict(hidden_states=_randn(1, 4, 8, 8), timestep=_T([10.0]),
                     controlnet_cond=_randn(1, 4, 8, 8),
                     encoder_hidden_states=_randn(1, 4, 32), text_embedding_mask=torch.ones(1, 4),
                     encoder_hidden_states_t5=_randn(1, 4, 32),
                     text_embedding_mask_t5=torch.ones(1, 4),
                     image_meta_size=_T([[1024.0, 1024.0, 16.0, 16.0, 0.0, 0.0]]),
                     style=torch.zeros(1, dtype=torch.long),
                     image_rotary_emb=[_randn(16, 8).cos(), _randn(16, 8).sin()])),
    "SanaControlNetModel": (
        dict(patch_size=1, in_channels=4, out_channels=4, num_layers=1, num_attention_heads=2,
             attention_head_dim=4, num_cross_attention_heads=2, cross_attention_head_dim=4,
             cross_attention_dim=8, caption_channels=8, sample_size=16),
        lambda: dict(hidden_states=_randn(1, 4, 16, 16), encoder_hidden_states=_randn(1, 8, 8),
                     timestep=_T([10]), controlnet_cond=_randn(1, 4, 16, 16))),
    "QwenImageControlNetModel": (
        dict(patch_size=2, in_channels=16, out_channels=4, num_layers=2, attention_head_dim=16,
             num_attention_heads=3, joint_attention_dim=16, axes_dims_rope=(8, 4, 4)),
        lambda: dict(hidden_states=_randn(1, 16, 16), controlnet_cond=_randn(1, 16, 16),
                     encoder_hidden_states=_randn(1, 8, 16),
                     encoder_hidden_states_mask=torch.ones(1, 8, dtype=torch.long),
                     timestep=_T([1.0]), img_shapes=[(1, 4, 4)])),
})
# Audio, projections, adapters and the rest.
TINY.update({
    "StableAudioDiTModel": (
        dict(sample_size=4, in_channels=3, num_layers=2, attention_head_dim=4,
             num_attention_heads=2, num_key_value_attention_heads=2, out_channels=3,
             cross_attention_dim=4, time_proj_dim=8, global_states_input_dim=8,
             cross_attention_input_dim=4),
        # rotary_embedding: get_1d_rotary_pos_embed(attention_head_dim // 2, 1 + 4, use_real=True,
        # repeat_interleave_real=False), as the pipeline passes it
        lambda: dict(hidden_states=_randn(1, 3, 4), timestep=_T([10]),
                     encoder_hidden_states=_randn(1, 6, 4), global_hidden_states=_randn(1, 1, 8),
                     rotary_embedding=tuple(__import__("diffusers").models.embeddings
                                            .get_1d_rotary_pos_embed(2, 5, use_real=True,
                                                                     repeat_interleave_real=False)))),
    "AudioLDM2UNet2DConditionModel": (
        dict(block_out_channels=(8, 16), layers_per_block=1, norm_num_groups=8, sample_size=32,
             in_channels=4, out_channels=4, down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
             up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"), cross_attention_dim=(8, 16)),
        lambda: dict(sample=_randn(1, 4, 32, 32), timestep=_T([10]),
                     encoder_hidden_states=_randn(1, 6, 16), encoder_hidden_states_1=_randn(1, 5, 8))),
    "UVit2DModel": (
        dict(hidden_size=32, cond_embed_dim=32, micro_cond_encode_dim=2, micro_cond_embed_dim=10,
             encoder_hidden_size=32, vocab_size=40, codebook_size=32, in_channels=32,
             block_out_channels=32, num_res_blocks=1, block_num_heads=2, num_hidden_layers=1,
             num_attention_heads=2, intermediate_size=64, sample_size=4),
        lambda: dict(input_ids=torch.randint(0, 32, (1, 4, 4)), encoder_hidden_states=_randn(1, 6, 32),
                     pooled_text_emb=_randn(1, 32),
                     micro_conds=_T([[64.0, 64.0, 0.0, 0.0, 6.0]]))),
    "AutoencoderKLQwenImage": (
        dict(base_dim=12, z_dim=4, dim_mult=[1, 2, 4], num_res_blocks=1,
             temperal_downsample=[False, True], latents_mean=[0.0] * 4, latents_std=[1.0] * 4),
        lambda: dict(sample=_randn(1, 3, 1, 16, 16))),
    "StableAudioProjectionModel": (
        dict(text_encoder_dim=8, conditioning_dim=4, min_value=0, max_value=32),
        lambda: dict(text_hidden_states=_randn(1, 4, 8), start_seconds=_T([0.0]),
                     end_seconds=_T([10.0]))),
    "AudioLDM2ProjectionModel": (
        dict(text_encoder_dim=16, text_encoder_1_dim=32, langauge_model_dim=16),
        lambda: dict(hidden_states=_randn(1, 4, 16), hidden_states_1=_randn(1, 5, 32),
                     attention_mask=torch.ones(1, 4, dtype=torch.long),
                     attention_mask_1=torch.ones(1, 5, dtype=torch.long))),
    "CLIPImageProjection": (dict(hidden_size=32), lambda: dict(x=_randn(1, 32))),
    "ReduxImageEncoder": (dict(redux_dim=16, txt_in_features=32),
                          lambda: dict(x=_randn(1, 4, 16))),
    "MultiAdapter": (
        lambda: dict(adapters=[__import__("diffusers").T2IAdapter(
            in_channels=3, channels=[32, 64], num_res_blocks=1, downscale_factor=4,
            adapter_type="full_adapter") for _ in range(2)]),
        lambda: dict(xs=[_randn(1, 3, 32, 32), _randn(1, 3, 32, 32)], adapter_weights=[0.6, 0.4])),
})
# Newer image and video transformers.
_FLUXLIKE = lambda: dict(hidden_states=_randn(1, 16, 4), encoder_hidden_states=_randn(1, 8, 32),
                         img_ids=_randn(16, 3), txt_ids=_randn(8, 3), timestep=_T([1.0]))
TINY.update({
    "LTX2VideoTransformer3DModel": (
        dict(in_channels=4, out_channels=4, patch_size=1, patch_size_t=1, num_attention_heads=2,
             attention_head_dim=8, cross_attention_dim=16, audio_in_channels=4,
             audio_out_channels=4, audio_num_attention_heads=2, audio_attention_head_dim=4,
             audio_cross_attention_dim=8, num_layers=2, qk_norm="rms_norm_across_heads",
             caption_channels=16, rope_double_precision=False),
        lambda: dict(hidden_states=_randn(1, 2 * 8 * 8, 4), audio_hidden_states=_randn(1, 9, 4),
                     encoder_hidden_states=_randn(1, 16, 16),
                     audio_encoder_hidden_states=_randn(1, 16, 16), timestep=_T([500.0]),
                     encoder_attention_mask=torch.ones(1, 16, dtype=torch.bool), num_frames=2,
                     height=8, width=8, audio_num_frames=9, fps=25.0)),
    "HunyuanVideo15Transformer3DModel": (
        dict(in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=8,
             num_layers=2, num_refiner_layers=1, mlp_ratio=2.0, patch_size=1, patch_size_t=1,
             text_embed_dim=16, text_embed_2_dim=8, image_embed_dim=12, rope_axes_dim=(2, 2, 4),
             target_size=16, task_type="t2v"),
        lambda: dict(hidden_states=_randn(1, 4, 1, 8, 8), timestep=_T([1.0]),
                     encoder_hidden_states=_randn(1, 6, 16), encoder_hidden_states_2=_randn(1, 4, 8),
                     encoder_attention_mask=torch.ones(1, 6), encoder_attention_mask_2=torch.ones(1, 4),
                     image_embeds=torch.zeros(1, 3, 12))),
    "PRXTransformer2DModel": (
        dict(in_channels=16, patch_size=2, context_in_dim=32, hidden_size=32, mlp_ratio=3.5,
             num_heads=2, depth=2, axes_dim=[8, 8], theta=10_000),
        lambda: dict(hidden_states=_randn(1, 16, 16, 16), encoder_hidden_states=_randn(1, 16, 32),
                     timestep=_T([1.0]))),
    "OvisImageTransformer2DModel": (
        dict(patch_size=1, in_channels=4, out_channels=4, num_layers=1, num_single_layers=1,
             attention_head_dim=16, num_attention_heads=2, joint_attention_dim=32,
             axes_dims_rope=(4, 4, 8)),
        _FLUXLIKE),
    "LongCatImageTransformer2DModel": (
        dict(patch_size=1, in_channels=4, num_layers=1, num_single_layers=1,
             attention_head_dim=16, num_attention_heads=2, joint_attention_dim=32,
             pooled_projection_dim=32, axes_dims_rope=[4, 4, 8]),
        lambda: dict(_FLUXLIKE(), guidance=_T([3.5]))),
    "GlmImageTransformer2DModel": (
        dict(patch_size=2, in_channels=4, out_channels=4, num_layers=1, attention_head_dim=8,
             num_attention_heads=2, text_embed_dim=32, time_embed_dim=16, condition_dim=8,
             prior_vq_quantizer_codebook_size=64),
        lambda: dict(hidden_states=_randn(1, 4, 8, 8), encoder_hidden_states=_randn(1, 12, 32),
                     prior_token_id=torch.randint(0, 64, (1,)),
                     prior_token_drop=torch.zeros(1, dtype=torch.bool), timestep=_T([10]),
                     target_size=_T([[8.0, 8.0]]), crop_coords=_T([[0.0, 0.0]]))),
    "NucleusMoEImageTransformer2DModel": (
        dict(patch_size=2, in_channels=16, out_channels=4, num_layers=2, attention_head_dim=16,
             num_attention_heads=4, joint_attention_dim=16, axes_dims_rope=(8, 4, 4),
             moe_enabled=False, capacity_factors=[8.0, 8.0]),
        lambda: dict(hidden_states=_randn(1, 16, 16), encoder_hidden_states=_randn(1, 8, 16),
                     encoder_hidden_states_mask=torch.ones(1, 8, dtype=torch.long),
                     timestep=_T([1.0]), img_shapes=[(1, 4, 4)])),
    "BriaFiboTransformer2DModel": (
        dict(patch_size=1, in_channels=48, num_layers=1, num_single_layers=1,
             attention_head_dim=8, num_attention_heads=2, joint_attention_dim=64,
             text_encoder_dim=32, pooled_projection_dim=None, axes_dims_rope=[0, 4, 4]),
        lambda: (lambda ehs: dict(hidden_states=_randn(1, 64, 48), encoder_hidden_states=ehs,
                                  img_ids=_randn(64, 3), txt_ids=_randn(16, 3), timestep=_T([1.0]),
                                  text_encoder_layers=[ehs[:, :, :32], ehs[:, :, 32:]]))(
            _randn(1, 16, 64))),
})
# A few more.
TINY.update({
    "ErnieImageTransformer2DModel": (
        dict(hidden_size=16, num_attention_heads=1, num_layers=1, ffn_hidden_size=16,
             in_channels=16, out_channels=16, patch_size=1, text_in_dim=16, rope_theta=256,
             rope_axes_dim=(8, 4, 4), eps=1e-6, qk_layernorm=True),
        lambda: dict(hidden_states=_randn(1, 16, 8, 8), timestep=_T([1.0]),
                     text_bth=_randn(1, 16, 16), text_lens=_T([16]))),
    "HeliosTransformer3DModel": (
        dict(patch_size=(1, 2, 2), num_attention_heads=2, attention_head_dim=12, in_channels=4,
             out_channels=4, text_dim=16, freq_dim=256, ffn_dim=32, num_layers=2,
             cross_attn_norm=True, qk_norm="rms_norm_across_heads", rope_dim=(4, 4, 4),
             has_multi_term_memory_patch=True, guidance_cross_attn=True,
             zero_history_timestep=True, is_amplify_history=False),
        lambda: dict(hidden_states=_randn(1, 4, 2, 16, 16), timestep=_T([10]),
                     encoder_hidden_states=_randn(1, 12, 16), indices_hidden_states=torch.ones(1, 2),
                     indices_latents_history_short=torch.ones(1, 1),
                     indices_latents_history_mid=torch.ones(1, 1),
                     indices_latents_history_long=torch.ones(1, 4),
                     latents_history_short=_randn(1, 4, 1, 16, 16),
                     latents_history_mid=_randn(1, 4, 1, 16, 16),
                     latents_history_long=_randn(1, 4, 4, 16, 16))),
    "MotifVideoTransformer3DModel": (
        dict(in_channels=33, out_channels=16, num_attention_heads=2, attention_head_dim=12,
             num_layers=1, num_single_layers=1, num_decoder_layers=0, mlp_ratio=4.0, patch_size=1,
             patch_size_t=1, qk_norm="rms_norm", norm_type="layer_norm", text_embed_dim=32,
             image_embed_dim=4, rope_theta=256.0, rope_axes_dim=(4, 4, 4),
             enable_text_cross_attention_dual=False, enable_text_cross_attention_single=False),
        lambda: dict(hidden_states=_randn(1, 33, 2, 8, 8), encoder_hidden_states=_randn(1, 12, 32),
                     timestep=_T([10]))),
    "CosmosControlNetModel": (
        dict(n_controlnet_blocks=2, in_channels=18, latent_channels=18, model_channels=32,
             num_attention_heads=2, attention_head_dim=16, mlp_ratio=2, text_embed_dim=32,
             adaln_lora_dim=4, patch_size=(1, 2, 2), max_size=(4, 32, 32),
             rope_scale=(2.0, 1.0, 1.0), extra_pos_embed_type=None, img_context_dim_in=32,
             img_context_dim_out=32, use_crossattn_projection=False),
        lambda: dict(controls_latents=_randn(1, 16, 1, 16, 16), latents=_randn(1, 16, 1, 16, 16),
                     timestep=_T([0.5]), encoder_hidden_states=(_randn(1, 12, 32), _randn(1, 4, 32)),
                     condition_mask=torch.ones(1, 1, 1, 16, 16), conditioning_scale=1.0,
                     padding_mask=torch.zeros(1, 1, 16, 16))),
    "AutoencoderKLLTX2Video": (
        dict(in_channels=3, out_channels=3, latent_channels=8, block_out_channels=(8, 8, 8, 8),
             decoder_block_out_channels=(16, 32, 64), layers_per_block=(1, 1, 1, 1, 1),
             decoder_layers_per_block=(1, 1, 1, 1),
             spatio_temporal_scaling=(True, True, True, True),
             decoder_spatio_temporal_scaling=(True, True, True),
             decoder_inject_noise=(False, False, False, False),
             downsample_type=("spatial", "temporal", "spatiotemporal", "spatiotemporal"),
             upsample_residual=(True, True, True), upsample_factor=(2, 2, 2),
             timestep_conditioning=False, patch_size=1, patch_size_t=1, encoder_causal=True,
             decoder_causal=False, encoder_spatial_padding_mode="zeros",
             decoder_spatial_padding_mode="zeros"),
        lambda: dict(sample=_randn(1, 3, 9, 16, 16))),
    "AutoencoderKLFlux2": (
        dict(sample_size=32, in_channels=3, out_channels=3, down_block_types=("DownEncoderBlock2D",),
             up_block_types=("UpDecoderBlock2D",), block_out_channels=(4,), layers_per_block=1,
             latent_channels=1, norm_num_groups=1, use_quant_conv=False,
             use_post_quant_conv=False),
        lambda: dict(sample=_randn(1, 3, 32, 32))),
    "HunyuanImageTransformer2DModel": (
        dict(in_channels=4, out_channels=4, num_attention_heads=4, attention_head_dim=8,
             num_layers=1, num_single_layers=1, num_refiner_layers=1, patch_size=(1, 1),
             guidance_embeds=False, text_embed_dim=32, text_embed_2_dim=32, rope_axes_dim=(4, 4)),
        lambda: dict(hidden_states=_randn(1, 4, 8, 8), timestep=_T([10.0]),
                     encoder_hidden_states=_randn(1, 8, 32), encoder_attention_mask=torch.ones(1, 8),
                     encoder_hidden_states_2=_randn(1, 4, 32),
                     encoder_attention_mask_2=torch.ones(1, 4))),
    "AutoencoderKLHunyuanImage": (
        dict(in_channels=3, out_channels=3, latent_channels=4, block_out_channels=(32, 64, 64, 64),
             layers_per_block=1, scaling_factor=0.476986, spatial_compression_ratio=8,
             sample_size=128),
        lambda: dict(sample=_randn(1, 3, 32, 32))),
    "Kandinsky5Transformer3DModel": (
        dict(in_visual_dim=16, in_text_dim=16, in_text_dim2=8, time_dim=16, out_visual_dim=16,
             patch_size=(1, 2, 2), model_dim=16, ff_dim=32, num_text_blocks=1,
             num_visual_blocks=2, axes_dims=(1, 1, 2), visual_cond=False,
             attention_type="regular"),
        lambda: dict(hidden_states=_randn(1, 1, 8, 8, 16), encoder_hidden_states=_randn(1, 6, 16),
                     pooled_projections=_randn(1, 8), timestep=_T([10.0]),
                     visual_rope_pos=[torch.arange(1), torch.arange(4), torch.arange(4)],
                     text_rope_pos=torch.arange(6))),
})
_CLASS = {"UNet2DConditionModel_sdxl": "UNet2DConditionModel"}


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
    config = config() if callable(config) else config
    model = getattr(diffusers, _CLASS.get(name, name))(**config)
    return model, (), inputs()
