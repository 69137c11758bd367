#!/usr/bin/env bash
# Restarts the local PostgreSQL server (fast shutdown: open connections are cut), for the test of a
# database restart in the middle of a run.
set -euo pipefail
v=$(ls /etc/postgresql | sort -n | tail -1)
pg_ctlcluster "$v" main restart -m fast
