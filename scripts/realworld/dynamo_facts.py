#!/usr/bin/env python3
"""The Dynamo facts the judged precision samples rely on, as minimal repros (docs/real-code-precision.md).

Each case is compiled with `torch._dynamo.explain` (no backend compile, CPU) and its graph and break counts are
checked against what the verdicts in docs/judged/ assume. Exit status 1 if any fact does not hold on the installed
torch, so a verdict that rests on it must be re-judged.

Usage: /work/main/.venv/bin/python scripts/realworld/dynamo_facts.py
"""

from __future__ import annotations

import sys

import numpy as np
import torch
import torch._dynamo as dynamo


def host_shape_tensor_tolist(x):
    # diffusers transformer_wan_animate_2.py:833/931: grid sizes built on the host from shapes
    grid = torch.stack([torch.tensor(u.shape[1:], dtype=torch.long) for u in x])
    out = [v[0] for v in grid.tolist()]
    return x[0] * out[0]


def host_rand_branch(x):
    # transformers layerdrop: dropout_probability = torch.rand([]); if dropout_probability < p
    if torch.rand([]) < 0.5:
        return x + 1
    return x - 1


class BranchInLoop(torch.nn.Module):
    # torchvision detection degenerate-box check / layerdrop: a data-dependent branch inside a for loop
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])

    def forward(self, x):
        x = x * 2
        for layer in self.layers:
            if x.sum() > 0:
                x = layer(x)
        return x.relu()


def raise_only_branch(x, d):
    # diffusers transformer_cosmos3.py:217: the condition of a raise-only branch is still evaluated
    if torch.any((d < 0) | (d >= 5)):
        raise ValueError(f"bad {d.tolist()}")
    return x + 1


def tensor_assert(x):
    # `assert tensor_cond` becomes an async assert: no break
    assert (x > -100).all(), "neg"
    return x + 1


def numpy_item(x):
    # transformers _compute_mask_indices: epsilon = np.random.rand(1).item()
    eps = np.random.rand(1).item()
    return x + eps


def numpy_branch(x):
    # transformers _compute_mask_indices: if spec_aug_mask_idxs.max() > sequence_length - 1
    idx = np.arange(5) + 2
    if idx.max() > 3:
        idx[idx > 3] = 3
    return x + 1, idx


def cpu_numpy(x, idx):
    # diffusers transformer_hidream_image.py:389: .cpu().numpy() is traced
    t = (idx * 2).cpu().numpy().cumsum(0)
    return x + 1, t


# (name, fn, args, expected graph count or None, expected break count)
CASES = [
    ("host-built shape tensor .tolist() breaks", host_shape_tensor_tolist, (torch.ones(2, 3, 4),), None, 1),
    ("torch.rand([]) < p branch breaks", host_rand_branch, (torch.ones(3),), None, 1),
    ("branch inside a for loop: whole frame skipped (0 graphs)", BranchInLoop(), (torch.ones(2, 4),), 0, None),
    ("condition of a raise-only branch breaks", raise_only_branch, (torch.ones(3), torch.tensor([1, 2])), 2, 1),
    ("assert on a tensor does not break", tensor_assert, (torch.ones(3),), 1, 0),
    ("numpy .item() breaks", numpy_item, (torch.ones(3),), None, 1),
    ("numpy-valued branch breaks", numpy_branch, (torch.ones(3),), None, 1),
    (".cpu().numpy() does not break", cpu_numpy, (torch.ones(3), torch.tensor([0, 1, 1, 2])), 1, 0),
]


def main() -> int:
    print(f"torch {torch.__version__}")
    failed = 0
    for name, fn, args, graphs, breaks in CASES:
        dynamo.reset()
        ex = dynamo.explain(fn)(*args)
        got_graphs, got_breaks = ex.graph_count, ex.graph_break_count
        ok = (graphs is None or got_graphs == graphs) and (breaks is None or got_breaks == breaks)
        failed += not ok
        reasons = "; ".join(str(b.reason).splitlines()[0][:70] for b in ex.break_reasons)
        print(f"{'ok  ' if ok else 'FAIL'} {name}: graphs={got_graphs} breaks={got_breaks} {reasons}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
