package target

import "context"

// Storage is a target whose server says where it keeps its files: the disk I/O observer watches
// the block devices under them when the server runs on this host (docs/result-format.md#disk-io).
type Storage interface {
	// DataPaths returns the server's directories, each by its role, as the server names them
	// (absolute, relative ones resolved against the data directory): read on c, a connection of
	// OwnConn's, once before the run.
	DataPaths(ctx context.Context, c Conn) ([]DataPath, error)
}

// DataPath is one directory of a server's files: Role is "data", "wal" (PostgreSQL's write-ahead
// log), "tablespace", "redo" (InnoDB's log), "undo", "innodb-data" or "binlog".
type DataPath struct {
	Role string `json:"role"`
	Path string `json:"path"`
}

// ServerIO is a target whose server counts its own I/O (PostgreSQL's pg_stat_wal and, from 16,
// pg_stat_io; InnoDB's status counters): the disk I/O observer reads it at the window's edges,
// beside the devices' view (docs/result-format.md#disk-io).
type ServerIO interface {
	// ReadServerIO returns the server's cumulative I/O counters now, read on c, a connection of
	// OwnConn's, and says where they come from; none where the server has no such view.
	ReadServerIO(ctx context.Context, c Conn) (counters []IOCounter, source string, err error)
}

// IOCounter is one of a server's cumulative I/O counters, by the server's own name:
// "Innodb_data_writes", "pg_stat_wal.wal_sync"; Unit is "bytes" or "" (a count).
type IOCounter struct {
	Name  string
	Value float64
	Unit  string
}
