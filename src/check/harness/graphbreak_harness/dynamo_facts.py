"""Dynamo facts: explain, break records from Dynamo's logs, graph and compile-cache counters."""

import logging
import os
import re
import traceback

from .frames import frame_location, innermost_user_frame
from .records import (
    FROM_USER_CODE_FRAME,
    GB_CODE_PATTERN,
    LIMIT_HIT_PATTERN,
    REASON_LIMIT,
    first_line,
    is_harness_file,
    truncate,
)


# --------------------------------------------------------------------------------------------
# Dynamo facts


def reset_dynamo(torch):
    try:
        torch._dynamo.reset()
    except Exception:  # noqa: BLE001 - a failing reset must not hide the case's own result
        pass


def run_explain(torch, function, args, kwargs):
    """torch._dynamo.explain across versions: explain(fn)(*args) (2.1+) or explain(fn, *args) (older)."""
    explain = torch._dynamo.explain
    try:
        prepared = explain(function)
    except TypeError:
        prepared = None
    if prepared is not None and hasattr(prepared, "graph_count"):
        return prepared
    if callable(prepared):
        return prepared(*args, **kwargs)
    return explain(function, *args, **kwargs)


def describe_break(reason_object, classifier, logged_details):
    """One explain() break reason → result entry. Some reasons are developer strings without a GB code
    (e.g. 'generic_jump TensorVariable()' for a tensor `if`); the graph_breaks log line for the same
    frame (innermost of the break's stack) carries the user-facing reason and code: prefer it then."""
    reason_text = str(getattr(reason_object, "reason", reason_object))
    stack = list(getattr(reason_object, "user_stack", None) or [])
    filename, line, in_user = innermost_user_frame(stack, classifier)
    reason_line = first_line(reason_text)
    code = GB_CODE_PATTERN.search(reason_text)
    gb_code = ("GB" + code.group(1)) if code else None
    if gb_code is None and stack:
        innermost_file, innermost_line = frame_location(stack[-1])
        if innermost_file:
            logged_reason, logged_code = logged_details.get((os.path.abspath(innermost_file), innermost_line), (None, None))
            if logged_code:
                gb_code = logged_code
                reason_line = logged_reason or reason_line
    return {
        "reason": truncate(reason_line, REASON_LIMIT),
        "filename": filename,
        "line": line,
        "gb_code": gb_code,
        "in_user_code": in_user,
        "frames": ["%s:%s" % frame_location(frame) for frame in stack],
    }


