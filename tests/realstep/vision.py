"""Qwen2-VL's vision encoder as a plain eager PyTorch module, for realstep.py.

The layers of transformers' modeling_qwen2_vl.py: the patch embedding (a Conv3d whose kernel is
its stride, here the same product as a Linear over each flattened 2 x 14 x 14 x 3 patch), blocks
of LayerNorm, a fused qkv with 2D rotary embeddings on q and k, attention over each image's
patches on its own (transformers' non-flash path splits the sequence by image), the output
projection and a GELU MLP, then the PatchMerger (LayerNorm, every 2 x 2 patches concatenated,
Linear, GELU, Linear to the language model's width). The rotary's cos and sin are computed once
per forward and shared by the layers, as realstep.py's decoder does.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class VisionConfig:
    def __init__(self, raw, out_hidden):
        self.layers = raw.get("depth", 32)
        self.h = raw.get("embed_dim", 1280)
        self.heads = raw.get("num_heads", 16)
        self.inner = self.h * raw.get("mlp_ratio", 4)
        self.channels = raw.get("in_chans", raw.get("in_channels", 3))
        self.patch = raw.get("patch_size", 14)
        self.merge = raw.get("spatial_merge_size", 2)
        self.temporal = raw.get("temporal_patch_size", 2)
        self.out = raw.get("hidden_size", out_hidden)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class VisionBlock(nn.Module):
    def __init__(self, c, dtype):
        super().__init__()
        self.c = c
        self.norm1 = nn.LayerNorm(c.h, eps=1e-6, dtype=dtype)
        self.norm2 = nn.LayerNorm(c.h, eps=1e-6, dtype=dtype)
        self.qkv = nn.Linear(c.h, 3 * c.h, dtype=dtype)
        self.proj = nn.Linear(c.h, c.h, dtype=dtype)
        self.fc1 = nn.Linear(c.h, c.inner, dtype=dtype)
        self.fc2 = nn.Linear(c.inner, c.h, dtype=dtype)

    def attention(self, x, images, cos, sin):
        rows, h = x.shape
        d = h // self.c.heads
        q, k, v = self.qkv(x).reshape(rows, 3, self.c.heads, d).permute(1, 0, 2, 3).unbind(0)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        # [images, heads, patches, d]: each image attends within itself.
        q, k, v = (t.reshape(images, rows // images, self.c.heads, d).transpose(1, 2)
                   for t in (q, k, v))
        probs = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(d)), -1)
        out = torch.matmul(probs, v).transpose(1, 2).reshape(rows, h)
        return self.proj(out)

    def forward(self, x, images, cos, sin):
        x = x + self.attention(self.norm1(x), images, cos, sin)
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class VisionTower(nn.Module):
    def __init__(self, c, dtype):
        super().__init__()
        self.c = c
        self.dtype = dtype
        self.embed = nn.Linear(c.channels * c.temporal * c.patch * c.patch, c.h, bias=False,
                               dtype=dtype)
        self.blocks = nn.ModuleList(VisionBlock(c, dtype) for _ in range(c.layers))
        self.ln_q = nn.LayerNorm(c.h, eps=1e-6, dtype=dtype)
        wide = c.h * c.merge * c.merge
        self.mlp = nn.Sequential(nn.Linear(wide, wide, dtype=dtype), nn.GELU(),
                                 nn.Linear(wide, c.out, dtype=dtype))

    def rotary(self, side):
        """2D rotary as Qwen2-VL's rot_pos_emb: a row and a column position per patch, patches
        ordered so that each merge window is contiguous; head_dim / 2 frequencies each."""
        c = self.c
        d = c.h // c.heads
        m = c.merge
        grid = torch.arange(side)
        hpos = grid[:, None].expand(side, side).reshape(side // m, m, side // m, m)
        wpos = grid[None, :].expand(side, side).reshape(side // m, m, side // m, m)
        hpos = hpos.permute(0, 2, 1, 3).flatten()
        wpos = wpos.permute(0, 2, 1, 3).flatten()
        inv = 1.0 / (10000.0 ** (torch.arange(0, d // 2, 2, dtype=torch.float32) / (d // 2)))
        freqs = torch.cat((torch.outer(hpos.float(), inv), torch.outer(wpos.float(), inv)), -1)
        emb = torch.cat((freqs, freqs), dim=-1)[:, None, :]
        return emb.cos().to(self.dtype), emb.sin().to(self.dtype)

    def forward(self, pixels, images, side):
        """pixels: [images x side^2, C x T x p x p]; returns [images x side^2 / m^2, out]."""
        cos, sin = self.rotary(side)
        cos, sin = cos.repeat(images, 1, 1), sin.repeat(images, 1, 1)
        x = self.embed(pixels)
        for block in self.blocks:
            x = block(x, images, cos, sin)
        x = self.ln_q(x).view(-1, self.c.h * self.c.merge * self.c.merge)
        return self.mlp(x)
