// Command readcost measures what reading a query costs the server: the on-CPU time (schedstat) of
// the server thread serving its connection over 500 reads, after 20 unmeasured ones, each read
// prepared, executed and closed with one bound argument (the database) where the query has a ?,
// as cairn's own sampler sends it, and the mean wall time per read on the client's side.
//
// Usage: go run ./bench/readcost DSN SERVER_PID QUERY...   (MySQL/MariaDB with performance_schema on,
// the server on this host; DSN as go-sql-driver/mysql takes it, user:pass@tcp(127.0.0.1:3306)/db)
package main

import (
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

func cpu(pid, tid string) int64 {
	b, err := os.ReadFile("/proc/" + pid + "/task/" + tid + "/schedstat")
	if err != nil {
		die(err)
	}
	v, _ := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
	return v
}

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: readcost DSN SERVER_PID QUERY...")
		os.Exit(2)
	}
	dsn, pid, n := os.Args[1], os.Args[2], 500
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		die(err)
	}
	db.SetMaxOpenConns(1)
	var tid string
	if err := db.QueryRow("SELECT THREAD_OS_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()").Scan(&tid); err != nil {
		die(err)
	}
	for _, q := range os.Args[3:] {
		run := func() {
			var a []any
			if strings.Contains(q, "?") {
				a = []any{dbName(dsn)}
			}
			rows, err := db.Query(q, a...)
			if err != nil {
				die(fmt.Errorf("%s: %w", q, err))
			}
			for rows.Next() {
			}
			rows.Close()
		}
		for i := 0; i < 20; i++ {
			run()
		}
		c0, t0 := cpu(pid, tid), time.Now()
		for i := 0; i < n; i++ {
			run()
		}
		c1, t1 := cpu(pid, tid), time.Now()
		fmt.Printf("%8.1f µs server CPU  %8.1f µs wall   %s\n", float64(c1-c0)/float64(n)/1e3, float64(t1.Sub(t0).Microseconds())/float64(n), strings.Join(strings.Fields(q), " ")[:min(90, len(strings.Join(strings.Fields(q), " ")))])
	}
}

// dbName is the database a DSN names: the part after its last slash, options apart.
func dbName(dsn string) string {
	d := dsn[strings.LastIndex(dsn, "/")+1:]
	if i := strings.Index(d, "?"); i >= 0 {
		d = d[:i]
	}
	return d
}

func die(err error) {
	fmt.Fprintln(os.Stderr, "readcost:", err)
	os.Exit(1)
}
