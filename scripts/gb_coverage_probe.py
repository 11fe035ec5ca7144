"""Measure, per minimal model-code pattern, what Dynamo does on the installed torch (backend counts
graphs; graph breaks from torch._dynamo.utils.counters["graph_break"], mapped to GB codes through
graph_break_registry.json), with the default config and with capture_dynamic_output_shape_ops=True.
The table in docs/gb-coverage.md came from this script (torch 2.11 and 2.2).

usage: python scripts/gb_coverage_probe.py [--registry PATH] [--out results.json] [CASE ...]
(torch < 2.8 has no registry: pass the one of a newer torch, or read the raw reasons.)
"""
import argparse
import copy, logging, random, re, sys, time, warnings, json
import torch
import torch._dynamo as dynamo
from torch._dynamo.utils import counters

logger = logging.getLogger("probe")
try:
    import numpy as np
except ImportError:
    np = None
try:
    import scipy.optimize
except ImportError:
    scipy = None
try:
    import torchvision
except ImportError:
    torchvision = None

CASES = {}
def case(fn):
    CASES[fn.__name__] = fn
    return fn

x = torch.randn(8)
@case
def nonzero(x): return x.nonzero() + 1
@case
def torch_nonzero(x): return torch.nonzero(x) + 1
@case
def where_single(x): return torch.where(x > 0)[0] + 1
@case
def where_three(x): return torch.where(x > 0, x, 0) + 1
@case
def mask_index(x): return x[x > 0] + 1
@case
def mask_index_var(x):
    keep = x > 0
    return x[keep] + 1
@case
def mask_assign(x):
    x = x.clone(); x[x > 0] = 0; return x * 2
@case
def mask_assign_tensor_value(x):
    x = x.clone(); m = x > 0; x[m] = x[m] * 2; return x * 2
@case
def masked_select(x): return torch.masked_select(x, x > 0) + 1
@case
def unique(x): return torch.unique(x.round()) + 1
@case
def loop_unique(x):
    out = x * 0
    for v in torch.unique(x.round()):
        out = out + (x == v).float()
    return out
@case
def loop_tensor_rows(x):
    out = 0
    for v in x:
        out = out + v
    return out
@case
def loop_tolist(x):
    out = x * 0
    for v in x.tolist():
        out = out + v
    return out
@case
def tolist(x): return x.tolist()
@case
def repeat_interleave_tensor(x): return torch.repeat_interleave(x, (x > 0).long()) + 1
@case
def one_hot_nocls(x): return torch.nn.functional.one_hot((x.abs() * 3).long()) + 1
@case
def bincount(x): return torch.bincount((x.abs() * 3).long()) + 1
@case
def argwhere(x): return torch.argwhere(x) + 1
@case
def do_print(x):
    print("hi", x.shape); return x + 1
@case
def print_tensor(x):
    print(x); return x + 1
@case
def log_info(x):
    logging.info("hi"); return x + 1
@case
def logger_info(x):
    logger.info("hi %s", 1); return x + 1
@case
def logger_debug(x):
    logger.debug("hi"); return x + 1
@case
def logger_warning(x):
    logger.warning("hi"); return x + 1
@case
def warn(x):
    warnings.warn("hi"); return x + 1
@case
def rand_random(x): return x + random.random()
@case
def rand_randint(x): return x + random.randint(0, 3)
@case
def rand_uniform(x): return x + random.uniform(0, 3)
@case
def rand_choice(x): return x + random.choice([1, 2])
@case
def rand_shuffle(x):
    l = [1, 2, 3]; random.shuffle(l); return x + l[0]
@case
def time_time(x): return x + time.time()
@case
def time_perf_counter(x):
    t = time.perf_counter(); y = x + 1; return y, time.perf_counter() - t
@case
def time_sleep(x):
    time.sleep(0); return x + 1
