"""Attributing frames and errors to the user's code."""

import ast
import dis
import os
import re
import sysconfig
import traceback
import types

from .records import FROM_USER_CODE_FRAME, MESSAGE_LIMIT, TRACEBACK_TAIL_LIMIT, is_harness_file, truncate


# --------------------------------------------------------------------------------------------
# attributing frames to user code


class FrameClassifier:
    """Tells user frames from torch / third-party / stdlib / harness frames."""

    def __init__(self, torch, case_file):
        prefixes = []
        if torch is not None:
            prefixes.append(os.path.dirname(os.path.abspath(torch.__file__)) + os.sep)
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            path = sysconfig.get_paths().get(key)
            if path:
                prefixes.append(os.path.abspath(path) + os.sep)
        self.library_prefixes = tuple(sorted(set(prefixes), key=len, reverse=True))
        self.case_dir = os.path.dirname(os.path.abspath(case_file)) + os.sep if case_file else None

    def is_user(self, filename):
        if not filename or filename.startswith("<"):
            return False
        path = os.path.abspath(filename)
        if is_harness_file(path):
            return False
        if self.case_dir and path.startswith(self.case_dir):
            return True
        if path.startswith(self.library_prefixes):
            return False
        parts = path.split(os.sep)
        return "site-packages" not in parts and "dist-packages" not in parts


def frame_location(frame):
    """(filename, line) of a traceback.FrameSummary-like object."""
    return getattr(frame, "filename", None), getattr(frame, "lineno", None)


def innermost_user_frame(frames, classifier):
    """(filename, line, in_user_code) for a list of FrameSummary, innermost last."""
    for frame in reversed(list(frames or [])):
        filename, line = frame_location(frame)
        if classifier.is_user(filename):
            return filename, line, True
    if frames:
        filename, line = frame_location(list(frames)[-1])
        return filename, line, False
    return None, None, False


def exception_chain(error):
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def locate_error(error, classifier):
    """User file:line of an exception: Dynamo's user stack first, then its message, then the traceback."""
    for link in exception_chain(error):
        real_stack = getattr(link, "real_stack", None)
        if real_stack:
            filename, line, in_user = innermost_user_frame(real_stack, classifier)
            if in_user:
                return filename, line
        summary = getattr(link, "innermost_user_frame_summary", None)
        if summary is not None and classifier.is_user(getattr(summary, "filename", None)):
            return frame_location(summary)
    for link in exception_chain(error):
        message = str(link)
        marker = message.find("from user code:")
        if marker >= 0:
            found = [
                (name, int(line))
                for name, line in FROM_USER_CODE_FRAME.findall(message[marker:])
                if classifier.is_user(name)
            ]
            if found:
                return found[-1]
    for link in exception_chain(error):
        if isinstance(link, SyntaxError) and link.filename and classifier.is_user(link.filename):
            return link.filename, link.lineno
        filename, line, in_user = innermost_user_frame(traceback.extract_tb(link.__traceback__), classifier)
        if in_user:
            return filename, line
    return None, None


def innermost_user_traceback_entry(error, classifier):
    """The innermost traceback entry of `error` whose code is the user's, or None."""
    innermost = None
    entry = error.__traceback__
    while entry is not None:
        if classifier.is_user(entry.tb_frame.f_code.co_filename):
            innermost = entry
        entry = entry.tb_next
    return innermost


