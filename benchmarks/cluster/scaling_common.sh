# Sourced by the batch templates (strong.sbatch, weak.sbatch) and run_local.sh: one catena-scale
# study per rank count, each with its own JSON-lines file and checkpoint, so that a job stopped
# at its time limit (SIGTERM -> checkpoint, exit status 3) continues where it stopped when it is
# submitted again: finished studies are skipped, the stopped one restarts from its checkpoint.
#
#   catena_scale_study LAUNCH P SIZES REPEATS JSON
#     LAUNCH   launcher prefix, e.g. "srun --ntasks" or "mpirun -np" (P is appended)
#     SIZES    comma-separated chain links or lattice sizes K (K x K cells); REPEATS runs per
#              size; JSON the output file
# Environment: CATENA_SCALE (the executable), FAMILY (chain or lattice), ANALYSIS (statics,
# modal or dynamics), MODES (modal: default 4), T_END and RTOL (dynamics: simulated seconds,
# default 0.1; IDA's relative tolerance, default 1e-6; SEGMENT: simulated seconds per restartable
# segment of a run, default 0: none, so a run must end within Slurm's signal margin),
# CHECKPOINT_INTERVAL (seconds, default 600), CATENA_PETSC_OPTIONS (passed through).

catena_scale_study() {
  local launch="$1" np="$2" sizes="$3" repeats="$4" json="$5" restart=() segment=() rc=0
  [ -f "$json.ckpt" ] && restart=(--restart)
  [ "${ANALYSIS:-statics}" = dynamics ] && segment=(--segment "${SEGMENT:-0}")
  # shellcheck disable=SC2086  # LAUNCH and the PETSc options are word lists
  $launch "$np" "${CATENA_SCALE:?set CATENA_SCALE to the catena-scale executable}" \
    --family "${FAMILY:-chain}" --analysis "${ANALYSIS:-statics}" --modes "${MODES:-4}" \
    --t-end "${T_END:-0.1}" --rtol "${RTOL:-1e-6}" --sizes "$sizes" \
    --repeats "$repeats" --json "$json" \
    "${segment[@]}" "${restart[@]}" ${CATENA_PETSC_OPTIONS:-} || rc=$?
  if [ "$rc" -eq 3 ]; then
    echo "[catena] $json: stopped by a signal, checkpoint written; submit again to continue" >&2
  elif [ "$rc" -eq 4 ]; then
    echo "[catena] $json: out of memory (see the message above): use more ranks or nodes" >&2
  elif [ "$rc" -ne 0 ]; then
    echo "[catena] $json: catena-scale failed with status $rc" >&2
  fi
  return "$rc"
}

# weak_sizes PER_RANK P: the sizes of a weak-scaling study on P ranks (comma lists in and out):
# chain links PER_RANK x P; lattice K = PER_RANK sqrt(P) rounded, so its K^2 cells grow like P.
weak_sizes() {
  local per="$1" np="$2"
  if [ "${FAMILY:-chain}" = lattice ]; then
    echo "$per" | tr ',' '\n' | sed "s/\$/ * sqrt($np) + 0.5/" | bc -l | sed 's/\..*//' |
      paste -sd,
  else
    echo "$per" | tr ',' '\n' | sed "s/\$/ * $np/" | bc | paste -sd,
  fi
}
