"""The figure types of the projection-continuation and QRCP papers from `catena simulate
--formulation mcs` output (benchmarks/run.sh mcs_figures writes the runs into DATA):

  mcs_2x2_r1.png            diag R1 over time, modified 2x2 four-bar (QRCP paper Fig. 14)
  mcs_double_r1.png         diag R1 over time, double four-bar (QRCP paper Fig. 2)
  mcs_2x2_qdot.png          q1', q2' traditional vs continuation, 2x2 four-bar (QRCP Fig. 15)
  mcs_triple_T.png          bar-1 rows of T, traditional vs continuation, modified triple
                            four-bar (QRCP Figs. 10-11)
  mcs_spatial_pendulum_qdot.png   q1', q2' traditional vs continuation (projection Fig. 9)
  mcs_spatial_pendulum_T.png      the columns of T (projection Fig. 10)
  mcs_slider_crank_qdot.png q1' traditional vs continuation (projection Fig. 6)
  mcs_spin_top_qdot.png     q1'..q3' traditional vs continuation (projection Fig. 14)

Singular configurations that the run reported (JSON summary) are marked by dotted lines.

    /usr/bin/python3 benchmarks/plot_mcs_figures.py DATA benchmarks/results
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def load(data, stem, mode):
    """Columns of DATA/STEM_MODE.mcs.csv as a dict of arrays, and the singular times."""
    path = os.path.join(data, f"{stem}_{mode}.mcs.csv")
    table = np.genfromtxt(path, delimiter=",", names=True, deletechars="")
    with open(os.path.join(data, f"{stem}_{mode}.simulate.json")) as f:
        summary = json.load(f)
    events = [e["t_s"] for e in summary.get("mcs", {}).get("singular_events", [])]
    return table, events


def columns(table, prefix):
    return [n for n in table.dtype.names if n.startswith(prefix)]


def mark(ax, events):
    for t in events:
        ax.axvline(t, color="0.5", linestyle=":", linewidth=0.8)


def r1_figure(data, out, stem, keep, title, name):
    table, events = load(data, stem, "continuation")
    fig, ax = plt.subplots(figsize=(7, 4))
    for c in columns(table, "R1_")[:keep]:
        ax.plot(table["t"], table[c], linewidth=0.9)
    mark(ax, events)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("|R1_ii|")
    ax.set_title(f"{title}: the {keep} retained diagonal entries of R1 (QRCP)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=120)
    plt.close(fig)


def qdot_figure(data, out, stem, title, name):
    trad, events = load(data, stem, "traditional")
    cont, _ = load(data, stem, "continuation")
    names = columns(cont, "qdot_")
    fig, axes = plt.subplots(len(names), 1, figsize=(7, 2.2 * len(names) + 0.6), sharex=True,
                             squeeze=False)
    for ax, c in zip(axes[:, 0], names):
        ax.plot(trad["t"], trad[c], color="C3", linewidth=0.9, label="traditional QR")
        ax.plot(cont["t"], cont[c], color="C0", linewidth=1.2, label="continuation")
        mark(ax, events)
        ax.set_ylabel(c.replace("qdot_", "q'_"))
        ax.grid(alpha=0.3)
    axes[0, 0].legend(loc="best", fontsize=8)
    axes[0, 0].set_title(f"{title}: minimal velocities q' = T^T v")
    axes[-1, 0].set_xlabel("t (s)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=120)
    plt.close(fig)


def tangent_figure(data, out, stem, body, title, name):
    trad, events = load(data, stem, "traditional")
    cont, _ = load(data, stem, "continuation")
    f = len(columns(cont, "qdot_"))
    rows = [c[len("T1_"):] for c in columns(cont, "T1_") if body is None or f"_{body}_" in c]
    fig, axes = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    for ax, (table, label) in zip(axes, ((cont, "continuation"), (trad, "traditional QR"))):
        for j in range(1, f + 1):
            for k, r in enumerate(rows):
                ax.plot(table["t"], table[f"T{j}_{r}"], linewidth=0.9,
                        color=f"C{(k + 3 * (j - 1)) % 10}",
                        label=f"T{j} {r}" if table is cont else None,
                        linestyle="-" if j == 1 else "--")
        mark(ax, events)
        ax.set_title(f"{title}: rows of T ({label})")
        ax.grid(alpha=0.3)
    axes[0].legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7)
    axes[1].set_xlabel("t (s)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=120)
    plt.close(fig)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    data, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    r1_figure(data, out, "modified_2x2_four_bar", 22, "modified 2x2 four-bar", "mcs_2x2_r1.png")
    r1_figure(data, out, "double_four_bar", 14, "double four-bar", "mcs_double_r1.png")
    qdot_figure(data, out, "modified_2x2_four_bar", "modified 2x2 four-bar", "mcs_2x2_qdot.png")
    tangent_figure(data, out, "modified_triple_four_bar", "crank_0_0",
                   "modified triple four-bar, bar 1", "mcs_triple_T.png")
    qdot_figure(data, out, "spatial_pendulum", "spatial pendulum",
                "mcs_spatial_pendulum_qdot.png")
    tangent_figure(data, out, "spatial_pendulum", None, "spatial pendulum",
                   "mcs_spatial_pendulum_T.png")
    qdot_figure(data, out, "spatial_slider_crank", "spatial slider-crank",
                "mcs_slider_crank_qdot.png")
    qdot_figure(data, out, "spin_top", "spin top", "mcs_spin_top_qdot.png")


if __name__ == "__main__":
    main()
