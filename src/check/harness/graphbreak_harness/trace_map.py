"""The trace map and runtime events (what Dynamo traced, where it broke, crashed or recompiled), and the
build inputs the result cache keys on."""

import contextlib
import logging
import os
import re
import sys
import sysconfig

from .dynamo_facts import recompile_reason
from .frames import innermost_user_traceback_frame, locate_error, statement_in_rewritten_frame
from .records import FROM_USER_CODE_FRAME, GB_CODE_PATTERN, REASON_LIMIT, first_line, is_harness_file, truncate


# --------------------------------------------------------------------------------------------
# trace map and runtime events (what Dynamo traced, where it broke, crashed or recompiled)

TRACE_SOURCE_ARTIFACT = "trace_source"
# torch 2.2 through 2.11: "TRACE starts_line /abs/file.py:12 in forward (forward) (inline depth: 1)\n    <source>"
TRACE_STARTS_LINE = re.compile(r"TRACE starts_line (.+):(\d+) in \S+")
RECOMPILE_HEADER = re.compile(r"Recompiling function \S+ in (.+):(\d+)")
# A guard failure names the source line that installed the guard, its path cut to the last characters:
# "- 0/0: self.n == 0   # self.n += 1  # mp/h4/t2.py:6 in forward" (2.2 and 2.11).
FRAME_SKIPPED_IN_LOOP = "Skipping frame because there is a graph break in a for/while loop"
FRAME_SUMMARY = re.compile(r"<FrameSummary file (.+), line (\d+) in ")
LOGGED_BREAK_RECORD = re.compile(r"Graph break(:| in user code at | \(user stack suppressed)")
LOGGED_BREAK_AT = re.compile(r"in user code at (.+):(\d+)\s*$")
GUARD_ORIGIN = re.compile(r"#\s(?:.*\s)?#\s(\S+):(\d+) in \S+")


class TracedFiles:
    """Which traced files are the user's: every file but torch's own (torch, functorch), the standard library
    and the harness. Third-party libraries in site-packages stay: their authors are users of torch.compile."""

    def __init__(self, torch):
        torch_dirs = []
        if torch is not None:
            torch_dir = os.path.dirname(os.path.abspath(torch.__file__))
            torch_dirs = [torch_dir + os.sep, os.path.join(os.path.dirname(torch_dir), "functorch") + os.sep]
        paths = sysconfig.get_paths()
        self.torch_dirs = tuple(torch_dirs)
        self.stdlib_dirs = tuple(
            os.path.abspath(paths[key]) + os.sep for key in ("stdlib", "platstdlib") if paths.get(key)
        )
        # A system or pyenv interpreter keeps site-packages inside its stdlib directory.
        self.site_dirs = tuple(
            os.path.abspath(paths[key]) + os.sep for key in ("purelib", "platlib") if paths.get(key)
        )
        self.cache = {}

    def is_user(self, filename):
        known = self.cache.get(filename)
        if known is None:
            known = self.classify(filename)
            self.cache[filename] = known
        return known

    def classify(self, filename):
        if not filename or filename.startswith("<"):
            return False
        path = os.path.abspath(filename)
        if is_harness_file(path) or path.startswith(self.torch_dirs):
            return False
        if path.startswith(self.site_dirs):
            return True
        return not path.startswith(self.stdlib_dirs)


