"""BR003 positives: ops with data-dependent output shapes inside compiled regions.

Why: Dynamo cannot give their result a static shape. Measured on torch 2.11 (backend="eager"): each
case breaks the graph with GB0036 "Dynamic shape operator" (one_hot without num_classes: GB0246),
and with capture_dynamic_output_shape_ops=True every case but one_hot, lstsq and ctc_loss (no meta
kernel: GB0037) compiles without a break.
"""

from typing import Optional

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class ScoreFilter(nn.Module):
    def __init__(self, threshold: float = 0.5):
        super().__init__()
        self.threshold = threshold

    def forward(self, boxes: torch.Tensor, logits: torch.Tensor):
        scores = logits.sigmoid()
        keep = scores > self.threshold
        return boxes[keep], scores[keep]  # expect: BR003


class PositiveAnchors(nn.Module):
    def forward(self, anchors, labels):
        # `labels` is unannotated: the mask is known from the comparison on the indexed array.
        positive = anchors[anchors[:, 2] > 0]  # expect: BR003
        idx = torch.where(labels > 0)[0]  # expect: BR003
        return positive.sum() + idx.sum()


@torch.compile
def per_class_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    total = logits.new_zeros(())
    for c in torch.unique(labels):  # expect: BR003
        total = total + logits[:, c].mean()
    return total


@torch.compile
def valid_values(x: torch.Tensor) -> torch.Tensor:
    finite = torch.isfinite(x) & (x != 0)
    return torch.masked_select(x, finite)  # expect: BR003


@torch.compile
def nonzero_rows(x: torch.Tensor) -> torch.Tensor:
    return x.nonzero()  # expect: BR003


@torch.compile
def nonzero_as_list(x: torch.Tensor) -> list:
    # One statement, two codes (BR003 for `.nonzero()`, SY002 for `.tolist()`): one finding, BR003
    # (break before sync), whose message names SY002 (`scan/merge.rs`). Not in `cases()`: the
    # `.tolist()` adds its own break (GB0033), proved in tests/python/test_recall_proofs.py.
    return x.nonzero().tolist()  # expect: BR003 +SY002


