# Sourced by the scripts: installs the Debian 12 packages catena needs, if any is missing.
# pybind11-dev and the python3-* packages: the Python module, its tests and examples
# (docs/python.md).
# Usage: catena_install_deps [extra packages...]

# libopenblas0-pthread replaces the reference BLAS/LAPACK through Debian's alternatives: the
# eigensolver's orthogonalization runs 1.4x faster at 10^4 links
# (benchmarks/results/chain_statics_modal.md). Its own threads ignore OMP_NUM_THREADS, so
# results stay independent of the OpenMP thread count.
CATENA_PACKAGES=(cmake g++ make pkg-config libeigen3-dev libboost-test-dev libopenmpi-dev
  openmpi-bin petsc-dev slepc-dev libsundials-dev libyaml-cpp-dev libsuitesparse-dev
  libopenblas0-pthread
  pybind11-dev python3-dev python3-numpy python3-scipy python3-matplotlib python3-mpi4py)

catena_install_deps() {
  local wanted=("${CATENA_PACKAGES[@]}" "$@") missing=() p
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "[catena] all Debian packages present"
    return 0
  fi
  echo "[catena] installing missing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    -o DPkg::Lock::Timeout=600 "${missing[@]}"
}

# Open MPI refuses root and a 2-core machine has 2 slots; these make local runs work (TOOLCHAIN.md).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1
