"""The zoo's models beyond torchvision's: Hugging Face architectures built
from small configs (random weights; `transformers` needed) and networks
written here in the shapes users bring (a U-Net, a super-resolution net, a
temporal convolution stack, recurrent layers, a spatial transformer, a
detection head). Each exercises forms the torchvision models do not: masks
broadcast over channels, TensorFlow's "same" padding, bilinear upsampling
between convolutions, group norms, in-place writes through views, means
over sequences of one token, relative position tables, the real part of a
complex FFT.

MODELS maps each name to a function returning (model, make_input), where
make_input(batch, seed=1) gives the example inputs as a tuple; zoo.py gives
the weights a real scale (but to KEEP_WEIGHTS') and takes make_input(1).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

IMAGE = 64  # the zoo's image size
TOKENS = 24  # a sentence
VOCABULARY = 500


def image_input(channels=3, size=IMAGE):
    def make_input(batch, seed=1):
        return (torch.randn(batch, channels, size, size, generator=torch.Generator().manual_seed(seed)),)
    return make_input


def token_input(batch, seed=1):
    ids = torch.randint(0, VOCABULARY, (1, TOKENS), generator=torch.Generator().manual_seed(seed))
    return (ids.repeat(batch, 1),)


def sequence_input(channels, length, channels_first=True):
    def make_input(batch, seed=1):
        shape = (batch, channels, length) if channels_first else (batch, length, channels)
        return (torch.randn(*shape, generator=torch.Generator().manual_seed(seed)),)
    return make_input


class Field(nn.Module):
    """A Hugging Face model's output field (last_hidden_state, logits, ...) as the result."""

    def __init__(self, model, field="last_hidden_state", **call):
        super().__init__()
        self.model, self.field, self.call = model, field, call

    def forward(self, x):
        return getattr(self.model(x, **self.call), self.field)


