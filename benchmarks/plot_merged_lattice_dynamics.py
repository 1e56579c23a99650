#!/usr/bin/python3
"""Plot of benchmarks/results/merged_lattice_dynamics.csv (bench_merged_lattice_dynamics).

Left: CPU seconds per step against bodies, log-log, for the merged lattices (generalized-alpha
and IDA index 2; with and without the minimum-norm multipliers) and the chain with a doubled
support, with the row selection and one call of the multipliers; guides of slope 1 and 2.
Right: peak resident set and its growth per body.

    /usr/bin/python3 benchmarks/plot_merged_lattice_dynamics.py CSV PNG
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main(csv_path, png_path):
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("no rows in " + csv_path)

    def series(kind, integrator, column, reached_only=True):
        pts = [(float(r["bodies"]), float(r[column])) for r in rows
               if r["kind"] == kind and r["integrator"] == integrator
               and (r["ok"] == "1" or not reached_only) and float(r[column]) > 0]
        pts.sort()
        return np.array([p[0] for p in pts]), np.array([p[1] for p in pts])

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5))
    styles = [
        ("lattice", "generalized-alpha", "cpu_per_step_s", "o-", "lattice, gen-alpha, CPU s / step"),
        ("lattice", "generalized-alpha", "cpu_per_step_net_s", "o--",
         "lattice, gen-alpha, without multipliers"),
        ("lattice", "IDA index 2", "cpu_per_step_s", "s-", "lattice, IDA index 2, CPU s / step"),
        ("lattice", "generalized-alpha", "select_s", "^:", "lattice, row selection (one call)"),
        ("lattice", "generalized-alpha", "multipliers_s", "v:",
         "lattice, minimum-norm multipliers (one call)"),
        ("chain", "generalized-alpha", "cpu_per_step_s", "D", "chain, doubled support, CPU s / step"),
    ]
    all_x = []
    for kind, integrator, column, style, label in styles:
        x, y = series(kind, integrator, column)
        if len(x):
            left.loglog(x, y, style, label=label)
            all_x.extend(x)
    x, y = series("lattice", "generalized-alpha", "cpu_per_step_s")
    if len(x) >= 2:
        slope = np.polyfit(np.log(x), np.log(y), 1)[0]
        left.set_title("merged lattices: CPU per step ~ bodies^%.2f" % slope)
    if all_x:
        xs = np.array([min(all_x), max(all_x)])
        x0, y0 = series("lattice", "generalized-alpha", "cpu_per_step_net_s")
        if len(x0):
            left.loglog(xs, y0[0] * xs / x0[0], color="grey", lw=0.8, label="slope 1")
            left.loglog(xs, y0[0] * (xs / x0[0]) ** 2, color="grey", lw=0.8, ls="--",
                        label="slope 2")
    left.set_xlabel("bodies")
    left.set_ylabel("CPU s")
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=7)

    for kind, integrator, marker in [("lattice", "generalized-alpha", "o"),
                                     ("chain", "generalized-alpha", "D")]:
        x, peak = series(kind, integrator, "peak_rss_kib", reached_only=False)
        if len(x):
            right.loglog(x, peak / 1024.0, marker + "-", label=kind + ": peak RSS, MiB")
        x, per = series(kind, integrator, "bytes_per_body", reached_only=False)
        if len(x):
            right.loglog(x, per / 1024.0, marker + "--",
                         label=kind + ": growth of RSS per body, KiB")
    right.set_xlabel("bodies")
    right.grid(True, which="both", alpha=0.3)
    right.legend(fontsize=7)
    right.set_title("memory")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
