#!/usr/bin/python3
"""The four-bar lattice's rank along a trajectory: the merged lattice of 3 levels of 4 cells
(inputs/merged_four_bar_lattice_3x4.yaml) with its cranks spinning passes singular
configurations (each level's cranks horizontal, at t = 0.73, 0.91 and 1.03 s); catena.mobility
with t_end takes the rank of C_q at every output of the projected (MCS) dynamics, as
`catena mobility --t-end`. Writes OUTPUT_DIR/lattice_rank.csv (t, rank, dof, smallest retained
|R_ii|/|R_11|) and a figure, lattice_rank.png, of the rank and the smallest ratio against time
with the singular configurations met marked.

Usage: lattice_rank.py [--output-dir DIR] [--small]   (--small: to 0.8 s, the first passage)"""

import argparse
import os
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import catena  # noqa: E402

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", default=None)
    parser.add_argument("--small", action="store_true")
    args = parser.parse_args()
    out = args.output_dir or tempfile.mkdtemp(prefix="catena_lattice_rank_")
    os.makedirs(out, exist_ok=True)

    model = catena.load(os.path.join(SOURCE, "inputs", "merged_four_bar_lattice_3x4.yaml"))
    t_end, interval = (0.8, 0.02) if args.small else (1.2, 0.005)
    r = catena.mobility(model, t_end=t_end, interval=interval)
    h = r.history
    print(f"{model.name}: n_v {r.n}, rows {r.m}, rank {r.rank} ({r.dof} degrees of freedom) "
          f"{r.where}")
    print(f"along {h.path}, {len(h.times)} samples to t = {h.times[-1]:.3f} s: rank "
          f"{h.rank.min()} .. {h.rank.max()}")
    for t0, t1, a, b in h.rank_changes:
        print(f"  rank {a} -> {b} between t = {t0:.3f} and {t1:.3f} s")
    for e in h.singular:
        print(f"  singular at t = {e.t:.5f} s: smallest ratio {e.margin:.3g}, "
              f"{e.motions} new motion(s), rows {', '.join(e.rows)}")

    path = os.path.join(out, "lattice_rank.csv")
    with open(path, "w") as f:
        f.write("t_s,rank,dof,smallest_retained\n")
        for t, k, s in zip(h.times, h.rank, h.smallest_retained):
            f.write(f"{t!r},{k},{r.n - k},{s!r}\n")
    fig, (a, b) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    a.step(h.times, h.rank, where="post")
    a.set_ylabel("rank of C_q")
    b.semilogy(h.times, h.smallest_retained)
    b.set_ylabel("smallest |R_ii| / |R_11|")
    b.set_xlabel("t (s)")
    for e in h.singular:
        for ax in (a, b):
            ax.axvline(e.t, color="red", linestyle="--", linewidth=0.8)
    a.set_title(f"{model.name}: singular configurations (dashed)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "lattice_rank.png"), dpi=100)
    print(f"history written to {path}")
    return 0 if h.ok and h.singular else 1


if __name__ == "__main__":
    sys.exit(main())
