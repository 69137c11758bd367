// Package all links every target into the binary; each registers its URL scheme in init.
package all

import (
	_ "github.com/cairn-bench/cairn/internal/target/mysql"
	_ "github.com/cairn-bench/cairn/internal/target/postgres"
	_ "github.com/cairn-bench/cairn/internal/target/sqlite"
)
