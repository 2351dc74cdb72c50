#!/bin/sh
# A stdio MCP server wrapped the way wrappers in the wild are: it ignores SIGTERM, and when the
# server ends (its stdin closed) the wrapper execs into another program that never exits, so
# only a SIGKILL of its process group stops it.
# Usage: sh stubborn_wrapper.sh PYTHON [SERVER ARGS ...]  (runs basic.py next to this file)
trap '' TERM
python="$1"
shift
"$python" "$(dirname "$0")/basic.py" "$@"
exec sleep 3600
