package testutil

import (
	"context"
	"fmt"
	neturl "net/url"
	"strconv"
	"testing"
)

// MariaDBReplica starts two MariaDB servers of the test's own (MariaDBs): a primary with its
// binary log on (row format) and a replica of it, replicating by GTID from the primary's state
// when it started, so that what each server's setup wrote is not applied twice. It returns
// both URLs without a database; they stop with the test.
func MariaDBReplica(t testing.TB) (primary, replica string) {
	t.Helper()
	urls := mariaDBs(t, 2, func(i int) []string {
		if i == 0 {
			return []string{"--server-id=1", "--log-bin=primary-bin", "--binlog-format=ROW"}
		}
		return []string{"--server-id=2", "--relay-log=replica-relay"}
	})
	ctx := context.Background()
	_, p := Open(t, urls[0]+"mysql")
	_, r := Open(t, urls[1]+"mysql")
	var pos string
	if err := p.QueryRow(ctx, "SELECT @@gtid_binlog_pos").Scan(&pos); err != nil {
		t.Fatal(err)
	}
	u, err := neturl.Parse(urls[0])
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	pass, _ := u.User.Password()
	for _, q := range []string{
		"SET GLOBAL gtid_slave_pos = '" + pos + "'",
		fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', MASTER_PASSWORD='%s', MASTER_USE_GTID=slave_pos", port, u.User.Username(), pass),
		"START SLAVE",
	} {
		if _, err := r.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { r.Exec(ctx, "STOP SLAVE") })
	return urls[0], urls[1]
}

// MariaDBCaughtUp waits until the replica at replicaURL has applied everything the primary at
// primaryURL has written so far.
func MariaDBCaughtUp(t testing.TB, primaryURL, replicaURL string) {
	t.Helper()
	ctx := context.Background()
	_, p := Open(t, primaryURL)
	_, r := Open(t, replicaURL)
	var pos string
	if err := p.QueryRow(ctx, "SELECT @@gtid_binlog_pos").Scan(&pos); err != nil {
		t.Fatal(err)
	}
	var res int64
	if err := r.QueryRow(ctx, "SELECT MASTER_GTID_WAIT(?, 120)", pos).Scan(&res); err != nil || res != 0 {
		t.Fatalf("the replica has not applied up to %s in 120 s (%d, %v)", pos, res, err)
	}
}
