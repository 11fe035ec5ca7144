"""lightly 1.6.0 self-supervised models as `graphbreak check` cases (random init, small sizes).

Users write the model as lightly's examples do (examples/pytorch/*.py): a backbone (torchvision ResNet-18 without
its classifier) plus a lightly projection/prediction head, and a lightly loss; the training step is
`loss = criterion(model(x0), model(x1))` on two augmented views, then backward. Each case here is that training step
as one module (its forward returns the loss), built as the example builds it, on 32 px images in batches of 8 so
CPU runs are quick. Momentum updates of teacher networks (`update_momentum`) run outside the step, as in the examples;
teacher forwards run under no_grad as they do there. One eval case embeds images with the backbone + head.
"""

import copy

import torch
import torchvision
from torch import nn

from lightly.loss import (BarlowTwinsLoss, DCLLoss, DINOLoss, NegativeCosineSimilarity, NTXentLoss, SwaVLoss,
                          VICRegLoss)
from lightly.models import utils
from lightly.models.modules import (BarlowTwinsProjectionHead, BYOLPredictionHead, BYOLProjectionHead,
                                    DINOProjectionHead, MoCoProjectionHead, NNCLRPredictionHead,
                                    NNCLRProjectionHead, NNMemoryBankModule, SimCLRProjectionHead,
                                    SimSiamPredictionHead, SimSiamProjectionHead, SwaVProjectionHead, SwaVPrototypes,
                                    )
from lightly.models.modules.heads import VICRegProjectionHead
from lightly.models.modules.masked_autoencoder import MAEDecoder
from lightly.models.modules.masked_vision_transformer_torchvision import MaskedVisionTransformerTorchvision

BATCH = 8
SIZE = 32


def _backbone():
    resnet = torchvision.models.resnet18()
    return nn.Sequential(*list(resnet.children())[:-1])


def _views(n=2, size=SIZE):
    g = torch.Generator().manual_seed(0)
    return tuple(torch.randn(BATCH, 3, size, size, generator=g) for _ in range(n))


