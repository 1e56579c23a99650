#!/usr/bin/python3
"""Redundant constraint rows in catena-scale --input (tests/mpi.cmake, label mpi;
docs/dynamics-redundant.md, "Distributed runs").

  dynamics inputs/merged_four_bar_lattice_3x4.yaml (18 bodies, 60 rows of which 9 are
           redundant) integrated by the distributed IDA (rtol 1e-8, 0.3 s) on 1, 2 and 4 ranks:
           every run passes its checks and leaves out the rows that the serial `catena simulate
           --integrator ida` leaves out; the final positions of every body agree across the rank
           counts to round-off (1e-10 m; measured 2.5e-12 m: the runs take the same steps) and
           with the serial run to the integration error (1e-6 m; measured 7e-12 m); the ground
           hinges' reactions (the minimum-norm multipliers of every row) equal the serial run's
           to 1e-6 of the largest (measured 1.4e-9; the multipliers' Newton weights are
           multiplier_atol = 1e-2 N);
           the modified double four-bar and the double four-bar in 3D on 2 ranks leave out the
           serial run's rows and pass; the double four-bar started horizontal (a singular
           configuration, not a redundancy) stops with exit 1 and a status naming the rows left
           out that no longer hold
  statics  the merged lattice hanging (3 levels leaning 10 degrees, released into Newton) on 1
           and 2 ranks: the statics converges with the 9 rows left out and each of the 5 ground
           hinges carries a fifth of the weight (the minimum-norm multipliers: the reactions of
           the redundant hinges are not unique); its 3 modes equal those of the same lattice
           with a coupler per cell (no redundant rows, the same motion) to 1e-9 relative
"""
import csv
import json
import os
import subprocess
import sys

from script_support import check, run_mode

LATTICE = "merged_four_bar_lattice_3x4.yaml"


def scale(args, np, extra, name, expect=0):
    """catena-scale on np ranks with `extra`; its one JSON line (None if there is none)."""
    out = os.path.join(args.work, f"{name}_np{np}.jsonl")
    if os.path.exists(out):
        os.remove(out)
    cmd = [args.mpiexec, "--allow-run-as-root", "--oversubscribe", "-np", str(np), args.scale]
    cmd += extra + ["--json", out]
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    sys.stdout.write(p.stderr[-2000:])
    check(p.returncode == expect, f"exit status {p.returncode}, expected {expect}: {' '.join(cmd)}")
    if not os.path.exists(out):
        check(False, f"{name}, {np} ranks: no line")
        return None, p
    with open(out) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    check(len(lines) == 1, f"{name}, {np} ranks: {len(lines)} lines")
    return (lines[0] if lines else None), p


def simulate(args, path, bodies, joints, t_end, rtol):
    """The serial `catena simulate --integrator ida` of path: its JSON summary and its CSV's last
    row."""
    stem = os.path.splitext(os.path.basename(path))[0]
    out_json = os.path.join(args.work, f"serial_{stem}.json")
    out_csv = os.path.join(args.work, f"serial_{stem}.csv")
    cmd = [args.catena, "simulate", path, "--integrator", "ida", "--t-end", str(t_end), "--rtol",
           str(rtol), "--atol", str(1e-2 * rtol), "--terse", "--json", out_json, "--csv", out_csv]
    if bodies:
        cmd += ["--bodies", ",".join(bodies)]
    if joints:
        cmd += ["--joints", ",".join(joints)]
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"{' '.join(cmd)}: exit status {p.returncode}: {p.stderr}")
    with open(out_json) as f:
        summary = json.load(f)
    with open(out_csv) as f:
        last = list(csv.DictReader(f))[-1]
    return summary, last