class TraceRecorder(logging.Handler):
    """Every source line Dynamo traced, from the `trace_source` log artifact (a logging.Handler on its
    logger, not stderr scraping). The artifact logger is switched on directly and kept from propagating,
    so a large model's tens of thousands of TRACE lines are recorded without being printed; other
    artifacts enabled through set_logs are left alone."""

    def __init__(self, torch):
        super().__init__(level=logging.DEBUG)
        self.torch = torch
        self.lines = {}  # abs filename -> set of line numbers
        self.skipped_frames = []  # (file, line) of torch 2.2's frame skips for a break inside a loop
        self.available = None
        self.saved = []

    def emit(self, record):
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001
            return
        match = TRACE_STARTS_LINE.match(message)
        if match:
            self.lines.setdefault(os.path.abspath(match.group(1)), set()).add(int(match.group(2)))
        elif message.startswith(FRAME_SKIPPED_IN_LOOP):
            where = FRAME_SUMMARY.search(message)
            if where:
                self.skipped_frames.append((os.path.abspath(where.group(1)), int(where.group(2))))

    def logger_names(self):
        try:
            from torch._logging._internal import log_registry  # noqa: PLC0415 - torch 2.1+
            names = [name for name in log_registry.get_artifact_log_qnames() if name.endswith("__" + TRACE_SOURCE_ARTIFACT)]
        except Exception:  # noqa: BLE001 - no artifact registry on this torch
            names = []
        return names

    @contextlib.contextmanager
    def recording(self):
        names = self.logger_names()
        if self.available is None:
            self.available = bool(names)
        self.saved = []
        for name in names:
            logger = logging.getLogger(name)
            self.saved.append((logger, logger.level, logger.propagate))
            logger.setLevel(logging.DEBUG)
            logger.propagate = False
            logger.addHandler(self)
        # torch 2.2 reports a break inside a for/while loop only as an INFO record of this logger ("Skipping
        # frame because there is a graph break in a for/while loop"): the whole function then runs eagerly.
        if names:
            logger = logging.getLogger("torch._dynamo.symbolic_convert")
            self.saved.append((logger, logger.level, logger.propagate))
            if logger.getEffectiveLevel() > logging.INFO:
                logger.setLevel(logging.INFO)
            logger.addHandler(self)
        try:
            yield self
        finally:
            for logger, level, propagate in self.saved:
                logger.removeHandler(self)
                logger.setLevel(level)
                logger.propagate = propagate
            self.saved = []

    def traced(self, files):
        return {name: sorted(lines) for name, lines in sorted(self.lines.items()) if files.is_user(name)}


