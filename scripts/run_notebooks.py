#!/usr/bin/python3
"""Runs notebooks in the tslab kernel (through nbclient) and fails loudly; optionally exports each one to HTML.

The one notebook runner of the project: `npm run handouts` and `test/notebooks.test.ts` both call it.

    /usr/bin/python3 scripts/run_notebooks.py [--jobs N] [--html-dir DIR] [--summary FILE] [--timeout S] NB.ipynb ...

Every notebook gets a fresh kernel. Kernels for the next notebooks are started while the current one's cells run (a
tslab kernel takes about 1.5 s to start from its startup snapshot, scripts/kernel-snapshot.cjs, 1.8 s without), so on
two cores the starts hide behind the notebooks: --ahead N kernels per lane (default 2; the short notebooks 07-10 come
one after another, and one kernel ahead left their starts in the open, bench/RESULTS.md Stop 16). The kernels ahead
come up one after another (each once the one before it is up), not all at once. --no-start-ahead (--ahead 0) starts
each kernel only when its notebook's turn comes. --jobs N runs N notebooks at once (default 1; each lane starts its own
kernels ahead).

A notebook fails when a code cell
  - ends in an error (tslab reports it as execute_reply status "error" plus a stderr stream, not as an error output),
  - has an error output,
  - is left without execution: tslab cancels every request that arrives within 200 ms of a failing cell and answers
    "abort", which nbclient takes for success -- so the cells after an error would pass silently without this check,
  - times out, or the kernel dies.
A cell tagged `raises-exception` (the nbclient/nbval convention) may raise -- and then must raise; the runner waits
out tslab's 200 ms cancel window after it so the following cells do run. Cells tagged `skip-execution` and empty
cells are not run. On failure it prints the notebook, the cell (index and source) and its stderr / error text.

Every kernel it starts (the one started ahead included) is shut down on every way out: a failing or unreadable
notebook, an exception, Ctrl-C / SIGTERM / SIGHUP (a second signal kills what is left at once; exit 128 + signal).
Jupyter starts kernels in a session of their own, so a Ctrl-C in the terminal does not reach them by itself; and
should the runner be killed outright, each kernel exits once its parent is gone (scripts/kernel-startup.cjs).

For grading (scripts/grade.mjs): --keep-going runs every cell even after one fails and records each cell's status in
the executed notebook, which --executed-dir writes out; a timeout or a dead kernel still ends that notebook, unless
--isolate-parts: then the runner starts a fresh kernel, re-runs the set-up cells (metadata grader.setup, e.g. the
import cell), skips the rest of the failing cell's part (metadata grader.part) and goes on with the next part. For
handouts: --edition student leaves the cells tagged `instructor` (reference answers, rubrics) out of the HTML.
For the readability check of every chart (test/notebooks.test.ts): --figures-dir DIR writes DIR/<name>.json, each
figure the notebook's outputs draw with the cell it came from.

Needs Debian's python3-nbclient and python3-nbconvert (hence /usr/bin/python3, not a pyenv python). The Jupyter
paths are pointed into the project's .jupyter/ here, so it finds the kernel that `scripts/setup.mjs` registered.
"""
import argparse
import asyncio
import atexit
import contextlib
import json
import os
import re
import select
import signal
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JUPYTER_DIR = os.path.join(ROOT, ".jupyter")
# Keep in step with jupyterEnv() in scripts/project.mjs.
os.environ["JUPYTER_PATH"] = JUPYTER_DIR
os.environ["JUPYTER_CONFIG_DIR"] = os.path.join(JUPYTER_DIR, "config")
os.environ["JUPYTER_DATA_DIR"] = os.path.join(JUPYTER_DIR, "data")
os.environ["JUPYTER_RUNTIME_DIR"] = os.path.join(JUPYTER_DIR, "runtime")
os.environ["IPYTHONDIR"] = os.path.join(JUPYTER_DIR, "ipython")
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")

import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402
from nbclient.exceptions import CellTimeoutError, DeadKernelError  # noqa: E402

# Kernels started ahead per lane (--ahead). Notebooks 07-10 are short and come one after another: one kernel ahead
# starts each of them beside a notebook too short to hide it (bench/RESULTS.md, Stop 16).
DEFAULT_AHEAD = 2
ALLOW_TAG = "raises-exception"
SKIP_TAG = "skip-execution"
TSLAB_CANCEL_WINDOW_S = 0.4  # tslab aborts requests arriving < 200 ms after an error (tslab/dist/jupyter.js)
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class StopAtFailure(Exception):
    """Raised from the hook to stop at the first failing cell (the rest would only be aborted)."""


