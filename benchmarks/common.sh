# Sourced by the benchmark scripts (from the repository root): what identifies a run.
#
#   stamp_run DIR...   sets `started` (UTC, now) and `revision` (the short commit, plus
#                      " with uncommitted changes in lib/ or drivers/" when the named
#                      directories differ from it). Call it before building: the binary is
#                      built from this tree, which may change while the run goes on.
stamp_run() {
  started="$(date -u '+%Y-%m-%d %H:%M UTC')"
  revision="$(git rev-parse --short HEAD 2> /dev/null || echo unknown)"
  if ! git diff --quiet HEAD -- "$@" 2> /dev/null; then
    local dirs=("${@/%//}") list
    list="$(IFS=,; echo "${dirs[*]:0:$#-1}" | sed 's/,/, /g')"
    [ -n "$list" ] && list="$list or "
    revision+=" with uncommitted changes in $list${dirs[$#-1]}"
  fi
}
