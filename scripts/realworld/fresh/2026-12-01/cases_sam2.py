"""sam2 1.1.0 (SAM 2) as `graphbreak check` cases (random weights, Hiera configs shipped in the package).

Models are built with the library's own `build_sam2(config, ckpt_path=None)` (no checkpoint). Encoder and
tracking cases use 256 px (`++model.image_size=256` and the memory-attention RoPE sizes to match) so CPU
runs are quick; the image-predictor cases keep 1024 px, the size `SAM2ImagePredictor` hard-codes.
What users compile is what the library's own VOS predictor compiles (`image_encoder`, `memory_encoder`,
`memory_attention`, `sam_prompt_encoder`, `sam_mask_decoder`), `forward_image` / `track_step` of the model,
and `SAM2ImagePredictor._predict` (prompts → masks for a set image).
"""

import numpy as np
import torch
import torch.nn.functional as F
from sam2.build_sam import build_sam2
from sam2.sam2_image_predictor import SAM2ImagePredictor

CONFIGS = {
    "t": "configs/sam2.1/sam2.1_hiera_t.yaml",
    "s": "configs/sam2.1/sam2.1_hiera_s.yaml",
    "t20": "configs/sam2/sam2_hiera_t.yaml",
}
SMALL = [
    "++model.image_size=256",
    "++model.memory_attention.layer.self_attention.feat_sizes=[16,16]",
    "++model.memory_attention.layer.cross_attention.feat_sizes=[16,16]",
]


def _model(cfg="t", size=256, train=False):
    torch.manual_seed(0)
    overrides = SMALL if size == 256 else []
    return build_sam2(CONFIGS[cfg], ckpt_path=None, device="cpu", mode="train" if train else "eval",
                      hydra_overrides_extra=overrides)


def _image(size=256, batch=1):
    return torch.randn(batch, 3, size, size)


def case_forward_image(cfg="t", train=False):
    model = _model(cfg, train=train)
    case = {"model": model.forward_image, "args": (_image(),)}
    if train:
        case["loss"] = lambda out: sum(x.float().pow(2).mean() for x in out["backbone_fpn"])
    return case


def case_image_encoder(cfg="t"):
    model = _model(cfg)
    return {"model": model.image_encoder, "args": (_image(),)}


def _frame_features(model, image):
    backbone_out = model.forward_image(image)
    _, feats, pos, sizes = model._prepare_backbone_features(backbone_out)
    return feats, pos, sizes


def _points():
    return {"point_coords": torch.tensor([[[50.0, 60.0], [150.0, 100.0]]]), "point_labels": torch.tensor([[1, 0]], dtype=torch.int32)}


class _TrackStep(torch.nn.Module):
    """One frame of video tracking, as SAM2VideoPredictor._run_single_frame_inference calls the model."""

    def __init__(self, model, output_dict, frame_idx, is_init, num_frames, feat_sizes):
        super().__init__()
        self.model = model
        self.output_dict = output_dict
        self.frame_idx = frame_idx
        self.is_init = is_init
        self.num_frames = num_frames
        self.feat_sizes = feat_sizes

    def forward(self, feats, pos, point_coords, point_labels):
        point_inputs = None if point_coords is None else {"point_coords": point_coords, "point_labels": point_labels}
        out = self.model.track_step(
            frame_idx=self.frame_idx,
            is_init_cond_frame=self.is_init,
            current_vision_feats=feats,
            current_vision_pos_embeds=pos,
            feat_sizes=self.feat_sizes,
            point_inputs=point_inputs,
            mask_inputs=None,
            output_dict=self.output_dict,
            num_frames=self.num_frames,
            track_in_reverse=False,
            run_mem_encoder=True,
        )
        return out["pred_masks"], out["obj_ptr"], out["maskmem_features"]


def case_track_step(frame="first", train=False):
    model = _model("t", train=train)
    output_dict = {"cond_frame_outputs": {}, "non_cond_frame_outputs": {}}
    with torch.no_grad():
        feats0, pos0, sizes = _frame_features(model, _image())
    pts = _points()
    if frame == "first":
        step = _TrackStep(model, output_dict, 0, True, 4, sizes)
        args = ([f.detach() for f in feats0], [p.detach() for p in pos0], pts["point_coords"], pts["point_labels"])
    else:
        with torch.no_grad():
            first = model.track_step(0, True, feats0, pos0, sizes, pts, None, output_dict, 4, run_mem_encoder=True)
        output_dict["cond_frame_outputs"][0] = first
        with torch.no_grad():
            feats1, pos1, _ = _frame_features(model, _image())
        step = _TrackStep(model, output_dict, 1, False, 4, sizes)
        args = ([f.detach() for f in feats1], [p.detach() for p in pos1], None, None)
    case = {"model": step, "args": args}
    if train:
        target = (torch.rand(1, 1, 64, 64) > 0.5).float()
        case["loss"] = lambda out: F.binary_cross_entropy_with_logits(out[0], target) + out[1].pow(2).mean()
    return case


