"""segment-anything 1.0 (SAM) as `graphbreak check` cases (random weights, a small ViT at 256 px).

The model is assembled exactly as `segment_anything.build_sam._build_sam` does, with a smaller encoder and
image size so CPU runs are quick. Users compile `sam.image_encoder` (the expensive part), the prompt
encoder + mask decoder (`SamPredictor.predict_torch`), `Sam.forward` on batched prompts, and fine-tune the
mask decoder (MedSAM-style: frozen encoder optional, box prompts, BCE on the low-res masks).
"""

from functools import partial

import numpy as np
import torch
import torch.nn.functional as F
from segment_anything import SamPredictor
from segment_anything.modeling import ImageEncoderViT, MaskDecoder, PromptEncoder, Sam, TwoWayTransformer

IMAGE = 256
PATCH = 16
EMBED = IMAGE // PATCH
PROMPT_DIM = 64


def _sam(rel_pos=True):
    torch.manual_seed(0)
    sam = Sam(
        image_encoder=ImageEncoderViT(
            depth=4,
            embed_dim=96,
            img_size=IMAGE,
            mlp_ratio=4,
            norm_layer=partial(torch.nn.LayerNorm, eps=1e-6),
            num_heads=4,
            patch_size=PATCH,
            qkv_bias=True,
            use_rel_pos=rel_pos,
            global_attn_indexes=[1, 3],
            window_size=7,
            out_chans=PROMPT_DIM,
        ),
        prompt_encoder=PromptEncoder(
            embed_dim=PROMPT_DIM,
            image_embedding_size=(EMBED, EMBED),
            input_image_size=(IMAGE, IMAGE),
            mask_in_chans=16,
        ),
        mask_decoder=MaskDecoder(
            num_multimask_outputs=3,
            transformer=TwoWayTransformer(depth=2, embedding_dim=PROMPT_DIM, mlp_dim=256, num_heads=4),
            transformer_dim=PROMPT_DIM,
            iou_head_depth=3,
            iou_head_hidden_dim=64,
        ),
        pixel_mean=[123.675, 116.28, 103.53],
        pixel_std=[58.395, 57.12, 57.375],
    )
    return sam.eval()


def case_image_encoder(train=False, rel_pos=True):
    sam = _sam(rel_pos=rel_pos)
    case = {"model": sam.image_encoder, "args": (torch.randn(1, 3, IMAGE, IMAGE),)}
    if train:
        case["loss"] = lambda emb: emb.pow(2).mean()
    return case


def case_prompt_encoder(prompt="points"):
    sam = _sam()
    points = (torch.rand(2, 3, 2) * IMAGE, torch.tensor([[1, 0, 1], [1, 1, -1]]))
    boxes = torch.tensor([[10.0, 20.0, 120.0, 200.0], [0.0, 0.0, 64.0, 64.0]])
    masks = torch.randn(2, 1, 4 * EMBED, 4 * EMBED)
    kwargs = {"points": None, "boxes": None, "masks": None}
    if prompt == "points":
        kwargs["points"] = points
    elif prompt == "boxes":
        kwargs["boxes"] = boxes
    else:
        kwargs.update(points=points, masks=masks)
    return {"model": sam.prompt_encoder, "args": (), "kwargs": kwargs}


def case_mask_decoder(train=False, multimask=True):
    sam = _sam()
    emb = torch.randn(1, PROMPT_DIM, EMBED, EMBED)
    sparse, dense = sam.prompt_encoder(points=(torch.rand(1, 2, 2) * IMAGE, torch.tensor([[1, 0]])), boxes=None, masks=None)
    kwargs = {
        "image_embeddings": emb,
        "image_pe": sam.prompt_encoder.get_dense_pe().detach(),
        "sparse_prompt_embeddings": sparse.detach(),
        "dense_prompt_embeddings": dense.detach(),
        "multimask_output": multimask,
    }
    case = {"model": sam.mask_decoder, "args": (), "kwargs": kwargs}
    if train:
        target = (torch.rand(1, 3 if multimask else 1, 4 * EMBED, 4 * EMBED) > 0.5).float()
        case["loss"] = lambda out: F.binary_cross_entropy_with_logits(out[0], target) + out[1].pow(2).mean()
    return case


def case_sam_batched(multimask=True):
    sam = _sam()
    batched = [
        {
            "image": torch.randint(0, 255, (3, IMAGE, 200)).float(),
            "original_size": (400, 320),
            "point_coords": torch.rand(1, 2, 2) * 200,
            "point_labels": torch.tensor([[1, 0]]),
        },
        {
            "image": torch.randint(0, 255, (3, IMAGE, IMAGE)).float(),
            "original_size": (IMAGE, IMAGE),
            "boxes": torch.tensor([[5.0, 5.0, 100.0, 150.0]]),
        },
    ]
    return {"model": sam, "args": (batched, multimask)}


def case_predictor_predict_torch(multimask=True):
    sam = _sam()
    predictor = SamPredictor(sam)
    predictor.set_image(np.random.RandomState(0).randint(0, 255, (300, 200, 3), dtype=np.uint8))
    coords = torch.as_tensor(predictor.transform.apply_coords(np.array([[50.0, 60.0], [120.0, 80.0]]), (300, 200)))
    return {
        "model": predictor.predict_torch,
        "args": (coords[None].float(), torch.tensor([[1, 0]])),
        "kwargs": {"multimask_output": multimask},
    }


def case_predictor_set_torch_image():
    sam = _sam()
    predictor = SamPredictor(sam)
    image = torch.randint(0, 255, (1, 3, IMAGE, 170)).float()

    def embed(img):
        predictor.set_torch_image(img, (300, 200))
        return predictor.features

    return {"model": embed, "args": (image,)}


class _FineTuneStep(torch.nn.Module):
    """Box-prompted fine-tuning forward (the common recipe: encoder, prompt encoder, mask decoder)."""

    def __init__(self, sam):
        super().__init__()
        self.sam = sam

    def forward(self, images, boxes):
        emb = self.sam.image_encoder(self.sam.preprocess(images))
        with torch.no_grad():
            sparse, dense = self.sam.prompt_encoder(points=None, boxes=boxes, masks=None)
        low_res, iou = self.sam.mask_decoder(
            image_embeddings=emb,
            image_pe=self.sam.prompt_encoder.get_dense_pe(),
            sparse_prompt_embeddings=sparse,
            dense_prompt_embeddings=dense,
            multimask_output=False,
        )
        return self.sam.postprocess_masks(low_res, (IMAGE, IMAGE), (IMAGE, IMAGE)), iou


def case_finetune_step():
    sam = _sam()
    images = torch.randint(0, 255, (1, 3, IMAGE, IMAGE)).float()
    boxes = torch.tensor([[10.0, 20.0, 120.0, 200.0]])
    target = (torch.rand(1, 1, IMAGE, IMAGE) > 0.5).float()
    return {
        "model": _FineTuneStep(sam).train(),
        "args": (images, boxes),
        "loss": lambda out: F.binary_cross_entropy_with_logits(out[0], target),
    }


def case_two_way_transformer(train=False):
    torch.manual_seed(0)
    model = TwoWayTransformer(depth=2, embedding_dim=PROMPT_DIM, mlp_dim=256, num_heads=4)
    args = (torch.randn(2, PROMPT_DIM, EMBED, EMBED), torch.randn(1, PROMPT_DIM, EMBED, EMBED), torch.randn(2, 7, PROMPT_DIM))
    case = {"model": model, "args": args}
    if train:
        case["loss"] = lambda out: out[0].pow(2).mean() + out[1].pow(2).mean()
    return case
