"""Project helpers for the SY002 corpus. Only helpers that a compiled region reaches are reported:
positive.py's regions call the marked ones; negative.py calls `loss_for_logging` from its training
loop only, so that line stays quiet."""

import torch


def top_score(scores: torch.Tensor) -> float:
    # Reached from ScoreGate.forward (positive.py): `.item()` copies to the host and breaks the graph.
    return scores.max().item()  # expect: SY002


def count_valid(mask: torch.Tensor) -> int:
    # Reached from ScoreGate.forward: int() of a tensor is an implicit `.item()`.
    return int(mask.sum())  # expect: SY002


def top_indices(scores, k: int):
    # Reached from TopK.forward: `.tolist()` is flagged even on an unannotated value.
    return torch.argsort(scores, descending=True)[:k].tolist()  # expect: SY002


def loss_for_logging(loss: torch.Tensor) -> float:
    # Called only from negative.py's training loop: eager code, not reported.
    return loss.detach().item()
