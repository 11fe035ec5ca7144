"""Hugging Face transformers models from tiny random configs (no hub access) as `graphbreak check` cases.
Models that take labels compute their own loss: the case's `loss` just picks it from the output."""

import torch
import transformers


def pick_loss(output):
    return output.loss


def token_ids(vocab, batch=2, length=16):
    generator = torch.Generator().manual_seed(0)
    return torch.randint(4, vocab, (batch, length), generator=generator)


def case_bert(train=False):
    config = transformers.BertConfig(
        vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
        max_position_embeddings=64,
    )
    torch.manual_seed(0)
    model = transformers.BertForSequenceClassification(config)
    ids = token_ids(config.vocab_size)
    kwargs = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    case = {"model": model, "kwargs": kwargs, "compile": {"backend": "eager"}}
    if train:
        kwargs["labels"] = torch.tensor([0, 1])
        case["loss"] = pick_loss
    return case


def case_gpt2(train=False):
    config = transformers.GPT2Config(vocab_size=128, n_positions=64, n_embd=32, n_layer=2, n_head=4, bos_token_id=1, eos_token_id=2)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(config)
    ids = token_ids(config.vocab_size)
    kwargs = {"input_ids": ids}
    case = {"model": model, "kwargs": kwargs, "compile": {"backend": "eager"}}
    if train:
        kwargs["labels"] = ids
        case["loss"] = pick_loss
    return case


def case_t5(train=False):
    config = transformers.T5Config(
        vocab_size=128, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4, decoder_start_token_id=0,
    )
    torch.manual_seed(0)
    model = transformers.T5ForConditionalGeneration(config)
    ids = token_ids(config.vocab_size)
    kwargs = {"input_ids": ids, "labels": token_ids(config.vocab_size, length=8)}
    case = {"model": model, "kwargs": kwargs, "compile": {"backend": "eager"}}
    if train:
        case["loss"] = pick_loss
    return case


def case_llama(train=False):
    config = transformers.LlamaConfig(
        vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=64,
    )
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(config)
    ids = token_ids(config.vocab_size)
    kwargs = {"input_ids": ids}
    case = {"model": model, "kwargs": kwargs, "compile": {"backend": "eager"}}
    if train:
        kwargs["labels"] = ids
        case["loss"] = pick_loss
    return case


def case_detr(train=True):
    """DETR with a random-init ResNet backbone (use_pretrained_backbone=False, no timm weights) and labels,
    so the forward runs the Hungarian matcher (scipy) and the set loss."""
    config = transformers.DetrConfig(
        use_timm_backbone=False, use_pretrained_backbone=False, backbone="resnet18",
        backbone_config=transformers.ResNetConfig(
            embedding_size=16, hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1],
            out_features=["stage4"],
        ),
        d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4, decoder_attention_heads=4,
        encoder_ffn_dim=64, decoder_ffn_dim=64, num_queries=10, num_labels=5,
    )
    torch.manual_seed(0)
    model = transformers.DetrForObjectDetection(config)
    pixels = torch.rand(2, 3, 128, 128)
    kwargs = {"pixel_values": pixels}
    case = {"model": model, "kwargs": kwargs, "compile": {"backend": "eager"}}
    if train:
        kwargs["labels"] = [
            {"class_labels": torch.tensor([1, 2]), "boxes": torch.tensor([[0.3, 0.3, 0.2, 0.2], [0.6, 0.5, 0.3, 0.4]])},
            {"class_labels": torch.tensor([3]), "boxes": torch.tensor([[0.5, 0.5, 0.4, 0.4]])},
        ]
        case["loss"] = pick_loss
    return case
