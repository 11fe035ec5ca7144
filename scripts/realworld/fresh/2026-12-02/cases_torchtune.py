"""torchtune 0.6.1 LLM building blocks and losses as `graphbreak check` cases (random init, tiny configs).

Users build a model with a component builder (`llama3(...)`, `lora_llama3(...)`, `qwen2(...)`, `gemma(...)`,
`mistral(...)`, `phi3(...)`, `clip_vision_encoder(...)`) and, in the fine-tuning recipes with `compile: True`,
compile it (`training.compile_model`: each TransformerSelfAttentionLayer; users who compile outside the recipes
compile the whole TransformerDecoder) and the loss (`training.compile_loss`: the chunked cross-entropy's
`compute_cross_entropy`, or the whole loss module). The training step is `logits = model(tokens)` then
`loss = loss_fn(logits, labels)` and backward (the recipe's chunked logits with `set_num_output_chunks`); the
generation recipe compiles `generate_next_token` over a model with KV caches. Configs: vocab 128, 2 layers, dim 64,
sequences of 16 tokens, batch 2.
"""

import torch
import torch.nn.functional as F
from torch import nn

from torchtune.generation import generate_next_token
from torchtune.models.clip._component_builders import clip_vision_encoder
from torchtune.models.gemma._component_builders import gemma
from torchtune.models.llama3._component_builders import llama3, lora_llama3
from torchtune.models.mistral._component_builders import mistral
from torchtune.models.phi3._component_builders import phi3
from torchtune.models.qwen2._component_builders import lora_qwen2, qwen2
from torchtune.modules.loss import CEWithChunkedOutputLoss, ForwardKLWithChunkedOutputLoss

VOCAB, SEQ, BATCH = 128, 16, 2
COMMON = dict(vocab_size=VOCAB, num_layers=2, num_heads=4, num_kv_heads=2, embed_dim=64, max_seq_len=64)

BUILDERS = {
    "llama3": lambda: llama3(**COMMON, intermediate_dim=128),
    "lora_llama3": lambda: lora_llama3(lora_attn_modules=["q_proj", "v_proj", "output_proj"], apply_lora_to_mlp=True,
                                       **COMMON, intermediate_dim=128, lora_rank=4, lora_alpha=8.0, lora_dropout=0.05),
    "qwen2": lambda: qwen2(**COMMON, intermediate_dim=128, tie_word_embeddings=True),
    "lora_qwen2": lambda: lora_qwen2(lora_attn_modules=["q_proj", "k_proj", "v_proj"], **COMMON, intermediate_dim=128,
                                     lora_rank=4, lora_alpha=8.0),
    "gemma": lambda: gemma(vocab_size=VOCAB, num_layers=2, num_heads=4, head_dim=16, num_kv_heads=1, embed_dim=64,
                           intermediate_dim=128, max_seq_len=64),
    "mistral": lambda: mistral(**COMMON, intermediate_dim=128),
    "phi3": lambda: phi3(vocab_size=VOCAB, num_layers=2, num_heads=4, num_kv_heads=4, embed_dim=64,
                         intermediate_dim=128, max_seq_len=64),
}


def _tokens(seed=0):
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
    labels = torch.cat([tokens[:, 1:], torch.full((BATCH, 1), -100)], dim=1)
    return tokens, labels


def case_decoder(name="llama3", train=True):
    """The whole TransformerDecoder: logits = model(tokens); training with cross-entropy on shifted labels."""
    torch.manual_seed(0)
    model = BUILDERS[name]()
    tokens, labels = _tokens()
    case = {"model": model, "args": (tokens,)}
    if train:
        case["loss"] = lambda out: F.cross_entropy(out.reshape(-1, VOCAB), labels.reshape(-1), ignore_index=-100)
    return case


class ChunkedStep(nn.Module):
    """The full-finetune recipe's step: model.set_num_output_chunks(n); logits = model(tokens) (a list of
    chunks); loss = CEWithChunkedOutputLoss(logits, labels)."""

    def __init__(self, model, loss_fn):
        super().__init__()
        self.model = model
        self.loss_fn = loss_fn
        self.model.set_num_output_chunks(loss_fn.num_output_chunks)

    def forward(self, tokens, labels):
        return self.loss_fn(self.model(tokens), labels)


