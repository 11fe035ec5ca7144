"""CF001 positives: turning on torch._dynamo.config.suppress_errors.

Why: with suppress_errors=True a failure inside the compiler stack (Dynamo internals, the backend)
is logged as a WARNING ("WON'T CONVERT" with the traceback) and the frame runs eagerly: nothing
raises and the exit status is 0, so a "compiled" run may be fully eager unless someone reads logs. It does
NOT catch errors raised by user code during tracing (the CR001 TypeError still propagates;
measured on torch 2.11). Set in functions here so importing this file changes nothing.
"""

import torch
import torch._dynamo
import torch._dynamo as dynamo
from torch._dynamo import config as dynamo_config


def compile_with_fallback(model, backend="inductor"):
    # The usual "make compile never fail" switch, fully qualified.
    torch._dynamo.config.suppress_errors = True  # expect: CF001
    return torch.compile(model, backend=backend)


def configure_from_flags(flags):
    if flags.get("robust_compile"):
        dynamo.config.suppress_errors = True  # expect: CF001
    if flags.get("cache_limit"):
        dynamo_config.cache_size_limit = flags["cache_limit"]
    dynamo_config.suppress_errors = True  # expect: CF001


def run_compiled(model, x, backend="inductor"):
    # Scoped form: the context manager turns it on for the call.
    with torch._dynamo.config.patch(suppress_errors=True):  # expect: CF001
        return torch.compile(model, backend=backend)(x)
