"""SL904 (stream races, `streamlint run --sanitize`): `streamlint report` on logs recorded on the
H200 from examples/races/ (fixtures: rules/SL904-*/ and tests/runtime/fixtures/sanitize/), and,
where a GPU is found, recorded live (exit 77 without one).

    race_test.py SCENARIO --streamlint BIN
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from runtime_test import have_gpu  # one definition of "a GPU torch can use" for both scripts

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FIX = os.path.join(HERE, "fixtures", "sanitize")
RULE = os.path.join(ROOT, "rules", "SL904-unordered-cross-stream-access")
EXAMPLES = os.path.join(ROOT, "examples", "races")
SKIP = 77
A = None

# What each example must give: (kind, line of the finding, line of the other access), or None.
EXPECTED = {
    "bad/missing_wait.py": ("missing-wait", 10, 8),
    "bad/missing_join.py": ("missing-join", 11, 10),
    "bad/missing_record_stream.py": ("missing-record-stream", 10, 12),
    "bad/missing_event_wait.cu": ("missing-wait", 27, 22),
    "bad/collective_without_wait.py": ("missing-join", 19, 18),
    "fixed/collective_without_wait.py": None,
    "fixed/missing_wait.py": None,
    "fixed/missing_join.py": None,
    "fixed/missing_record_stream.py": None,
    "fixed/missing_event_wait.cu": None,
    # LibTorch C++ (examples/races/libtorch, one source; FIXED builds the fixed one)
    "libtorch/missing_record_stream.cpp": ("missing-record-stream", 23, 29),
    "libtorch/fixed/missing_record_stream.cpp": None,
}


def check(cond, msg):
    if not cond:
        sys.exit("FAIL: " + msg)


def report_json(log_dir, *extra):
    """`report --format json` from the repository root, as a user runs it from their project: the
    log names the recording machine's paths, which are found here by their trailing components."""
    p = subprocess.run([A.streamlint, "report", log_dir, "--format", "json", *extra], capture_output=True,
                       text=True, cwd=ROOT)
    check(p.returncode in (0, 1), f"report {log_dir} exited {p.returncode}: {p.stderr}")
    check("SL904 checked" in p.stderr, f"{log_dir}: the race check must have run: {p.stderr}")
    check("SL904 not judged for" not in p.stderr, f"{log_dir}: {p.stderr}")
    return json.loads(p.stdout)["findings"]


def races(log_dir, *extra):
    return [f for f in report_json(log_dir, *extra) if f["rule"] == "SL904"]


def expect(example, found):
    want = EXPECTED[example]
    if want is None:
        check(not found, f"{example}: no SL904 expected, got {[f['message'] for f in found]}")
        return
    kind, line, other = want
    hits = [f for f in found if f["properties"]["kind"] == kind and f["line"] == line
            and os.path.basename(f["path"]) == os.path.basename(example)]
    check(len(hits) == 1, f"{example}: one {kind} at line {line} expected, got "
          f"{[(f['properties']['kind'], f['path'], f['line']) for f in found]}")
    # The same bug can race more than one pair (the allocator may hand the freed memory to another
    # line's tensor in another step): every finding must be of the example's kind.
    check(all(f["properties"]["kind"] == kind for f in found),
          f"{example}: only {kind} expected, got {[f['properties']['kind'] for f in found]}")
    lines = hits[0]["properties"]["lines"]
    check(any(l.endswith(f":{other}") for l in lines), f"{example}: the other access at line {other}: {lines}")


def fixture_rule_logs(tmp):
    expect("bad/missing_wait.py", races(os.path.join(RULE, "bad.slog")))
    expect("fixed/missing_wait.py", races(os.path.join(RULE, "good.slog")))


def fixture_logs(tmp):
    for kind in ("bad", "fixed"):
        for ex in ("missing_join", "missing_record_stream", "collective_without_wait"):
            expect(f"{kind}/{ex}.py", races(os.path.join(FIX, f"h200-{kind}-{ex}.slog")))
    # Recordings where the allocator's clock ran 2.3 and 21 us ahead of the launches': the side
    # stream's read of the freed tensor fell after the reuse's allocation (read as a missing join).
    for skew in ("skew", "skew21us"):
        expect("bad/missing_record_stream.py", races(os.path.join(FIX, f"h200-bad-missing_record_stream-{skew}.slog")))
    # LibTorch C++ through its allocator trace (without the program's debug info: kinds only).
    bad = races(os.path.join(FIX, "h200-bad-libtorch_missing_record_stream.slog"))
    check(bad and all(f["properties"]["kind"] == "missing-record-stream" for f in bad),
          f"LibTorch bad: only missing-record-stream expected, got {[f['properties']['kind'] for f in bad]}")
    expect("libtorch/fixed/missing_record_stream.cpp",
           races(os.path.join(FIX, "h200-fixed-libtorch_missing_record_stream.slog")))
    cuda = os.path.join(FIX, "h200-bad-missing_event_wait.slog")
    sym = ("--symbols", os.path.join(FIX, "bin"))  # the programs, built with -g on the H200
    expect("bad/missing_event_wait.cu", races(cuda, *sym))
    expect("fixed/missing_event_wait.cu", races(os.path.join(FIX, "h200-fixed-missing_event_wait.slog"), *sym))