def case_chunked_ce_step(name="llama3"):
    torch.manual_seed(0)
    tokens, labels = _tokens()
    step = ChunkedStep(BUILDERS[name](), CEWithChunkedOutputLoss(num_output_chunks=4))
    return {"model": step, "args": (tokens, labels), "loss": lambda out: out}


def case_layer(name="llama3", train=True):
    """One TransformerSelfAttentionLayer, what `training.compile_model` compiles."""
    torch.manual_seed(0)
    layer = BUILDERS[name]().layers[0]
    x = torch.randn(BATCH, SEQ, 64, generator=torch.Generator().manual_seed(0))
    case = {"model": layer, "args": (x,)}
    if train:
        case["loss"] = lambda out: out.float().pow(2).mean()
    return case


def case_chunked_ce_loss():
    """What `training.compile_loss` compiles for the chunked CE: its compute_cross_entropy, called per chunk."""
    torch.manual_seed(0)
    loss_fn = CEWithChunkedOutputLoss(num_output_chunks=4)
    logits = torch.randn(BATCH * SEQ, VOCAB, generator=torch.Generator().manual_seed(0), requires_grad=True)
    _, labels = _tokens()
    return {"model": loss_fn.compute_cross_entropy, "args": (logits, labels.reshape(-1)), "loss": lambda out: out}


class DistillStep(nn.Module):
    """The knowledge-distillation recipe's step: chunked student / teacher logits, CE + forward-KL loss."""

    def __init__(self):
        super().__init__()
        self.student = BUILDERS["qwen2"]()
        self.teacher = BUILDERS["llama3"]()
        self.student.set_num_output_chunks(4)
        self.teacher.set_num_output_chunks(4)
        self.ce = CEWithChunkedOutputLoss(num_output_chunks=4)
        self.kd = ForwardKLWithChunkedOutputLoss(num_output_chunks=4)

    def forward(self, tokens, labels):
        logits = self.student(tokens)
        with torch.no_grad():
            teacher_logits = self.teacher(tokens)
        return 0.5 * self.ce(logits, labels) + 0.5 * self.kd(logits, teacher_logits, labels)


def case_distill_step():
    torch.manual_seed(0)
    tokens, labels = _tokens()
    return {"model": DistillStep(), "args": (tokens, labels), "loss": lambda out: out}


class DecodeStep(nn.Module):
    """The generation recipe: KV caches set up, then the compiled `generate_next_token` for one new token."""

    def __init__(self, name):
        super().__init__()
        self.model = BUILDERS[name]()
        self.model.setup_caches(batch_size=BATCH, dtype=torch.float32, decoder_max_seq_len=64)

    def forward(self, input_pos, x, mask):
        self.model.reset_caches()
        return generate_next_token(self.model, input_pos, x, mask=mask, temperature=0.6, top_k=50)


def case_decode(name="llama3"):
    torch.manual_seed(0)
    tokens, _ = _tokens()
    input_pos = torch.arange(SEQ).unsqueeze(0).expand(BATCH, -1)
    mask = torch.tril(torch.ones(SEQ, 64, dtype=torch.bool)).unsqueeze(0).expand(BATCH, -1, -1)
    return {"model": DecodeStep(name), "args": (input_pos, tokens, mask)}


def case_clip_vision_encoder():
    """Eval: the CLIP vision encoder of the multimodal models (tiles of 32 px, patches of 8)."""
    torch.manual_seed(0)
    model = clip_vision_encoder(tile_size=32, patch_size=8, embed_dim=64, num_layers=2, num_heads=4,
                                max_num_tiles=2, out_indices=[1])
    images = torch.randn(BATCH, 1, 2, 3, 32, 32, generator=torch.Generator().manual_seed(0))
    aspect_ratio = torch.tensor([[[1, 2]]] * BATCH)
    return {"model": model, "args": (images, aspect_ratio)}