def tags(cell):
    return cell.get("metadata", {}).get("tags", []) or []


def runnable(cell):
    return cell.cell_type == "code" and cell.source.strip() != "" and SKIP_TAG not in tags(cell)


def error_text(cell, streams=("stderr",)):
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream" and out.get("name") in streams:
            parts.append(out.get("text", ""))
        elif out.get("output_type") == "error":
            parts.append("\n".join(out.get("traceback", [])) or f"{out.get('ename')}: {out.get('evalue')}")
    return ANSI.sub("", "".join(p if p.endswith("\n") else p + "\n" for p in parts)).rstrip()


def title_of(nb, fallback):
    """The first markdown heading, and a second heading right after it (the bilingual title), if any."""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        lines = [ln.strip() for ln in cell.source.splitlines()]
        heads = []
        for ln in lines:
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*$", ln)
            if m:
                heads.append(m.group(1))
            elif heads and ln:
                break
        if heads:
            return heads[0], (heads[1] if len(heads) > 1 else "")
        break
    return fallback, ""


class Kernel:
    """A started kernel: its manager, a ready client, and how long the start took."""

    def __init__(self, km, kc, seconds):
        self.km, self.kc, self.seconds = km, kc, seconds


# Every kernel manager whose kernel may be running (from the moment its start begins until it is stopped): what
# the last line of defence shuts down or kills, whatever way the runner leaves.
LIVE = set()
# The signals that stopped the run (SIGINT, SIGTERM, SIGHUP), for main() to report.
INTERRUPTED = []


def kernel_output_handles():
    """The kernel's stdout and stderr: a pipe of its own for each, copied to the runner's by a thread. Node (tslab)
    makes its stdio non-blocking the first time it writes there, and the flag belongs to the open file description:
    a kernel sharing the runner's stdout / stderr (a pipe or a socket) made the runner's writes fail with
    BlockingIOError whenever the reader was slow -- on a busy machine the runner's traceback was cut off mid-way. A
    kernel left running then no longer holds the caller's pipe open either.
    Returns (stdout, stderr, fds to close once the kernel is launched)."""
    handles = []
    for fd in (1, 2):
        read_end, write_end = os.pipe()
        threading.Thread(target=copy_output, args=(read_end, fd), daemon=True).start()
        handles.append(write_end)
    return handles[0], handles[1], list(handles)


def copy_output(source, target):
    """Copies what a kernel writes on `source` to the runner's `target` until the kernel closes it."""
    with contextlib.suppress(OSError):
        while True:
            chunk = os.read(source, 65536)
            if not chunk:
                break
            while chunk:
                try:
                    chunk = chunk[os.write(target, chunk):]
                except BlockingIOError:  # someone else made it non-blocking: wait for room
                    select.select([], [target], [], 1.0)
    os.close(source)


def blocking_output():
    """Makes the runner's stdout and stderr blocking again (node, which shared them while it built the library, made
    them non-blocking)."""
    for fd in (1, 2):
        try:
            os.set_blocking(fd, True)
        except OSError:
            pass


async def start_kernel(kernel_name, cwd, startup_timeout=120):
    from jupyter_client.manager import AsyncKernelManager

    t0 = time.monotonic()
    km = AsyncKernelManager(kernel_name=kernel_name)
    LIVE.add(km)
    kc = None
    out, err, opened = kernel_output_handles()
    try:
        try:
            await km.start_kernel(cwd=cwd, stdout=out, stderr=err)
        finally:
            for own in opened:
                os.close(own)
        kc = km.client()
        kc.start_channels()
        await wait_for_ready(km, kc, startup_timeout)
    except BaseException:  # also a cancellation (Ctrl-C) while it starts
        await stop_kernel(Kernel(km, kc, 0))
        raise
    kc.allow_stdin = False
    return Kernel(km, kc, time.monotonic() - t0)


async def wait_for_ready(km, kc, timeout):
    """jupyter_client's wait_for_ready without its last step: it waits until the kernel has answered kernel_info and
    IOPub is connected (a status message arrived), then drains IOPub until 0.2 s pass without a message -- 0.2 s of
    every kernel start spent idle. nbclient ignores IOPub messages that answer another request, so the status
    messages of kernel_info left in the queue are harmless; they are dropped here without waiting."""
    from queue import Empty

    deadline = time.monotonic() + timeout
    while True:
        kc.kernel_info()
        try:
            reply = await kc.shell_channel.get_msg(timeout=1)
        except Empty:
            reply = None
        if reply is not None and reply["msg_type"] == "kernel_info_reply":
            try:
                await kc.iopub_channel.get_msg(timeout=0.2)
            except Empty:  # IOPub not connected yet: ask again
                pass
            else:
                kc._handle_kernel_info_reply(reply)
                break
        if not await km.is_alive():
            raise RuntimeError("Kernel died before replying to kernel_info")
        if time.monotonic() > deadline:
            raise RuntimeError(f"Kernel didn't respond in {timeout} seconds")
    while True:
        try:
            await kc.iopub_channel.get_msg(timeout=0)
        except Empty:
            return


