#!/usr/bin/python3
"""Plot benchmarks/results/chain_vs_simbody.csv (bench_chain_vs_simbody --csv).

One row per accuracy measure (top: error of the mid-chain joint point at t_end; bottom: largest
error over all joint points). In a row, one panel per accuracy level: the cost per simulated
second (the program's --time: wall or process CPU seconds) against the number of links N for
each method at that accuracy (log-log interpolation
between ladder runs); filled markers are interpolated, an open triangle pointing down is an
upper bound (the loosest run was already that accurate), one pointing up a lower bound (no run
reached the level). Dotted and dash-dotted lines: slopes N^1 and N^2 through Simbody RKM at the
smallest N. The last panel of a row shows the ladders (error against cost) at the largest N
where both catena generalized-alpha and Simbody RKM ran. Uses Debian's python3-matplotlib:

    /usr/bin/python3 benchmarks/plot_chain_vs_simbody.py \
        benchmarks/results/chain_vs_simbody.csv benchmarks/results/chain_vs_simbody.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {
    "ga": "catena generalized-alpha",
    "ida": "catena IDA index-2",
    "rkm": "Simbody RK-Merson",
    "rkmc": "Simbody RK-Merson, loop closed to 1e-10",
    "rk3": "Simbody RK3",
}
STYLE = {"ga": ("C0", "-"), "ida": ("C2", "-"), "rkm": ("C3", "--"), "rkmc": ("C5", ":"),
         "rk3": ("C1", "--")}
MEASURES = (("midpoint", "midpoint_error_m", "midpoint error"),
            ("worst_joint", "worst_joint_error_m", "worst joint-point error"))


def number(text):
    try:
        return float(text)
    except ValueError:
        return float("nan")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1])))
    equal = [r for r in rows if r["kind"] == "equal_accuracy"
             and number(r["cost_per_simulated_s"]) == number(r["cost_per_simulated_s"])]
    ladder = [r for r in rows if r["kind"] == "ladder" and r["status"] == "ok"]
    levels = sorted({float(r["level_m"]) for r in equal}, reverse=True)
    methods = list(dict.fromkeys(r["method"] for r in rows if r["kind"] == "ladder"))
    n_max = max(int(r["links"]) for r in rows)
    fig, axes = plt.subplots(len(MEASURES), len(levels) + 1,
                             figsize=(5.6 * (len(levels) + 1), 4.6 * len(MEASURES)),
                             squeeze=False)
    for row, (measure, column, title) in enumerate(MEASURES):
        for ax, level in zip(axes[row], levels):
            here = [r for r in equal if r["measure"] == measure and float(r["level_m"]) == level]
            for method in methods:
                colour, line = STYLE.get(method, ("k", "-"))
                rs = sorted((r for r in here if r["method"] == method),
                            key=lambda r: int(r["links"]))
                exact = [r for r in rs if r["bound"] == "="]
                if exact:
                    ax.plot([int(r["links"]) for r in exact],
                            [float(r["cost_per_simulated_s"]) for r in exact], line + "o",
                            color=colour, label=LABELS.get(method, method))
                for r in rs:
                    if r["bound"] in ("<=", ">"):
                        ax.plot(int(r["links"]), float(r["cost_per_simulated_s"]),
                                "v" if r["bound"] == "<=" else "^", color=colour, markersize=9,
                                fillstyle="none")
            base = sorted((r for r in here if r["method"] == "rkm" and r["bound"] == "="),
                          key=lambda r: int(r["links"]))
            if base:
                n0, c0 = int(base[0]["links"]), float(base[0]["cost_per_simulated_s"])
                for power, style in ((1, "k:"), (2, "k-.")):
                    ax.plot([n0, n_max], [c0, c0 * (n_max / n0) ** power], style,
                            linewidth=0.8, label=f"N^{power}")
            ax.set(xscale="log", yscale="log", xlabel="links N",
                   ylabel="cost, s per simulated s (one thread)",
                   title=f"{title} {level:g} m")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)

        ax = axes[row][-1]
        both = [n for n in {int(r["links"]) for r in ladder}
                if {"ga", "rkm"} <= {r["method"] for r in ladder if int(r["links"]) == n}]
        if both:
            n = max(both)
            for method in methods:
                colour, line = STYLE.get(method, ("k", "-"))
                rs = [r for r in ladder if int(r["links"]) == n and r["method"] == method]
                if rs:
                    ax.plot([float(r["cost_per_simulated_s"]) for r in rs],
                            [float(r[column]) for r in rs], line + "o", color=colour,
                            label=LABELS.get(method, method))
            for level in levels:
                ax.axhline(level, color="grey", linewidth=0.8)
            ax.set(title=f"ladders at N = {n}")
        ax.set(xscale="log", yscale="log", xlabel="cost, s per simulated s", ylabel=f"{title}, m")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Catenary chain from the 'V', t_end = 1 s: catena vs Simbody at equal accuracy")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