def innermost_user_traceback_frame(error, classifier):
    """(filename, line, function's first line, function's last line) of the innermost user frame in the
    traceback, or None."""
    innermost = innermost_user_traceback_entry(error, classifier)
    if innermost is None:
        return None
    code = innermost.tb_frame.f_code
    # The frame may run Dynamo-rewritten bytecode with a truncated line table: take the function's
    # extent from its source instead.
    last = code.co_firstlineno
    try:
        with open(code.co_filename, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                starts = [node.lineno] + [decorator.lineno for decorator in node.decorator_list]
                if code.co_firstlineno in starts and node.name == code.co_name:
                    last = getattr(node, "end_lineno", None) or last
                    break
    except (OSError, SyntaxError, ValueError):
        pass
    return code.co_filename, innermost.tb_lineno, code.co_firstlineno, last


RESUME_NAME = re.compile(r"__resume_at_(\d+)_\d+")
RESUME_CODE_NAME = re.compile(r"torch_dynamo_resume_in_.*_at_(\d+)$")


def original_code_map(torch):
    """Dynamo's map from the bytecode it rewrote to the user's original code (torch 2.0+)."""
    dynamo_utils = getattr(getattr(torch, "_dynamo", None), "utils", None)
    return getattr(dynamo_utils, "orig_code_map", None)


def line_of_offset(code, offset):
    """Source line of the instruction at `offset` in `code` (the last line start at or before it)."""
    line = None
    for start, start_line in dis.findlinestarts(code):
        if start > offset:
            break
        if start_line is not None:
            line = start_line
    return line


def statement_in_rewritten_frame(torch, error, classifier):
    """(filename, line) of the statement that raised inside bytecode Dynamo rewrote, or None.

    After a graph break Dynamo runs a rewritten copy of the user's function: a call of the compiled graph,
    then the unsupported instruction itself, then a call of `__resume_at_<offset>_<n>` (the rest of the
    function, from original offset <offset>). On torch ≤ 2.5 that copy's line table holds only the
    function's first line, so an error raised by the unsupported instruction (a TypeError from a
    torch.Size passed to torch.stack, say) points at the `def`. The instruction that raised sits between
    the graph call and the resume call; in the original code it is the instruction just before
    <offset>, whose line is the statement. Dynamo keeps the original code (torch._dynamo.utils.
    orig_code_map), also for resume functions, whose own lines are the user's."""
    code_map = original_code_map(torch)
    if code_map is None:
        return None
    innermost = innermost_user_traceback_entry(error, classifier)
    if innermost is None:
        return None
    rewritten = innermost.tb_frame.f_code
    if innermost.tb_lineno != rewritten.co_firstlineno:
        return None  # the traceback already names a statement
    try:
        original = code_map[rewritten]
    except (KeyError, TypeError):
        return None
    failed_at = innermost.tb_lasti
    resume_offset = None
    for instruction in dis.get_instructions(rewritten):
        if instruction.offset <= failed_at:
            continue
        if isinstance(instruction.argval, types.CodeType):
            # A resume function with free variables (the frame has closures) is built from its code object
            # (LOAD_CONST + MAKE_FUNCTION), named `torch_dynamo_resume_in_<fn>_at_<line>`: <line> is the
            # line Dynamo was at when it broke, the failing statement's.
            named = RESUME_CODE_NAME.match(instruction.argval.co_name)
            if named:
                return original.co_filename, int(named.group(1))
            continue
        found = RESUME_NAME.search(str(instruction.argval))
        if found:
            resume_offset = int(found.group(1))
            break
    if resume_offset is None:
        return None
    before = [instruction.offset for instruction in dis.get_instructions(original) if instruction.offset < resume_offset]
    if not before:
        return None
    line = line_of_offset(original, before[-1])
    if line is None:
        return None
    return original.co_filename, line


def describe_error(error, phase, classifier):
    filename, line = locate_error(error, classifier)
    formatted = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    described = {
        "type": type(error).__name__,
        "message": truncate(str(error), MESSAGE_LIMIT),
        "filename": filename,
        "line": line,
        "phase": phase,
        "traceback_tail": formatted[-TRACEBACK_TAIL_LIMIT:],
    }
    cause = error.__cause__
    if cause is not None:
        # Dynamo wraps user-code errors (e.g. TorchRuntimeError around a TypeError); keep the root.
        while cause.__cause__ is not None:
            cause = cause.__cause__
        described["cause_type"] = type(cause).__name__
        described["cause_message"] = truncate(str(cause), MESSAGE_LIMIT)
    return described


def is_out_of_memory(torch, error):
    oom_type = getattr(getattr(torch, "cuda", None), "OutOfMemoryError", None) if torch else None
    for link in exception_chain(error):
        if isinstance(link, MemoryError):
            return True
        if oom_type is not None and isinstance(link, oom_type):
            return True
        if isinstance(link, RuntimeError):
            text = str(link).lower()
            # CUDA: "CUDA out of memory"; CPU allocator: "DefaultCPUAllocator: not enough memory".
            if "out of memory" in text or "not enough memory" in text:
                return True
    return False