async def stop_kernel(kernel, now=False):
    try:
        if kernel.kc is not None:
            kernel.kc.stop_channels()
        if kernel.km.has_kernel and await kernel.km.is_alive():
            await kernel.km.shutdown_kernel(now=now)
    except Exception:  # already dead, or would not answer: kill it
        kill_now([kernel.km])
    finally:
        try:
            await kernel.km.cleanup_resources()
        except Exception:
            pass
        LIVE.discard(kernel.km)


def kill_now(managers=None):
    """Kills the kernels' process groups at once (no shutdown request): a second Ctrl-C, or the exit of the runner
    with kernels still up."""
    for km in list(LIVE if managers is None else managers):
        provisioner = getattr(km, "provisioner", None)
        process = getattr(provisioner, "process", None)
        if process is None or process.poll() is not None:
            continue
        try:
            pgid = getattr(provisioner, "pgid", None)
            if pgid and pgid != os.getpgid(0):
                os.killpg(pgid, signal.SIGKILL)
            else:
                process.kill()
        except OSError:
            pass


atexit.register(kill_now)


async def stop_all():
    """Shuts down every kernel still registered (in parallel), killing any that does not stop in time."""
    left = list(LIVE)
    if not left:
        return
    try:
        await asyncio.wait_for(asyncio.gather(*(stop_kernel(Kernel(km, None, 0), now=True) for km in left), return_exceptions=True), 15)
    except (asyncio.TimeoutError, asyncio.CancelledError):
        kill_now(left)


def stop_on_signals(task):
    """SIGINT (Ctrl-C), SIGTERM, SIGHUP cancel `task` (the run), whose clean-up then shuts the kernels down; a second
    signal kills them at once."""
    loop = asyncio.get_running_loop()

    def on_signal(signum):
        if INTERRUPTED:
            kill_now()
        INTERRUPTED.append(signum)
        print(f"{signal.Signals(signum).name}: stopping; shutting down the kernels", flush=True)
        task.cancel()

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        try:
            loop.add_signal_handler(signum, on_signal, signum)
        except (NotImplementedError, RuntimeError, ValueError):  # not on the main thread, or no such signal
            pass


class RunnerClient(NotebookClient):
    """nbclient's client on a kernel the runner started and will stop. nbclient's own kernel set-up would install
    SIGINT / SIGTERM handlers for each notebook (shutting down that notebook's kernel only, so the run would go on
    with the next one) and remove them afterwards (leaving Python's defaults, under which a SIGTERM ends the runner
    with the kernel started ahead still up): the runner keeps the signals to itself (stop_on_signals)."""

    @contextlib.asynccontextmanager
    async def async_setup_kernel(self, **kwargs):
        yield


def grader_meta(cell):
    """What scripts/grade.mjs wrote into a cell for --isolate-parts: {part, setup}."""
    meta = cell.get("metadata", {}).get("grader", {})
    return meta if isinstance(meta, dict) else {}


async def execute_isolated(client, nb, kernel, kernel_name, cwd, replies, restarts, state):
    """--isolate-parts: runs the code cells one by one; a cell that times out or kills the kernel costs only its
    part. The kernel is replaced by a fresh one, the set-up cells are run again in it, the failing part's remaining
    cells are skipped (left unrun, status "skipped") and the next part runs as usual. Returns the kernel in use at
    the end (the caller stops it), raises when a fresh kernel does not start."""
    skip_part = None
    for index, cell in enumerate(nb.cells):
        if not runnable(cell):
            continue
        part = grader_meta(cell).get("part")
        if skip_part is not None and part == skip_part:
            replies[index] = "skipped"
            continue
        skip_part = None
        try:
            await client.async_execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
        except (CellTimeoutError, DeadKernelError) as e:
            event = "timeout" if isinstance(e, CellTimeoutError) else "kernel-died"
            replies[index] = event
            skip_part = part if part is not None else object()  # a cell of no part: nothing else to skip
            kernel = await replace_kernel(client, nb, kernel, kernel_name, cwd, state)
            restarts.append({"cell": index, "event": event, "part": part, "setupOk": state.get("setup_ok", True)})
    return kernel


