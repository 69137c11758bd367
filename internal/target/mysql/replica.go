package mysql

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-bench/cairn/internal/target"
)

// replicaStatus is the statement that shows a MariaDB replica's state, and its column of the lag
// (cairn reads MariaDB replicas only: target.OpenReplicas refuses MySQL's).
func (t *mysqlTarget) replicaStatus() (stmt, column string) {
	return "SHOW SLAVE STATUS", "Seconds_Behind_Master"
}

// Lag implements target.Lagger: the replica's Seconds_Behind_Master; not ok on a server that is
// not a replica, or whose SQL thread is not running (NULL).
func (t *mysqlTarget) Lag(ctx context.Context, c target.Conn) (float64, bool, error) {
	stmt, column := t.replicaStatus()
	rows, err := c.Query(ctx, stmt)
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	named, ok := rows.(interface{ Columns() ([]string, error) })
	if !ok {
		return 0, false, fmt.Errorf("%s: the connection does not name the columns", stmt)
	}
	cols, err := named.Columns()
	if err != nil {
		return 0, false, err
	}
	at := slices.Index(cols, column)
	if at < 0 || !rows.Next() {
		return 0, false, rows.Err()
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return 0, false, err
	}
	var text string
	switch v := vals[at].(type) {
	case nil:
		return 0, false, nil
	case []byte:
		text = string(v)
	case int64:
		return float64(v), true, nil
	default:
		text = fmt.Sprint(v)
	}
	s, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %s is %q", stmt, column, text)
	}
	return s, true, nil
}

// LagSource implements target.Lagger.
func (t *mysqlTarget) LagSource() string {
	stmt, column := t.replicaStatus()
	return stmt + "'s " + column
}

// OwnCounter implements target.ReplicaCounter on a MariaDB replica: Com_commit + Com_rollback
// less the transactions its replication applied. MariaDB's SQL thread counts each transaction it
// applies in Com_commit (Xid_log_event), and each also advances the replica's @@gtid_slave_pos by
// one in its domain, so the sum of the positions' sequence numbers is subtracted: what is left
// is the replica's own sessions' transactions (DDL applied in the window, which advances the
// position without a commit, would make it smaller). It is read in one statement.
func (t *mysqlTarget) OwnCounter(ctx context.Context, c target.Conn) (int64, error) {
	if t.kind != "mariadb" {
		return 0, fmt.Errorf("cairn reads the transaction counter of MariaDB replicas, not MySQL's")
	}
	var com int64
	var pos []byte
	err := c.QueryRow(ctx, "SELECT (SELECT CAST(SUM(VARIABLE_VALUE) AS SIGNED) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('COM_COMMIT','COM_ROLLBACK')), @@gtid_slave_pos",
		target.SimpleArgs(c)...).Scan(&com, &pos)
	if err != nil {
		return 0, err
	}
	applied, err := seqSum(string(pos))
	if err != nil {
		return 0, err
	}
	return com - applied, nil
}

// seqSum is the sum of the sequence numbers of a GTID position, "0-1-120,1-2-7": 127.
func seqSum(pos string) (int64, error) {
	var sum int64
	for _, g := range strings.Split(pos, ",") {
		g = strings.TrimSpace(g)
		if g == "" {
			continue
		}
		i := strings.LastIndexByte(g, '-')
		n, err := strconv.ParseInt(g[i+1:], 10, 64)
		if i < 0 || err != nil {
			return 0, fmt.Errorf("@@gtid_slave_pos %q is not a GTID position", pos)
		}
		sum += n
	}
	return sum, nil
}
