"""Runtime recorder tests: each scenario runs real programs under the real recorder (or reads real
logs recorded on the H200) and checks `streamlint report`. Exit 0 pass, 1 fail, 77 skip.
    runtime_test.py SCENARIO --streamlint BIN --lib SO --bindir DIR --cudart LIBCUDART"""
import argparse
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
SKIP = 77
A = None


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def run(cmd, env=None, ok=(0,)):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(cmd, capture_output=True, text=True, env=e)
    if ok is not None and p.returncode not in ok:
        raise Fail(f"{cmd} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def report(target, *extra, ok=(0, 1)):
    return run([A.streamlint, "report", target, *extra], ok=ok)


def report_json(target, *extra):
    p = report(target, "--format", "json", *extra)
    return json.loads(p.stdout)["findings"], p


def expectations(source):
    """{line: (api, calls)} from `expect: API CALLS` comments."""
    out = {}
    for n, line in enumerate(open(source), 1):
        m = re.search(r"expect: (\w+) (\d+)", line)
        if m:
            out[n] = (m.group(1), int(m.group(2)))
    return out


def assert_sites(findings, source):
    want = expectations(source)
    got = {f["line"]: (f["properties"]["api"], f["properties"]["calls"])
           for f in findings if os.path.basename(f["path"]) == os.path.basename(source)}
    check(got == want, f"SL901 sites of {source}: want {want}, got {got}\n{json.dumps(findings, indent=1)}")
    for f in findings:
        # One-time set-up is a note, a per-step cost a warning (issue 32).
        want_severity = "note" if f["properties"].get("phase") == "set-up" else "warning"
        check(f["rule"] == "SL901" and f["severity"] == want_severity, f"unexpected finding {f}")


def bench_module(name):
    """A reader from bench/interposer (slog_stats: the benchmarks' .slog reader)."""
    sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "interposer"))
    return __import__(name)


def logs_in(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".slog"))


def sl_run(out, cmd, ok=(0,)):
    return run([A.streamlint, "run", "--out", out, "--"] + cmd, ok=ok)


# --- scenarios -------------------------------------------------------------------------------
def c_program(tmp):
    sl_run(tmp, [os.path.join(A.bindir, "sl_sync_helper")])
    findings, _ = report_json(tmp, "--min-blocking-us", "0")
    assert_sites(findings, os.path.join(HERE, "programs", "sync_helper.c"))
    # Ranked by total blocked time, largest first.
    totals = [f["properties"]["blockedMicros"] for f in findings]
    check(totals == sorted(totals, reverse=True), f"not ranked by blocked time: {totals}")


def python_ctypes(tmp):
    sl_run(tmp, [sys.executable, os.path.join(HERE, "programs", "ctypes_user.py"), A.cudart])
    findings, _ = report_json(tmp, "--min-blocking-us", "0")
    assert_sites(findings, os.path.join(HERE, "programs", "ctypes_user.py"))
    fn = {f["line"]: f["properties"].get("function") for f in findings}
    check(set(fn.values()) == {"wait_twice", "allocate", "far_below"}, f"functions: {fn}")


def recording_parts(tmp):
    """streamlint_recording(mode | flags) leaves the named part out of the records that follow
    (for measuring what each part costs), and mode 1 brings everything back."""
    sl_run(tmp, [sys.executable, os.path.join(HERE, "programs", "recording_parts.py"), A.cudart])
    stats = bench_module("slog_stats")
    syncs = []
    for log in logs_in(tmp):
        data = open(log, "rb").read()
        for rtype, p in stats.records(data):
            if rtype == 1:
                api, flags, nframes = struct.unpack_from("<HBB", data, p + 4)
                if stats.api_names()[api][0] == "cudaStreamSynchronize":
                    syncs.append((bool(flags & 2), nframes))
    check(len(syncs) == 4, f"four syncs recorded: {syncs}")
    (py0, nf0), (py1, nf1), (py2, nf2), (py3, nf3) = syncs
    check(py0 and nf0 > 1, f"whole record (Python line, backtrace): {syncs[0]}")
    check(not py1 and nf1 > 1, f"16: no Python line, backtrace kept: {syncs[1]}")
    check(py2 and nf2 == 1, f"32: Python line, the return address only: {syncs[2]}")
    check(py3 and nf3 > 1, f"mode 1: whole again: {syncs[3]}")


def generated_code(tmp):
    """Calls made inside code generated at run time (inductor's cache, fx's `<eval_with_key>`) are
    the user's line that called into it, as calls inside torch are."""
    src = os.path.join(HERE, "programs", "generated_code_user.py")
    sl_run(tmp, [sys.executable, src, A.cudart])
    findings, _ = report_json(tmp, "--min-blocking-us", "0")
    assert_sites(findings, src)


def thread_start(tmp):
    """Calls of a thread that runs only library code (a DataLoader's pin-memory thread) are the
    user line that started it: the recorder wraps pthread_create and writes a thread record."""
    src = os.path.join(HERE, "programs", "thread_start_user.py")
    sl_run(tmp, [sys.executable, src, A.cudart])
    findings, _ = report_json(tmp, "--min-blocking-us", "0")
    assert_sites(findings, src)
    started = [f for f in findings if f["properties"].get("attributedBy")]
    check(len(started) == 1 and started[0]["properties"]["attributedBy"] == "thread start"
          and "pin-memory thread" in started[0]["message"] and "this line started the thread" in started[0]["message"]
          and any(p.endswith("pin_memory.py:3") for p in started[0]["properties"]["attributedFrom"]),
          f"the pin-memory thread's calls: {started}")