def fixture_confirms_static(tmp):
    """A static SL101/SL102/SL201 on the lines of a race the run saw is "confirmed at runtime"; the
    same static finding against the fixed program's log is not."""
    bad = os.path.join(EXAMPLES, "bad")
    sym = ("--symbols", os.path.join(FIX, "bin"))
    cases = [("h200-bad-missing_join.slog", "missing_join.py", "SL102", 11, ()),
             ("h200-bad-missing_record_stream.slog", "missing_record_stream.py", "SL201", 11, ()),
             ("h200-bad-missing_event_wait.slog", "missing_event_wait.cu", "SL101", 27, sym)]
    for log, src, rule, line, extra in cases:
        if src.endswith(".cu") and not A.cxx:
            continue  # C++ sources need the plugin, not built here
        for kind in ("bad", "fixed"):
            found = report_json(os.path.join(FIX, log.replace("-bad-", f"-{kind}-")), os.path.join(bad, src), *extra)
            static = [f for f in found if f["rule"] == rule and f["line"] == line]
            check(len(static) == 1, f"{src}: one static {rule} at line {line} expected: {[(f['rule'], f['line']) for f in found]}")
            runtime = static[0]["properties"]["runtime"]
            if kind == "bad":
                check(runtime.get("confirmedBy", {}).get("rule") == "SL904" and "confirmed at runtime" in static[0]["message"],
                      f"{src}: the static {rule} must be confirmed by the run's SL904: {static[0]['message']}")
            else:
                check("confirmedBy" not in runtime, f"{src}: the fixed run raced nowhere: {runtime}")


