#!/usr/bin/python3
"""Plot benchmarks/results/lattice_rank.csv (written by bench_lattice_rank --csv).

Left: seconds to find the rank of C_q against the number of constraint rows m, log-log: the
block-wise QRCP with each thread count, the global SuiteSparseQR of C_q^T and of C_q and the
dense Eigen QRCP;
unmerged lattices as full lines, merged as dashed ones, generic poses only (the singular poses,
with horizontal levels, as open markers); the 10 s target at 1e6 rows. Right: memory of each
method (its own count: bases and workspaces, CHOLMOD's peak) against m. Any row whose rank
differs from the closed form is marked with a red cross. Uses Debian's python3-matplotlib and
python3-numpy (run with /usr/bin/python3).

    /usr/bin/python3 benchmarks/plot_lattice_rank.py \
        benchmarks/results/lattice_rank.csv benchmarks/results/lattice_rank.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def series(rows, kind, method, threads, pose):
    mine = [r for r in rows if r["kind"] == kind and r["method"] == method
            and r["pose"] == pose and r["status"] != "skipped"
            and (threads is None or int(r["threads"]) == threads)]
    mine.sort(key=lambda r: int(r["m"]))
    m = np.array([int(r["m"]) for r in mine], dtype=float)
    t = np.array([float(r["seconds_best"]) for r in mine])
    mb = np.array([float(r["own_mb"]) for r in mine])
    fail = np.array([r["status"] == "FAIL" for r in mine], dtype=bool)
    return m, t, mb, fail


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1])))
    threads = sorted({int(r["threads"]) for r in rows if r["method"] == "blockwise"})
    methods = [("blockwise", t, f"block-wise, {t} thread(s)") for t in threads]
    methods += [("spqr_At", None, "SuiteSparseQR of C_q^T"), ("spqr_A", None, "SuiteSparseQR of C_q"),
                ("dense", None, "dense Eigen QRCP")]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    for i, (method, t, label) in enumerate(methods):
        for kind, style in (("unmerged", "-"), ("merged", "--")):
            m, sec, mb, fail = series(rows, kind, method, t, "g")
            if len(m):
                kw = dict(color=colors[i % len(colors)], linestyle=style, marker="o", ms=4,
                          label=f"{label}, {kind}")
                left.plot(m, sec, **kw)
                if method != "dense":
                    right.plot(m, mb, **kw)
                if fail.any():
                    left.plot(m[fail], sec[fail], "x", color="red", ms=10)
            for pose in ("s", "h"):
                m, sec, mb, fail = series(rows, kind, method, t, pose)
                if len(m):
                    left.plot(m, sec, linestyle="none", marker="o", mfc="none", ms=7,
                              color=colors[i % len(colors)])
                    if method != "dense":
                        right.plot(m, mb, linestyle="none", marker="o", mfc="none", ms=7,
                                   color=colors[i % len(colors)])
    left.axhline(10.0, color="gray", linestyle=":", label="target: 10 s at 1e6 rows")
    left.set(xscale="log", yscale="log", xlabel="constraint rows m",
             ylabel="seconds (best run)", title="Rank of C_q: time")
    right.set(xscale="log", yscale="log", xlabel="constraint rows m",
              ylabel="MB (method's own count)", title="Rank of C_q: memory")
    for ax in (left, right):
        ax.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=7, loc="upper left")
    right.legend(fontsize=7, loc="upper left")
    fig.text(0.5, 0.005, "full lines: unmerged lattices L x L, dashed: merged; open markers: "
             "every third level horizontal (singular pose); red x: rank differs from the "
             "closed form", ha="center", fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
