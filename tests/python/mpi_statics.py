"""catena.distributed_statics under `mpiexec -n N /usr/bin/python3` (ctest label mpi): with
mpi4py, the catenary chain split over the ranks, gathered, against the serial catena.statics
to round-off. Exit status 0 on success on every rank."""

import os
import sys

from mpi4py import MPI  # first: MPI initialized by mpi4py, PETSc then uses it

import numpy as np

import catena

SOURCE = os.environ.get("CATENA_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))


def main():
    comm = MPI.COMM_WORLD
    assert catena.mpi_size() == comm.Get_size() and catena.mpi_rank() == comm.Get_rank()
    model = catena.load(os.path.join(SOURCE, "inputs", "catenary_chain.yaml"))
    d = catena.distributed_statics(model, gather=True)
    assert d.converged, d.message
    s = catena.statics(model)  # serial, on each rank
    err_q = np.abs(d.q - s.q).max()
    err_l = np.abs(d.lambda_ - s.lambda_).max() / np.abs(s.lambda_).max()
    assert err_q < 1e-9, f"rank {d.rank}: |q - q_serial| = {err_q}"
    assert err_l < 1e-8, f"rank {d.rank}: |lambda - lambda_serial| / |lambda| = {err_l}"
    total = comm.allreduce(d.owned_bodies)
    assert total == len(model.bodies), (total, len(model.bodies))
    if d.rank == 0:
        print(f"{d.size} ranks: q within {err_q:.2e} m, lambda within {err_l:.2e} of the serial "
              f"statics, {d.iterations} Newton iterations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