class SimCLR(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = _backbone()
        self.projection_head = SimCLRProjectionHead(512, 512, 128)
        self.criterion = NTXentLoss()

    def embed(self, x):
        return self.projection_head(self.backbone(x).flatten(start_dim=1))

    def forward(self, x0, x1):
        return self.criterion(self.embed(x0), self.embed(x1))


class DCL(SimCLR):
    def __init__(self):
        super().__init__()
        self.criterion = DCLLoss()


class MoCo(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = _backbone()
        self.projection_head = MoCoProjectionHead(512, 512, 128)
        self.backbone_momentum = copy.deepcopy(self.backbone)
        self.projection_head_momentum = copy.deepcopy(self.projection_head)
        utils.deactivate_requires_grad(self.backbone_momentum)
        utils.deactivate_requires_grad(self.projection_head_momentum)
        self.criterion = NTXentLoss(memory_bank_size=(256, 128))

    def forward(self, x_query, x_key):
        query = self.projection_head(self.backbone(x_query).flatten(start_dim=1))
        with torch.no_grad():
            key = self.projection_head_momentum(self.backbone_momentum(x_key).flatten(start_dim=1))
        return self.criterion(query, key)


class BYOL(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = _backbone()
        self.projection_head = BYOLProjectionHead(512, 256, 64)
        self.prediction_head = BYOLPredictionHead(64, 256, 64)
        self.backbone_momentum = copy.deepcopy(self.backbone)
        self.projection_head_momentum = copy.deepcopy(self.projection_head)
        utils.deactivate_requires_grad(self.backbone_momentum)
        utils.deactivate_requires_grad(self.projection_head_momentum)
        self.criterion = NegativeCosineSimilarity()

    def online(self, x):
        return self.prediction_head(self.projection_head(self.backbone(x).flatten(start_dim=1)))

    def target(self, x):
        return self.projection_head_momentum(self.backbone_momentum(x).flatten(start_dim=1)).detach()

    def forward(self, x0, x1):
        p0, p1 = self.online(x0), self.online(x1)
        z0, z1 = self.target(x0), self.target(x1)
        return 0.5 * (self.criterion(p0, z1) + self.criterion(p1, z0))


class SimSiam(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = _backbone()
        self.projection_head = SimSiamProjectionHead(512, 512, 128)
        self.prediction_head = SimSiamPredictionHead(128, 64, 128)
        self.criterion = NegativeCosineSimilarity()

    def branch(self, x):
        z = self.projection_head(self.backbone(x).flatten(start_dim=1))
        return z.detach(), self.prediction_head(z)

    def forward(self, x0, x1):
        z0, p0 = self.branch(x0)
        z1, p1 = self.branch(x1)
        return 0.5 * (self.criterion(z0, p1) + self.criterion(z1, p0))


class NNCLR(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = _backbone()
        self.projection_head = NNCLRProjectionHead(512, 512, 128)
        self.prediction_head = NNCLRPredictionHead(128, 512, 128)
        self.memory_bank = NNMemoryBankModule(size=(256, 128))
        self.criterion = NTXentLoss()

    def branch(self, x):
        z = self.projection_head(self.backbone(x).flatten(start_dim=1))
        return z.detach(), self.prediction_head(z)

    def forward(self, x0, x1):
        z0, p0 = self.branch(x0)
        z1, p1 = self.branch(x1)
        z0 = self.memory_bank(z0, update=False)
        z1 = self.memory_bank(z1, update=True)
        return 0.5 * (self.criterion(z0, p1) + self.criterion(z1, p0))


class BarlowTwins(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = _backbone()
        self.projection_head = BarlowTwinsProjectionHead(512, 256, 256)
        self.criterion = BarlowTwinsLoss()

    def forward(self, x0, x1):
        z0 = self.projection_head(self.backbone(x0).flatten(start_dim=1))
        z1 = self.projection_head(self.backbone(x1).flatten(start_dim=1))
        return self.criterion(z0, z1)


class VICReg(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = _backbone()
        self.projection_head = VICRegProjectionHead(input_dim=512, hidden_dim=256, output_dim=256, num_layers=2)
        self.criterion = VICRegLoss()

    def forward(self, x0, x1):
        z0 = self.projection_head(self.backbone(x0).flatten(start_dim=1))
        z1 = self.projection_head(self.backbone(x1).flatten(start_dim=1))
        return self.criterion(z0, z1)


class SwaV(nn.Module):
    """The SwaV example: two high-resolution and two low-resolution crops, prototypes normalized every step."""

    def __init__(self):
        super().__init__()
        self.backbone = _backbone()
        self.projection_head = SwaVProjectionHead(512, 512, 128)
        self.prototypes = SwaVPrototypes(128, n_prototypes=64)
        self.criterion = SwaVLoss()

    def branch(self, x):
        x = self.projection_head(self.backbone(x).flatten(start_dim=1))
        x = nn.functional.normalize(x, dim=1, p=2)
        return self.prototypes(x)

    def forward(self, h0, h1, l0, l1):
        self.prototypes.normalize()
        high = [self.branch(h0), self.branch(h1)]
        low = [self.branch(l0), self.branch(l1)]
        return self.criterion(high, low)


class DINO(nn.Module):
    """The DINO example: student on global + local crops, teacher (momentum copy) on global crops."""

    def __init__(self):
        super().__init__()
        self.student_backbone = _backbone()
        self.student_head = DINOProjectionHead(512, 256, 64, 128, freeze_last_layer=1)
        self.teacher_backbone = copy.deepcopy(self.student_backbone)
        self.teacher_head = DINOProjectionHead(512, 256, 64, 128)
        utils.deactivate_requires_grad(self.teacher_backbone)
        utils.deactivate_requires_grad(self.teacher_head)
        self.criterion = DINOLoss(output_dim=128, warmup_teacher_temp_epochs=5)

    def forward(self, g0, g1, l0, l1):
        views = [g0, g1, l0, l1]
        teacher_out = [self.teacher_head(self.teacher_backbone(v).flatten(start_dim=1)) for v in views[:2]]
        student_out = [self.student_head(self.student_backbone(v).flatten(start_dim=1)) for v in views]
        return self.criterion(teacher_out, student_out, epoch=0)


class MAE(nn.Module):
    """The MAE example (torchvision ViT): mask patches, encode the kept ones, decode, MSE on the masked pixels."""

    def __init__(self):
        super().__init__()
        vit = torchvision.models.VisionTransformer(image_size=SIZE, patch_size=8, num_layers=2, num_heads=4,
                                                   hidden_dim=64, mlp_dim=128)
        self.mask_ratio = 0.75
        self.patch_size = 8
        self.sequence_length = (SIZE // 8) ** 2 + 1
        self.backbone = MaskedVisionTransformerTorchvision(vit=vit)
        self.decoder = MAEDecoder(seq_length=self.sequence_length, num_layers=1, num_heads=4, embed_input_dim=64,
                                  hidden_dim=64, mlp_dim=128, out_dim=8 ** 2 * 3)
        self.mask_token = nn.Parameter(torch.zeros(1, 1, 64))
        self.criterion = nn.MSELoss()

    def forward(self, images):
        batch_size = images.shape[0]
        idx_keep, idx_mask = utils.random_token_mask(size=(batch_size, self.sequence_length),
                                                     mask_ratio=self.mask_ratio, device=images.device)
        x_encoded = self.backbone.encode(images=images, idx_keep=idx_keep)
        x_decode = self.decoder.embed(x_encoded)
        x_masked = utils.repeat_token(self.mask_token, (batch_size, self.sequence_length))
        x_masked = utils.set_at_index(x_masked, idx_keep, x_decode.type_as(x_masked))
        x_decoded = self.decoder.decode(x_masked)
        x_pred = self.decoder.predict(utils.get_at_index(x_decoded, idx_mask))
        patches = utils.patchify(images, self.patch_size)
        target = utils.get_at_index(patches, idx_mask - 1)
        return self.criterion(x_pred, target)


STEPS = {
    "simclr": (SimCLR, 2),
    "dcl": (DCL, 2),
    "moco": (MoCo, 2),
    "byol": (BYOL, 2),
    "simsiam": (SimSiam, 2),
    "nnclr": (NNCLR, 2),
    "barlow_twins": (BarlowTwins, 2),
    "vicreg": (VICReg, 2),
}


def case_train(name="simclr"):
    """Training step of a two-view method: loss = model(x0, x1); backward."""
    torch.manual_seed(0)
    cls, views = STEPS[name]
    return {"model": cls(), "args": _views(views), "loss": lambda out: out}


def case_swav():
    torch.manual_seed(0)
    high = _views(2, SIZE)
    low = _views(2, 16)
    return {"model": SwaV(), "args": high + low, "loss": lambda out: out}


def case_dino():
    torch.manual_seed(0)
    glob = _views(2, SIZE)
    local = _views(2, 16)
    return {"model": DINO(), "args": glob + local, "loss": lambda out: out}


def case_mae():
    torch.manual_seed(0)
    return {"model": MAE(), "args": _views(1), "loss": lambda out: out}


class _Embed(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model.embed(x)


def case_embed():
    """Eval: embeddings of a trained SimCLR model (backbone + projection head), as the embedding examples do."""
    torch.manual_seed(0)
    return {"model": _Embed(SimCLR()), "args": _views(1)}