class DynamoLogRecorder(logging.Handler):
    """Collects Dynamo's structured log records (the `recompiles` / `graph_breaks` artifacts that
    `TORCH_LOGS=...` would print) through a logging.Handler, plus recompile-limit warnings.

    A data-dependent jump (`if tensor:`) breaks the graph without a `graph_breaks` record on torch ≤ 2.5
    (its generic_jump compiles the partial graph directly); its only trace is output_graph's DEBUG record
    "COMPILING GRAPH due to <GraphCompileReason>", whose user stack names the jump. Those records are read
    too (`compile_reasons`), and a generic_jump break at a location no graph_breaks record names becomes
    a break record of the 2.2-2.5 form, so count and list agree on every torch."""

    def __init__(self, torch, artifacts):
        super().__init__(level=logging.DEBUG)
        self.torch = torch
        self.artifacts = artifacts
        self.recompile_messages = []
        self.limit_messages = []
        self.logged_break_messages = []
        # (reason, filename, line, function) of each generic_jump graph compile (see the class doc).
        self.jump_breaks = []
        self.logging_enabled = False
        self.logger = None
        self.output_graph_logger = None
        self.output_graph_state = None

    def emit(self, record):
        if record.name == OUTPUT_GRAPH_LOGGER:
            self.record_compile_reason(record)
            return
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001
            return
        if message.startswith("Recompiling function"):
            self.recompile_messages.append(message)
        elif message.startswith("Graph break"):
            # torch ≤ 2.5 logs the reason only as the record's exception (exc_info), not in the text.
            exception = record.exc_info[1] if record.exc_info else None
            if exception is not None and "Graph Break Reason:" not in message:
                message += "\n%s %s" % (GRAPH_BREAK_EXCEPTION_MARKER, first_line(exception))
            self.logged_break_messages.append(message)
        elif LIMIT_HIT_PATTERN.search(message) or "cache_size_limit reached" in message:
            self.limit_messages.append(message)

    def __enter__(self):
        set_logs = getattr(getattr(self.torch, "_logging", None), "set_logs", None)
        if set_logs is not None:
            try:
                set_logs(**{artifact: True for artifact in self.artifacts})
                self.logging_enabled = True
            except Exception:  # noqa: BLE001 - older torch without the artifact: fall back to counters
                self.logging_enabled = False
        self.logger = logging.getLogger("torch._dynamo")
        self.logger.addHandler(self)
        # output_graph's DEBUG records, to this handler only (not printed: propagation off meanwhile).
        self.output_graph_logger = logging.getLogger(OUTPUT_GRAPH_LOGGER)
        self.output_graph_state = (self.output_graph_logger.level, self.output_graph_logger.propagate)
        self.output_graph_logger.setLevel(logging.DEBUG)
        self.output_graph_logger.propagate = False
        self.output_graph_logger.addHandler(self)
        return self

    def __exit__(self, *exc_info):
        if self.output_graph_logger is not None:
            self.output_graph_logger.removeHandler(self)
            self.output_graph_logger.setLevel(self.output_graph_state[0])
            self.output_graph_logger.propagate = self.output_graph_state[1]
        if self.logger is not None:
            self.logger.removeHandler(self)
        if self.logging_enabled:
            try:
                self.torch._logging.set_logs()
            except Exception:  # noqa: BLE001
                pass
        return False

    def snapshot(self):
        return len(self.recompile_messages), len(self.limit_messages)

    def record_compile_reason(self, record):
        """A 'COMPILING GRAPH due to %s' record whose GraphCompileReason is a generic_jump graph break."""
        reason = record.args[0] if isinstance(record.args, tuple) and record.args else None
        text = getattr(reason, "reason", None)
        stack = getattr(reason, "user_stack", None)
        if not isinstance(text, str) or not text.startswith("generic_jump") or not stack:
            return
        if getattr(reason, "graph_break", True) is False:
            return
        frame = stack[-1]
        filename, line = frame_location(frame)
        if filename and line:
            self.jump_breaks.append((first_line(text), os.path.abspath(filename), int(line), getattr(frame, "name", "?")))

    @property
    def graph_break_messages(self):
        """The graph_breaks records, plus one record (2.2-2.5 form) per generic_jump break at a location
        no record names: on torch ≤ 2.5 a data-dependent jump logs none."""
        messages = list(self.logged_break_messages)
        named = {self.graph_break_location(message) for message in messages}
        for reason, filename, line, function in self.jump_breaks:
            if (filename, line) in named:
                continue
            named.add((filename, line))
            messages.append('Graph break: %s from user code at:\n  File "%s", line %d, in %s'
                            % (reason, filename, line, function))
        return messages

    @staticmethod
    def graph_break_location(message):
        """(abs filename, line) of one graph_breaks log message. Formats: 2.11 'Graph break in user code
        at FILE:LINE'; 2.4 'Graph break: from user code at:\n  File "FILE", line LINE, in fn'."""
        match = re.match(r"Graph break in user code at (.+):(\d+)", message)
        if match:
            return os.path.abspath(match.group(1)), int(match.group(2))
        marker = message.find("from user code at:")
        if marker >= 0:
            match = FROM_USER_CODE_FRAME.search(message, marker)
            if match:
                return os.path.abspath(match.group(1)), int(match.group(2))
        return None

    def graph_break_locations(self):
        found = (self.graph_break_location(message) for message in self.graph_break_messages)
        return [location for location in found if location is not None]

    def parsed_graph_breaks(self, classifier):
        """One result entry per logged graph break, in log order, deduplicated by location (some torch
        versions log a break twice: a hint and the structured record)."""
        entries = {}
        for message in self.graph_break_messages:
            parsed = parse_graph_break_message(message, classifier)
            if parsed is None:
                continue
            key = parsed.pop("key")
            known = entries.get(key)
            # Prefer the record with a reason code, a reason and a stack over a bare hint.
            if known is None or break_record_quality(parsed) > break_record_quality(known):
                entries[key] = parsed
        # A hint record (no reason) whose header names an outer frame duplicates a full record that
        # ends in the same frame.
        explained = {(entry["filename"], entry["line"]) for entry in entries.values() if entry["reason"]}
        kept = [
            entry for entry in entries.values()
            if entry["reason"] or (entry["filename"], entry["line"]) not in explained
        ]
        for entry in kept:
            entry["reason"] = entry["reason"] or "graph break"
        return kept

    def graph_break_details(self):
        """{(filename, line): (reason line, gb_code)} from the graph_breaks artifact."""
        details = {}
        for message in self.graph_break_messages:
            location = self.graph_break_location(message)
            if location is None:
                continue
            reason_line = None
            marker = message.find("Graph Break Reason:")
            if marker >= 0:
                for line in message[marker + len("Graph Break Reason:"):].splitlines():
                    stripped = line.strip()
                    if stripped and not stripped.startswith("Encountered graph break"):
                        reason_line = stripped
                        break
            code = GB_CODE_PATTERN.search(message)
            details.setdefault(location, (reason_line, ("GB" + code.group(1)) if code else None))
        return details