def fnv1a32(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def with_record(src, dst, record):
    """A copy of the log `src` with one more chunk holding `record` (bytes, 8-aligned)."""
    import struct
    chunk = struct.pack("<IIII", 0x4B434C53, len(record), fnv1a32(record), 1) + record
    with open(src, "rb") as f, open(dst, "wb") as g:
        g.write(f.read() + chunk)


def with_gap(src, dst, from_ns, to_ns):
    """... with a GapRecord: records lost from from_ns to to_ns."""
    import struct
    with_record(src, dst, struct.pack("<HHIQQQ", 12, 32, 0, 1, from_ns, to_ns))


def without_footprints(src, dst, keep_every):
    """A copy of the log `src` where only every keep_every-th launch kept its footprint
    (AccessRecord), as --sanitize-sample leaves them; the chunks' checksums redone. Returns how
    many footprints were dropped."""
    import struct
    data = open(src, "rb").read()
    off = struct.unpack_from("<I", data, 12)[0]
    out, n, dropped = bytearray(data[:off]), 0, 0
    while off + 16 <= len(data):
        magic, size, _, tid = struct.unpack_from("<IIII", data, off)
        body, p, kept = data[off + 16:off + 16 + size], 0, bytearray()
        while p + 4 <= len(body):
            rtype, rbytes = struct.unpack_from("<HH", body, p)
            if rbytes == 0:
                kept += body[p:]
                break
            n += rtype == 11
            if rtype == 11 and n % keep_every:
                dropped += 1
            else:
                kept += body[p:p + rbytes]
            p += rbytes
        kept = bytes(kept)
        out += struct.pack("<IIII", magic, len(kept), fnv1a32(kept), tid) + kept
        off += 16 + size
    open(dst, "wb").write(out)
    return dropped


def fixture_sampled(tmp):
    """Launches without footprints (outside --sanitize-sample windows): the report says how many
    and how many blocks it could not judge; whatever it still finds is the example's race."""
    for keep in (2, 3):
        log = os.path.join(tmp, f"sampled{keep}.slog")
        dropped = without_footprints(os.path.join(FIX, "h200-bad-missing_record_stream.slog"), log, keep)
        p = subprocess.run([A.streamlint, "report", log, "--format", "json"], capture_output=True, text=True)
        found = [f for f in json.loads(p.stdout)["findings"] if f["rule"] == "SL904"]
        check(f"{dropped} launches fell outside the --sanitize-sample windows" in p.stderr,
              f"keep 1 in {keep}: the report must count the {dropped} launches without footprints: {p.stderr}")
        check(all(f["properties"]["kind"] == "missing-record-stream" for f in found),
              f"keep 1 in {keep}: only the example's race may remain: {[f['properties']['kind'] for f in found]}")


def gpu_sampled(tmp):
    """--sanitize-sample on the H200: a correct side-stream training loop recorded in windows gives
    no SL904, fewer footprints than launches, and a report that says what was left out."""
    if not have_gpu():
        return SKIP
    ex = os.path.join(EXAMPLES, "fixed", "side_stream_training.py")
    out = os.path.join(tmp, "sampled")
    p = subprocess.run([A.streamlint, "run", "--sanitize", "--sanitize-sample", "20ms/100ms", "--out", out, "--",
                        sys.executable, ex, "--steps", "300"], capture_output=True, text=True)
    check(p.returncode == 0, f"sampled run exited {p.returncode}: {p.stderr}")
    r = subprocess.run([A.streamlint, "report", out, "--format", "json"], capture_output=True, text=True)
    found = [f for f in json.loads(r.stdout)["findings"] if f["rule"] == "SL904"]
    check(not found, f"no SL904 on the correct loop: {[f['message'] for f in found]}")
    check("launches fell outside the --sanitize-sample windows" in r.stderr and "SL904 checked" in r.stderr,
          f"the report must say what the windows left out: {r.stderr}")


def fixture_size_capped(tmp):
    """A sanitize log whose tail was cut by SL_MAX_LOG_MB (a trailer saying chunks were capped)
    lost records without gap records: it is not judged, and the report says why."""
    import struct
    capped = os.path.join(tmp, "capped.slog")
    trailer = struct.pack("<HHIQQQQQQII", 7, 64, 3, 0, 100, 0, 0, 0, 0, 0, 0)
    with_record(os.path.join(RULE, "bad.slog"), capped, trailer)
    p = subprocess.run([A.streamlint, "report", capped, "--format", "json"], capture_output=True, text=True)
    found = [f for f in json.loads(p.stdout)["findings"] if f["rule"] == "SL904"]
    check(not found and "size cap" in p.stderr and "SL904 not judged" in p.stderr,
          f"a capped sanitize log must not be judged: {found} {p.stderr}")


def fixture_libtorch_not_judged(tmp):
    """A native program that loaded libc10_cuda.so (LibTorch) keeps its tensors in the caching
    allocator's segments; without the block trace it is not judged (no SL904 from whole
    segments). The CUDA bad log, given such a module record, must say so and report nothing."""
    import struct
    path = b"/opt/libtorch/lib/libc10_cuda.so"
    body = struct.pack("<HHIQQQ", 3, 0, len(path), 0x7F0000000000, 0x7F0000001000, 0x7F0000002000) + path
    body += b"\0" * (-len(body) % 8)
    body = struct.pack("<HH", 3, len(body)) + body[4:]
    src = os.path.join(FIX, "h200-bad-missing_event_wait.slog")
    dst = os.path.join(tmp, "libtorch.slog")
    with_record(src, dst, body)
    p = subprocess.run([A.streamlint, "report", dst, "--format", "json"], capture_output=True, text=True)
    found = [f for f in json.loads(p.stdout)["findings"] if f["rule"] == "SL904"]
    check(not found and "SL904 not judged for" in p.stderr and "LibTorch" in p.stderr,
          f"a LibTorch program without the block trace must not be judged: {found} {p.stderr}")


def fixture_lost_records(tmp):
    """No SL904 from a window whose records were lost: the bad log with a gap over the whole run
    gives none (and says so); with a gap that ends before the race, the race is still found."""
    import struct
    bad = os.path.join(RULE, "bad.slog")
    with open(bad, "rb") as f:
        start_mono = struct.unpack_from("<Q", f.read(64), 48)[0]
    whole = os.path.join(tmp, "whole.slog")
    with_gap(bad, whole, start_mono, start_mono + 10**15)
    p = subprocess.run([A.streamlint, "report", whole, "--format", "json"], capture_output=True, text=True)
    found = [f for f in json.loads(p.stdout)["findings"] if f["rule"] == "SL904"]
    check(not found, f"a race inside a lost-record window must not be reported: {found}")
    check("1 windows" in p.stderr and "not judged" in p.stderr, f"the window must be reported: {p.stderr}")
    early = os.path.join(tmp, "early.slog")
    with_gap(bad, early, start_mono, start_mono + 1)
    expect("bad/missing_wait.py", races(early))


def nccl_local_scope(tmp):
    """NCCL loaded as torch loads it (a dependency of a library dlopened RTLD_LOCAL): the
    recorder's exported ncclAllReduce is what the library binds to, and it must still reach the
    real one (it crashed with SIGSEGV on torch + NCCL before) and record the call with its
    communicator, rank and size (a CollectiveRecord)."""
    import struct
    p = subprocess.run([A.streamlint, "run", "--out", tmp, "--", A.nccl_main, A.nccl_user],
                       capture_output=True, text=True)
    check(p.returncode == 0 and "allreduce rc=0" in p.stdout,
          f"the program must run unchanged under the recorder: rc {p.returncode} {p.stdout} {p.stderr}")
    logs = [os.path.join(tmp, f) for f in os.listdir(tmp) if f.endswith(".slog")]
    check(len(logs) == 1, f"one log expected: {logs}")
    data = open(logs[0], "rb").read()
    pos, found = struct.unpack_from("<I", data, 12)[0], []
    while pos + 16 <= len(data):
        _, nbytes, _, _ = struct.unpack_from("<IIII", data, pos)
        pos += 16
        end = pos + nbytes
        while pos < end:
            rtype, rbytes = struct.unpack_from("<HH", data, pos)
            if rtype == 14:  # CollectiveRecord
                found.append(struct.unpack_from("<BBHiiiIQQ", data, pos + 4))
            pos += rbytes
        pos = end
    check(len(found) == 1, f"one CollectiveRecord expected: {found}")
    datatype, op, _, peer, rank, nranks, _, _, comm = found[0]
    check((datatype, op, peer, rank, nranks, comm) == (7, 0, -1, 3, 8, 0x1234),
          f"communicator, rank and size as the stand-in NCCL reports them: {found[0]}")


def record(tmp, name, cmd):
    out = os.path.join(tmp, name.replace("/", "-"))
    p = subprocess.run([A.streamlint, "run", "--sanitize", "--out", out, "--"] + cmd, capture_output=True, text=True)
    check(p.returncode == 0, f"{cmd} under streamlint run --sanitize exited {p.returncode}: {p.stderr}")
    return out


def gpu_examples(tmp):
    """Every example of examples/races recorded live: each bad one gives its race, no fixed one any."""
    if not have_gpu():
        return SKIP
    for ex in EXPECTED:
        if ex.endswith(".py"):
            expect(ex, races(record(tmp, ex, [sys.executable, os.path.join(EXAMPLES, ex)])))
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if os.path.exists(nvcc):
        src = os.path.join(EXAMPLES, "bad", "missing_event_wait.cu")
        for kind, flags in (("bad", []), ("fixed", ["-DFIXED"])):
            exe = os.path.join(tmp, kind + "_cu")
            subprocess.run([nvcc, "-g", "-O0", "-cudart", "shared", *flags, "-o", exe, src], check=True)
            expect(f"{kind}/missing_event_wait.cu", races(record(tmp, kind + "-cu", [exe])))
    libtorch_examples(tmp)


def libtorch_examples(tmp):
    """The LibTorch program's race, seen through LibTorch's allocator trace (torch's CMake config)."""
    p = subprocess.run([sys.executable, "-c", "import torch, os; print(torch.utils.cmake_prefix_path); "
                        "print(os.path.join(os.path.dirname(torch.__file__), 'lib'))"], capture_output=True, text=True)
    if p.returncode != 0 or shutil.which("cmake") is None:
        print("libtorch examples skipped: no torch or cmake")
        return
    prefix, lib = p.stdout.split()
    build = os.path.join(tmp, "build-libtorch")
    subprocess.run(["cmake", "-S", os.path.join(EXAMPLES, "libtorch"), "-B", build, "-DCMAKE_PREFIX_PATH=" + prefix,
                    "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], check=True, capture_output=True)
    subprocess.run(["cmake", "--build", build, "-j", str(os.cpu_count() or 2)], check=True, capture_output=True)
    os.environ["LD_LIBRARY_PATH"] = lib + ":" + os.environ.get("LD_LIBRARY_PATH", "")
    for kind, name in (("bad", "libtorch/missing_record_stream.cpp"), ("fixed", "libtorch/fixed/missing_record_stream.cpp")):
        exe = os.path.join(build, "missing_record_stream_" + kind)
        expect(name, races(record(tmp, "libtorch-" + kind, [exe])))


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--streamlint", required=True)
    ap.add_argument("--nccl-main")
    ap.add_argument("--nccl-user")
    ap.add_argument("--cxx", action="store_true", help="the C++ plugin is built: analyse .cu sources too")
    A = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rc = globals()[A.scenario](tmp)
    if rc == SKIP:
        print("SKIP: no GPU")
        sys.exit(SKIP)
    print("PASS")


if __name__ == "__main__":
    main()