@torch.compile
def expand_by_counts(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    return torch.repeat_interleave(x, counts)  # expect: BR003


@torch.compile
def onehot_targets(labels: torch.Tensor) -> torch.Tensor:
    return F.one_hot(labels).float()  # expect: BR003


@torch.compile
def least_squares_fit(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # The solution's shape is static, but the op's other outputs (rank, singular values) are
    # sized by the driver at run time: torch tags it dynamic_output_shape and has no meta kernel.
    return torch.linalg.lstsq(a * 2, b).solution  # expect: BR003


@torch.compile
def alignment_loss(logits, targets, input_lengths, target_lengths):
    log_probs = logits.log_softmax(-1)
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths)  # expect: BR003


@torch.compile
def suppress(boxes: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    from torchvision.ops import nms

    return nms(boxes, scores, 0.5)  # expect: BR003


def with_input_hook(module_class):
    """A class decorator that wraps `forward` and still calls the original: the class's own
    `forward` is what runs."""
    original_forward = module_class.forward

    def forward(self, x):
        return original_forward(self, x + 0)

    module_class.forward = forward
    return module_class


@with_input_hook
class HookedSelector(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.nonzero()  # expect: BR003


class MaskedAccumulate(nn.Module):
    def forward(self, embedding, labels, offset):
        labels = torch.cat([labels, labels], dim=1)
        embedding = embedding.clone()
        # `+=` through a mask reads `embedding[mask]` first: the dynamic-shape read.
        embedding[labels == -1] += offset  # expect: BR003
        return embedding


@torch.compile
def stable_ratio(num, den):
    # The mask reaches the index through two locals: `cond` from `num_ok & den_ok`.
    num_ok = ~torch.isclose(num, torch.zeros_like(num), atol=1e-4)
    den_ok = ~torch.isclose(den, torch.zeros_like(den), atol=1e-4)
    cond = num_ok & den_ok
    out = torch.ones_like(num)
    out[cond] = 1 - num[cond] / den[cond]  # expect: BR003
    return out


class DropTokens(nn.Module):
    """A mask built by a factory with a bool fill value (torch infers torch.bool), filled in by
    index, then inverted to keep the other columns."""

    def forward(self, x, drop):
        removed = torch.full((x.shape[1],), False, device=x.device)
        removed[drop] = True
        return x[:, ~removed]  # expect: BR003


@torch.compile
def select_flagged(x, flags):
    # A bool dtype given to a factory, and `.to(torch.bool)` of a parameter.
    keep = torch.zeros(x.shape[0], dtype=torch.bool, device=x.device)
    keep[0] = True
    return x[keep] + x[flags.to(torch.bool)].sum()  # expect: BR003


@torch.compile
def valid_boxes_of_image(labels, boxes, i: int):
    # `labels`/`boxes` are lists of tensors the model cannot see: an element compared and used
    # to index an element of another list is a boolean mask.
    valid = labels[i] > -1
    return boxes[i][valid]  # expect: BR003


@torch.compile
def select_by_host_weights(x, weights):
    # Dynamo traces numpy arrays as tensors: a numpy comparison is a boolean tensor mask.
    cond = np.asarray(weights) * 2
    return x[cond < 0]  # expect: BR003


def finite_entries(x):
    # A helper scan does not look into: its result's kind is unknown at the call site.
    return torch.isfinite(x)


class JoinedMask(nn.Module):
    """The mask is assigned on one branch of an `if`, a helper's result on the other: Dynamo
    breaks on the path that holds the comparison (a mask on any reaching path is flagged)."""

    def __init__(self, by_sign: bool = True):
        super().__init__()
        self.by_sign = by_sign

    def forward(self, x):
        if self.by_sign:
            keep = x > 0
        else:
            keep = finite_entries(x)
        return x[keep]  # expect: BR003


@torch.compile
def off_diagonal(x):
    # Any torch factory given `dtype=torch.bool` builds a mask; it breaks in any index position.
    off = ~torch.eye(x.shape[-1], dtype=torch.bool)
    return x[..., off]  # expect: BR003


@torch.compile
def kept_columns(x):
    cols = x.new_ones(x.shape[1], dtype=torch.bool)
    cols[0] = False
    return x[:, cols]  # expect: BR003


def keep_positive(x, y):
    # `x` is a parameter: the mask is a tensor mask where a call passes a tensor (below).
    mask = x > 0
    return y[mask]  # expect: BR003


@torch.compile
def keep_positive_scores(scores):
    logits = torch.sigmoid(scores) - 0.5
    return keep_positive(logits, scores)


@torch.compile
def dedup_sorted_edges(edges, as_pairs: bool = False):
    # `edges` holds a tensor after one branch and a tuple after the other: after the `if` it may
    # be either (the tuple, assigned last in source order, is not the only value that reaches).
    order = torch.argsort(edges[0])
    if not as_pairs:
        edges = edges[:, order]
    else:
        edges = (edges[0][order], edges[1][order])
    keep = torch.diff(edges[0], prepend=edges[0][:1] - 1) != 0
    if isinstance(edges, torch.Tensor):
        return edges[:, keep]  # expect: BR003
    return edges


class RepeatRows(nn.Module):
    """`counts = None` on one branch does not make `counts` a host value after it: the caller's
    tensor reaches on the other path."""

    def forward(self, x, counts: torch.Tensor):
        x = x + 1
        if counts is not None and counts.dim() != 1:
            counts = None
        if counts is None:
            return x
        return x.repeat_interleave(counts, dim=0)  # expect: BR003


def drop_masked(x, mask):
    # `mask` takes several types (the body tests it): inside the test it is a tensor where a
    # call passes one (below).
    if isinstance(mask, torch.Tensor):
        return x[mask > 0]  # expect: BR003
    return x


@torch.compile
def drop_negative_rows(x):
    return drop_masked(x, x.sum(1))


def select_edges(edge_index, edge_mask):
    # `edge_mask` is a parameter: a boolean mask where a traced call passes one (below).
    return edge_index[:, edge_mask]  # expect: BR003


class RelationEdges(nn.Module):
    def forward(self, edge_index: torch.Tensor, edge_type: torch.Tensor):
        return select_edges(edge_index * 1, edge_type == 1)


class OptionalPaddingMask(nn.Module):
    """A compiled module's input annotated `Optional[Tensor]`: a tensor whenever its user passes
    one, and then a boolean mask here."""

    def forward(self, x: torch.Tensor, padding_mask: Optional[torch.Tensor] = None):
        if padding_mask is not None:
            x = x[padding_mask.bool()]  # expect: BR003
        return x * 2


class KindsFromInputOrPair(nn.Module):
    """An input rebound on one branch only: on the other path it is still what the user passed
    (here a tensor), so the mask built from it is one."""

    def forward(self, x, kinds: Optional[torch.Tensor] = None):
        if isinstance(x, tuple):
            kinds = x[1]
            x = x[0]
        assert kinds is not None
        return x[kinds == 1]  # expect: BR003


class KindsUnpackedFromAPair(nn.Module):
    """An input that an unpacking rebinds on one branch only: on the other path it is still what
    the user passed (here a tensor), so the mask built from it is one."""

    def forward(self, x, kinds: Optional[torch.Tensor] = None):
        if isinstance(x, tuple):
            x, kinds = x
        assert kinds is not None
        return x[kinds == 1]  # expect: BR003


@torch.compile
def first_row_positives(x: torch.Tensor):
    # A view or a part of a boolean tensor is boolean: `.reshape` and `[0]` keep the dtype.
    keep = (x > 0)[0].reshape(-1)
    return x[0].reshape(-1)[keep]  # expect: BR003


def padded_with_mask(x: torch.Tensor, lengths: torch.Tensor):
    # Returns the padded rows and which of them are real: a boolean mask, built here.
    n = x.shape[0]
    mask = torch.zeros(lengths.shape[0], n, dtype=torch.bool, device=x.device)
    mask[:, :2] = True
    return x.new_zeros(lengths.shape[0], n, x.shape[1]), mask


class PaddedRows(nn.Module):
    """A mask that a project function returns, unpacked from its tuple and indexed with."""

    def forward(self, x: torch.Tensor, lengths: torch.Tensor):
        dense, mask = padded_with_mask(x, lengths)
        return dense[mask]  # expect: BR003


def padded_rows_of(x: torch.Tensor, lengths: torch.Tensor):
    # Hands back the tuple another project function returns, as it is.
    return padded_with_mask(x, lengths)


class PaddedRowsThroughAWrapper(nn.Module):
    """A mask unpacked from a tuple that a wrapper hands back from another project function."""

    def forward(self, x: torch.Tensor, lengths: torch.Tensor):
        dense, mask = padded_rows_of(x, lengths)
        return dense[mask]  # expect: BR003


def cases():
    """Entry points for the proofs: name -> (callable as written, example args)."""
    boxes = torch.rand(6, 4) * 10
    labels = torch.tensor([0, 2, 1, 2, 0, 1])
    result = {
        "mask_from_local_comparison": (ScoreFilter(), (boxes, torch.randn(6))),
        "mask_on_indexed_array_and_where": (PositiveAnchors(), (boxes - 5, labels)),
        "loop_over_unique": (per_class_loss, (torch.randn(6, 3), labels)),
        "masked_select": (valid_values, (torch.randn(8),)),
        "nonzero_method": (nonzero_rows, (torch.randn(4, 3),)),
        "repeat_interleave_tensor": (expand_by_counts, (torch.randn(3), torch.tensor([1, 0, 2]))),
        "one_hot_without_num_classes": (onehot_targets, (labels,)),
        "lstsq": (least_squares_fit, (torch.randn(5, 3), torch.randn(5, 2))),
        "ctc_loss": (
            alignment_loss,
            (torch.randn(8, 2, 5), torch.randint(1, 5, (2, 3)), torch.full((2,), 8), torch.full((2,), 3)),
        ),
        "decorator_that_calls_the_original_forward": (HookedSelector(), (torch.randn(4, 3),)),
        "augmented_assignment_through_mask": (
            MaskedAccumulate(),
            (torch.randn(2, 6, 3), torch.tensor([[0, -1, 1], [-1, 1, 0]]), torch.randn(3)),
        ),
        "mask_through_two_locals": (stable_ratio, (torch.randn(5), torch.tensor([1.0, 0.0, 2.0, 3.0, 0.0]))),
        "mask_from_bool_fill_factory": (DropTokens(), (torch.randn(2, 5), torch.tensor([1, 3]))),
        "mask_from_element_comparison_over_lists": (
            valid_boxes_of_image,
            ([torch.tensor([1, -1, 2])], [torch.randn(3, 4)], 0),
        ),
        "mask_from_numpy_comparison": (select_by_host_weights, (torch.randn(3), np.array([1.0, -1.0, 2.0]))),
        "mask_assigned_on_one_branch": (JoinedMask(), (torch.randn(4, 3),)),
        "mask_from_bool_eye_after_ellipsis": (off_diagonal, (torch.randn(2, 3, 3),)),
        "mask_from_bool_new_ones_after_slice": (kept_columns, (torch.randn(4, 3),)),
        "mask_from_a_parameter_given_a_tensor": (keep_positive_scores, (torch.randn(6),)),
        "value_joined_from_a_tensor_and_a_tuple": (dedup_sorted_edges, (torch.tensor([[2, 0, 2, 1], [1, 3, 1, 0]]),)),
        "none_on_one_path_tensor_on_the_other": (RepeatRows(), (torch.randn(3, 2), torch.tensor([1, 0, 2]))),
        "parameter_tested_as_a_tensor": (drop_negative_rows, (torch.randn(4, 3),)),
        "mask_passed_as_an_argument": (
            RelationEdges(),
            (torch.tensor([[0, 1, 2], [1, 2, 0]]), torch.tensor([1, 0, 1])),
        ),
        "mask_returned_by_a_project_function": (PaddedRows(), (torch.randn(3, 4), torch.tensor([3, 2]))),
        "mask_returned_through_a_wrapper": (
            PaddedRowsThroughAWrapper(),
            (torch.randn(3, 4), torch.tensor([3, 2])),
        ),
        "mask_reshaped_and_indexed": (first_row_positives, (torch.randn(3, 4),)),
        "optional_mask_input": (OptionalPaddingMask(), (torch.randn(3, 4), torch.tensor([1, 0, 1]))),
        "input_rebound_on_one_branch": (KindsFromInputOrPair(), (torch.randn(3, 4), torch.tensor([1, 0, 1]))),
        "input_unpacked_on_one_branch": (
            KindsUnpackedFromAPair(),
            (torch.randn(3, 4), torch.tensor([1, 0, 1])),
        ),
        "mask_from_bool_dtype_factory_and_to_bool": (
            select_flagged,
            (torch.randn(4, 3), torch.tensor([1, 0, 1, 0])),
        ),
    }
    try:
        import torchvision  # noqa: F401
    except ImportError:
        return result
    boxes[:, 2:] += boxes[:, :2]
    result["torchvision_nms"] = (suppress, (boxes, torch.rand(6)))
    return result
