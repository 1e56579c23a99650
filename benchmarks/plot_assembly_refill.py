#!/usr/bin/python3
"""Plot benchmarks/results/assembly_refill.csv (written by bench_assembly_refill --csv).

Left: nanoseconds per joint per refill of C_q and K_c against the chain size N, one line per
thread count. Right: refill bandwidth as a fraction of the memcpy bandwidth of the same bytes,
with the target 0.5. Uses Debian's python3-matplotlib (run with /usr/bin/python3).

    /usr/bin/python3 benchmarks/plot_assembly_refill.py \
        benchmarks/results/assembly_refill.csv benchmarks/results/assembly_refill.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1])))
    threads = sorted({int(r["threads"]) for r in rows})
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for t in threads:
        mine = sorted((r for r in rows if int(r["threads"]) == t), key=lambda r: int(r["links"]))
        n = [int(r["links"]) for r in mine]
        left.plot(n, [float(r["ns_per_joint_best"]) for r in mine], "o-", label=f"{t} thread(s)")
        right.plot(n, [float(r["ratio_best"]) for r in mine], "o-", label=f"{t} thread(s)")
    left.set(xscale="log", xlabel="N links", ylabel="ns per joint per refill (best)",
             title="Refill of C_q and K_c")
    left.set_ylim(bottom=0)
    right.axhline(0.5, color="gray", linestyle="--", label="target 0.5")
    right.set(xscale="log", xlabel="N links", ylabel="refill GB/s / memcpy GB/s",
              title="Refill vs memcpy of the same bytes")
    right.set_ylim(bottom=0)
    for ax in (left, right):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
