#!/usr/bin/python3
"""Plot benchmarks/results/chain_convergence.csv (written by bench_chain_convergence --csv).

Left: errors of the static equilibrium of the N-link chain against the continuous catenary of
the same span and length: the largest distance of a joint point from the curve (m) and the
relative error of the horizontal tension, |H - a w| / (a w). Right: relative error of the four
lowest frequencies against their Richardson extrapolate (order 2) from the two finest sizes;
the finest size is then exactly a third of its last difference, so its point is biased (shown
hollow). Both log-log, with a slope -2 reference line. Uses Debian's python3-matplotlib.

    /usr/bin/python3 benchmarks/plot_chain_convergence.py \
        benchmarks/results/chain_convergence.csv benchmarks/results/chain_convergence.png
"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402


def slope2(ax, n, e, label="slope -2"):
    """Reference line N^-2 through half the first point (below the data, to stay visible)."""
    ax.plot(n, [0.5 * e[0] * (n[0] / x) ** 2 for x in n], "k--", linewidth=1, label=label)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["statics_ok"] == "1"]
    rows.sort(key=lambda r: int(r["links"]))
    n = [int(r["links"]) for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))

    dist = [float(r["max_distance"]) for r in rows]
    herr = [abs(float(r["H_rel_error"])) for r in rows]
    left.plot(n, dist, "o-", label="max distance of a joint point (m)")
    left.plot(n, herr, "s-", label="|H - a w| / (a w)")
    slope2(left, n, dist)
    left.set(xscale="log", yscale="log", xlabel="N links", ylabel="error",
             title="Statics vs the continuous catenary")

    modes = sorted(k for k in rows[0] if k.startswith("f"))
    first = None
    for k in modes if len(n) >= 2 else []:
        f = [float(r[k]) for r in rows]
        if any(math.isnan(x) for x in f):
            continue
        ratio = n[-1] / n[-2]
        f_r = f[-1] + (f[-1] - f[-2]) / (ratio**2 - 1.0)
        err = [abs(x - f_r) / f_r for x in f]
        (line,) = right.plot(n[:-1], err[:-1], "o-", label=f"mode {k[1:]}")
        right.plot(n[-1:], err[-1:], "o", mfc="none", color=line.get_color())
        first = first or err
    if first:
        slope2(right, n, first)
    right.set(xscale="log", yscale="log", xlabel="N links",
              ylabel="|f - f_R| / f_R (f_R: Richardson, two finest N)",
              title="Lowest frequencies")
    for ax in (left, right):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