def case_memory_encoder(train=False):
    model = _model("t", train=train)
    pix_feat = torch.randn(1, 256, 16, 16)
    masks = torch.randn(1, 1, 256, 256)
    case = {"model": model.memory_encoder, "args": (pix_feat, masks), "kwargs": {"skip_mask_sigmoid": False}}
    if train:
        case["loss"] = lambda out: out["vision_features"].pow(2).mean()
    return case


def case_memory_attention(obj_ptrs=0, train=False):
    model = _model("t", train=train)
    curr = [torch.randn(16 * 16, 1, 256)]
    curr_pos = [torch.randn(16 * 16, 1, 256)]
    n_mem = 2 * 16 * 16 + obj_ptrs
    memory = torch.randn(n_mem, 1, 64)
    memory_pos = torch.randn(n_mem, 1, 64)
    case = {
        "model": model.memory_attention,
        "args": (curr, memory, curr_pos, memory_pos),
        "kwargs": {"num_obj_ptr_tokens": obj_ptrs},
    }
    if train:
        case["loss"] = lambda out: out.pow(2).mean()
    return case


def case_prompt_encoder(prompt="points"):
    model = _model("t")
    pts = _points()
    kwargs = {"points": (pts["point_coords"], pts["point_labels"]), "boxes": None, "masks": None}
    if prompt == "boxes":
        kwargs = {"points": None, "boxes": torch.tensor([[10.0, 20.0, 150.0, 200.0]]), "masks": None}
    return {"model": model.sam_prompt_encoder, "args": (), "kwargs": kwargs}


def case_mask_decoder(train=False, multimask=True):
    model = _model("t", train=train)
    pts = _points()
    sparse, dense = model.sam_prompt_encoder(points=(pts["point_coords"], pts["point_labels"]), boxes=None, masks=None)
    kwargs = {
        "image_embeddings": torch.randn(1, 256, 16, 16),
        "image_pe": model.sam_prompt_encoder.get_dense_pe().detach(),
        "sparse_prompt_embeddings": sparse.detach(),
        "dense_prompt_embeddings": dense.detach(),
        "multimask_output": multimask,
        "repeat_image": False,
        "high_res_features": [torch.randn(1, 32, 64, 64), torch.randn(1, 64, 32, 32)],
    }
    case = {"model": model.sam_mask_decoder, "args": (), "kwargs": kwargs}
    if train:
        case["loss"] = lambda out: out[0].pow(2).mean() + out[1].pow(2).mean()
    return case


def case_forward_sam_heads(multimask=True):
    model = _model("t")
    with torch.no_grad():
        feats, _, sizes = _frame_features(model, _image())
    pix = feats[-1].permute(1, 2, 0).view(1, 256, *sizes[-1])
    high = [x.permute(1, 2, 0).view(x.size(1), x.size(2), *s) for x, s in zip(feats[:-1], sizes[:-1])]

    def heads(backbone_features, high_res, coords, labels):
        return model._forward_sam_heads(
            backbone_features,
            point_inputs={"point_coords": coords, "point_labels": labels},
            high_res_features=high_res,
            multimask_output=multimask,
        )

    pts = _points()
    return {"model": heads, "args": (pix.detach(), [h.detach() for h in high], pts["point_coords"], pts["point_labels"])}


def case_image_predictor(multimask=True):
    model = _model("t", size=1024)
    predictor = SAM2ImagePredictor(model)
    predictor.set_image(np.random.RandomState(0).randint(0, 255, (400, 300, 3), dtype=np.uint8))
    coords = torch.tensor([[[0.3, 0.4], [0.6, 0.5]]]) * 1024
    labels = torch.tensor([[1, 0]], dtype=torch.int32)
    return {"model": predictor._predict, "args": (coords, labels), "kwargs": {"multimask_output": multimask}}
