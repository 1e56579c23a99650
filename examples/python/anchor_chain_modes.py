#!/usr/bin/python3
"""The anchor-chain study of the tangent-stiffness paper from Python: the static equilibrium from
the 'V', then the first four modes, and a matplotlib figure of the mode shapes (the displacement
of each body's centre, side and top views) written to OUTPUT_DIR/anchor_chain_modes.png.

Usage: anchor_chain_modes.py [--output-dir DIR] [--small]   (DIR: a new temporary folder if not
given; --small: two modes, for the test suite)"""

import argparse
import os
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import catena  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", default=None)
    parser.add_argument("--small", action="store_true")
    args = parser.parse_args()
    out = args.output_dir or tempfile.mkdtemp(prefix="catena_anchor_chain_")
    os.makedirs(out, exist_ok=True)

    model = catena.load(os.path.join(HERE, "..", "..", "inputs", "anchor_chain.yaml"))
    modes = 2 if args.small else 4
    r = catena.modal(model, modes=modes)
    print(f"equilibrium in {r.statics.iterations} Newton iterations, sag {r.statics.sag:.4f} m")
    nb = len(model.bodies)
    q = r.statics.q.reshape(nb, -1)  # per body: x, y, z (m), then the quaternion
    x, z = q[:, 0], q[:, 2]
    fig, axes = plt.subplots(modes, 2, figsize=(9, 2.2 * modes), squeeze=False)
    for k in range(modes):
        shape = r.shapes[:, k].reshape(nb, 6)  # per body: delta r (m), theta (rad)
        scale = 0.1 * r.statics.length_scale / max(abs(shape[:, :3]).max(), 1e-300)
        for col, (ax, label) in enumerate(zip(axes[k], ("x-z (side)", "x-y (top)"))):
            ax.plot(x, z if col == 0 else 0 * x, "k.-", lw=0.8, label="equilibrium")
            dz = shape[:, 2] if col == 0 else shape[:, 1]
            ax.plot(x + scale * shape[:, 0], (z if col == 0 else 0 * x) + scale * dz, "r.-",
                    lw=0.8, label="mode")
            ax.set_title(f"mode {k + 1}: {r.frequencies[k]:.4f} Hz, {r.directions[k]}, {label}",
                         fontsize=8)
            ax.set_aspect("equal", adjustable="datalim")
        print(f"mode {k + 1}: {r.frequencies[k]:.6f} Hz  {r.directions[k]}")
    fig.tight_layout()
    path = os.path.join(out, "anchor_chain_modes.png")
    fig.savefig(path, dpi=100)
    print(f"figure written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