async def replace_kernel(client, nb, kernel, kernel_name, cwd, state):
    """Stops the stuck or dead kernel, starts a fresh one, points the client at it and runs the set-up cells (their
    statuses and outputs stay those of the first run)."""
    import copy

    await stop_kernel(kernel, now=True)
    fresh = await start_kernel(kernel_name, cwd)
    client.km, client.kc = fresh.km, fresh.kc
    state["rerunning"] = True
    state["setup_ok"] = True
    try:
        for index, cell in enumerate(nb.cells):
            if runnable(cell) and grader_meta(cell).get("setup"):
                again = copy.deepcopy(cell)
                await client.async_execute_cell(again, index)
                nb.cells[index] = cell  # nbclient put the copy in its place
                if state.pop("last_status", "ok") != "ok":
                    state["setup_ok"] = False
                await asyncio.sleep(TSLAB_CANCEL_WINDOW_S if not state["setup_ok"] else 0)
    finally:
        state["rerunning"] = False
    return fresh


async def run_notebook(path, timeout, kernel, after_error_wait=TSLAB_CANCEL_WINDOW_S, keep_going=False, isolate=False, kernel_name="tslab"):
    """Executes the notebook in place (in memory) on a started kernel (a Kernel, or the exception its start
    raised). Returns (nb, failures, warnings, cell_seconds, not_run). With keep_going a failing cell does not stop
    the notebook (the cells after it run; see annotate_cells), as for a submission being graded; with isolate a
    timeout or a dead kernel costs only its part (execute_isolated). A kernel started here is stopped here."""
    nb = nbformat.read(path, as_version=4)
    if isinstance(kernel, BaseException):  # kernel not found, failed to start, ...
        return nb, [(None, None, f"the kernel did not start: {type(kernel).__name__}: {kernel}")], [], {}, []
    replies = {}
    started = {}
    seconds = {}
    restarts = []
    state = {"rerunning": False}

    def on_execute(cell, cell_index):
        if not state["rerunning"]:
            started[cell_index] = time.monotonic()

    async def on_executed(cell, cell_index, execute_reply):
        status = (execute_reply or {}).get("content", {}).get("status")
        if state["rerunning"]:  # a set-up cell run again in a fresh kernel
            state["last_status"] = status
            return
        seconds[cell_index] = time.monotonic() - started.get(cell_index, time.monotonic())
        replies[cell_index] = status
        if status == "error":
            if ALLOW_TAG in tags(cell) or keep_going:
                await asyncio.sleep(after_error_wait)
            else:
                raise StopAtFailure()

    client = RunnerClient(
        nb,
        km=kernel.km,
        timeout=timeout,
        allow_errors=True,
        record_timing=False,
        resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}},
        on_cell_execute=on_execute,
        on_cell_executed=on_executed,
    )
    client.kc = kernel.kc  # started and ready: nbclient uses it as it is and leaves the shutdown to us
    crash = None
    current = kernel
    try:
        if isolate:
            current = await execute_isolated(client, nb, kernel, kernel_name, os.path.dirname(os.path.abspath(path)), replies, restarts, state)
        else:
            await client.async_execute()
    except StopAtFailure:
        pass
    except CellTimeoutError as e:
        crash = f"timed out (more than {timeout} s in one cell): {str(e).splitlines()[0] if str(e) else ''}"
    except DeadKernelError as e:
        crash = f"the kernel died: {e}"
    except Exception as e:  # kernel not found, failed to start, ...
        crash = f"{type(e).__name__}: {e}"
    finally:
        # a kernel started in place of a stuck or dead one is this function's to stop (the caller stops the first)
        if restarts and client.km is not kernel.km:
            await stop_kernel(Kernel(client.km, client.kc, 0), now=bool(INTERRUPTED))
    if restarts:
        nb.metadata["runner"] = {"restarts": restarts}

    failures, warnings = [], []
    if crash and not replies:  # the kernel did not start, or the first cell never answered
        return nb, [(None, None, crash)], [], seconds, annotate_cells(nb, replies, seconds, crash) if keep_going else []
    first_bad = None
    for index, cell in enumerate(nb.cells):
        if not runnable(cell):
            continue
        status = replies.get(index)
        allowed = ALLOW_TAG in tags(cell)
        has_error_output = any(o.get("output_type") == "error" for o in cell.get("outputs", []))
        reason = None
        if status is None:
            if first_bad is None:
                reason = crash or "was not executed"
        elif status in ("timeout", "kernel-died", "skipped"):
            reason = {"timeout": f"timed out (more than {timeout} s); the kernel was replaced", "kernel-died": "killed the kernel; the kernel was replaced",
                      "skipped": "was skipped (an earlier cell of its part failed)"}[status]
        elif status == "abort" or status == "aborted":
            reason = "was aborted by the kernel (tslab cancels the cells after a failing one)"
        elif status == "error" or has_error_output:
            if not allowed:
                reason = "raised an error"
        elif status != "ok":
            reason = f"finished with status {status!r}"
        elif allowed:
            reason = f"is tagged {ALLOW_TAG!r} but did not raise"
        if status is not None and cell.get("execution_count") is None and reason is None:
            reason = "has no execution count (not executed)"
        if reason:
            if first_bad is None:
                first_bad = index
                failures.append((index, cell, reason))
            continue
        if first_bad is None and status == "ok":
            text = error_text(cell)
            if text:
                warnings.append((index, text))
    not_run = [i for i, c in enumerate(nb.cells) if runnable(c) and first_bad is not None and i > first_bad]
    if crash and first_bad is None:
        failures.append((None, None, crash))
    if keep_going:
        not_run = annotate_cells(nb, replies, seconds, crash)
    return nb, failures, warnings, seconds, not_run


