#!/usr/bin/python3
"""Plot benchmarks/results/chain_statics_modal.csv (bench_chain_statics_modal --csv).

Left: wall time of statics (solid) and of the 10 modes (dashed) against the number of links N,
one colour per linear-algebra configuration, with a slope-1 line (linear growth). Right: peak
resident memory of the statics and modal phases. Failed runs are drawn as crosses. Log-log.
Uses Debian's python3-matplotlib:

    /usr/bin/python3 benchmarks/plot_chain_statics_modal.py \
        benchmarks/results/chain_statics_modal.csv benchmarks/results/chain_statics_modal.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1])))
    labels = list(dict.fromkeys(r["label"] for r in rows))
    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(13, 5.2))
    for k, label in enumerate(labels):
        colour = f"C{k}"
        rs = [r for r in rows if r["label"] == label]
        ok = [r for r in rs if r["ok"] == "1"]
        bad = [r for r in rs if r["ok"] != "1"]
        n = [int(r["links"]) for r in ok]
        ax_t.plot(n, [float(r["statics_best_s"]) for r in ok], "-o", color=colour, label=label)
        ax_t.plot(n, [float(r["modal_best_s"]) for r in ok], "--s", color=colour, markersize=4)
        ax_m.plot(n, [float(r["peak_statics_mib"]) for r in ok], "-o", color=colour, label=label)
        ax_m.plot(n, [float(r["peak_modal_mib"]) for r in ok], "--s", color=colour, markersize=4)
        for r in bad:
            ax_t.plot(int(r["links"]), max(float(r["statics_best_s"]), 1e-3), "x", color=colour,
                      markersize=10, markeredgewidth=2)
    n_ref = [1e2, 1e5]
    ax_t.plot(n_ref, [1e-2, 10.0], "k:", linewidth=1, label="slope 1")
    ax_t.axhline(60.0, color="grey", linewidth=0.8)
    ax_t.text(1.2e2, 65.0, "1 minute target", color="grey", fontsize=8)
    ax_t.set(xscale="log", yscale="log", xlabel="links N",
             ylabel="wall time, s (solid: statics, dashed: 10 modes; x: failed)",
             title="Catenary chain: statics from the 'V' + 10 modes")
    ax_m.set(xscale="log", yscale="log", xlabel="links N",
             ylabel="peak resident memory, MiB (solid: statics, dashed: modal)",
             title="Peak memory")
    for ax in (ax_t, ax_m):
        ax.grid(True, which="both", alpha=0.3)
    ax_t.legend(fontsize=7)
    ax_m.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
