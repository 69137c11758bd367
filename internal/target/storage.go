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