def annotate_cells(nb, replies, seconds, crash):
    """For --keep-going: records in each code cell's metadata how it ended (runner.status: ok / error / aborted /
    not-run, and seconds) and in the notebook's metadata why the run stopped early (runner.stopped: a timeout or a
    dead kernel, else null), so a reader of the executed notebook (scripts/grade.mjs) need not guess from outputs.
    Returns the code cells that never ran."""
    not_run = []
    for index, cell in enumerate(nb.cells):
        if not runnable(cell):
            continue
        status = replies.get(index)
        if status is None:
            not_run.append(index)
        shown = {None: "not-run", "ok": "ok", "error": "error", "abort": "aborted", "aborted": "aborted"}.get(status, str(status))
        cell.metadata["runner"] = {"status": shown, "seconds": round(seconds.get(index, 0.0), 3)}
    restarts = nb.metadata.get("runner", {}).get("restarts", [])
    nb.metadata["runner"] = {"stopped": crash, "restarts": restarts}
    return not_run


def describe_failure(path, nb, failure, not_run):
    index, cell, reason = failure
    rel = os.path.relpath(path)
    if cell is None:
        return f"FAILED {rel}: {reason}"
    code_number = sum(1 for c in nb.cells[: index + 1] if c.cell_type == "code")
    lines = [f"FAILED {rel}: cell {index} (code cell {code_number}) {reason}"]
    lines.append("---- cell source ----")
    lines.append(cell.source.rstrip())
    text = error_text(cell)
    lines.append("---- stderr / error ----")
    lines.append(text or "(none)")
    if not_run:
        lines.append(f"---- {len(not_run)} later code cell(s) not run: cells {', '.join(map(str, not_run))} ----")
    return "\n".join(lines)


# Cells that only render prose or tables (help(), a claims paragraph) carry this tag; the handout shows their output
# and leaves their source out (nbconvert's tag-based input removal), so a page reads like a book.
HIDE_INPUT_TAG = "hide-input"


# Reference answers and rubrics (notebook 08) carry this tag: the student edition of a handout leaves those cells out.
INSTRUCTOR_TAG = "instructor"


def released_source(source):
    """A cell's source as `npm run release` hands it out (scripts/editions.mjs): the lines between nbgrader's
    `### BEGIN HIDDEN TESTS` and `### END HIDDEN TESTS` removed, each `### BEGIN SOLUTION` … `### END SOLUTION`
    region replaced by the stub."""
    out, mode = [], None
    for line in source.split("\n"):
        if "BEGIN HIDDEN TESTS" in line:
            mode = "hidden"
        elif "BEGIN SOLUTION" in line:
            mode = "solution"
            indent = line[: len(line) - len(line.lstrip())]
            out += [indent + "// 在这里写你的代码", indent + 'throw new Error("尚未实现");']
        elif mode and ("END HIDDEN TESTS" in line or "END SOLUTION" in line):
            mode = None
        elif mode is None:
            out.append(line)
    return "\n".join(out)