class BuildInputs:
    """The files building the case read, beyond the case file and the trace map: the modules imported while
    building it (the import system's module list before and after) and every file opened for reading
    (`sys.addaudithook`'s "open" event: config YAMLs, label maps, weights). graphbreak's result cache
    (src/check/cache.rs) hashes them to decide whether a stored result still holds. Torch's own files, the
    standard library and the harness are left out (the interpreter and torch build are in the key), and so
    are .pyc files (derived from sources) and files the case opened for writing.

    `ran`: the Python functions that ran while building the case and in its eager reference step (a
    `sys.settrace` function that sees each call and traces no line), so the cache can leave out of an
    imported module's key the bodies of its functions that never ran: a library's other models."""

    def __init__(self):
        self.active = False
        self.hooked = False
        self.modules_before = None
        self.opened = set()
        self.written = set()
        self.imported = set()
        self.failed = None
        self.ran = set()  # code objects
        self.calls_unseen = None  # why `ran` is unknown
        self.monitoring_tool = None  # the sys.monitoring tool id while watching (3.12+)

    def call(self, frame, event, arg):
        self.ran.add(frame.f_code)
        # No local trace function: lines, returns and exceptions are not traced.

    def started(self, code, offset):
        self.ran.add(code)
        # Seen once is enough: this code object's start costs nothing from now on.
        return sys.monitoring.DISABLE

    def watch_calls(self, on):
        """Starts (on=True) or stops seeing calls. Python 3.12+: sys.monitoring's PY_START, disabled per
        code object once seen (near free); older: a sys.settrace function called on every Python call
        (the build and the eager step run slower under it). Never displaces another tool or trace
        function (a debugger's, coverage's): then `ran` is unknown."""
        if self.calls_unseen is not None:
            return
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            if on and self.monitoring_tool is None:
                for tool in (monitoring.COVERAGE_ID, monitoring.PROFILER_ID, 3, 4):
                    if monitoring.get_tool(tool) is None:
                        monitoring.use_tool_id(tool, "graphbreak")
                        monitoring.register_callback(tool, monitoring.events.PY_START, self.started)
                        monitoring.set_events(tool, monitoring.events.PY_START)
                        self.monitoring_tool = tool
                        return
                self.calls_unseen = "every sys.monitoring tool id is taken"
            elif not on and self.monitoring_tool is not None:
                tool, self.monitoring_tool = self.monitoring_tool, None
                monitoring.set_events(tool, 0)
                monitoring.register_callback(tool, monitoring.events.PY_START, None)
                monitoring.free_tool_id(tool)
            return
        if on:
            if sys.gettrace() is not None:
                self.calls_unseen = "another trace function is set"
            else:
                sys.settrace(self.call)
        elif sys.gettrace() == self.call:
            sys.settrace(None)

    def audit(self, event, args):
        # Runs on every audited event in the process: keep the inactive path a single test.
        if not self.active or event != "open":
            return
        try:
            path, flags = args[0], args[2]
            if isinstance(path, int):
                return
            path = os.path.abspath(os.fsdecode(path))
            if isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR):
                self.written.add(path)
            else:
                self.opened.add(path)
        except Exception as error:  # noqa: BLE001 - an audit hook must never break the open it watches
            self.failed = "%s: %s" % (type(error).__name__, error)

    def start(self):
        self.modules_before = set(sys.modules)
        if not self.hooked:
            try:
                sys.addaudithook(self.audit)
                self.hooked = True
            except Exception as error:  # noqa: BLE001
                self.failed = "sys.addaudithook: %s: %s" % (type(error).__name__, error)
        self.active = True
        self.watch_calls(True)

    def stop(self):
        if not self.active:
            return
        self.active = False
        self.watch_calls(False)
        for name in set(sys.modules) - (self.modules_before or set()):
            try:
                filename = getattr(sys.modules.get(name), "__file__", None)
            except Exception:  # noqa: BLE001
                # A lazy placeholder module (an optional add-on a library stubs out) may raise anything from
                # its module `__getattr__`, ImportError included: it has no file to hash, and the case ran.
                continue
            if isinstance(filename, str) and filename:
                self.imported.add(os.path.abspath(filename))

    def facts(self, files):
        """The result's `build_inputs`: user files only (`files`: TracedFiles), sorted; None before start."""
        if self.modules_before is None:
            return None

        def keep(path):
            return (
                files.is_user(path)
                and not path.endswith((".pyc", ".pyo"))
                and not path.startswith(("/proc/", "/sys/", "/dev/"))
                and path not in self.written
            )

        return {
            "imported": sorted(p for p in self.imported if keep(p)),
            "opened": sorted(p for p in self.opened if keep(p) and p not in self.imported),
            "ran": self.ran_functions(files),
            "complete": self.hooked and self.failed is None,
        }

    def ran_functions(self, files):
        """{file: [[first line, name], ...]} of the functions that ran, user files only; None: unknown."""
        if self.calls_unseen is not None:
            return None
        ran = {}
        for code in self.ran:
            filename = code.co_filename
            if filename and not filename.startswith("<"):
                ran.setdefault(os.path.abspath(filename), set()).add((code.co_firstlineno, code.co_name))
        return {
            name: [list(entry) for entry in sorted(entries)]
            for name, entries in sorted(ran.items())
            if files.is_user(name)
        }


def innermost_traced_frame(frames, files):
    """(filename, line) of the innermost frame ("file:line" strings, innermost last) in a user file."""
    for frame in reversed(frames or []):
        filename, _, line = str(frame).rpartition(":")
        if filename and line.isdigit() and files.is_user(filename):
            return os.path.abspath(filename), int(line)
    return None, None


