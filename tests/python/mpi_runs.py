"""catena.scale_run, distributed_modal and distributed_simulate against catena-scale and the
serial analyses (ctest python_mpi_runs_np1, _np2; labels python, mpi).

Run by ctest without mpiexec: `mpi_runs.py --np N --mpiexec MPIEXEC --scale CATENA_SCALE --work
DIR` runs catena-scale for each case of CASES on N ranks (one JSON line each, in DIR), then
itself under `MPIEXEC -n N` with `--worker DIR`, which checks on every rank:
  - catena.scale_run's record of each case equals catena-scale's line in every field but the
    timings and memory (numbers to 1e-9 relative, or 1e-12 absolute for round-off-sized
    residuals; strings, integers and booleans exactly: on 1 rank every field is bitwise
    catena-scale's; on 2 ranks two runs of the lattice differ in the last bit of a frequency
    and in residuals of 1e-15, as two runs of catena-scale do);
  - catena.distributed_modal of inputs/catenary_chain.yaml gives catena.modal's frequencies to
    1e-10 relative, and with gather=True the whole q of catena.statics on rank 0 (None
    elsewhere);
  - catena.scale_run(family="chain", gather=True) gives on rank 0 the whole q of the serial
    catena.statics of the same chain (the YAML generator with as many links) to 1e-9 m;
  - catena.distributed_simulate runs the same chain from its 'V' and passes its checks;
  - a failed check raises catena.SolverError with the record as `result`, a bad size
    catena.Error.
Exit status 0 on success (on every rank)."""

import argparse
import json
import os
import subprocess
import sys

SOURCE = os.environ.get("CATENA_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))

# (family, size, analysis, modes, t_end): small, so that the whole test takes seconds.
CASES = [
    ("chain", 8, "modal", 4, 0.1),
    ("lattice", 3, "modal", 3, 0.1),
    ("chain", 8, "dynamics", 4, 0.02),
]


def case_file(work, k):
    return os.path.join(work, f"case{k}.jsonl")


def orchestrate(args):
    os.makedirs(args.work, exist_ok=True)
    mpiexec = [args.mpiexec, "--allow-run-as-root", "--oversubscribe", "-n", str(args.np)]
    for k, (family, size, analysis, modes, t_end) in enumerate(CASES):
        out = case_file(args.work, k)
        for f in (out, out + ".ckpt"):
            if os.path.exists(f):
                os.remove(f)
        subprocess.run(mpiexec + [args.scale, "--family", family, "--sizes", str(size),
                                  "--analysis", analysis, "--modes", str(modes),
                                  "--t-end", str(t_end), "--json", out], check=True)
    worker = mpiexec + [sys.executable, os.path.abspath(__file__), "--worker", args.work]
    return subprocess.run(worker).returncode


WORST = [0.0]  # the largest relative difference seen by same() of a number above 1e-10


def same(a, b, path=""):
    """Whether two records agree as the module docstring says; the first difference, or None."""
    if isinstance(b, dict):
        if set(a) != set(b):
            return f"{path}: keys {sorted(set(a) ^ set(b))}"
        for k in b:
            if k.startswith("time_") or k.startswith("max_rss_"):
                continue
            d = same(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: lengths {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = same(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(b, float) and not isinstance(a, bool):
        if max(abs(a), abs(b)) > 1e-10:  # not a round-off-sized residual
            WORST[0] = max(WORST[0], abs(a - b) / max(abs(a), abs(b)))
        if abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-12:
            return None
        return f"{path}: {a!r} != {b!r}"
    return None if (a == b and type(a) is type(b)) else f"{path}: {a!r} != {b!r}"


def work(args):
    from mpi4py import MPI  # first: MPI initialized by mpi4py, PETSc then uses it

    import numpy as np

    import catena

    comm = MPI.COMM_WORLD
    rank = catena.mpi_rank()
    assert rank == comm.Get_rank() and catena.mpi_size() == comm.Get_size()

    # 1. The families' records equal catena-scale's lines.
    for k, (family, size, analysis, modes, t_end) in enumerate(CASES):
        with open(case_file(args.worker, k)) as f:
            reference = json.loads(f.readline())
        rec = catena.scale_run(family=family, size=size, analysis=analysis, modes=modes,
                               t_end=t_end)
        diff = same(rec, reference)
        assert diff is None, f"rank {rank}: {family} {analysis}: {diff}"

    # 2. Distributed modes of a loaded model against the serial ones; the gathered q.
    model = catena.load(os.path.join(SOURCE, "inputs", "catenary_chain.yaml"))
    serial = catena.modal(model, modes=4)
    d = catena.distributed_modal(model, modes=4, gather=True)
    f_serial = np.sort(serial.frequencies)
    f_dist = np.sort(np.array(d["frequencies_hz"]))
    err_f = np.abs(f_dist - f_serial).max() / f_serial.max()
    assert err_f < 1e-10, f"rank {rank}: frequencies within {err_f} of the serial ones"
    s = catena.statics(model)
    if rank == 0:
        err_q = np.abs(d["q"] - s.q).max()
        assert err_q < 1e-9, f"|q - q_serial| = {err_q}"
        assert d["mode_shapes"].shape == (len(s.q) // 7 * 6, 4), d["mode_shapes"].shape
    else:
        assert d["q"] is None and d["mode_shapes"] is None

    # 3. A chain built rank by rank, gathered, against the serial statics of the same chain.
    links = 8
    with open(os.path.join(SOURCE, "inputs", "catenary_chain.yaml")) as f:
        text = f.read().replace("links: 20", f"links: {links}")
    chain = catena.loads(text, name="chain8")
    serial_chain = catena.statics(chain)
    rec = catena.scale_run(family="chain", size=links, gather=True)
    if rank == 0:
        err_c = np.abs(rec["q"] - serial_chain.q).max()
        assert err_c < 1e-9, f"|q_chain - q_serial| = {err_c}"
        lam_max = np.abs(serial_chain.lambda_).max()
        lam = np.abs(rec["lambda"] - serial_chain.lambda_).max() / lam_max
        assert lam < 1e-8, f"|lambda - lambda_serial| / |lambda| = {lam}"
    else:
        assert rec["q"] is None

    # 4. The input's dynamics: checks passed, the final state gathered.
    dyn = catena.distributed_simulate(model, t_end=0.02, gather=True)
    assert dyn["check_energy_pass"] and dyn["check_constraint_pass"], dyn
    if rank == 0:
        assert dyn["q"].shape == s.q.shape and abs(dyn["t"] - 0.02) < 1e-12

    # 5. Failures: a failed check (a 2 x 2 lattice has 2 modes, not 3) and a bad size.
    try:
        catena.scale_run(family="lattice", size=2, analysis="modal", modes=3)
        raise AssertionError("no SolverError")
    except catena.SolverError as e:
        assert e.result["check_modes_pass"] is False and "check_modes_pass" in str(e), str(e)
    try:
        catena.scale_run(family="chain", size=7)
        raise AssertionError("no catena.Error")
    except catena.Error as e:
        assert "even" in str(e), str(e)

    if rank == 0:
        print(f"{comm.Get_size()} ranks: records equal catena-scale's (largest relative "
              f"difference {WORST[0]:.1e} above 1e-10); modal frequencies within "
              f"{err_f:.1e} of the serial ones; gathered chain q within {err_c:.1e} m")
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--np", type=int)
    p.add_argument("--mpiexec")
    p.add_argument("--scale")
    p.add_argument("--work")
    p.add_argument("--worker")
    args = p.parse_args()
    return work(args) if args.worker else orchestrate(args)


if __name__ == "__main__":
    sys.exit(main())
