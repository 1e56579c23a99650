#!/usr/bin/python3
"""Collects catena-scale JSON lines into a table and plots (docs/scaling.md).

    collect_scaling.py [--weak] [--title T] --out PREFIX FILE.jsonl [...]

Writes PREFIX.md (markdown table), PREFIX.csv (one row per family, analysis, size, ranks and
threads) and PREFIX.png (speedup, parallel efficiency and time per unknown against ranks).
Times are the best over the repeats of each configuration (wall seconds of the whole run; the
phases are those of the best run, each the maximum over the ranks). Strong scaling (default):
speedup S(P) = T(P0) / T(P) and efficiency S(P) P0 / P against the fewest ranks P0 at the same
size. Weak scaling (--weak, N proportional to P): efficiency T(P0) / T(P), speedup
S(P) = efficiency * P / P0. A configuration passes only if every repeat's physical check did.
Installs Debian's python3-matplotlib if it is missing (as the other benchmark scripts do).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
from collections import defaultdict


def matplotlib_pyplot():
    try:
        import matplotlib
    except ImportError:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True)
        subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends",
                               "-o", "DPkg::Lock::Timeout=600", "python3-matplotlib"],
                       check=True, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


PHASES = ["setup", "assembly", "factorization", "solve"]


def load(files):
    runs = []
    for name in files:
        with open(name) as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    runs.append(json.loads(line))
                except json.JSONDecodeError as e:
                    sys.exit(f"{name}:{number}: not a JSON line ({e})")
    if not runs:
        sys.exit("no runs in " + ", ".join(files))
    return runs


def summarize(runs, weak):
    groups = defaultdict(list)
    for r in runs:
        groups[(r["family"], r["analysis"], r["size"], r["ranks"], r["threads"])].append(r)
    rows = []
    for (family, analysis, size, ranks, threads), g in sorted(groups.items()):
        best = min(g, key=lambda r: r["time_total_s"])
        row = {
            "family": family, "analysis": analysis, "size": size, "ranks": ranks,
            "threads": threads, "unknowns": best["unknowns"], "repeats": len(g),
            "time_s": best["time_total_s"],
            **{f"{p}_s": best[f"time_{p}_s"] for p in PHASES},
            "time_per_unknown_us": 1e6 * best["time_total_s"] / best["unknowns"],
            "rss_max_mib": max(r["max_rss_mib_max"] for r in g),
            "rss_sum_mib": max(r["max_rss_mib_sum"] for r in g),
            "newton_iterations": best.get("newton_iterations", 0),
            "constraints": best.get("constraints", 0),
            # The chain's sag, or the lattice's lowest point.
            "sag_m": best.get("sag_m", best.get("lowest_point_m", float("nan"))),
            # The worst check value: the statics' weight (and the lattice's lowest point and
            # frequencies against the closed form), or the dynamics' energy drift.
            "check_residual": max(v for r in g for k, v in r.items()
                                  if k.startswith("check_") and
                                  (k.endswith("_residual") or k == "check_energy_drift")),
            # Modal runs: the eigen phase and the lowest frequency; dynamics: the integration.
            "eigen_s": best.get("time_eigen_s", best.get("time_integration_s", 0.0)),
            "f1_hz": (best.get("frequencies_hz") or [float("nan")])[0],
            # Every check_*_pass field of every repeat (weight, modes, energy, constraints).
            "check": "pass" if all(v for r in g for k, v in r.items()
                                   if k.startswith("check_") and k.endswith("_pass"))
                     else "FAIL",
        }
        rows.append(row)
    # Speedup and efficiency against the fewest ranks of the same series: same size (strong) or
    # same size per rank (weak), at the same family, analysis and threads.
    series = defaultdict(list)
    for row in rows:
        # Weak series: the same links per rank (chain), or the same K0 = K / sqrt(P) (lattice:
        # K0^2 cells per rank; weak_sizes rounds K = K0 sqrt(P)).
        if not weak:
            per = row["size"]
        elif row["family"] == "lattice":
            per = round(row["size"] / row["ranks"] ** 0.5)
        else:
            per = row["size"] / row["ranks"]
        series[(row["family"], row["analysis"], row["threads"], per)].append(row)
    for s in series.values():
        base = min(s, key=lambda r: r["ranks"])
        for row in s:
            if weak:
                row["efficiency"] = base["time_s"] / row["time_s"]
                row["speedup"] = row["efficiency"] * row["ranks"] / base["ranks"]
            else:
                row["speedup"] = base["time_s"] / row["time_s"]
                row["efficiency"] = row["speedup"] * base["ranks"] / row["ranks"]
    return rows, series


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def write_markdown(rows, path, title, files):
    out = [f"# {title}", "",
           "Best of the repeats, wall seconds; phases of that run, each the maximum over the "
           "ranks; memory: peak resident set per rank, maximum and sum over the ranks (MiB). "
           "Check: the vertical support reactions equal the chain's weight (relative residual "
           "<= 1e-8) in every repeat (the lattice: the ground hinges carry its weight and its "
           "lowest point, in the sag column, is the closed form's), for modal runs every mode converged with a residual <= 1e-8, "
           "for dynamics the energy and constraint drifts within their bounds (the residual "
           "column then shows the energy drift). Eigen: the modal phase, or for dynamics the "
           "integration (0 for statics); f1: the lowest frequency. Residual: the worst relative check "
           "value (weight; lattice: also lowest point and frequencies against the closed form; "
           "dynamics: energy drift).", "",
           "| N / K | unknowns | ranks | threads | time s | setup | assembly | factor. | solve | "
           "eigen | us / unknown | speedup | efficiency | MiB max / sum | Newton its | sag / lowest m | "
           "f1 Hz | check (residual) |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|"]
    for r in rows:
        out.append(
            f"| {r['size']} | {r['unknowns']} | {r['ranks']} | {r['threads']} | "
            f"{r['time_s']:.3f} | {r['setup_s']:.3f} | {r['assembly_s']:.3f} | "
            f"{r['factorization_s']:.3f} | {r['solve_s']:.3f} | {r['eigen_s']:.3f} | "
            f"{r['time_per_unknown_us']:.2f} | {r['speedup']:.2f} | {r['efficiency']:.2f} | "
            f"{r['rss_max_mib']:.0f} / {r['rss_sum_mib']:.0f} | {r['newton_iterations']} | "
            f"{r['sag_m']:.9f} | {r['f1_hz']:.6f} | {r['check']} ({r['check_residual']:.1e}) |")
    out += ["", "Inputs: " + ", ".join(f"`{f}`" for f in files), ""]
    with open(path, "w") as f:
        f.write("\n".join(out))


def plot(series, path, title, weak):
    plt = matplotlib_pyplot()
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.5))
    for (family, analysis, threads, per), s in sorted(series.items(), key=lambda kv: kv[0][3]):
        s = sorted(s, key=lambda r: r["ranks"])
        if family == "lattice":
            label = f"{per * per:.0f} cells/rank" if weak else f"K = {per:.0f}"
        else:
            label = f"{per:.0f} links/rank" if weak else f"N = {per:.0e}"
        label += f", {threads} thr"
        p = [r["ranks"] for r in s]
        ax[0].plot(p, [r["speedup"] for r in s], "o-", label=label)
        ax[1].plot(p, [r["efficiency"] for r in s], "o-", label=label)
        ax[2].plot(p, [r["time_per_unknown_us"] for r in s], "o-", label=label)
    ranks = sorted({r["ranks"] for s in series.values() for r in s})
    base = ranks[0]
    ax[0].plot(ranks, [r / base for r in ranks], "k--", lw=0.8, label="ideal")
    ax[1].axhline(1.0, color="k", ls="--", lw=0.8)
    for a, name in zip(ax, ["speedup", "parallel efficiency", "wall time per unknown (us)"]):
        a.set_xlabel("MPI ranks")
        a.set_ylabel(name)
        a.set_xscale("log", base=2)
        a.set_xticks(ranks)
        a.set_xticklabels([str(r) for r in ranks])
        a.grid(True, alpha=0.3)
    ax[1].set_ylim(0.0, 1.2)
    ax[2].set_yscale("log")
    ax[0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="output prefix: PREFIX.md, .csv, .png")
    ap.add_argument("--title", default="catena scaling study")
    ap.add_argument("--weak", action="store_true", help="weak scaling (N proportional to P)")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    rows, series = summarize(load(a.files), a.weak)
    write_csv(rows, a.out + ".csv")
    write_markdown(rows, a.out + ".md", a.title, a.files)
    plot(series, a.out + ".png", a.title, a.weak)
    print(f"wrote {a.out}.md, {a.out}.csv and {a.out}.png")


if __name__ == "__main__":
    main()
