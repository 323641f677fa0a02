#!/usr/bin/env python3
"""Plot the fan-out benchmark (crates/karmem-host/benches/host.rs) from
criterion's output: time to hand one payload to N modules through a shared
region vs copying it into each, against payload size. Writes
docs/img/fanout.png and prints a Markdown table of the same numbers.

Usage: scripts/plot-fanout.py [target/criterion]
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
group = os.path.join(root, "fanout")
here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "docs", "img", "fanout.png")


def estimate(path):
    with open(os.path.join(path, "new", "estimates.json")) as f:
        return json.load(f)["mean"]["point_estimate"]  # nanoseconds


# criterion stores "region/4" as directory "region_4", with sizes below.
series = {}
for entry in sorted(os.listdir(group)):
    if "_" not in entry or entry == "report":
        continue
    variant, n = entry.rsplit("_", 1)
    for size in os.listdir(os.path.join(group, entry)):
        if size.isdigit():
            series.setdefault((variant, int(n)), {})[int(size)] = estimate(os.path.join(group, entry, size))

if not series:
    sys.exit(f"no fan-out results under {group}: run `make bench-host` first")

STYLE = {
    "region": ("-", "shared region (written once)"),
    "inplace": (":", "shared region (already there)"),
    "copy": ("--", "copy into each module"),
}
fig, ax = plt.subplots(figsize=(9, 5.5))
colors = {1: "tab:blue", 4: "tab:orange", 16: "tab:red"}
for (variant, n), points in sorted(series.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    sizes = sorted(points)
    ax.plot(
        sizes,
        [points[s] / 1000 for s in sizes],
        marker="o",
        linestyle=STYLE[variant][0],
        color=colors.get(n, "black"),
        label=f"{STYLE[variant][1]}, N={n}",
    )
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("payload size (bytes)")
ax.set_ylabel("time to reach all N modules (µs)")
ax.set_title("Fan-out of one payload to N modules (karmem-host, wasmtime 48)")
ax.grid(True, which="both", alpha=0.3)
ax.legend(fontsize=8)
fig.tight_layout()
os.makedirs(os.path.dirname(out), exist_ok=True)
fig.savefig(out, dpi=110)
print(f"wrote {os.path.normpath(out)}")


def human(b):
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"


def t(ns):
    return f"{ns / 1e6:.2f} ms" if ns >= 1e6 else f"{ns / 1e3:.1f} µs"


ns = sorted({n for _, n in series})
sizes = sorted({s for p in series.values() for s in p})
print()
print("| payload | N | region | in place | copy | copy / region |")
print("|---|---|---|---|---|---|")
for s in sizes:
    for n in ns:
        r, p, c = (series.get((v, n), {}).get(s) for v in ("region", "inplace", "copy"))
        ratio = f"{c / r:.1f}×" if r and c else "–"
        print(f"| {human(s)} | {n} | {t(r) if r else '–'} | {t(p) if p else '–'} | {t(c) if c else '–'} | {ratio} |")