def recompile_site(message):
    """(filename, line) of one 'Recompiling function ...' message: the line whose guard failed when the
    message names it (its path is cut short: matched against the function's file), else the def line."""
    header = RECOMPILE_HEADER.match(message)
    if not header:
        return None, None
    filename, line = os.path.abspath(header.group(1)), int(header.group(2))
    for origin in GUARD_ORIGIN.finditer(message):
        if filename.endswith(origin.group(1).lstrip(".")):
            return filename, int(origin.group(2))
    return filename, line


def reason_text_start(message):
    """Where the reason text of a 2.11 graph_breaks record starts (None: older format). A record saying
    'Failed to handle graph break gracefully. Skipping the function and falling back to eager. Graph break
    encountered: <the break>' reports the break that made Dynamo give up on the whole frame: its reason and
    code are the inner ones."""
    marker = message.find("Graph Break Reason:")
    if marker < 0:
        return None
    skipped = message.find("Graph break encountered:", marker)
    if skipped >= 0:
        return skipped + len("Graph break encountered:")
    return marker + len("Graph Break Reason:")


def logged_breaks(messages, files):
    """Graph breaks of the compile phase from its graph_breaks log, each at the innermost frame of its user
    code traceback that lies in a user file: [(file, line, gb_code, reason, {(file, line) of every frame})].
    Formats: 2.11 'Graph break in user code at F:L' + 'Graph Break Reason:' + 'User code traceback:' (a
    repeat says 'user stack suppressed' and names only F:L); 2.2 'Graph break: REASON from user code at:'."""
    found = []
    # A repeat names only the header location ('user stack suppressed'): where its first record landed.
    chosen = {}
    for message in messages:
        # 2.11 also logs a hint ('Graph break from `Tensor.item()`, consider setting: ...') for a break
        # that has its own record: not a break of its own.
        if not LOGGED_BREAK_RECORD.match(message):
            continue
        marker = max(message.find("User code traceback:"), message.find("from user code at:"))
        frames = [
            (os.path.abspath(name), int(line))
            for name, line in FROM_USER_CODE_FRAME.findall(message[marker:] if marker >= 0 else "")
        ]
        user_frames = [frame for frame in frames if files.is_user(frame[0])]
        header = LOGGED_BREAK_AT.search(first_line(message))
        header = (os.path.abspath(header.group(1)), int(header.group(2))) if header else None
        if user_frames:
            location = user_frames[-1]
            if header is not None:
                chosen.setdefault(header, location)
        elif header is not None and header in chosen:
            location = chosen[header]
        elif header is not None and files.is_user(header[0]):
            location = header
        else:
            continue
        reason = None
        reason_start = reason_text_start(message)
        if reason_start is not None:
            for text in message[reason_start:].splitlines():
                stripped = text.strip()
                if stripped and not stripped.startswith("Encountered graph break"):
                    reason = stripped
                    break
        else:
            old_style = re.match(r"Graph break: (.*?) from user code at:", message, re.DOTALL)
            if old_style:
                reason = first_line(old_style.group(1))
        code = GB_CODE_PATTERN.search(message, reason_start or 0)
        code = code or GB_CODE_PATTERN.search(message)
        found.append((location[0], location[1], ("GB" + code.group(1)) if code else None,
                      truncate(reason or first_line(message), REASON_LIMIT), set(frames) | {location}))
    return found


def crash_location(torch, error):
    """(filename, line) of a compile error in the innermost traced file (third-party included). Raised in
    bytecode Dynamo rewrote after a break (torch ≤ 2.5), the traceback names the `def` line of the
    (resumed) frame; the statement then comes from Dynamo's original code, as for the result's `error`."""
    files = TracedFiles(torch)
    filename, line = locate_error(error, files)
    frame = innermost_user_traceback_frame(error, files)
    if frame is not None and (filename, line) == (frame[0], frame[2]):
        filename, line = statement_in_rewritten_frame(torch, error, files) or (filename, line)
    return filename, line


