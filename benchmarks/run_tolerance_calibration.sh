#!/usr/bin/env bash
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" tolerance_calibration "$@"  # = benchmarks/run.sh tolerance_calibration
