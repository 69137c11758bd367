#!/usr/bin/env bash
# The version matrix (docs/versions.md): starts the servers of .ci/versions.sh and runs the tests
# named in .ci/matrix-tests on each pair of them, every server required, one pair at a time:
#
#   bash .ci/matrix.sh [PAIR...]     PAIR is MYSQLNAME+PGNAME; default: mysql80+pg12 mariadb114+pg17
#
# A pair names a MySQL-kind server and a PostgreSQL one of versions.sh (either may be empty: the
# default server of that kind is then left out of the pass's required servers and its tests skip).
# Prints each pass's time; exits 1 when any test failed.
set -uo pipefail
cd "$(dirname "$0")/.."
pairs=("$@")
# PostgreSQL 18 (+pg18) is not in CI's default: a third pass would take CI past its 40 minutes on
# a busy host (docs/versions.md, CI's time).
[ ${#pairs[@]} -gt 0 ] || pairs=(mysql80+pg12 mariadb114+pg17)
names=()
for p in "${pairs[@]}"; do
  for n in ${p%%+*} ${p##*+}; do names+=("$n"); done
done
bash .ci/versions.sh start "${names[@]}" || exit 1
failed=0
total_start=$SECONDS
for p in "${pairs[@]}"; do
  my=${p%%+*} pg=${p##*+}
  (
    unset CAIRN_TEST_MYSQL CAIRN_TEST_PG CAIRN_TEST_MYSQL_RESTART CAIRN_TEST_PG_RESTART
    req=chromium
    if [ -n "$my" ]; then eval "$(bash .ci/versions.sh env "$my")"; req=$req,mysql; else export CAIRN_TEST_MYSQL=mysql://none@127.0.0.1:1/none; fi
    if [ -n "$pg" ]; then eval "$(bash .ci/versions.sh env "$pg")"; req=$req,postgres; else export CAIRN_TEST_PG=postgres://none@127.0.0.1:1/none; fi
    export CAIRN_TEST_REQUIRE=$req
    start=$SECONDS
    rc=0
    while read -r pkg pattern; do
      case $pkg in ''|'#'*) continue ;; esac
      echo "matrix $p: go test $pkg -run '$pattern'"
      # The outcome of every test and every line a test logged (-v), not the run's own output.
      go test -p 1 -count=1 -timeout 20m -run "$pattern" "$pkg" -v 2>&1 |
        grep --line-buffered -E '^(=== RUN|--- (PASS|FAIL|SKIP)|PASS|FAIL|ok|panic)|^\s+--- |^\s+[a-z_0-9]+_test\.go:[0-9]+: |^\s{8,}'
      [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
    done < .ci/matrix-tests
    echo "matrix $p: $((SECONDS - start)) s, $([ $rc -eq 0 ] && echo passed || echo FAILED)"
    exit $rc
  ) || failed=1
done
echo "matrix: ${pairs[*]} in $((SECONDS - total_start)) s"
exit $failed
