"""Plot of benchmarks/results/chain_dynamics_{swing,release}.csv (run.sh chain_dynamics):
wall time per simulated second against the number of links N, per variant (K_c on/off,
modified/full Newton), log-log with an N^1 guide; runs that failed or went over their budget
are drawn hollow (at the wall time they had used) and left unconnected.

    /usr/bin/python3 benchmarks/plot_chain_dynamics.py benchmarks/results
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {
    ("1", "modified"): ("K_c, modified Newton", "C0", "o"),
    ("1", "full"): ("K_c, full Newton", "C1", "s"),
    ("0", "modified"): ("no K_c, modified Newton", "C2", "^"),
    ("0", "full"): ("no K_c, full Newton", "C3", "v"),
}


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def panel(ax, rows, title):
    for key, (label, color, marker) in STYLE.items():
        pts = [r for r in rows if (r["kc"], r["newton"]) == key]
        if not pts:
            continue
        n = [int(r["links"]) for r in pts]
        cost = [float(r["wall_per_simulated_s"]) for r in pts]
        ok = [r["ok"] == "1" for r in pts]
        ax.plot([a for a, g in zip(n, ok) if g], [c for c, g in zip(cost, ok) if g], color=color,
                label=label)
        ax.scatter([a for a, g in zip(n, ok) if g], [c for c, g in zip(cost, ok) if g],
                   color=color, marker=marker)
        ax.scatter([a for a, g in zip(n, ok) if not g], [c for c, g in zip(cost, ok) if not g],
                   facecolors="none", edgecolors=color, marker=marker)
    ref = [r for r in rows if (r["kc"], r["newton"]) == ("1", "modified") and r["ok"] == "1"]
    if ref:
        n0, c0 = int(ref[-1]["links"]), float(ref[-1]["wall_per_simulated_s"])
        ns = [int(r["links"]) for r in ref]
        ax.plot(ns, [c0 * x / n0 for x in ns], "k:", label="N^1")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("links N")
    ax.set_ylabel("wall s per simulated s")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)


def main():
    results = sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results"
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for ax, study, title in zip(
        axes, ("swing", "release"),
        ("swing under a side load (local error 1e-5)", "release from the V (local error 1e-5)")):
        path = os.path.join(results, f"chain_dynamics_{study}.csv")
        if os.path.exists(path):
            panel(ax, load(path), title)
    fig.tight_layout()
    fig.savefig(os.path.join(results, "chain_dynamics.png"), dpi=120)


if __name__ == "__main__":
    main()