def sarif(tmp):
    sl_run(tmp, [os.path.join(A.bindir, "sl_sync_helper")])
    p = report(tmp, "--format", "sarif", "--min-blocking-us", "0")
    check(p.returncode == 1, "findings must exit 1")
    doc = json.loads(p.stdout)
    results = doc["runs"][0]["results"]
    check(len(results) == 3, f"3 results expected, got {len(results)}")
    for r in results:
        props = r.get("properties", {})
        check(r["ruleId"] == "SL901", r)
        for key in ("api", "calls", "blockedMicros"):
            check(key in props, f"SARIF result lacks properties.{key}: {r}")
    calls = sorted(r["properties"]["calls"] for r in results)
    check(calls == [1, 1, 3], f"calls {calls}")


def exit_codes(tmp):
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    p = report(empty, ok=(2,))
    check(empty in p.stderr, f"message must name the directory: {p.stderr}")
    bogus = os.path.join(tmp, "bogus.slog")
    open(bogus, "w").write("not a log at all\n")
    p = report(bogus, ok=(2,))
    check("bogus.slog" in p.stderr and "not a streamlint runtime log" in p.stderr, p.stderr)
    report(os.path.join(tmp, "missing"), ok=(2,))
    # A directory nothing can be created in (root's access() says yes to /proc) is refused.
    p = sl_run("/proc", ["true"], ok=(2,))
    check("cannot write logs to /proc" in p.stderr, p.stderr)
    # A program that never calls CUDA leaves no log: `run` says so instead of pointing at report.
    quiet_dir = os.path.join(tmp, "no-cuda")
    p = sl_run(quiet_dir, [sys.executable, "-c", "print('hi')"])
    check("no log written" in p.stderr and "see them with" not in p.stderr, p.stderr)
    check(logs_in(quiet_dir) == [], f"{logs_in(quiet_dir)}")
    fixture = os.path.join(FIXTURES, "h200-timing-experiment.slog")
    report(fixture, "--format", "xml", ok=(2,))
    report(fixture, "--min-blocking-us", "abc", ok=(2,))
    report(fixture, "extra-path", ok=(2,))
    run([A.streamlint, "report"], ok=(2,))
    quiet = ("--min-blocking-us", "1e12", "--min-overlap-share", "0")
    check(report(fixture, *quiet).returncode == 0, "no findings must exit 0")
    check(report(fixture).returncode == 1, "findings must exit 1")
    run([A.streamlint, "run"], ok=(2,))
    run([A.streamlint, "run", "--out"], ok=(2,))
    run([A.streamlint, "run", "--sanitize", "--sanitize-sample", "5ms/1ms", "--", "true"], ok=(2,))
    p = run([A.streamlint, "run", "--sanitize-sample", "1ms/5ms", "--", "true"], ok=(2,))
    check("give --sanitize too" in p.stderr, f"--sanitize-sample alone: {p.stderr}")