def test_dynamics(args):
    lattice = os.path.join(args.inputs, LATTICE)
    t_end, rtol = 0.3, 1e-8
    options = ["--analysis", "dynamics", "--t-end", str(t_end), "--rtol", str(rtol)]
    runs = {np: scale(args, np, ["--input", lattice] + options, "lattice", 0)[0]
            for np in (1, 2, 4)}
    if any(l is None for l in runs.values()):
        return
    bodies = list(runs[1]["body_positions_m"])
    joints = list(runs[1]["support_reactions_n"])
    serial, last = simulate(args, lattice, bodies, joints, t_end, rtol)
    check(len(serial["redundant_rows"]) == 9, f"serial rows left out: {serial['redundant_rows']}")
    across = to_serial = reactions = 0.0
    largest = max(abs(x) for f in runs[1]["support_reactions_n"].values() for x in f)
    for np, l in runs.items():
        check(l["status"] == "ok" and l["check_energy_pass"] is True and
              l["check_constraint_pass"] is True, f"lattice, {np} ranks: {l}")
        check(l["redundant_rows"] == serial["redundant_rows"],
              f"lattice, {np} ranks: rows left out {l['redundant_rows']}, serial "
              f"{serial['redundant_rows']}")
        check(l["constraints"] == 51 and "minimum-norm" in l.get("multipliers", ""),
              f"lattice, {np} ranks: {l['constraints']} rows, {l.get('multipliers')}")
        check(len(l["body_positions_m"]) == 18, f"lattice, {np} ranks: bodies")
        for body, r in l["body_positions_m"].items():
            across = max(across, max(abs(x - y) for x, y in
                                     zip(r, runs[1]["body_positions_m"][body])))
            to_serial = max(to_serial, abs(r[0] - float(last[f"{body}.x_m_world"])),
                            abs(r[1] - float(last[f"{body}.y_m_world"])))
        for joint, force in l["support_reactions_n"].items():
            serial_force = [float(last[f"{joint}.F{a}_N_F2"]) for a in "xy"]
            reactions = max(reactions, max(abs(x - y) for x, y in zip(force, serial_force)))
    print(f"positions: across rank counts {across:.3g} m, to the serial run {to_serial:.3g} m; "
          f"reactions to the serial run {reactions / largest:.3g} of the largest")
    check(across <= 1e-10, f"positions differ across rank counts by {across} m")
    check(to_serial <= 1e-6, f"positions differ from the serial run by {to_serial} m")
    check(reactions <= 1e-6 * largest, f"reactions differ from the serial run by {reactions} N")

    # The modified double four-bar (1 row left out) and the double four-bar in 3D (6).
    for name, count in (("modified_double_four_bar.yaml", 1), ("double_four_bar_3d.yaml", 6)):
        path = os.path.join(args.inputs, name)
        l, _ = scale(args, 2, ["--input", path] + options, name, 0)
        serial, _ = simulate(args, path, [], [], t_end, rtol)
        if l:
            check(l["status"] == "ok" and l["redundant_rows"] == serial["redundant_rows"] and
                  len(l["redundant_rows"]) == count, f"{name}: {l}")

    # A start at a singular configuration: the rows left out there drift, the run stops.
    with open(os.path.join(args.inputs, "double_four_bar.yaml")) as f:
        text = f.read()
    horizontal = os.path.join(args.work, "horizontal.yaml")
    with open(horizontal, "w") as f:
        f.write(text.replace("crank_angle_deg: 90", "crank_angle_deg: 0"))
    l, p = scale(args, 2, ["--input", horizontal] + options, "horizontal", 1)
    if l:
        check("no longer satisfied" in l["status"] and l["t_end_s"] == t_end and
              len(l["redundant_rows"]) == 2 and len(l["worst_rows"]) == 2 and
              all(w.startswith(r) for w, r in zip(l["worst_rows"], l["redundant_rows"])),
              f"horizontal start: {l}")
        check("no longer satisfied" in p.stderr, f"horizontal start: {p.stderr}")


def test_statics(args):
    with open(os.path.join(args.inputs, LATTICE)) as f:
        text = f.read()
    hanging = text.replace("crank_angle_deg: 90", "crank_angle_deg: -80").replace(
        "crank_rate: -1.0", "crank_rate: 0.0")
    merged = os.path.join(args.work, "hanging_merged.yaml")
    separate = os.path.join(args.work, "hanging_separate.yaml")
    with open(merged, "w") as f:
        f.write(hanging)
    with open(separate, "w") as f:
        f.write(hanging.replace("merged_couplers: true", "merged_couplers: false"))
    for np in (1, 2):
        l, _ = scale(args, np, ["--input", merged], "statics", 0)
        if not l:
            continue
        support = l["support_reactions_n"]
        fifth = l["weight_n"] / 5
        worst = max(max(abs(f[0]), abs(f[1] - fifth)) for f in support.values())
        print(f"{np} ranks: ground hinges off a fifth of the weight by {worst:.3g} N")
        check(l["status"] == "ok" and l["check_weight_pass"] is True and
              len(l["redundant_rows"]) == 9 and len(support) == 5 and worst <= 1e-9 * fifth,
              f"statics, {np} ranks: {l}")
    modal = ["--analysis", "modal", "--modes", "3"]
    m, _ = scale(args, 2, ["--input", merged] + modal, "modal_merged", 0)
    s, _ = scale(args, 2, ["--input", separate] + modal, "modal_separate", 0)
    if m and s:
        error = max(abs(x - y) / y for x, y in zip(m["frequencies_hz"], s["frequencies_hz"]))
        print(f"frequencies {m['frequencies_hz']}, relative difference {error:.3g}")
        check(m["check_modes_pass"] is True and s["check_modes_pass"] is True and
              len(m["redundant_rows"]) == 9 and not s["redundant_rows"] and
              len(m["frequencies_hz"]) == 3 and error <= 1e-9, f"modes: {m} vs {s}")


def main():
    run_mode({"dynamics": test_dynamics, "statics": test_statics})


if __name__ == "__main__":
    main()