OUTPUT_GRAPH_LOGGER = "torch._dynamo.output_graph"


def break_record_quality(entry):
    return (entry["gb_code"] is not None, entry["reason"] is not None, len(entry["frames"]))


# Object addresses in reasons (`<built-in method stack of type object at 0x7f0b...>`) differ every run:
# a baseline would see a "new" break each time.
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def dynamo_graph_counts(torch):
    """(graphs compiled, graph breaks) so far, from torch._dynamo.utils.counters; None without them."""
    counters = getattr(getattr(getattr(torch, "_dynamo", None), "utils", None), "counters", None)
    if counters is None:
        return None
    try:
        return int(counters["stats"]["unique_graphs"]), int(sum(counters["graph_break"].values()))
    except Exception:  # noqa: BLE001
        return None


GRAPH_BREAK_EXCEPTION_MARKER = "Graph break exception:"
FRAME_LINE = re.compile(r'^\s*File "([^"]+)", line (\d+)', re.MULTILINE)


def parse_graph_break_message(message, classifier):
    """A `graph_breaks` log record → result entry (+ "key" for deduplication), or None. Formats:
    2.6+: 'Graph break in user code at FILE:LINE\nGraph Break Reason: ...\nUser code traceback:\n  File ...'
    2.2-2.5: 'Graph break: REASON from user code at:\n  File "FILE", line LINE, in fn' (also the form a
    2.11 hint uses: 'Graph break from `Tensor.item()`, ...\nGraph break: from user code at: ...')."""
    location = DynamoLogRecorder.graph_break_location(message)
    if location is None:
        return None
    reason = None
    marker = message.find("Graph Break Reason:")
    if marker >= 0:
        lines = [line.strip() for line in message[marker + len("Graph Break Reason:"):].splitlines() if line.strip()]
        lines = [line for line in lines if not line.startswith("Encountered graph break")]
        if lines:
            reason = lines[0]
            # "Failed to handle graph break gracefully. Skipping the function and falling back to eager.
            # Graph break encountered:" is a header; the cause is on the next line.
            if reason.endswith("Graph break encountered:") and len(lines) > 1:
                reason = lines[1]
    elif GRAPH_BREAK_EXCEPTION_MARKER in message:
        reason = first_line(message[message.rfind(GRAPH_BREAK_EXCEPTION_MARKER) + len(GRAPH_BREAK_EXCEPTION_MARKER):])
    else:
        match = re.match(r"Graph break:\s*(.*?)\s*from user code at:", message, re.DOTALL)
        if match and match.group(1).strip():
            reason = first_line(match.group(1))
    stack_start = message.find("User code traceback:")
    if stack_start < 0:
        stack_start = message.find("from user code at:")
    frames = []
    if stack_start >= 0:
        frames = [(name, int(line)) for name, line in FRAME_LINE.findall(message[stack_start:])]
    # Newer torch prints the whole Python stack: keep what is inside the harness's call of the case,
    # from the first user frame on (torch's nn.Module call plumbing in between says nothing).
    harness_frames = [index for index, frame in enumerate(frames) if is_harness_file(os.path.abspath(frame[0]))]
    if harness_frames:
        frames = frames[harness_frames[-1] + 1:]
    first_user = next((index for index, frame in enumerate(frames) if classifier.is_user(frame[0])), 0)
    frames = frames[first_user:]
    summaries = [traceback.FrameSummary(name, line, "") for name, line in frames] or [
        traceback.FrameSummary(location[0], location[1], "")
    ]
    filename, line, in_user = innermost_user_frame(summaries, classifier)
    code = GB_CODE_PATTERN.search(message)
    return {
        "key": location,
        "reason": truncate(ADDRESS.sub("", reason), REASON_LIMIT) if reason else None,
        "filename": filename,
        "line": line,
        "gb_code": ("GB" + code.group(1)) if code else None,
        "in_user_code": in_user,
        "frames": ["%s:%s" % frame for frame in frames],
    }


