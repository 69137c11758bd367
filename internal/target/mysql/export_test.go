package mysql

import "github.com/cairn-bench/cairn/internal/target"

// ForceInserts makes tg's loads go as INSERTs, as on a server with local_infile OFF.
func ForceInserts(tg target.Target) { tg.(*mysqlTarget).refuseLocal() }