def apply_edition(nb, edition):
    """The notebook as the given edition shows it: "student" drops the cells tagged `instructor` (reference answers,
    rubrics); "instructor" keeps everything. Returns a copy; the executed notebook itself is left as it was."""
    import copy

    shown = copy.deepcopy(nb)
    if edition == "student":
        shown.cells = [c for c in shown.cells if INSTRUCTOR_TAG not in tags(c)]
        for c in shown.cells:
            released = released_source(c.source)
            if released != c.source:  # hidden tests or reference code: shown as released, without the run's outputs
                c.source = released
                if c.cell_type == "code":
                    c.outputs = []
            elif c.cell_type == "code" and "progress(" in c.source:
                # progress() ran on the instructor's reference answers: in the student edition it would show every
                # exercise solved. The student sees it in their own notebook instead.
                c.outputs = []
        count = 0  # renumber In [n]: a gap would show where a cell was left out
        for c in shown.cells:
            if c.cell_type == "code" and c.get("execution_count") is not None:
                count += 1
                c.execution_count = count
    shown.metadata.setdefault("lecture11", {})["edition"] = edition
    return shown


def write_executed(nb, name, executed_dir):
    """Writes the executed notebook (outputs and, with --keep-going, each cell's runner.status) to DIR/<name>.ipynb."""
    os.makedirs(executed_dir, exist_ok=True)
    out = os.path.join(executed_dir, name + ".ipynb")
    nbformat.write(nb, out)
    return out


FIGURE_START = "var f = "  # lib/view/plot.ts figureHtml: `var f = {figure JSON}; window.Plotly.newPlot(...)`


def figures_of(nb):
    """Every Plotly figure the notebook's outputs draw, as [{"cell": index, "figure": {data, layout, config}}]."""
    decoder = json.JSONDecoder()
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            html = output.get("data", {}).get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            at = html.find(FIGURE_START)
            while at >= 0:
                figure, end = decoder.raw_decode(html, at + len(FIGURE_START))
                found.append({"cell": index, "figure": figure})
                at = html.find(FIGURE_START, end)
    return found