@case
def deepcopy_tensor(x): return copy.deepcopy(x) + 1
@case
def deepcopy_list(x): return copy.deepcopy([1, 2])[0] + x
@case
def deepcopy_dict(x): return copy.deepcopy({"a": 1})["a"] + x
if np is not None:
    @case
    def numpy_call(x): return torch.from_numpy(np.linalg.inv(x.reshape(2, 4)[:, :2].numpy())) + 1
    @case
    def numpy_on_cpu_numpy(x): return float(np.sum(x.detach().cpu().numpy())) + x
if scipy is not None:
    @case
    def scipy_lsa(x):
        r, c = scipy.optimize.linear_sum_assignment(x.reshape(2, 4).detach().cpu().numpy())
        return x + torch.as_tensor(r).sum()
@case
def data_ptr(x): return x + (x.data_ptr() % 2)
@case
def id_tensor(x): return x + (id(x) % 2)
@case
def id_dict_key(x):
    d = {id(x): 1}; return x + d[id(x)]
@case
def explicit_gb(x):
    y = x + 1; torch._dynamo.graph_break(); return y + 1
def _gb_callee(y):
    torch._dynamo.graph_break(); return y
@case
def explicit_gb_callee(x): return _gb_callee(x + 1) + 1
@torch.compiler.disable
def _disabled(y): return y * 2
@case
def disabled_callee(x): return _disabled(x + 1) + 1
@torch._dynamo.disable
def _dyn_disabled(y): return y * 2
@case
def dynamo_disabled_callee(x): return _dyn_disabled(x + 1) + 1
@case
def torch_equal(x): return x + 1 if torch.equal(x, x) else x - 1
@case
def torch_equal_value(x): return x + int(torch.equal(x, x))
@case
def allclose(x): return x + 1 if torch.allclose(x, x) else x - 1
@case
def item_(x): return x + x.sum().item()
@case
def if_tensor(x): return x + 1 if x.sum() > 0 else x - 1
@case
def any_if(x): return x + 1 if (x > 0).any() else x - 1
@case
def float_tensor_const(x): return x + float(torch.tensor(3.0))
@case
def float_tensor_data(x): return x + float(x.sum())
import torch.utils.checkpoint as cp
_seen = []
class Holder: pass
_holder = Holder()
def _ckpt_body_append(y):
    _seen.append(1); return y.sin()
@case
def ckpt_append(x): return cp.checkpoint(_ckpt_body_append, x, use_reentrant=False) + 1
def _ckpt_body_attr(y):
    _holder.v = 1; return y.sin()
@case
def ckpt_attr(x): return cp.checkpoint(_ckpt_body_attr, x, use_reentrant=False) + 1
def _ckpt_body_pure(y): return y.sin()
@case
def ckpt_pure(x): return cp.checkpoint(_ckpt_body_pure, x, use_reentrant=False) + 1
def _ckpt_body_print(y):
    print("x"); return y.sin()