def hugging_face(name):
    import transformers as T

    encoder = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
    vision = dict(image_size=IMAGE, patch_size=8, **encoder)
    causal = dict(vocab_size=VOCABULARY, num_key_value_heads=2, **encoder)
    builders = {
        "hf_distilbert": lambda: (Field(T.DistilBertModel(T.DistilBertConfig(
            vocab_size=VOCABULARY, dim=64, n_layers=2, n_heads=4, hidden_dim=128))), token_input),
        "hf_roberta": lambda: (Field(T.RobertaModel(T.RobertaConfig(vocab_size=VOCABULARY, **encoder))), token_input),
        "hf_albert": lambda: (Field(T.AlbertModel(T.AlbertConfig(vocab_size=VOCABULARY, embedding_size=32, **encoder))),
                              token_input),
        "hf_deberta_v2": lambda: (Field(T.DebertaV2Model(T.DebertaV2Config(vocab_size=VOCABULARY, **encoder))),
                                  token_input),
        "hf_llama": lambda: (Field(T.LlamaForCausalLM(T.LlamaConfig(**causal)), "logits", use_cache=False), token_input),
        "hf_qwen2": lambda: (Field(T.Qwen2ForCausalLM(T.Qwen2Config(**causal)), "logits", use_cache=False), token_input),
        "hf_phi": lambda: (Field(T.PhiForCausalLM(T.PhiConfig(vocab_size=VOCABULARY, **encoder)), "logits",
                                 use_cache=False), token_input),
        "hf_bloom": lambda: (Field(T.BloomForCausalLM(T.BloomConfig(vocab_size=VOCABULARY, hidden_size=64, n_layer=2,
                                                                    n_head=4)), "logits", use_cache=False), token_input),
        # Token mixing by the real part of a 2-D FFT, fftn(x).real.
        "hf_fnet": lambda: (Field(T.FNetModel(T.FNetConfig(vocab_size=VOCABULARY, hidden_size=64, num_hidden_layers=2,
                                                           intermediate_size=128, use_tpu_fourier_optimizations=False))),
                            token_input),
        "hf_vit": lambda: (Field(T.ViTModel(T.ViTConfig(**vision))), image_input()),
        "hf_beit": lambda: (Field(T.BeitModel(T.BeitConfig(use_relative_position_bias=True, **vision))), image_input()),
        "hf_clip_vision": lambda: (Field(T.CLIPVisionModel(T.CLIPVisionConfig(**vision))), image_input()),
        "hf_dinov2": lambda: (Field(T.Dinov2Model(T.Dinov2Config(**vision))), image_input()),
        "hf_convnextv2": lambda: (Field(T.ConvNextV2Model(T.ConvNextV2Config(hidden_sizes=[32, 64, 128, 256],
                                                                             depths=[1, 1, 2, 1]))), image_input()),
        "hf_mobilenet_v2": lambda: (Field(T.MobileNetV2Model(T.MobileNetV2Config(image_size=IMAGE))), image_input()),
        "hf_mobilevit": lambda: (Field(T.MobileViTModel(T.MobileViTConfig(image_size=IMAGE))), image_input()),
        "hf_segformer": lambda: (Field(T.SegformerModel(T.SegformerConfig(
            hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1], num_attention_heads=[1, 2, 2, 4]))), image_input()),
        "hf_poolformer": lambda: (Field(T.PoolFormerModel(T.PoolFormerConfig(hidden_sizes=[32, 64, 128, 256],
                                                                             depths=[1, 1, 2, 1]))), image_input()),
        "hf_levit": lambda: (Field(T.LevitModel(T.LevitConfig(image_size=IMAGE))), image_input()),
        "hf_swin": lambda: (Field(T.SwinModel(T.SwinConfig(image_size=IMAGE, patch_size=4, embed_dim=32, depths=[1, 1],
                                                           num_heads=[2, 4], window_size=4))), image_input()),
        "hf_whisper_encoder": lambda: (Field(T.WhisperModel(T.WhisperConfig(
            vocab_size=VOCABULARY, d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
            decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, num_mel_bins=16,
            max_source_positions=50, pad_token_id=0, decoder_start_token_id=1, bos_token_id=1,
            eos_token_id=2)).get_encoder()), sequence_input(16, 100)),
        "hf_wav2vec2": lambda: (Field(T.Wav2Vec2Model(T.Wav2Vec2Config(
            conv_dim=(32, 32, 32), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16,
            num_conv_pos_embedding_groups=4, **encoder))), lambda batch, seed=1: (
                torch.randn(batch, 4000, generator=torch.Generator().manual_seed(seed)),)),
    }
    return builders[name]()


# ---- networks written here ----

def conv_norm_silu(c_in, c_out, groups=4):
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.GroupNorm(groups, c_out), nn.SiLU())


class UNet(nn.Module):
    """Two levels down and up: group norms, a transposed convolution and a
    bilinear upsampling, skip joins, and the result times the image's channel
    mean (a mask broadcast over the channels)."""

    def __init__(self):
        super().__init__()
        self.down1, self.down2, self.bottom = conv_norm_silu(3, 16), conv_norm_silu(16, 32), conv_norm_silu(32, 64)
        self.up2, self.dec2 = nn.ConvTranspose2d(64, 32, 2, 2), conv_norm_silu(64, 32)
        self.up1, self.dec1 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False), conv_norm_silu(48, 16)
        self.head = nn.Conv2d(16, 2, 1)

    def forward(self, x):
        a = self.down1(x)
        b = self.down2(F.max_pool2d(a, 2))
        c = self.bottom(F.max_pool2d(b, 2))
        b = self.dec2(torch.cat([self.up2(c), b], 1))
        a = self.dec1(torch.cat([self.up1(b), a], 1))
        return torch.sigmoid(self.head(a)) * x.mean(1, keepdim=True)


class SuperResolution(nn.Module):
    """ESPCN's shape: convolutions, a PReLU and a tanh, then a pixel shuffle."""

    def __init__(self, scale=3):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 32, 5, padding=2), nn.Conv2d(32, 32, 3, padding=1)
        self.c, self.act = nn.Conv2d(32, 3 * scale * scale, 3, padding=1), nn.PReLU()
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, x):
        return self.shuffle(self.c(torch.tanh(self.b(self.act(self.a(x))))))