def recompile_reason(message):
    """First guard failure of one 'Recompiling function ...' message, whitespace collapsed."""
    lines = message.splitlines()
    header = lines[0].strip() if lines else ""
    start = 1
    for index, line in enumerate(lines):
        if "triggered by" in line:
            start = index + 1
            break
    for line in lines[start:]:
        stripped = line.strip()
        if stripped.startswith("- ") and not stripped.startswith("- User stack"):
            text = re.sub(r"\s+", " ", stripped[2:]).strip()
            return truncate(text, REASON_LIMIT)
        if stripped and not stripped.startswith("-"):
            return truncate(re.sub(r"\s+", " ", stripped), REASON_LIMIT)
    return truncate(header, REASON_LIMIT)


def recompile_limit_name(torch):
    config = torch._dynamo.config
    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(config, name):
            return name, getattr(config, name)
    return None, None


CACHE_COUNTERS = (
    ("inductor", "fxgraph_cache_hit"), ("inductor", "fxgraph_cache_miss"),
    ("aot_autograd", "autograd_cache_hit"), ("aot_autograd", "autograd_cache_miss"),
)


def compile_cache_counts(torch):
    counters = getattr(getattr(torch._dynamo, "utils", None), "counters", None) or {}
    return {(group, name): counters.get(group, {}).get(name, 0) for group, name in CACHE_COUNTERS}


def compile_cache_verdict(before, after, directory_state):
    """'warm' when the first compile was served from Inductor's/AOTAutograd's on-disk caches, 'cold' when
    any graph missed them (counters, where this torch keeps them: 2.11 does, 2.4 with its default
    config does not); else what the cache directory looked like before the run."""
    hits = sum(after[key] - before[key] for key in after if key[1].endswith("_hit"))
    misses = sum(after[key] - before[key] for key in after if key[1].endswith("_miss"))
    if misses > 0:
        return "cold"
    if hits > 0:
        return "warm"
    return directory_state


def inductor_cache_state(torch, backend):
    """'cold' when the Inductor on-disk cache is empty or missing before the run; None for other backends."""
    if backend != "inductor":
        return None
    directory = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if not directory:
        try:
            from torch._inductor.runtime.cache_dir_utils import cache_dir  # noqa: PLC0415 - torch 2.3+
            directory = cache_dir()
        except Exception:  # noqa: BLE001
            try:
                from torch._inductor.utils import cache_dir  # noqa: PLC0415 - older torch
                directory = cache_dir()
            except Exception:  # noqa: BLE001
                return None
    try:
        return "warm" if os.path.isdir(directory) and os.listdir(directory) else "cold"
    except OSError:
        return "cold"
