#!/usr/bin/python3
"""Plot and summarize benchmarks/results/tolerance_calibration.csv (bench_tolerance_calibration
--csv): the global position error relative to the mechanism's length scale against the requested
tolerance, log-log, one line per problem and integrator (one panel per integrator), with the lines
y = x and y = 10 x. Prints a Markdown summary on stdout: per integrator the slope of
log(error) against log(tolerance) fitted over all problems, the factor achieved / requested, and
for requested relative accuracies A = 1e-3 .. 1e-8 the tolerances that keep every problem's
error within [A/10, A] (errors interpolated log-log between the measured tolerances; the default
runs, tol = 0, are left out), and per problem the tolerance that reaches A = 1e-4 and 1e-6.
With problem names after PNG: only the windows, without those problems (no plot). Uses Debian's
python3-matplotlib.

    /usr/bin/python3 benchmarks/plot_tolerance_calibration.py \\
        benchmarks/results/tolerance_calibration.csv benchmarks/results/tolerance_calibration.png
    /usr/bin/python3 benchmarks/plot_tolerance_calibration.py CSV PNG slider_crank
"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

INTEGRATORS = ["gen-alpha", "IDA index 2", "MCS"]


def load(path):
    """{integrator: {problem: [(tol, relative), ...] by tol}}, the runs that reached t_end."""
    data = {}
    for r in csv.DictReader(open(path)):
        tol = float(r["tol"])
        if tol <= 0.0 or r["reached"] != "1":
            continue
        data.setdefault(r["integrator"], {}).setdefault(r["problem"], []).append(
            (tol, float(r["relative"])))
    for problems in data.values():
        for points in problems.values():
            points.sort()
    return data


def fit(points):
    """Least-squares slope and intercept of log10(relative) against log10(tol)."""
    x = [math.log10(t) for t, _ in points]
    y = [math.log10(e) for _, e in points]
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxx = sum((a - mx) ** 2 for a in x)
    slope = sum((a - mx) * (b - my) for a, b in zip(x, y)) / sxx
    return slope, my - slope * mx


def interpolate(points, tol):
    """log-log interpolation of the relative error at tol (None outside the measured range)."""
    lt = math.log10(tol)
    for (t0, e0), (t1, e1) in zip(points, points[1:]):
        a, b = math.log10(t0), math.log10(t1)
        if a - 1e-9 <= lt <= b + 1e-9:
            w = (lt - a) / (b - a)
            return 10 ** ((1 - w) * math.log10(e0) + w * math.log10(e1))
    return None


def summary(data):
    print("## Summary (automatic, from the CSV)")
    print()
    print("Slope: least-squares slope of log10(relative error) against log10(tol) over all "
          "problems of the integrator (1: the error is proportional to the tolerance); per "
          "problem in parentheses. Factor: relative error / tol, geometric mean [smallest, "
          "largest] over all runs.")
    print()
    print("| integrator | slope, all problems (per problem) | factor: mean [min, max] |")
    print("|---|---|---|")
    for integrator in INTEGRATORS:
        problems = data.get(integrator, {})
        points = [p for pts in problems.values() for p in pts]
        if len(points) < 2:
            continue
        slope, _ = fit(points)
        per = ", ".join(f"{name} {fit(pts)[0]:.2f}" for name, pts in problems.items()
                        if len(pts) > 1)
        ratios = [e / t for t, e in points]
        mean = 10 ** (sum(math.log10(r) for r in ratios) / len(ratios))
        print(f"| {integrator} | {slope:.2f} ({per}) | {mean:.2g} [{min(ratios):.2g}, "
              f"{max(ratios):.2g}] |")


def windows(data, which):
    print()
    print(f"Requested relative accuracy A ({which}): the tolerances (a grid of 20 per decade "
          "within the measured range) at which every problem's relative error lies in [A/10, A]; "
          "where there is none, the largest tolerance that keeps every error <= A and the "
          "spread, largest / smallest error over the problems there (a spread above 10 means "
          "no single tolerance can meet the window).")
    print()
    print("| integrator | A | tolerances giving [A/10, A] on every problem | largest tol with "
          "error <= A | spread there | smallest error there (problem) |")
    print("|---|---|---|---|---|---|")
    for integrator in INTEGRATORS:
        problems = data.get(integrator, {})
        if not problems:
            continue
        lo = max(pts[0][0] for pts in problems.values())
        hi = min(pts[-1][0] for pts in problems.values())
        grid = [10 ** (math.log10(lo) + k / 20) for k in
                range(int(round(20 * math.log10(hi / lo))) + 1)]
        for A in [1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]:
            window, safe = [], None
            for tol in grid:
                errors = {name: interpolate(pts, tol) for name, pts in problems.items()}
                if any(e is None for e in errors.values()):
                    continue
                if all(A / 10 <= e <= A for e in errors.values()):
                    window.append(tol)
                if max(errors.values()) <= A:
                    safe = (tol, errors)
            cells = f"{window[0]:.1e} .. {window[-1]:.1e}" if window else "none"
            if safe:
                tol, errors = safe
                low = min(errors, key=errors.get)
                spread = max(errors.values()) / errors[low]
                print(f"| {integrator} | {A:.0e} | {cells} | {tol:.1e} | {spread:.2g} | "
                      f"{errors[low]:.1e} ({low}) |")
            else:
                print(f"| {integrator} | {A:.0e} | {cells} | none in the measured range | - | - |")


def needed(data):
    print()
    print("Per problem: the largest tolerance (20 per decade, log-log interpolation) whose "
          "relative error is <= A, for A = 1e-4 and 1e-6 (\"< range\": even the tightest tolerance "
          "measured misses A; \"> range\": the loosest one meets it).")
    print()
    names = sorted({n for problems in data.values() for n in problems})
    print("| integrator | A | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for integrator in INTEGRATORS:
        problems = data.get(integrator, {})
        for A in [1e-4, 1e-6]:
            cells = []
            for name in names:
                pts = problems.get(name)
                if not pts:
                    cells.append("-")
                    continue
                lo, hi = pts[0][0], pts[-1][0]
                grid = [10 ** (math.log10(lo) + k / 20)
                        for k in range(int(round(20 * math.log10(hi / lo))) + 1)]
                ok = [t for t in grid if interpolate(pts, t) <= A]
                if not ok:
                    cells.append("< range")
                elif ok[-1] >= hi * (1 - 1e-9) and all(e <= A for _, e in pts):
                    cells.append("> range")
                else:
                    cells.append(f"{ok[-1]:.1e}")
            print(f"| {integrator} | {A:.0e} | " + " | ".join(cells) + " |")


def plot(data, out):
    fig, axes = plt.subplots(1, len(INTEGRATORS), figsize=(15, 5), sharey=True)
    for ax, integrator in zip(axes, INTEGRATORS):
        problems = data.get(integrator, {})
        tols = [t for pts in problems.values() for t, _ in pts]
        for name, pts in problems.items():
            ax.loglog([t for t, _ in pts], [e for _, e in pts], "o-", markersize=4, label=name)
        if tols:
            x = [min(tols), max(tols)]
            ax.loglog(x, x, "k-", linewidth=1, label="y = x")
            ax.loglog(x, [10 * v for v in x], "k--", linewidth=1, label="y = 10 x")
        ax.set_title(integrator)
        ax.set_xlabel("requested tolerance")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("global position error / length scale")
    axes[0].legend(fontsize=8)
    fig.suptitle("Global position error against the requested tolerance "
                 "(benchmarks/tolerance_calibration.cpp)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    data = load(sys.argv[1])
    if len(sys.argv) > 3:  # the windows only, without the named problems
        for problems in data.values():
            for name in sys.argv[3:]:
                problems.pop(name, None)
        windows(data, "without " + ", ".join(sys.argv[3:]))
        return
    plot(data, sys.argv[2])
    summary(data)
    windows(data, "all problems")
    needed(data)


if __name__ == "__main__":
    main()
