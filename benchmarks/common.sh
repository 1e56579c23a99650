# Sourced by benchmarks/run.sh and benchmarks/cluster/run_local.sh (from the repository root):
# what identifies a run, and the steps every benchmark study repeats.
#
#   stamp_run DIR...   sets `started` (UTC, now) and `revision` (the short commit, plus
#                      " with uncommitted changes in lib/ or drivers/" when the named
#                      directories differ from it; benchmarks/results/ does not count: the
#                      runs write it). Call it before building: the binary is built from this
#                      tree, which may change while the run goes on.
stamp_run() {
  started="$(date -u '+%Y-%m-%d %H:%M UTC')"
  revision="$(git rev-parse --short HEAD 2> /dev/null || echo unknown)"
  if ! git diff --quiet HEAD -- "$@" ':(exclude)benchmarks/results' 2> /dev/null; then
    local dirs=("${@/%//}") list
    list="$(IFS=,; echo "${dirs[*]:0:$#-1}" | sed 's/,/, /g')"
    [ -n "$list" ] && list="$list or "
    revision+=" with uncommitted changes in $list${dirs[$#-1]}"
  fi
}

#   build_targets DIR TARGET...   configures a Release build in ${BUILD_DIR:-DIR} and builds the
#                                 targets (-j2); sets `build` to that directory.
build_targets() {
  build="${BUILD_DIR:-$1}"
  shift
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCATENA_BUILD_BENCHMARKS=ON > /dev/null
  cmake --build "$build" -j2 --target "$@" > /dev/null
}

#   install_deps PACKAGE...   the Debian packages catena needs plus these (scripts/deps.sh).
install_deps() {
  source scripts/deps.sh
  catena_install_deps "$@"
}

#   start_runs   resets `started` to now (the runs start) and sets `load` (1, 5, 15 min).
start_runs() {
  started="$(date -u '+%Y-%m-%d %H:%M UTC')"
  load="$(cut -d' ' -f1-3 /proc/loadavg)"
}

#   cpu_model   the model name of the first CPU.
cpu_model() {
  grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'
}

#   kept_notes MD   the hand-written notes of results file MD (the lines between
#                   "<!-- notes begin" and "<!-- notes end"), or an empty notes block.
kept_notes() {
  if [[ -f "$1" ]] && grep -q '^<!-- notes begin' "$1"; then
    sed -n '/^<!-- notes begin/,/^<!-- notes end/p' "$1"
  else
    printf '%s\n' "<!-- notes begin: kept by benchmarks/run.sh (hand-written; edit here) -->" \
      '(interpretation)' '<!-- notes end -->'
  fi
}

#   header TITLE   the first lines of a results file: title, the command (`command`, set by
#                  run.sh), start and revision (stamp_run, start_runs).
header() {
  echo "# $1"
  echo
  echo "Produced by \`$command\` (from the repository root),"
  echo "started $started at git \`$revision\`."
}

#   plot SCRIPT ARGS...   benchmarks/SCRIPT with Debian's python3 if it has matplotlib.
plot() {
  if /usr/bin/python3 -c 'import matplotlib' 2> /dev/null; then
    /usr/bin/python3 "benchmarks/$1" "${@:2}" || echo "plot failed: $1" >&2
  else
    echo "no plot: install python3-matplotlib (Debian) for /usr/bin/python3" >&2
  fi
}

#   program_study TITLE NAME ARGS...   runs $build/benchmarks/bench_NAME ARGS with one thread and
#                                      writes $results/NAME.md: header, command, machine, load,
#                                      the program's output, the kept notes. Returns its status.
program_study() {
  local title="$1" name="$2" status=0
  shift 2
  local md="$results/$name.md" bench="$build/benchmarks/bench_$name"
  export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
  start_runs
  "$bench" "$@" > "$tmp/out" || status=$?
  kept_notes "$md" > "$tmp/notes"
  {
    header "$title"
    echo "It builds Release in \`$build\` and runs, with OMP_NUM_THREADS=$OMP_NUM_THREADS"
    echo "on $(cpu_model) ($(nproc --all) cores), load average $load at the start:"
    echo
    echo "    $bench $*"
    echo
    echo "Exit status: $status."
    echo
    cat "$tmp/out"
    echo
    cat "$tmp/notes"
  } > "$md"
  echo "wrote $md" >&2
  return "$status"
}