class TemporalConvolutions(nn.Module):
    """Dilated 1-D convolutions with residuals, a batch norm and a softmax over channels."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Conv1d(32 if i else 16, 32, 3, padding=2 ** i, dilation=2 ** i) for i in range(5)])
        self.norm = nn.BatchNorm1d(32)

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = F.gelu(layer(x)) + (x if i else 0)
        return self.norm(x).transpose(1, 2).softmax(-1)


class Recurrent(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.rnn, self.out = getattr(nn, kind)(32, 64, num_layers=2, batch_first=True), nn.Linear(64, 10)

    def forward(self, x):
        return self.out(self.rnn(x)[0])


class SpatialTransformer(nn.Module):
    """An affine grid from the pooled image, the image sampled on it, then a convolution."""

    def __init__(self):
        super().__init__()
        self.locate, self.conv = nn.Linear(3 * 16 * 16, 6), nn.Conv2d(3, 8, 3)
        self.register_buffer("identity", torch.tensor([[1.0, 0, 0], [0, 1, 0]]))

    def forward(self, x):
        theta = self.locate(F.adaptive_avg_pool2d(x, 16).flatten(1)).view(-1, 2, 3) * 0.1 + self.identity
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)
        return self.conv(F.grid_sample(x, grid, align_corners=False))


class DetectionHead(nn.Module):
    """A YOLO-like backbone, SPP-style pooling and a head decoded into boxes."""

    def __init__(self):
        super().__init__()

        def block(c_in, c_out, k=3, stride=1):
            return nn.Sequential(nn.Conv2d(c_in, c_out, k, stride, k // 2, bias=False), nn.BatchNorm2d(c_out), nn.SiLU())

        self.backbone = nn.Sequential(block(3, 16, 3, 2), block(16, 32, 3, 2), block(32, 32), block(32, 64, 3, 2),
                                      block(64, 64))
        self.spp, self.head = block(256, 64, 1), nn.Conv2d(64, 3 * 9, 1)

    def forward(self, x):
        x = self.backbone(x)
        pooled = [x]
        for _ in range(3):
            pooled.append(F.max_pool2d(pooled[-1], 5, 1, 2))
        y = self.head(self.spp(torch.cat(pooled, 1)))
        n, _, h, w = y.shape
        y = y.view(n, 3, 9, h, w).permute(0, 1, 3, 4, 2).sigmoid()
        return torch.cat([y[..., :2] * 2 - 0.5, (y[..., 2:4] * 2) ** 2, y[..., 4:]], -1)


MODELS = {
    "unet": lambda: (UNet(), image_input()),
    "super_resolution": lambda: (SuperResolution(), image_input()),
    "temporal_convolutions": lambda: (TemporalConvolutions(), sequence_input(16, 100)),
    "lstm": lambda: (Recurrent("LSTM"), sequence_input(32, 20, channels_first=False)),
    "gru": lambda: (Recurrent("GRU"), sequence_input(32, 20, channels_first=False)),
    "spatial_transformer": lambda: (SpatialTransformer(), image_input()),
    "detection_head": lambda: (DetectionHead(), image_input()),
}
for _name in ["hf_distilbert", "hf_roberta", "hf_albert", "hf_deberta_v2", "hf_llama", "hf_qwen2", "hf_phi",
              "hf_bloom", "hf_fnet", "hf_vit", "hf_beit", "hf_clip_vision", "hf_dinov2", "hf_convnextv2", "hf_mobilenet_v2",
              "hf_mobilevit", "hf_segformer", "hf_poolformer", "hf_levit", "hf_swin", "hf_whisper_encoder",
              "hf_wav2vec2"]:
    MODELS[_name] = (lambda name: lambda: hugging_face(name))(_name)
NAMES = list(MODELS)

# Models whose own initialization stays: LeViT's batch norms after every
# linear, calibrated on random batches, grow its output to 1e18.
KEEP_WEIGHTS = {"hf_levit"}