def runtime_events(result, recompile_messages, compile_error, files, break_messages=None, skipped_frames=None,
                   compile_error_location=None):
    """One entry per runtime event: graph breaks, the compile crash, recompiles. Repeats at the same (kind,
    file, line, reason) are one entry with a count.

    Breaks come from the real compile's graph_breaks log (`break_messages`): its traceback reaches the
    innermost frame, where explain()'s user stack can stop at a caller (gpt2's `loss = self.loss_function(`
    for a logger.warning_once inside the property, reason 'step_unsupported'). explain()'s breaks are added
    where no logged break passes through their line (a compile that crashed early logs fewer breaks)."""
    events = []
    logged = logged_breaks(break_messages or [], files)
    logged_frames = set()
    for filename, line, gb_code, reason, frames in logged:
        events.append(("break", filename, line, gb_code, reason))
        logged_frames |= frames
    for filename, line in skipped_frames or []:
        if (filename, line) not in logged_frames and files.is_user(filename):
            events.append(("break", filename, line, None, "graph break in a for/while loop: the frame was skipped"))
    for graph_break in result.get("graph_breaks") or []:
        filename, line = innermost_traced_frame(graph_break.get("frames"), files)
        if filename is None:
            filename, line = graph_break.get("filename"), graph_break.get("line")
        if filename is not None and (os.path.abspath(filename), line) in logged_frames:
            continue
        events.append(("break", filename, line, graph_break.get("gb_code"), graph_break.get("reason")))
    if compile_error is not None and result.get("status") == "compile_error":
        filename, line = compile_error_location or locate_error(compile_error, files)
        if filename is None:
            error = result.get("error") or {}
            filename, line = error.get("filename"), error.get("line")
        text = "%s: %s" % (type(compile_error).__name__, first_line(compile_error))
        code = GB_CODE_PATTERN.search(str(compile_error))
        events.append(("crash", filename, line, ("GB" + code.group(1)) if code else None, truncate(text, REASON_LIMIT)))
    for message in recompile_messages:
        filename, line = recompile_site(message)
        # The guard's value changes every time (self.n == 0, == 1, ...): one site, one event.
        events.append(("recompile", filename, line, None, recompile_reason(message)))
    merged = {}
    for kind, filename, line, gb_code, reason in events:
        if filename is not None:
            filename = os.path.abspath(filename)
        key = (kind, filename, line, reason if kind != "recompile" else None)
        if key in merged:
            merged[key]["count"] += 1
        else:
            merged[key] = {"kind": kind, "filename": filename, "line": line, "gb_code": gb_code,
                           "reason": reason, "count": 1}
    return list(merged.values())


class TraceFacts:
    """The run's trace map and runtime events, kept apart from the phases that feed them."""

    def __init__(self):
        self.recorder = None
        self.compile_log = None
        self.compile_error = None
        # crash_location(compile_error), taken when the compile failed.
        self.compile_error_location = None

    @contextlib.contextmanager
    def recording(self, torch, compile_log=None):
        if self.recorder is None:
            self.recorder = TraceRecorder(torch)
        if compile_log is not None:
            self.compile_log = compile_log
        with self.recorder.recording():
            yield

    def attach(self, result, torch, classifier):
        """Writes `traced` (null when this torch has no trace_source artifact) and `runtime_events`."""
        if self.recorder is None or torch is None:
            return
        files = TracedFiles(torch)
        result["traced"] = self.recorder.traced(files) if self.recorder.available else None
        messages = list(self.compile_log.recompile_messages) if self.compile_log is not None else []
        # A recompile attempt that hits the limit compiles nothing: not an event of its own.
        limit_hits = len(self.compile_log.limit_messages) if self.compile_log is not None else 0
        messages = messages[: max(0, len(messages) - limit_hits)]
        breaks = list(self.compile_log.graph_break_messages) if self.compile_log is not None else []
        result["runtime_events"] = runtime_events(
            result, messages, self.compile_error, files, breaks, self.recorder.skipped_frames,
            self.compile_error_location,
        )