def damaged_logs(tmp):
    src = open(os.path.join(FIXTURES, "h200-timing-experiment.slog"), "rb").read()
    cut = os.path.join(tmp, "cut.slog")
    open(cut, "wb").write(src[: len(src) * 2 // 3])
    p = report(cut)
    check("damaged" in p.stderr or "no trailer" in p.stderr, f"truncation not reported: {p.stderr}")
    # JSON keeps what SARIF's notifications keep: a consumer sees that the log was partial.
    p = report(cut, "--format", "json")
    check(any("trailer" in e or "damaged" in e for e in json.loads(p.stdout).get("errors", [])), p.stdout[-500:])
    flipped = bytearray(src)
    flipped[len(src) // 2] ^= 0xFF
    bad = os.path.join(tmp, "flipped.slog")
    open(bad, "wb").write(bytes(flipped))
    p = report(bad, "--min-blocking-us", "0")
    check("damaged at byte" in p.stderr, f"corruption not reported: {p.stderr}")
    # Every truncation point reads as far as it goes: no crash, never a wrong exit code.
    for n in list(range(0, 400, 7)) + list(range(400, len(src), max(1, len(src) // 60))):
        open(cut, "wb").write(src[:n])
        p = report(cut, ok=None)
        check(p.returncode in ((2,) if n < 16 else (0, 1)), f"cut at {n}: exit {p.returncode}\n{p.stderr}")
    # Hostile logs (issue 17): a chunk that claims 4 GiB is damage, not an allocation; a host
    # name without its NUL is not read past its field; a FIFO named *.slog is not opened.
    header_bytes = struct.unpack_from("<I", src, 12)[0]
    huge = bytearray(src[:header_bytes]) + struct.pack("<IIII", struct.unpack_from("<I", src, header_bytes)[0],
                                                     0xFFFFFFF0, 0, 1) + b"x" * 400
    huge_path = os.path.join(tmp, "huge.slog")
    open(huge_path, "wb").write(bytes(huge))
    p = run(["/usr/bin/env", "bash", "-c", f"ulimit -v 1000000; exec {A.streamlint} report {huge_path}"], ok=None)
    check(p.returncode in (0, 1) and "cut off" in p.stderr, f"4 GiB chunk: exit {p.returncode}\n{p.stderr}")
    nonul = bytearray(src)
    nonul[64:64 + 64] = b"h" * 64  # host: no NUL; exe follows it
    nonul[128:128 + 256] = b"e" * 256  # exe: no NUL; the first chunk follows
    nonul_path = os.path.join(tmp, "nonul.slog")
    open(nonul_path, "wb").write(bytes(nonul))
    trace = os.path.join(tmp, "nonul.json")
    report(nonul_path, "--format", "sarif", "--trace", trace, ok=(0, 1))
    text = open(trace, encoding="utf-8", errors="replace").read()
    check("h" * 64 + "e" not in text, "host read past its field")
    check("e" * 256 + '"' in text and "e" * 257 not in text, "exe read past its field")
    fifo_dir = os.path.join(tmp, "fifo")
    os.mkdir(fifo_dir)
    os.mkfifo(os.path.join(fifo_dir, "pipe.slog"))
    p = subprocess.run([A.streamlint, "report", fifo_dir], capture_output=True, text=True, timeout=30)
    check(p.returncode == 2 and "no .slog logs" in p.stderr, f"FIFO: exit {p.returncode}\n{p.stderr}")


def fork_child(tmp):
    sl_run(tmp, [os.path.join(A.bindir, "sl_fork_child")])
    logs = logs_in(tmp)
    check(len(logs) == 2, f"parent and child logs expected: {logs}")
    per = {}
    for log in logs:
        f, _ = report_json(log, "--min-blocking-us", "0")
        per[log] = sorted((x["properties"]["api"], x["properties"]["calls"]) for x in f)
    got = sorted(per.values())
    # Two call sites each: the parent's before and after fork, the child's two.
    check(got == [[("cudaDeviceSynchronize", 1)] * 2, [("cudaStreamSynchronize", 1)] * 2], f"{per}")


def run_killed(tmp):
    """SIGKILL of `streamlint run` (which cannot forward it) takes the program with it."""
    import time
    p = subprocess.Popen([A.streamlint, "run", "--out", tmp, "--", "sleep", "60"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    child = None
    for _ in range(100):
        try:
            kids = open(f"/proc/{p.pid}/task/{p.pid}/children").read().split()
        except OSError:
            kids = []
        if kids:
            child = int(kids[0])
            break
        time.sleep(0.05)
    check(child is not None, "streamlint run started no child")
    p.kill()
    p.wait()
    for _ in range(100):
        if not os.path.exists(f"/proc/{child}") or open(f"/proc/{child}/stat").read().split()[2] == "Z":
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        raise Fail("the program outlived a killed `streamlint run`")


def sigterm(tmp):
    for sig in (signal.SIGTERM, signal.SIGINT):
        d = os.path.join(tmp, str(int(sig)))
        os.mkdir(d)
        prog = [os.path.join(A.bindir, "sl_sigterm_self"), str(int(sig))]
        plain = run(prog, ok=None).returncode
        check(plain == -sig, f"the program itself should die of {sig}: {plain}")
        p = run(prog, env={"LD_PRELOAD": A.lib, "SL_OUT_DIR": d}, ok=None)
        check(p.returncode == plain, f"exit status changed under the recorder: {p.returncode} vs {plain}")
        logs = logs_in(d)
        check(len(logs) == 1, f"{logs}")
        q = report(logs[0], "--min-blocking-us", "0")
        check("no trailer" not in q.stderr and "damaged" not in q.stderr, f"log not flushed: {q.stderr}")
        check("cudaStreamSynchronize" in q.stdout and "cudaDeviceSynchronize" in q.stdout, q.stdout)


def python_sigint(tmp):
    """Ctrl-C in a recorded Python program is Python's: signal.getsignal(SIGINT) is
    default_int_handler, `except KeyboardInterrupt` saves its checkpoint and the exit code, output
    and file are the same as without the recorder. Uncaught, Python dies of SIGINT as before and
    the log still ends with its trailer (flushed from Py_FinalizeEx)."""
    src = os.path.join(HERE, "programs", "keyboard_interrupt.py")
    results = []
    for name, prefix in (("plain", []), ("recorded", [A.streamlint, "run", "--out", os.path.join(tmp, "logs"), "--"])):
        ckpt = os.path.join(tmp, f"{name}.ckpt")
        p = run(prefix + [sys.executable, src, A.cudart, ckpt, "self"], ok=None)
        results.append((p.returncode, p.stdout, open(ckpt).read() if os.path.exists(ckpt) else None))
    check(results[0] == results[1], f"without vs with the recorder: {results[0]} vs {results[1]}")
    check(results[0][0] == 0 and "default_int_handler" in results[0][1], f"{results[0]}")
    logs = logs_in(os.path.join(tmp, "logs"))
    check(len(logs) == 1, f"{logs}")
    q = report(logs[0], "--min-blocking-us", "0")
    check("no trailer" not in q.stderr and "cudaStreamSynchronize" in q.stdout, f"{q.stdout}\n{q.stderr}")
    # Uncaught: 130 both ways (Python re-raises SIGINT after finalizing), and a complete log.
    d = os.path.join(tmp, "uncaught")
    plain = run([sys.executable, src, A.cudart, os.path.join(tmp, "u.ckpt"), "uncaught"], ok=None)
    rec = run([A.streamlint, "run", "--out", d, "--", sys.executable, src, A.cudart, os.path.join(tmp, "u.ckpt"),
               "uncaught"], ok=None)
    check(plain.returncode == -signal.SIGINT and rec.returncode == 128 + signal.SIGINT,
          f"uncaught: {plain.returncode} vs {rec.returncode}\n{rec.stderr}")
    q = report(logs_in(d)[0], "--min-blocking-us", "0")
    check("no trailer" not in q.stderr and "cudaDeviceSynchronize" in q.stdout, f"uncaught: {q.stderr}")


def forkserver_pool(tmp):
    """multiprocessing's forkserver workers restore the signal handlers Python reported; with no
    CUDA call at all the recorder changes none, so the Pool finishes with the same output."""
    cmd = [sys.executable, os.path.join(HERE, "programs", "forkserver_pool.py")]
    outs = []
    for prefix in ([], [A.streamlint, "run", "--out", tmp, "--"]):
        p = subprocess.Popen(prefix + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # the forkserver and its workers too
            out, err = p.communicate()
            raise Fail(f"{prefix + cmd} did not finish:\n{err[-2000:]}")
        outs.append((p.returncode, out))
    check(outs[0] == outs[1] and outs[0][0] == 0, f"without vs with the recorder: {outs}")


def close_fds(tmp):
    """A program that closes every descriptor it did not open and opens its output file (which
    gets the number the log had) keeps its output byte for byte; the recorder, finding its
    descriptor gone, reopens the same log and records the calls after."""
    prog = os.path.join(A.bindir, "sl_close_fds")
    for mode in ("low", "all"):
        d = os.path.join(tmp, mode)
        out = os.path.join(tmp, f"{mode}.txt")
        p = sl_run(d, [prog, out, mode])
        check(open(out, "rb").read() == b"first line\nsecond line\n", f"{mode}: the output file was written into: "
              f"{open(out, 'rb').read()[:200]!r}\n{p.stderr}")
        findings, q = report_json(d, "--min-blocking-us", "0")
        check("no trailer" not in q.stderr and "damaged" not in q.stderr, f"{mode}: {q.stderr}")
        got = sorted((f["properties"]["api"], f["properties"]["calls"]) for f in findings)
        check(got == [("cudaDeviceSynchronize", 1), ("cudaStreamSynchronize", 50)], f"{mode}: {got}")


def run_forwards_signals(tmp):
    """SIGINT or SIGTERM sent to `streamlint run` itself (a supervisor's kill) reaches the program:
    Python's KeyboardInterrupt saves its checkpoint and exits 0; a SIGTERM kills it as it would."""
    import time
    src = os.path.join(HERE, "programs", "keyboard_interrupt.py")
    for sig, want in ((signal.SIGINT, 0), (signal.SIGTERM, 128 + signal.SIGTERM)):
        ckpt = os.path.join(tmp, f"{int(sig)}.ckpt")
        p = subprocess.Popen([A.streamlint, "run", "--out", os.path.join(tmp, str(int(sig))), "--", sys.executable,
                              src, A.cudart, ckpt, "wait"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while True:
            line = p.stdout.readline()
            if not line:
                raise Fail(f"{sig}: the program ended before it was ready: {p.communicate()}")
            if line.strip() == "ready":
                break
        os.kill(p.pid, sig)
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            raise Fail(f"{sig} to `streamlint run` did not reach the program")
        check(p.returncode == want, f"{sig}: exit {p.returncode}, want {want}\n{out}\n{err}")
        if sig == signal.SIGINT:
            check(open(ckpt).read() == "step 7\n" and "checkpoint saved" in out, f"{out}\n{err}")


def run_settings(tmp):
    """`run` refuses what the recorder could not follow before it starts the program (exit 2),
    and says 126 for a command that is there but cannot be run, as shells do."""
    marker = os.path.join(tmp, "started")
    for bad in ("0.5", "abc", "-1", "1e3"):
        p = run([A.streamlint, "run", "--out", tmp, "--", "touch", marker], env={"SL_MAX_LOG_MB": bad}, ok=(2,))
        check("SL_MAX_LOG_MB" in p.stderr and not os.path.exists(marker), f"SL_MAX_LOG_MB={bad!r}: {p.stderr}")
    # Preloaded without `run`, the recorder says so and records nothing rather than drop the cap.
    d = os.path.join(tmp, "direct")
    p = run([os.path.join(A.bindir, "sl_sync_helper")], env={"LD_PRELOAD": A.lib, "SL_OUT_DIR": d, "SL_MAX_LOG_MB": "abc"})
    check("SL_MAX_LOG_MB" in p.stderr and (not os.path.isdir(d) or logs_in(d) == []), p.stderr)
    text = os.path.join(tmp, "notes.txt")
    open(text, "w").write("not a program\n")
    p = run([A.streamlint, "run", "--out", tmp, "--", text], ok=(126,))
    check("cannot run" in p.stderr and text in p.stderr, p.stderr)
    run([A.streamlint, "run", "--out", tmp, "--", os.path.join(tmp, "missing")], ok=(127,))
    # A long --out works where it is (it was cut at 1,023 bytes into another directory); one
    # longer than the recorder's path can hold is refused.
    long_dir = os.path.join(tmp, *(["d" * 200] * 6))
    sl_run(long_dir, [os.path.join(A.bindir, "sl_sync_helper")])
    check(len(logs_in(long_dir)) == 1, f"no log in the {len(long_dir)}-byte --out")
    too_long = os.path.join(tmp, *(["e" * 200] * 20))
    p = sl_run(too_long, ["touch", marker], ok=(2,))
    check("too long" in p.stderr and not os.path.exists(marker), p.stderr)


def log_write_fails(tmp):
    """A write the file system refuses (here the file size limit, as a full disk would) is
    counted: the recorder says how many records were not written, the log is cut back to whole
    chunks (readable, not damaged) and its trailer, `run` and `report` say what it lost."""
    prog = os.path.join(A.bindir, "sl_threads_stress")
    total = int(re.search(r"calls=(\d+)", run([prog]).stdout).group(1))
    p = run(["bash", "-c", f"ulimit -f 256; trap '' XFSZ; exec {A.streamlint} run --out {tmp} -- {prog}"])
    check(re.search(r"writing the log failed: File too large; \d+ CUDA call records \(\d+ bytes\)", p.stderr), p.stderr)
    [log] = logs_in(tmp)
    check(os.path.getsize(log) <= 256 * 1024, f"{os.path.getsize(log)} bytes")
    q = report(tmp)
    check("damaged" not in q.stderr, f"a partial chunk was left: {q.stderr}")
    if "no trailer" not in q.stderr:  # the trailer fits in what the cut-back chunk freed
        check("writing the log failed (File too large)" in p.stderr, f"run did not say it: {p.stderr}")
        check("writing the log failed (File too large)" in q.stderr, f"report did not say it: {q.stderr}")
        calls = int(re.search(r"(\d+) CUDA calls", q.stdout).group(1))
        dropped = int(re.search(r"(\d+) records dropped", q.stdout).group(1))
        check(calls + dropped == total, f"{calls} + {dropped} != {total}\n{q.stdout}")


def log_never_overwrites(tmp):
    """The log's name is predictable (<host>-<pid>.slog): a symlink planted there, or an earlier
    run's log of the same pid (containers reuse pids), is left as it was and the log is written
    beside it as <host>-<pid>.1.slog."""
    prog = os.path.join(A.bindir, "sl_sync_helper")
    victim = os.path.join(tmp, "victim.txt")
    for name, plant in (("link", f"ln -s {victim} \"$d/$h-$$.slog\""), ("old", "echo old log > \"$d/$h-$$.slog\"")):
        d = os.path.join(tmp, name)
        os.mkdir(d)
        open(victim, "w").write("precious\n")
        # exec keeps bash's pid: the program's log path is known before it starts.
        p = run(["bash", "-c", f'd={d}; h=$(hostname | cut -c1-63); {plant}; exec {prog}'],
                env={"LD_PRELOAD": A.lib, "SL_OUT_DIR": d})
        check(open(victim, "rb").read() == b"precious\n", f"{name}: the file at the log's path was overwritten")
        planted = [f for f in os.listdir(d) if not f.endswith(".1.slog")]
        logs = [f for f in os.listdir(d) if f.endswith(".1.slog")]
        check(len(planted) == 1 and len(logs) == 1, f"{name}: {os.listdir(d)}\n{p.stderr}")
        if name == "old":
            check(open(os.path.join(d, planted[0]), "rb").read() == b"old log\n", "the earlier log was overwritten")
        q = report(os.path.join(d, logs[0]), "--min-blocking-us", "0")
        check("no trailer" not in q.stderr and "cudaDeviceSynchronize" in q.stdout, q.stderr)


def threads(tmp):
    prog = os.path.join(A.bindir, "sl_threads_stress")
    p = run([prog], env={"LD_PRELOAD": A.lib, "SL_OUT_DIR": tmp, "SL_MAX_MB": "16"})
    total = int(re.search(r"calls=(\d+)", p.stdout).group(1))
    q = report(tmp)
    calls = int(re.search(r"(\d+) CUDA calls", q.stdout).group(1))
    m = re.search(r"(\d+) records dropped \(ring full, memory cap, log size cap or a failed write\), (\d+) threads unrecorded", q.stdout)
    dropped = int(m.group(1)) if m else 0
    check(calls + dropped == total, f"{calls} recorded + {dropped} dropped != {total} calls\n{q.stdout}")
    check(calls > 0, "nothing recorded")
    # The on-disk cap (issue 17): the log stays under SL_MAX_LOG_MB, and what it could not hold
    # is counted as dropped, exactly, and named.
    capped = os.path.join(tmp, "capped")
    os.mkdir(capped)
    p = run([prog], env={"LD_PRELOAD": A.lib, "SL_OUT_DIR": capped, "SL_MAX_LOG_MB": "1"})
    log = logs_in(capped)[0]
    check(os.path.getsize(log) <= (1 << 20) + 4096, f"log of {os.path.getsize(log)} bytes over a 1 MiB cap")
    q = report(capped)
    calls = int(re.search(r"(\d+) CUDA calls", q.stdout).group(1))
    m = re.search(r"(\d+) records dropped", q.stdout)
    check(m and calls + int(m.group(1)) == total and calls < total, f"cap: {calls} + dropped != {total}\n{q.stdout}")
    check("reached its size cap (SL_MAX_LOG_MB)" in q.stderr, q.stderr)


def launch_frames(log):
    """Native return addresses of each cudaLaunchKernel record, in call order (one thread)."""
    slog_stats = bench_module("slog_stats")
    launch = [n for n, _ in slog_stats.api_names()].index("cudaLaunchKernel")
    data = open(log, "rb").read()
    return [struct.unpack_from(f"<{data[p + 7]}Q", data, p + 88) for rtype, p in slog_stats.records(data)
            if rtype == 1 and struct.unpack_from("<H", data, p + 4)[0] == launch]


def stub_sites(tmp):
    """One stub launched from two lines (nvcc's kernel stubs are shared by every caller): the
    recorder tells the two sites apart, at -O0 and -O2, without unwinding on every launch."""
    for prog in ("sl_stub_sites", "sl_stub_sites_o2"):
        out = os.path.join(tmp, prog)
        sl_run(out, [os.path.join(A.bindir, prog)])
        (log,) = logs_in(out)
        frames = launch_frames(log)
        check(len(frames) == 100, f"{prog}: 100 launches expected, {len(frames)} recorded")
        check(frames[0] != frames[1], f"{prog}: the two lines got one launch site: {frames[:2]}")
        check(all(f == frames[i % 2] for i, f in enumerate(frames)), f"{prog}: launch sites mixed up")


def stale_frames(tmp):
    """A library's launch from a deep call path runs its frames over the stack where an earlier,
    shallower launch's hook kept the user's return addresses: the stack scan must find the deep
    launch's own caller (main's second call), not that residue (main's first call)."""
    out = os.path.join(tmp, "stale")
    sl_run(out, [os.path.join(A.bindir, "sl_stale_frames")])
    (log,) = logs_in(out)
    frames = launch_frames(log)
    check(len(frames) == 6, f"6 launches expected, {len(frames)} recorded")
    user = [f[1] if len(f) > 1 else None for f in frames]  # the first user frame after the call site
    check(user[0] and user[1] and user[0] != user[1],
          f"the shallow and the deep launch were placed at one caller: {[hex(u or 0) for u in user[:2]]}")
    check(all(u == user[i % 2] for i, u in enumerate(user)), f"launch sites mixed up: {[hex(u or 0) for u in user]}")


def python_fork(tmp):
    """A forked Python child that ends with os._exit (as multiprocessing workers do) writes its
    own complete log, with its own lines."""
    src = os.path.join(HERE, "programs", "fork_user.py")
    sl_run(tmp, [sys.executable, src, A.cudart])
    logs = logs_in(tmp)
    check(len(logs) == 2, f"parent and child logs expected: {logs}")
    want = expectations(src)
    seen = {}
    for log in logs:
        findings, p = report_json(log, "--min-blocking-us", "0")
        check("no trailer" not in p.stderr, f"{log} not flushed: {p.stderr}")
        for f in findings:
            seen[f["line"]] = (f["properties"]["api"], f["properties"]["calls"])
    check(seen == want, f"want {want}, got {seen}")


def unwritable_dir(tmp):
    blocker = os.path.join(tmp, "file")
    open(blocker, "w").write("x")
    prog = os.path.join(A.bindir, "sl_sync_helper")
    plain = run([prog])
    p = run([prog], env={"LD_PRELOAD": A.lib, "SL_OUT_DIR": os.path.join(blocker, "logs")})
    check(p.stdout == plain.stdout, "program output changed")
    lines = [l for l in p.stderr.splitlines() if "cannot write the runtime log" in l]
    check(len(lines) == 1, f"one clear message expected: {p.stderr}")


def memory_cap(tmp):
    prog = os.path.join(A.bindir, "sl_sync_helper")
    p = run([prog], env={"LD_PRELOAD": A.lib, "SL_OUT_DIR": tmp, "SL_MAX_MB": "1"})
    check("cudaMalloc returned" in p.stdout, "program must run as before")
    q = report(tmp, "--min-blocking-us", "0")
    check(q.returncode == 0, "nothing recorded, so nothing reported")
    check("threads unrecorded (memory cap)" in q.stdout, f"losses must be reported: {q.stdout}")


def rtld_next(tmp):
    prog = os.path.join(A.bindir, "sl_rtld_next_main")
    shim = os.path.join(os.path.dirname(A.lib), "libsl_rtld_next_shim.so")
    p = run([prog], env={"LD_PRELOAD": f"{A.lib}:{shim}", "SL_OUT_DIR": tmp})
    check(p.stdout.strip() == "sl_probe=43", f"dlsym(RTLD_NEXT) answered differently: {p.stdout}")


def run_keeps_preload(tmp):
    """`streamlint run` adds the recorder to LD_PRELOAD and keeps what was there."""
    prog = os.path.join(A.bindir, "sl_rtld_next_main")
    shim = os.path.join(os.path.dirname(A.lib), "libsl_rtld_next_shim.so")
    p = run([A.streamlint, "run", "--out", tmp, "--", prog], env={"LD_PRELOAD": shim})
    check(p.stdout.strip() == "sl_probe=43", f"the user's preload was lost: {p.stdout}")
    p = run([A.streamlint, "run", "--out", tmp, "--", "sh", "-c", "echo $LD_PRELOAD"], env={"LD_PRELOAD": shim})
    parts = p.stdout.strip().split(":")
    check(parts[0].endswith("libstreamlint_interposer.so") and parts[1:] == [shim], f"LD_PRELOAD={p.stdout}")


def fixture_timing(tmp):
    """The user's timing experiment, recorded on the H200 (torch 2.11, Python 3.12)."""
    findings, p = report_json(os.path.join(FIXTURES, "h200-timing-experiment.slog"))
    src = os.path.join(HERE, "..", "..", "examples", "runtime", "stream_timing_experiment.py")
    lines = open(src).read().splitlines()
    findings = [f for f in findings if f["rule"] == "SL901"]
    by = {(f["properties"]["api"], f["line"]): f for f in findings}
    sync = by.get(("cudaDeviceSynchronize", 29))
    check(sync and sync["properties"]["blockedMicros"] > 1e6, f"final synchronize: {findings}")
    check(lines[28].strip() == "torch.cuda.synchronize()", "fixture and example differ")
    create = by.get(("cudaStreamCreateWithPriority", 19))
    check(create and "torch.cuda.Stream()" in lines[18], f"stream creation at line 19: {findings}")
    malloc_lines = {f["line"] for f in findings if f["properties"]["api"] == "cudaMalloc"}
    randn_lines = {n for n, l in enumerate(lines, 1) if "torch.randn" in l}
    check(randn_lines & malloc_lines == malloc_lines & randn_lines and len(randn_lines & malloc_lines) >= 3,
          f"cudaMalloc at torch.randn lines {randn_lines}: {malloc_lines}")
    check(findings[0]["properties"]["api"] == "cudaDeviceSynchronize", "ranked by blocked time")
    check(", 0 GPU activity" not in p.stderr, "GPU activity recorded on the H200")


def fixture_driver_level(tmp):
    """launch_count.py on the H200: cuBLAS's cuMemAlloc is only visible at driver level."""
    findings, _ = report_json(os.path.join(FIXTURES, "h200-launch-count.slog"), "--min-blocking-us", "0")
    apis = {f["properties"]["api"] for f in findings}
    check({"cuMemAlloc", "cudaMalloc", "cudaStreamSynchronize"} <= apis, f"{apis}")
    user = [f for f in findings if f["path"].endswith("launch_count.py")]
    check(user, "Python lines of the user's script")


def fixture_profiler(tmp):
    p = report(os.path.join(FIXTURES, "h200-profiler-program.slog"))
    check("yielded to a profiler" in p.stdout, f"the yield must be reported (summary, stdout): {p.stdout}")


def fixture_injection(tmp):
    """A torch program recorded on the H200 through CUDA_INJECTION64_PATH: GPU activity only
    (11 kernels and a copy), no host calls."""
    p = report(os.path.join(FIXTURES, "h200-injection.slog"))
    check("0 CUDA calls, 12 GPU activity records" in p.stdout, f"activity-only log (summary on stdout): {p.stdout}")


# --- GPU scenarios (ctest label gpu) -------------------------------------------------------------
def have_gpu():
    if shutil.which("nvidia-smi") is None:
        return False
    r = subprocess.run([sys.executable, "-c", "import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)"],
                       capture_output=True)
    return r.returncode == 0


def gpu_timing(tmp):
    if not have_gpu():
        return SKIP
    ex = os.path.join(HERE, "..", "..", "examples", "runtime", "stream_timing_experiment.py")
    run([A.streamlint, "run", "--out", tmp, "--gpu-timing", "always", "--", sys.executable, ex])
    findings, _ = report_json(tmp)
    lines = {(f["properties"]["api"], f["line"]) for f in findings if f["rule"] == "SL901"}
    check(("cudaDeviceSynchronize", 29) in lines, f"{findings}")
    rules = {(f["rule"], f["line"]) for f in findings}
    check(("SL902", 26) in rules, f"the stream region's matmuls overlap nothing: {findings}")


def gpu_profiler(tmp):
    if not have_gpu():
        return SKIP
    ex = os.path.join(HERE, "..", "..", "examples", "runtime", "profiler_program.py")
    plain = run([sys.executable, ex]).stdout.strip().splitlines()[-1]
    under = sl_run(tmp, [sys.executable, ex]).stdout.strip().splitlines()[-1]
    check(plain == under and not plain.endswith(" 0"), f"profiler events: alone '{plain}', under streamlint '{under}'")


def gpu_sampled(tmp):
    """Sampled GPU timing (the default, here with short windows): every launch begun inside a
    window has its kernel in the log, and no other kernel is."""
    if not have_gpu():
        return SKIP
    prog = ("import time, torch\nx = torch.ones(1 << 16, device='cuda')\nt = time.time()\n"
            "while time.time() - t < 1.5:\n    x = x * 1.0001\ntorch.cuda.synchronize()\n")
    run([A.streamlint, "run", "--out", tmp, "--gpu-sample", "20ms/200ms", "--gpu-first", "0", "--",
         sys.executable, "-c", prog])
    slog_stats = bench_module("slog_stats")
    (log,) = logs_in(tmp)
    st = slog_stats.read(log, None)
    kernels = st["activities"].get("kernels", 0)
    check(st["trailer"]["gpuTiming"] == 2, f"sampled timing in the trailer: {st['trailer']}")
    check(st.get("windows", 0) >= 5, f"about 7 windows of 20 ms in 1.5 s: {st}")
    check(0 < st["launches_timed"] < st["launches"] / 3, f"a tenth of the launches timed: {st}")
    check(kernels == st["launches_timed"], f"one kernel per launch inside the windows: {st}")


def gpu_native_sites(tmp):
    """nvcc's kernel stubs on the GPU: the example's legacy-stream launch is found at its line (30)
    through the recorder's stub-caller lookup, and SL905 is measured there. (The static SL601 it
    pairs with needs Clang, which the GPU machine lacks: report_test.py cuda_example covers it.)"""
    if not have_gpu() or shutil.which("nvcc") is None:
        return SKIP
    src = os.path.join(HERE, "..", "..", "examples", "overlap", "cuda", "overlap_bad.cu")
    exe = os.path.join(tmp, "overlap_bad")
    run(["nvcc", "-g", "-lineinfo", "-O2", "-cudart", "shared", "-o", exe, src])
    logs = os.path.join(tmp, "logs")
    run([A.streamlint, "run", "--out", logs, "--gpu-timing", "always", "--", exe])
    findings, _ = report_json(logs)
    at30 = {f["rule"] for f in findings if f["path"].endswith("overlap_bad.cu") and f["line"] == 30}
    check("SL905" in at30, f"SL905 at line 30: {findings}")


def build_libtorch_examples(tmp):
    """examples/overlap/libtorch built with torch's CMake config, or None without torch or cmake.
    SL_LIBTORCH_EXAMPLES names a build of them made beforehand (the GPU round builds once)."""
    if os.environ.get("SL_LIBTORCH_EXAMPLES"):
        return os.environ["SL_LIBTORCH_EXAMPLES"]
    p = run([sys.executable, "-c", "import torch; print(torch.utils.cmake_prefix_path)"], ok=None)
    if p.returncode != 0 or shutil.which("cmake") is None:
        return None
    src = os.path.join(HERE, "..", "..", "examples", "overlap", "libtorch")
    build = os.path.join(tmp, "build")
    run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
         "-DCMAKE_PREFIX_PATH=" + p.stdout.strip()])
    run(["cmake", "--build", build, "-j", str(os.cpu_count() or 2)])
    return build


def gpu_libtorch_sites(tmp):
    """LibTorch calls come 10-30 frames below the user's line, beyond the recorder's backtraces;
    its stack scan finds the user's call. In examples/overlap/libtorch/overlap_bad.cpp: SL903 at
    the backward() inside the side-stream guard (line 31), SL901 at the two stream synchronizes
    (34, 35), and no host blocking of the main thread left without a line in the program."""
    if not have_gpu():
        return SKIP
    build = build_libtorch_examples(tmp)
    if build is None:
        return SKIP
    torch_lib = run([sys.executable, "-c", "import torch, os; print(os.path.join(os.path.dirname(torch.__file__), 'lib'))"]).stdout.strip()
    logs = os.path.join(tmp, "logs")
    run([A.streamlint, "run", "--out", logs, "--gpu-timing", "always", "--", os.path.join(build, "overlap_bad")],
        env={"LD_LIBRARY_PATH": torch_lib + ":" + os.environ.get("LD_LIBRARY_PATH", "")})
    findings, _ = report_json(logs, "--min-blocking-us", "0")
    at = lambda line: {f["rule"] for f in findings if f["path"].endswith("overlap_bad.cpp") and f["line"] == line}
    check("SL903" in at(31), f"SL903 at line 31: {findings}")
    check("SL901" in at(34) and "SL901" in at(35), f"SL901 at lines 34, 35: {findings}")
    exe = os.path.join(build, "overlap_bad")
    unplaced = [f for f in findings if f["rule"] == "SL901" and f["path"] == exe]
    check(not unplaced, f"SL901 in the program without a line: {unplaced}")


def gpu_graph_capture(tmp):
    """GPU timing switching on and off (every few ms) while torch captures CUDA graphs in global
    mode: every capture succeeds and replays as without the recorder."""
    if not have_gpu():
        return SKIP
    prog = ("import torch\nx = torch.ones(1 << 16, device='cuda')\nfor _ in range(3):\n    y = x * 2\n"
            "torch.cuda.synchronize()\nfor _ in range(40):\n    g = torch.cuda.CUDAGraph()\n"
            "    with torch.cuda.graph(g):\n        y = x\n        for _ in range(100):\n"
            "            y = y * 1.0001\n    g.replay()\ntorch.cuda.synchronize()\nprint(float(y[0]))\n")
    plain = run([sys.executable, "-c", prog]).stdout
    under = run([A.streamlint, "run", "--out", tmp, "--gpu-sample", "1ms/3ms", "--gpu-first", "0", "--",
                 sys.executable, "-c", prog]).stdout
    check(plain == under and plain.strip(), f"graph replay alone {plain!r}, under streamlint {under!r}")
    slog_stats = bench_module("slog_stats")
    (log,) = logs_in(tmp)
    check(slog_stats.read(log, None).get("windows", 0) >= 10, "windows opened and closed during the captures")


def gpu_injection(tmp):
    """Loaded by the driver through CUDA_INJECTION64_PATH (no LD_PRELOAD), the library records the
    GPU activity of a torch program: one kernel per op at least."""
    if not have_gpu():
        return SKIP
    prog = ("import torch\nx = torch.ones(1 << 20, device='cuda')\nfor _ in range(10):\n    x = x * 1.0001\n"
            "torch.cuda.synchronize()\nprint(float(x[0]))")
    p = run([sys.executable, "-c", prog], env={"CUDA_INJECTION64_PATH": A.lib, "SL_OUT_DIR": tmp})
    check("CUDA_INJECTION64_PATH" in p.stderr, f"no injection notice: {p.stderr}")
    check(len(logs_in(tmp)) == 1, f"one log expected: {os.listdir(tmp)}")
    q = report(tmp)
    m = re.search(r"(\d+) GPU activity records", q.stderr)
    check(m and int(m.group(1)) >= 11, f"GPU activity of 11 ops expected:\n{q.stderr}")


SCENARIOS = {f.__name__: f for f in [c_program, python_ctypes, recording_parts, generated_code, thread_start, sarif, exit_codes, damaged_logs, fork_child, run_killed,
                                     sigterm, python_sigint, forkserver_pool, close_fds, run_forwards_signals,
                                     run_settings, log_write_fails, log_never_overwrites, python_fork, threads, unwritable_dir, memory_cap, rtld_next, run_keeps_preload, stub_sites, stale_frames, fixture_timing,
                                     fixture_driver_level, fixture_profiler, fixture_injection, gpu_timing, gpu_profiler,
                                     gpu_sampled, gpu_native_sites, gpu_graph_capture, gpu_injection,
                                     gpu_libtorch_sites]}


def launcher_env(tmp):
    """A rank started by torchrun (its environment): the recorder writes rank, local rank, world
    size, node rank, launcher and job id into the header (LogFormat.h), the report shows them."""
    env = {"RANK": "3", "LOCAL_RANK": "1", "WORLD_SIZE": "4", "GROUP_RANK": "1", "TORCHELASTIC_RUN_ID": "job7"}
    run([A.streamlint, "run", "--out", tmp, "--", os.path.join(A.bindir, "sl_sync_helper")], env=env)
    [log] = logs_in(tmp)
    head = open(log, "rb").read(432)
    header_bytes, = struct.unpack_from("<I", head, 12)
    rank, local = struct.unpack_from("<ii", head, 32)
    world, node, launcher = struct.unpack_from("<iiI", head, 384)
    job = head[400:432].split(b"\0")[0]
    got = (header_bytes, rank, local, world, node, launcher, job)
    check(got == (432, 3, 1, 4, 1, 1, b"job7"), f"header: {got}")
    p = report(tmp, "--format", "json")
    r = json.loads(p.stdout)["run"]["ranks"]["ranks"][0]
    check((r["rank"], r["localRank"], r["worldSize"], r["launcher"]) == (3, 1, 4, "torchrun"), f"report: {r}")


SCENARIOS["launcher_env"] = launcher_env


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    ap.add_argument("--streamlint", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--cudart", default="libcudart.so.13")
    A = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="sl-rt-")
    try:
        rc = SCENARIOS[A.scenario](tmp)
        return SKIP if rc == SKIP else 0
    except Fail as e:
        print(f"FAIL {A.scenario}: {e}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
