#pragma once
/// @file blas_threads.hpp
/// The BLAS under LAPACK, PETSc and SLEPc (Debian's OpenBLAS) runs one thread. OpenBLAS sizes
/// its pool from OPENBLAS_NUM_THREADS, else OMP_NUM_THREADS, when it is loaded, and splits
/// dense products among the threads in an order that changes their round-off: SLEPc's
/// projected eigenproblems then gave modes that differed by 6e-16 between OMP_NUM_THREADS=1
/// and 2, against catena's promise of results identical for any number of OpenMP threads
/// (docs/parallel.md). catena's own parallelism is OpenMP over the assembly; the dense
/// problems behind BLAS are small.

namespace catena {

/// Pins the BLAS to one thread: openblas_set_num_threads(1) when the process has OpenBLAS
/// (looked up at run time, so another BLAS is left alone), and OPENBLAS_NUM_THREADS=1 for a
/// BLAS loaded later. Call first thing in main, before any thread is started.
void pinBlasToOneThread();

}  // namespace catena
