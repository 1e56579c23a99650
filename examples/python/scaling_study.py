#!/usr/bin/python3
"""A scaling study driven from Python: the distributed statics of the catenary chain
(catena.scale_run, the runs of catena-scale, docs/scaling.md) under `mpirun -np P`.

Each launch runs, on its P ranks, a size sweep (time per phase against the number of links)
whose largest size is the strong-scaling size, and a weak-scaling run of LINKS_PER_RANK x P
links, each `repeats` times, every run's checks asserted (the supports carry the weight; the
sag of a size the same on every repeat and every rank count). Rank 0 merges the rows into
OUTPUT_DIR/scaling_study.csv (the rows of an earlier launch with another rank count are kept,
those with P ranks replaced) and draws OUTPUT_DIR/scaling_study.png from all of them: time per
phase against size (P ranks), against ranks at the strong size, and against ranks at the weak
size per rank. A study over rank counts is a sequence of launches into one folder:

  for p in 1 2 4; do mpirun -np $p python3 scaling_study.py --output-dir study; done

Usage: mpirun -np P python3 scaling_study.py [--small] [--output-dir DIR] [--repeats K]
  (--small: sizes 20 to 80 links, 2 repeats, for the test suite; without --output-dir, a new
  temporary folder)"""

import argparse
import csv
import os
import sys
import tempfile

import catena

PHASES = ["time_setup_s", "time_assembly_s", "time_factorization_s", "time_solve_s",
          "time_total_s"]
COLUMNS = ["kind", "ranks", "threads", "links", "repeat", "newton_iterations", "sag_m",
           "check_weight_residual", "max_rss_mib_max"] + PHASES


def run_study(sizes, weak_per_rank, repeats):
    """This launch's rows: the size sweep, then the weak-scaling runs. Collective."""
    ranks = catena.mpi_size()
    plan = [("size", n) for n in sizes] + [("weak", weak_per_rank * ranks)]
    rows = []
    for kind, links in plan:
        for repeat in range(repeats):
            r = catena.scale_run(family="chain", size=links, analysis="statics", repeat=repeat)
            # scale_run raises catena.SolverError when a check fails; assert it all the same.
            assert r["status"] == "ok" and r["check_weight_pass"], r
            assert r["ranks"] == ranks and r["size"] == links
            rows.append({"kind": kind, "links": links, **{c: r[c] for c in COLUMNS
                                                           if c in r and c != "size"}})
    return rows


def merge(path, rows, ranks):
    """The rows of `path` of other rank counts, then these. Rank 0."""
    kept = []
    if os.path.exists(path):
        with open(path) as f:
            kept = [r for r in csv.DictReader(f) if int(r["ranks"]) != ranks]
    merged = kept + [{c: row[c] for c in COLUMNS} for row in rows]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(merged)
    return [{c: (r[c] if c == "kind" else float(r[c])) for c in COLUMNS} for r in merged]


def check_sags(rows):
    """The sag of a chain of a given length is the same on every repeat and rank count (the
    distributed statics is rank-count independent to round-off)."""
    by_links = {}
    for r in rows:
        by_links.setdefault(r["links"], []).append(r["sag_m"])
    for links, sags in by_links.items():
        spread = max(sags) - min(sags)
        assert spread <= 1e-10 * max(sags), f"{links:.0f} links: sags differ by {spread} m"


def fastest(rows, select):
    """Per x, the phase times of the fastest repeat of the rows selected: {x: row}."""
    best = {}
    for r in rows:
        x = select(r)
        if x is not None and (x not in best or r["time_total_s"] < best[x]["time_total_s"]):
            best[x] = r
    return dict(sorted(best.items()))


def plot(path, rows, ranks, strong_links, weak_per_rank):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [
        ("links", f"size sweep on {ranks} ranks",
         fastest(rows, lambda r: r["links"] if r["kind"] == "size" and r["ranks"] == ranks
                 else None)),
        ("ranks", f"strong scaling, {strong_links} links",
         fastest(rows, lambda r: r["ranks"] if r["kind"] == "size" and r["links"] == strong_links
                 else None)),
        ("ranks", f"weak scaling, {weak_per_rank} links per rank",
         fastest(rows, lambda r: r["ranks"] if r["kind"] == "weak"
                 and r["links"] == weak_per_rank * r["ranks"] else None)),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for ax, (xlabel, title, best) in zip(axes, panels):
        xs = list(best)
        for phase in PHASES:
            ax.loglog(xs, [best[x][phase] for x in xs], "o-",
                      label=phase[len("time_"):-len("_s")])
        ax.set_xlabel(xlabel)
        ax.set_ylabel("wall time (s), fastest repeat")
        ax.set_title(title, fontsize=10)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", default=None)
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args()
    rank, ranks = catena.mpi_rank(), catena.mpi_size()
    sizes = [20, 40, 80] if args.small else [1000, 4000, 16000, 64000]
    weak_per_rank = 20 if args.small else 16000
    repeats = args.repeats or (2 if args.small else 3)

    rows = run_study(sizes, weak_per_rank, repeats)
    if rank != 0:
        return 0
    out = args.output_dir or tempfile.mkdtemp(prefix="catena_scaling_study_")
    os.makedirs(out, exist_ok=True)
    table = os.path.join(out, "scaling_study.csv")
    merged = merge(table, rows, ranks)
    check_sags(merged)
    print(f"{'kind':>5} {'ranks':>5} {'links':>7} {'rep':>3} {'newton':>6} {'sag_m':>10} "
          + " ".join(f"{p[5:-2]:>14}" for p in PHASES))
    for r in rows:
        print(f"{r['kind']:>5} {r['ranks']:5d} {r['links']:7d} {r['repeat']:3d} "
              f"{r['newton_iterations']:6d} {r['sag_m']:10.6f} "
              + " ".join(f"{r[p]:14.4g}" for p in PHASES))
    plot(os.path.join(out, "scaling_study.png"), merged, ranks, sizes[-1], weak_per_rank)
    print(f"table written to {table}, figure to {os.path.join(out, 'scaling_study.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