@case
def ckpt_print(x): return cp.checkpoint(_ckpt_body_print, x, use_reentrant=False) + 1
class _CkptMod(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.l = torch.nn.Linear(8, 8); self.calls = 0
    def body(self, y):
        self.calls += 1
        return self.l(y)
    def forward(self, y):
        return cp.checkpoint(self.body, y, use_reentrant=False)
_ckm = _CkptMod()
@case
def ckpt_self_attr(x): return _ckm(x) + 1
_list = []
@case
def list_append_outside(x):
    _list.append(1); return x + 1
if torchvision is not None:
    @case
    def tv_nms(x):
        boxes = torch.tensor([[0., 0, 1, 1], [0, 0, 1, 1.1], [5, 5, 6, 6]]) + x[:1]
        scores = x[:3].abs()
        return torchvision.ops.nms(boxes, scores, 0.5) + 1
    @case
    def tv_batched_nms(x):
        boxes = torch.tensor([[0., 0, 1, 1], [0, 0, 1, 1.1], [5, 5, 6, 6]]) + x[:1]
        scores = x[:3].abs()
        return torchvision.ops.batched_nms(boxes, scores, torch.tensor([0, 0, 1]), 0.5) + 1



# --- more cases
@case
def mask_assign_scalar_tensor(x):
    x = x.clone(); m = x > 0; x[m] = x.new_tensor(0.0); return x * 2
@case
def mask_assign_tensor_bcast(x):
    x = x.clone(); m = x > 0; x[m] = x.max(); return x * 2
@case
def nonzero_astuple(x): return x.nonzero(as_tuple=True)[0] + 1
@case
def unique_consec(x): return torch.unique_consecutive(x.round()) + 1
if torchvision is not None:
  @case
  def ops_nms(x):
      boxes = torch.tensor([[0., 0, 1, 1], [0, 0, 1, 1.1], [5, 5, 6, 6]]) + x[:1]
      return torch.ops.torchvision.nms(boxes, x[:3].abs(), 0.5) + 1
@case
def long_index(x):
    idx = torch.arange(3); return x[idx] + 1
@case
def data_ptr_only(x):
    p = x.data_ptr(); return x + 1
@case
def data_ptr_cmp(x):
    y = x + 1
    return y if x.data_ptr() == y.data_ptr() else y * 2
@case
def explicit_gb_sub(x):
    y = x + 1; torch._dynamo.graph_break(); return y + 1
@case
def bool_list_mask(x):
    keep = [True, False] * 4; return x[torch.tensor(keep)] + 1
@case
def where_keep(x):
    keep = (x > 0) & (x < 1); return torch.where(keep)[0] + 1
@case
def mask_of_other(x):
    scores = x.sigmoid(); return x[scores > 0.5] + 1

# --- side effects
import functools
logger = logging.getLogger("x")
@functools.lru_cache(None)
def warning_once(self, *args, **kwargs):
    self.warning(*args, **kwargs)
logging.Logger.warning_once = warning_once
@case
def logger_warning_once(x):
    logger.warning_once("hi"); return x + 1
class Holder:
    def __init__(self): self.logger = logging.getLogger("y")
H = Holder()
@case
def self_logger(x):
    H.logger.info("x"); return x + 1
@case
def rand_sample(x): return x + random.sample([1, 2, 3], 1)[0]
@case
def time_monotonic(x): return x + time.monotonic()
@case
def warn_category(x):
    warnings.warn("hi", UserWarning); return x + 1
@case
def equal_method(x): return x + int(x.equal(x + 0))
@case
def is_nonzero(x): return x + int(torch.is_nonzero(x[:1].sum()))
@case
def logger_exception_in_branch(x):
    if x.shape[0] > 100:
        logger.error("big")
    return x + 1

parser = argparse.ArgumentParser()
parser.add_argument("--registry", default=None)
parser.add_argument("--out", default="gb-coverage-results.json")
parser.add_argument("cases", nargs="*")
opts = parser.parse_args()
OUT = opts.out
names = opts.cases
import os
registry_path = opts.registry or os.path.join(os.path.dirname(dynamo.__file__), "graph_break_registry.json")
reg = json.load(open(registry_path)) if os.path.exists(registry_path) else {}
by_type = {}
for code, entries in reg.items():
    for e in entries: by_type.setdefault(e["Gb_type"], code)
def code_of(reason):
    first = reason.splitlines()[0].strip()
    return by_type.get(first) or next((c for t, c in by_type.items() if first.startswith(t)), "?:" + first[:60])
def measure(fn, dyn):
    dynamo.reset(); counters.clear()
    ngraphs = [0]
    def backend(gm, ex):
        ngraphs[0] += 1; return gm.forward
    with dynamo.config.patch(capture_dynamic_output_shape_ops=dyn), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch.compile(fn, backend=backend)(torch.randn(8))
        except Exception as e:
            return {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:150]}"}
    gbs = sorted({code_of(k) for k in counters["graph_break"]})
    return {"breaks": sum(counters["graph_break"].values()), "codes": gbs, "graphs": ngraphs[0]}
res = {}
for n, fn in CASES.items():
    if names and n not in names: continue
    d, c = measure(fn, False), measure(fn, True)
    res[n] = {"default": d, "capture_dynamic_output_shape_ops": c}
    print(f"{n:28} default: {d}\n{'':28} dyn_ops: {c}", flush=True)
json.dump({"torch": torch.__version__, "results": res}, open(OUT, "w"), indent=1)
