//! Compiled regions follow calls into instances: `__call__` / `forward` of objects stored on `self`
//! in `__init__` or built locally, and methods of attributes whose class is known from `__init__`.
//! tests/python/test_recall_proofs.py shows Dynamo traces into the same callees.

mod common;

use std::path::Path;
use std::process::Output;

use common::{graphbreak, stdout, write};

fn scan(dir: &Path) -> Output {
    graphbreak(dir, &["scan", "--select", "SY002,BR004", "."])
}

const CALLEES: &str = "\
import torch


class Matcher:
    def __call__(self, cost):
        return cost.argmin(-1).tolist()


class Head:
    def compute_loss(self, x):
        return x.sum().item()


class Sampler:
    def sample(self, x):
        print('sampling')
        return x


class Criterion(torch.nn.Module):
    def forward(self, x):
        return float(x.mean())


class EagerOnly:
    def __call__(self, x):
        return x.max().item()
";

#[test]
fn calls_into_stored_and_local_instances_are_traced() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pkg/__init__.py", "");
    write(dir.path(), "pkg/parts.py", CALLEES);
    write(
        dir.path(),
        "pkg/model.py",
        "\
import torch

from .parts import Criterion, EagerOnly, Head, Matcher, Sampler


class Detector(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.matcher = Matcher()
        self.head = Head()
        self.criterion = Criterion()
        self.eager = EagerOnly()

    def forward(self, x):
        idx = self.matcher(x)
        loss = self.head.compute_loss(x) + self.criterion(x)
        sampler = Sampler()
        return sampler.sample(x), idx, loss

    def report(self, x):
        return self.eager(x)

",
    );
    let output = scan(dir.path());
    let text = stdout(&output);
    // Criterion is an nn.Module: with no roots set its forward is a root anyway; the other three are
    // plain classes reached only through Detector.forward.
    for expected in [
        "pkg/parts.py:6:16: SY002",
        "pkg/parts.py:11:16: SY002",
        "pkg/parts.py:16:9: BR004",
    ] {
        assert!(text.contains(expected), "missing {expected} in:\n{text}");
    }
    assert!(
        !text.contains("parts.py:27"),
        "EagerOnly is called only from eager code:\n{text}"
    );
}

#[test]
fn instance_calls_do_not_cross_disabled_methods() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "m.py",
        "\
import torch


class Matcher:
    @torch.compiler.disable
    def __call__(self, cost):
        return cost.argmin(-1).tolist()


@torch.compile
def step(x):
    matcher = Matcher()
    return matcher(x)
",
    );
    let output = scan(dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn calls_through_simple_dispatch_dicts_are_traced() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "m.py",
        "\
import torch


def l1(pred):
    return pred.abs().sum().item()


def l2(pred):
    print('l2')
    return pred.pow(2).sum()


LOSSES = {'l1': l1, 'l2': l2}


class Focal:
    def __call__(self, pred):
        return pred.max().tolist()


class Unused:
    def __call__(self, pred):
        return pred.min().item()


class Criterion(torch.nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.terms = {'focal': Focal()}

    def forward(self, pred):
        total = LOSSES[self.kind](pred)
        return total + self.terms['focal'](pred)


def eager(pred):
    return Unused()(pred)
",
    );
    let output = scan(dir.path());
    let text = stdout(&output);
    for expected in ["m.py:5:12: SY002", "m.py:9:5: BR004", "m.py:18:16: SY002"] {
        assert!(text.contains(expected), "missing {expected} in:\n{text}");
    }
    assert!(
        !text.contains("m.py:23"),
        "Unused is only called from eager code:\n{text}"
    );
}

#[test]
fn attributes_and_parameters_typed_by_annotation_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "m.py",
        "\
import copy

import torch


class Config:
    def text_config(self):
        return copy.deepcopy(self)


class Cache:
    def __init__(self, config: Config | None = None):
        self.layers = config.text_config()


class Model(torch.nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.config = config

    def forward(self, x):
        cache = Cache(config=self.config)
        return x * 2, self.config.text_config()
",
    );
    let output = scan(dir.path());
    let text = stdout(&output);
    // Config.text_config is reached both through `self.config` (typed by the annotated
    // __init__ parameter) and through Cache.__init__ (a constructor call in forward).
    assert!(text.contains("m.py:8:16: BR004"), "{text}");
}

#[test]
fn torchscript_type_comments_give_parameters_their_tensor_kind() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "m.py",
        "\
import torch


def paste(mask, box, im_h):
    # type: (Tensor, Tensor, int) -> Tensor
    w = int(box[2] - box[0] + 1)
    h = int(im_h + 1)
    return mask[:h, :w]


def mismatched(mask, box):
    # type: (Tensor) -> Tensor
    return int(box[0])


class M(torch.nn.Module):
    def forward(self, mask, box):
        return paste(mask, box, 4), mismatched(mask, box)
",
    );
    let output = scan(dir.path());
    let text = stdout(&output);
    assert!(text.contains("m.py:6:9: SY002"), "{text}");
    // `im_h` is an int by the comment; a comment that does not match the parameters is ignored.
    assert!(!text.contains("m.py:7:"), "{text}");
    assert!(!text.contains("m.py:13:"), "{text}");
}

#[test]
fn a_property_returning_a_dispatch_entry_is_followed_across_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pkg/__init__.py", "");
    write(
        dir.path(),
        "pkg/losses.py",
        "\
import torch


class SetCriterion(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.empty_weight = torch.nn.Buffer(torch.ones(3))


def detection_loss(logits, labels):
    criterion = SetCriterion()
    return logits.sum()


def unused_loss(logits, labels):
    return logits.sum().item()


LOSS_MAPPING = {'detection': detection_loss}
",
    );
    write(
        dir.path(),
        "pkg/model.py",
        "\
import torch

from .losses import LOSS_MAPPING


class Base(torch.nn.Module):
    @property
    def loss_function(self):
        return LOSS_MAPPING[self.loss_type]

    @loss_function.setter
    def loss_function(self, value):
        self._loss = value


class Detector(Base):
    loss_type = 'detection'

    def forward(self, logits, labels):
        return self.loss_function(logits, labels)
",
    );
    let output = graphbreak(dir.path(), &["scan", "--select", "BR009,SY002", "."]);
    let text = stdout(&output);
    // getter (not the setter) -> LOSS_MAPPING values -> detection_loss -> SetCriterion.__init__.
    assert!(text.contains("pkg/losses.py:7:29: BR009"), "{text}");
    assert!(
        !text.contains("losses.py:16"),
        "not in the dict, never called:\n{text}"
    );
}