def write_figures(nb, name, figures_dir):
    """Writes DIR/<name>.json: every figure the executed notebook draws (for the readability check of its charts)."""
    os.makedirs(figures_dir, exist_ok=True)
    out = os.path.join(figures_dir, name + ".json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(figures_of(nb), f, ensure_ascii=False)
    return out


def export_html(nb, name, title, html_dir, mathjax_url):
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    exporter = HTMLExporter(
        extra_template_basedirs=[os.path.join(ROOT, "scripts", "handout-template")],
        template_name="handout",
        mathjax_url=mathjax_url,
    )
    exporter.register_preprocessor(TagRemovePreprocessor(remove_input_tags={HIDE_INPUT_TAG}, enabled=True), enabled=True)
    nb.metadata["title"] = title
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": name}})
    # Links between notebooks ([02](02-cache-vs-balance.ipynb)) point at the sibling handout pages instead.
    body = re.sub(r'href="(\d\d-[A-Za-z0-9_-]+)\.ipynb(#[^"]*)?"', lambda m: f'href="{m.group(1)}.html{m.group(2) or ""}"', body)
    out = os.path.join(html_dir, name + ".html")
    with open(out, "w", encoding="utf-8") as f:
        f.write(body)
    return out


def report(n, total, path, nb, failures, warnings, seconds, not_run, elapsed, kernel_seconds, kernel_wait, args):
    """Prints one notebook's outcome (and writes its HTML); returns its summary entry."""
    name = os.path.splitext(os.path.basename(path))[0]
    title, subtitle = title_of(nb, name)
    entry = {"notebook": os.path.relpath(path, ROOT), "name": name, "title": title, "subtitle": subtitle,
             # wall seconds from taking the notebook to its last cell, of which kernelWaitSeconds waiting for its
             # kernel (0 when it was started ahead and ready); kernelStartSeconds: how long that kernel took to start
             "seconds": round(elapsed, 2), "kernelWaitSeconds": round(kernel_wait, 2),
             "kernelStartSeconds": round(kernel_seconds, 2),
             "ok": not failures, "html": None, "failure": None,
             # per executed code cell: [cell index, seconds]
             "cells": [[i, round(s, 3)] for i, s in sorted(seconds.items())]}
    if args.executed_dir:
        write_executed(nb, name, args.executed_dir)
    if args.figures_dir:
        write_figures(nb, name, args.figures_dir)
    for index, text in warnings:
        first = text.splitlines()[0] if text else ""
        print(f"    note: {name} cell {index} wrote to stderr: {first[:200]}", flush=True)
    if failures:
        entry["failure"] = describe_failure(path, nb, failures[0], not_run)
        print(entry["failure"], flush=True)
        print(f"[{n}/{total}] {name}: FAILED after {elapsed:.1f} s", flush=True)
    else:
        code = [i for i, c in enumerate(nb.cells) if runnable(c)]
        slow = max(seconds.items(), key=lambda kv: kv[1]) if seconds else None
        slowest = f", slowest cell {slow[0]} {slow[1]:.1f} s" if slow else ""
        if args.html_dir:
            os.makedirs(args.html_dir, exist_ok=True)
            shown = apply_edition(nb, args.edition) if args.edition else nb
            entry["html"] = os.path.basename(export_html(shown, name, title, args.html_dir, args.mathjax_url))
        print(f"[{n}/{total}] {name}: ok in {elapsed:.1f} s ({len(code)} code cells{slowest}; kernel start {kernel_seconds:.1f} s)", flush=True)
    return entry


async def run_all(args, jobs):
    """Runs the notebooks in `jobs` lanes; each lane starts the kernel for its next notebook while the current
    one runs. Returns the summary entries in the order the notebooks were given."""
    paths = args.notebooks
    total = len(paths)
    todo = list(enumerate(paths, 1))
    entries = [None] * total
    stopping = []

    def cwd_of(path):
        return os.path.dirname(os.path.abspath(path))

    def start(path, after=None):
        """Starts a kernel for `path`; with `after` (the start of the kernel ahead of it), once that one is up: kernels
        started ahead come up one after another on the core the cells leave free, not all at once."""
        async def go():
            if after is not None:
                await asyncio.wait([after])  # done either way; its result is its taker's
            return await start_kernel(args.kernel, cwd_of(path))
        return asyncio.ensure_future(go())

    async def take(task):
        try:
            return await task
        except Exception as e:  # reported as the notebook's failure
            return e

    async def lane():
        ahead = []  # (task, cwd) of the kernels started for this lane's next notebooks, oldest first
        try:
            while todo:
                n, path = todo.pop(0)
                t0 = time.monotonic()
                match = next((a for a in ahead if a[1] == cwd_of(path)), None)
                if match is not None:
                    ahead.remove(match)
                else:  # started for notebooks in another folder (another lane took them): not of use here
                    stopping.extend(asyncio.ensure_future(discard(task)) for task, _ in ahead)
                    ahead = []
                task = match[0] if match is not None else start(path)
                print(f"[{n}/{total}] {os.path.relpath(path)} ...", flush=True)
                # The next notebooks' kernels, beside this notebook's cells: each starts once the kernel before it is up
                # (two starting at once would only slow each other down: on a busy machine the first notebook's kernel
                # started beside the second's took 3.5 s instead of 2.0 s).
                for _, later in todo[len(ahead):args.ahead]:
                    ahead.append((start(later, ahead[-1][0] if ahead else task), cwd_of(later)))
                kernel = await take(task)
                waited = time.monotonic() - t0
                try:
                    nb, failures, warnings, seconds, not_run = await run_notebook(path, args.timeout, kernel, args.after_error_wait, args.keep_going,
                                                                                  args.isolate_parts, args.kernel)
                except Exception as e:  # an unreadable notebook, ...: this notebook fails, the others still run
                    nb, failures, warnings, seconds, not_run = nbformat.v4.new_notebook(), [(None, None, f"{type(e).__name__}: {e}")], [], {}, []
                finally:  # also when cancelled (Ctrl-C) or on an exception
                    if not isinstance(kernel, BaseException):  # at once when interrupted: it may be busy in a cell
                        stopping.append(asyncio.ensure_future(stop_kernel(kernel, now=bool(INTERRUPTED))))
                if INTERRUPTED:  # nbclient reports a cancelled cell as "the kernel died": the run ends here, unreported
                    raise asyncio.CancelledError()
                elapsed = time.monotonic() - t0
                kernel_seconds = 0 if isinstance(kernel, BaseException) else kernel.seconds
                entries[n - 1] = report(n, total, path, nb, failures, warnings, seconds, not_run, elapsed, kernel_seconds, waited, args)
        finally:  # the kernels started ahead for notebooks that will not run now are shut down too
            for task, _ in ahead:
                if INTERRUPTED:
                    task.cancel()  # stop it starting (start_kernel shuts down what it had started)
                stopping.append(asyncio.ensure_future(discard(task)))

    async def discard(task):
        try:
            kernel = await task
        except BaseException:  # its start failed or was cancelled: start_kernel stopped what it had started
            return
        await stop_kernel(kernel, now=bool(INTERRUPTED))

    lanes = [asyncio.ensure_future(lane()) for _ in range(min(jobs, total))]
    stop_on_signals(asyncio.current_task())
    try:
        await asyncio.gather(*lanes)
    except BaseException:  # a signal (the run is cancelled) or an exception: stop every lane, then clean up
        for t in lanes:
            t.cancel()
        await asyncio.gather(*lanes, return_exceptions=True)
        if not INTERRUPTED:
            raise
    finally:
        await asyncio.gather(*stopping, return_exceptions=True)
        await stop_all()  # whatever is still registered (a start that was cut short, ...)
    return entries


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+")
    parser.add_argument("--html-dir", help="write <name>.html for each notebook that ran cleanly")
    parser.add_argument("--mathjax-url", default="mathjax/tex-chtml-full.js", help="MathJax 3 script, relative to the HTML")
    parser.add_argument("--summary", help="write a JSON summary (title, seconds, per-cell seconds, html, failure per notebook)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds allowed per cell (default 600)")
    parser.add_argument("--kernel", default="tslab")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks run at once (default 1); each has its own kernel")
    parser.add_argument("--ahead", type=int, default=DEFAULT_AHEAD,
                        help=f"kernels each lane starts for its next notebooks while the current one runs (default {DEFAULT_AHEAD})")
    parser.add_argument("--no-start-ahead", dest="ahead", action="store_const", const=0,
                        help="start each kernel only when its notebook's turn comes (--ahead 0)")
    parser.add_argument("--after-error-wait", type=float, default=TSLAB_CANCEL_WINDOW_S,
                        help="seconds to wait after an allowed error (0 lets tslab abort the next cell; for tests)")
    parser.add_argument("--edition", choices=["student", "instructor"],
                        help="HTML export: student leaves out the cells tagged 'instructor' (reference answers, rubrics)")
    parser.add_argument("--keep-going", action="store_true",
                        help="a failing cell does not stop its notebook (grading); each cell's status goes into the executed notebook")
    parser.add_argument("--executed-dir", help="write each executed notebook (with outputs) to DIR/<name>.ipynb")
    parser.add_argument("--isolate-parts", action="store_true",
                        help="with --keep-going: a timeout or a dead kernel replaces the kernel, re-runs the cells marked grader.setup "
                             "and skips only the rest of the failing cell's part (grader.part)")
    parser.add_argument("--figures-dir", help="write every Plotly figure each notebook draws (JSON, as drawn) to DIR/<name>.json")
    args = parser.parse_args()
    # A word that is not a notebook file (an option this runner does not know, a typo) is refused before any kernel
    # starts, with the usage line.
    not_notebooks = [p for p in args.notebooks if not (p.endswith(".ipynb") and os.path.isfile(p))]
    if not_notebooks:
        parser.error(f"not a notebook file: {', '.join(not_notebooks)}")

    # Notebooks load the compiled library (notebooks/lib -> build/lib): rebuild it first if lib/ changed.
    import subprocess
    build = subprocess.run(["node", os.path.join(ROOT, "scripts", "build-lib.mjs")], cwd=ROOT)
    blocking_output()  # node made the stdout and stderr it shared with the runner non-blocking
    if build.returncode != 0:
        print("build of lib/ failed: the notebooks would run stale code", flush=True)
        return 1

    jobs = args.jobs
    if jobs < 1:
        print(f"--jobs must be an integer >= 1, got {jobs}", flush=True)
        return 2
    if args.ahead < 0:
        print(f"--ahead must be an integer >= 0, got {args.ahead}", flush=True)
        return 2
    try:
        summary = asyncio.run(run_all(args, jobs))
    except (asyncio.CancelledError, KeyboardInterrupt):  # a second signal cut the clean-up short
        INTERRUPTED.append(INTERRUPTED[0] if INTERRUPTED else signal.SIGINT)
    except Exception as e:  # a fault of the runner itself: its one-line cause first, then the traceback
        blocking_output()
        print(f"the runner stopped on an error: {type(e).__name__}: {e}", flush=True)
        raise
    blocking_output()
    if INTERRUPTED:
        kill_now()
        print(f"interrupted ({signal.Signals(INTERRUPTED[0]).name}); the kernels it started are shut down", flush=True)
        return 128 + INTERRUPTED[0]
    if args.summary:
        with open(args.summary, "w", encoding="utf-8") as f:
            json.dump(summary, f, ensure_ascii=False, indent=1)
    failed = [e for e in summary if not e["ok"]]
    print(f"{len(summary) - len(failed)} notebook(s) ran cleanly, {len(failed)} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
