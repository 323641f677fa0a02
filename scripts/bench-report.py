#!/usr/bin/env python3
"""Run the game-state criterion benchmark several times and summarise.

The machine is shared, so one criterion run can be disturbed by other
processes. This runs `cargo bench -p karmem-bench --bench game` RUNS times
(criterion's own statistics inside each run), keeps every run's median per
benchmark, and prints a Markdown table: the median over runs, the fastest
run, the spread (max/min over runs), and the ratios the foundation targets
are stated in (docs/benchmarks.md).

Usage: scripts/bench-report.py [RUNS] [-- extra criterion arguments]
"""
import json
import os
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Criterion writes under the cargo target directory (CARGO_TARGET_DIR if set).
CRITERION = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "criterion"

# (label, numerator, denominator): the ratios the targets are stated in.
RATIOS = [
    ("sum: karmem checked viewer / plain struct", "sum_paths/karmem (checked viewer)", "sum_paths/plain struct"),
    ("sum: karmem trusted viewer / plain struct", "sum_paths/karmem (trusted viewer, validated before)", "sum_paths/plain struct"),
    ("encode: karmem / flatbuffers", "encode/karmem", "encode/flatbuffers"),
    ("encode: karmem / rkyv", "encode/karmem", "encode/rkyv"),
    ("decode: karmem (reused) / flatbuffers", "decode/karmem (reused object)", "decode/flatbuffers (verify + unpack)"),
    ("decode: karmem (reused) / rkyv (validated)", "decode/karmem (reused object)", "decode/rkyv (validate + deserialize)"),
    ("decode: karmem (new) / rkyv (validated)", "decode/karmem (new object)", "decode/rkyv (validate + deserialize)"),
    ("validate: karmem / rkyv bytecheck", "validate/karmem", "validate/rkyv bytecheck"),
    ("validate: karmem / flatbuffers verifier", "validate/karmem", "validate/flatbuffers verifier"),
    ("validated sum: karmem checked viewer / rkyv validate + read", "sum_paths/karmem (checked viewer)", "sum_paths/rkyv (validate + read)"),
    ("validated sum: karmem validate + trusted / rkyv validate + read", "sum_paths/karmem (validate + trusted viewer)", "sum_paths/rkyv (validate + read)"),
    ("cost of checking: karmem checked / trusted viewer", "sum_paths/karmem (checked viewer)", "sum_paths/karmem (trusted viewer, validated before)"),
]


def collect():
    """{full_id: median seconds} of the last criterion run."""
    out = {}
    for bench in CRITERION.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        est = json.loads((bench.parent / "estimates.json").read_text())
        out[meta["full_id"]] = est["median"]["point_estimate"] / 1e9
    return out


def fmt(seconds):
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds * 1e6:.1f} µs"


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        i = args.index("--")
        args, extra = args[:i], args[i + 1:]
    runs = int(args[0]) if args else 3
    samples = {}
    # Results of earlier runs (possibly of renamed benchmarks) would be
    # read back as this run's: start from nothing.
    subprocess.run(["rm", "-rf", str(CRITERION)], check=True)
    for run in range(runs):
        print(f"bench-report: run {run + 1}/{runs}", file=sys.stderr)
        subprocess.run(
            ["cargo", "bench", "-q", "-p", "karmem-bench", "--bench", "game", "--", *extra],
            cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
        )
        for name, t in collect().items():
            samples.setdefault(name, []).append(t)
    med = {name: statistics.median(ts) for name, ts in samples.items()}
    print(f"| operation | median of {runs} runs | fastest run | spread (max/min) |")
    print("|---|---:|---:|---:|")
    for name in sorted(samples, key=lambda n: (n.split("/")[0], med[n])):
        ts = samples[name]
        print(f"| {name} | {fmt(med[name])} | {fmt(min(ts))} | {max(ts) / min(ts):.2f} |")
    print()
    print("| ratio | median runs | fastest runs |")
    print("|---|---:|---:|")
    for label, a, b in RATIOS:
        if a in samples and b in samples:
            print(f"| {label} | {med[a] / med[b]:.2f} | {min(samples[a]) / min(samples[b]):.2f} |")


if __name__ == "__main__":
    main()
