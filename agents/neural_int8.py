"""Int8 play of a trained ``SpadesPolicy`` on the CPU: the same network, its wide layers as 8-bit integer products.

A ``SpadesPolicy``'s play is bound by its torsos' matrix products (two 512 x 3 torsos for a network whose card
values read a torso of their own). ``int8_copy`` gives a copy of the network whose ``nn.Linear`` layers of at least
``MIN_INT8_WIDTH`` outputs compute in 8-bit integers (``Int8Linear``), the narrow output layers (card logits, values,
bids) staying float32, so that ``play_outputs`` and every caller run unchanged, about twice as fast:

- each weight row (output channel) is rounded to int8 with a scale of its own (``max |w| / 127``), once;
- each input row (one decision) is rounded to int8 with a scale of its own, at every call: a decision's outputs
  never depend on the other rows of the batch (a game plays the same cards in a batch of 1 or of 4096);
- ``torch._int_mm`` multiplies them exactly in int32; the product times both scales plus the float bias is the
  layer's output.

The rounding moves the outputs by about 1% of their spread, so a decision whose two best cards are that close may
flip: the int8 bot is another bot (measured against the float one in its model card, ``docs/models/``), chosen with the
bot option ``precision=int8`` (``neural``, ``learned``); float32 stays the default and plays the trained network's
actions bit for bit.
"""

from __future__ import annotations

import copy
import threading

import torch
from torch import nn

MIN_INT8_WIDTH = 128
"""Layers with fewer outputs stay float32: their product is cheap next to rounding their inputs to int8."""

PRECISIONS = ("float32", "int8")


def parse_precision(text: str | None, bot: str) -> str:
    """The ``precision`` option of a bot spec (empty or None: float32); ValueError naming the allowed values."""
    if text is None or not str(text).strip():
        return "float32"
    value = str(text).strip().lower()
    if value not in PRECISIONS:
        raise ValueError(f"bot {bot!r}: option 'precision' must be one of {', '.join(PRECISIONS)}, got {text!r}")
    return value


def quantize_rows(x: torch.Tensor, out: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, K) float -> ((B, K) int8, (B, 1) float32 scales): each row rounded on a scale of its own (max |x| / 127;
    an all-zero row gets scale 1); ``out``: a (B, K) int8 tensor to write into."""
    scale = torch.maximum(x.amax(dim=1, keepdim=True), x.amin(dim=1, keepdim=True).neg_()).div_(127.0)
    scale.masked_fill_(scale == 0, 1.0)
    scaled = (x * scale.reciprocal()).round_()
    return (scaled.to(torch.int8) if out is None else out.copy_(scaled)), scale


class Int8Linear(nn.Module):
    """An ``nn.Linear`` as an int8 product: weights per output channel, inputs per row (the module docstring).
    With ``binary_inputs`` = n, the first n inputs are 0 or 1 (an observation's 0/1 blocks): they are int8 as they
    are, exactly, and the other inputs (its real-valued blocks) are multiplied in float32."""

    def __init__(self, linear: nn.Linear, binary_inputs: int = 0) -> None:
        super().__init__()
        weight = linear.weight.detach().float()
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.binary_inputs = int(binary_inputs)
        if not 0 <= self.binary_inputs <= self.in_features:
            raise ValueError(f"binary_inputs must be in [0, {self.in_features}], got {binary_inputs}")
        n = self.binary_inputs or self.in_features
        scale = weight[:, :n].abs().amax(dim=1).div_(127.0)
        scale.masked_fill_(scale == 0, 1.0)
        self.register_buffer("weight_t", torch.round(weight[:, :n] / scale[:, None]).to(torch.int8).t())  # (n, N)
        self.register_buffer("weight_scale", scale)
        self.register_buffer("real_weight_t", weight[:, n:].t().contiguous())  # (K - n, N), float32
        bias = linear.bias.detach().float() if linear.bias is not None else torch.zeros(self.out_features)
        self.register_buffer("bias", bias.clone())
        self._held: dict[int, tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = {}  # thread -> scratch

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The layer's float32 output, in a buffer of this layer's that its next call (in this thread) overwrites:
        the int8 network is for playing, where every layer's output is read once, by the next layer."""
        shape = x.shape
        x = x.reshape(-1, self.in_features).float()
        xq, acc, out = self._scratch(len(x))
        if self.binary_inputs:
            n = self.binary_inputs
            torch._int_mm(xq.copy_(x[:, :n]), self.weight_t, out=acc)
            out.copy_(acc).mul_(self.weight_scale).add_(self.bias)
            if n < self.in_features:
                out.addmm_(x[:, n:], self.real_weight_t)
        else:
            _, x_scale = quantize_rows(x, out=xq)
            torch._int_mm(xq, self.weight_t, out=acc)
            out.copy_(acc).mul_(x_scale).mul_(self.weight_scale).add_(self.bias)
        return out.reshape(*shape[:-1], self.out_features)

    def _scratch(self, rows: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(rows, n) int8 inputs, (rows, N) int32 products and (rows, N) float32 outputs, kept per thread between
        calls of the same batch size (a fresh 8 MB tensor a layer costs as much as the product's rounding)."""
        thread = threading.get_ident()
        held = self._held.get(thread)
        if held is None or len(held[0]) != rows:
            held = (
                torch.empty(rows, self.weight_t.shape[0], dtype=torch.int8),
                torch.empty(rows, self.out_features, dtype=torch.int32),
                torch.empty(rows, self.out_features, dtype=torch.float32),
            )
            self._held[thread] = held
        return held

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, int8, binary={self.binary_inputs}"


def int8_copy(policy: nn.Module, binary_inputs: int = 0) -> nn.Module:
    """A copy of ``policy`` (unchanged) whose ``nn.Linear`` layers of >= ``MIN_INT8_WIDTH`` outputs are
    ``Int8Linear`` (and whose ReLUs work in place: playing keeps no activations); in eval mode, for the CPU
    (``torch._int_mm``'s int8 product). ``binary_inputs``: the observation's 0/1 entries at its start
    (``ObservationLayout.binary_size``), exact in the layers that read the observation (0: rounded per row)."""
    quantized = copy.deepcopy(policy).cpu().eval()
    readers = set()
    for name in ("torso", "card_value_torso", "bid_torso"):
        torso = getattr(quantized, name, None)
        if isinstance(torso, nn.Sequential) and isinstance(torso[0], nn.Linear):
            readers.add(id(torso[0]))
    _swap_linears(quantized, readers, binary_inputs)
    return quantized


def _swap_linears(module: nn.Module, readers: set[int], binary_inputs: int) -> None:
    for name, child in module.named_children():
        if isinstance(child, nn.Linear) and child.out_features >= MIN_INT8_WIDTH:
            setattr(module, name, Int8Linear(child, binary_inputs if id(child) in readers else 0))
        elif isinstance(child, nn.ReLU):
            child.inplace = True
        else:
            _swap_linears(child, readers, binary_inputs)
