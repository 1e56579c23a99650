#!/usr/bin/python3
"""A parameter sweep from Python: the catenary chain's sag and first frequencies against the
number of links (the catenary_chain generator built from YAML text), printed as a table and
written to OUTPUT_DIR/catenary_sweep.csv (and a figure, catenary_sweep.png).

Usage: catenary_sweep.py [--output-dir DIR] [--small]   (--small: 3 sizes, for the test suite)"""

import argparse
import os
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import catena  # noqa: E402

CHAIN = """
name: catenary_chain_{links}
dimension: 3
gravity: [0, 0, -9.81]
generator:
  type: catenary_chain
  links: {links}
  end_a: [0, 0, 0]
  end_b: [10, 0, 0]
  sag_point: [5, 0, -6]
  mass_per_length: 1.0
  radius: 0.02
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", default=None)
    parser.add_argument("--small", action="store_true")
    args = parser.parse_args()
    out = args.output_dir or tempfile.mkdtemp(prefix="catena_catenary_sweep_")
    os.makedirs(out, exist_ok=True)

    sizes = [10, 20, 40] if args.small else [10, 20, 40, 80, 160, 320]
    rows = []
    print(f"{'links':>6} {'sag_m':>10} " + " ".join(f"{'f%d_Hz' % (k + 1):>9}" for k in range(4)))
    for links in sizes:
        model = catena.loads(CHAIN.format(links=links), name=f"catenary_chain_{links}")
        r = catena.modal(model, modes=4)
        rows.append((links, r.statics.sag, *r.frequencies))
        print(f"{links:6d} {r.statics.sag:10.5f} " + " ".join(f"{f:9.5f}" for f in r.frequencies))
    path = os.path.join(out, "catenary_sweep.csv")
    with open(path, "w") as f:
        f.write("links,sag_m,f1_Hz,f2_Hz,f3_Hz,f4_Hz\n")
        for row in rows:
            f.write(",".join(repr(v) for v in row) + "\n")
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.5))
    a.semilogx([r[0] for r in rows], [r[1] for r in rows], "o-")
    a.set_xlabel("links")
    a.set_ylabel("sag (m)")
    for k in range(4):
        b.semilogx([r[0] for r in rows], [r[2 + k] for r in rows], "o-", label=f"mode {k + 1}")
    b.set_xlabel("links")
    b.set_ylabel("frequency (Hz)")
    b.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "catenary_sweep.png"), dpi=100)
    print(f"table written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
