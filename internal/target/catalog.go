package target

import (
	"fmt"
	"strconv"
	"strings"
)

// Has is one server that has a setting: Server ("MySQL", "MariaDB", "PostgreSQL") from version
// From ("" for every version cairn supports) and before version Before ("" for none since).
type Has struct {
	Server, From, Before string
}

// settingsCatalog lists the server settings that only some of the servers and versions have,
// for the error that names who has one (docs/versions.md). Each entry is checked against the
// servers of CI's version matrix (TestSettingsCatalog): a version the catalog says has it must
// describe it, and one it says lacks it must not.
var settingsCatalog = map[string][]Has{
	// MySQL 8.0's InnoDB, absent from MariaDB.
	"innodb_spin_wait_pause_multiplier": {{Server: "MySQL", From: "8.0.16"}},
	"innodb_log_writer_threads":         {{Server: "MySQL", From: "8.0.22"}},
	"innodb_redo_log_capacity":          {{Server: "MySQL", From: "8.0.30"}},
	"innodb_log_spin_cpu_abs_lwm":       {{Server: "MySQL", From: "8.0.11"}},
	"innodb_parallel_read_threads":      {{Server: "MySQL", From: "8.0.14"}},
	"innodb_dedicated_server":           {{Server: "MySQL", From: "8.0.3"}},
	"innodb_ddl_threads":                {{Server: "MySQL", From: "8.0.27"}},
	"innodb_doublewrite_files":          {{Server: "MySQL", From: "8.0.20"}},
	// MariaDB 10.6 removed these, 11.0 the change buffer.
	"innodb_thread_concurrency":    {{Server: "MySQL"}, {Server: "MariaDB", Before: "10.6"}},
	"innodb_buffer_pool_instances": {{Server: "MySQL"}, {Server: "MariaDB", Before: "10.6"}},
	"innodb_page_cleaners":         {{Server: "MySQL"}, {Server: "MariaDB", Before: "10.6"}},
	"innodb_log_files_in_group":    {{Server: "MySQL"}, {Server: "MariaDB", Before: "10.6"}},
	"innodb_change_buffering":      {{Server: "MySQL"}, {Server: "MariaDB", Before: "11.0"}},
	// PostgreSQL settings that came or went between 12 and 18.
	"logical_decoding_work_mem":        {{Server: "PostgreSQL", From: "13"}},
	"maintenance_io_concurrency":       {{Server: "PostgreSQL", From: "13"}},
	"hash_mem_multiplier":              {{Server: "PostgreSQL", From: "13"}},
	"wal_keep_size":                    {{Server: "PostgreSQL", From: "13"}},
	"wal_keep_segments":                {{Server: "PostgreSQL", Before: "13"}},
	"operator_precedence_warning":      {{Server: "PostgreSQL", Before: "14"}},
	"client_connection_check_interval": {{Server: "PostgreSQL", From: "14"}},
	"huge_page_size":                   {{Server: "PostgreSQL", From: "14"}},
	"track_wal_io_timing":              {{Server: "PostgreSQL", From: "14"}},
	"stats_temp_directory":             {{Server: "PostgreSQL", Before: "15"}},
	"recovery_prefetch":                {{Server: "PostgreSQL", From: "15"}},
	"stats_fetch_consistency":          {{Server: "PostgreSQL", From: "15"}},
	"vacuum_defer_cleanup_age":         {{Server: "PostgreSQL", Before: "16"}},
	"promote_trigger_file":             {{Server: "PostgreSQL", Before: "16"}},
	"vacuum_buffer_usage_limit":        {{Server: "PostgreSQL", From: "16"}},
	"old_snapshot_threshold":           {{Server: "PostgreSQL", Before: "17"}},
	"db_user_namespace":                {{Server: "PostgreSQL", Before: "17"}},
	"io_combine_limit":                 {{Server: "PostgreSQL", From: "17"}},
	"summarize_wal":                    {{Server: "PostgreSQL", From: "17"}},
	"transaction_timeout":              {{Server: "PostgreSQL", From: "17"}},
	"io_method":                        {{Server: "PostgreSQL", From: "18"}},
	"io_workers":                       {{Server: "PostgreSQL", From: "18"}},
}

// CatalogSettings lists the settings of the catalog, for tests.
func CatalogSettings() map[string][]Has { return settingsCatalog }

// CatalogHas says whether the catalog knows the setting, and if so whether server at version has
// it.
func CatalogHas(name, server, version string) (has, known bool) {
	hs, known := settingsCatalog[strings.ToLower(name)]
	for _, h := range hs {
		if h.Server == server && (h.From == "" || VersionAtLeast(version, h.From)) && (h.Before == "" || !VersionAtLeast(version, h.Before)) {
			return true, known
		}
	}
	return false, known
}

// whoHas says in words which servers have the setting: "MySQL 8.0.16 or later has it".
func whoHas(name string) string {
	hs := settingsCatalog[strings.ToLower(name)]
	if len(hs) == 0 {
		return ""
	}
	parts := make([]string, len(hs))
	for i, h := range hs {
		switch {
		case h.From != "" && h.Before != "":
			parts[i] = fmt.Sprintf("%s %s up to before %s", h.Server, h.From, h.Before)
		case h.From != "":
			parts[i] = fmt.Sprintf("%s %s or later", h.Server, h.From)
		case h.Before != "":
			parts[i] = fmt.Sprintf("%s before %s", h.Server, h.Before)
		default:
			parts[i] = h.Server
		}
	}
	if len(parts) == 1 {
		return parts[0] + " has it"
	}
	return strings.Join(parts, " and ") + " have it"
}

// VersionAtLeast compares dotted version numbers ("10.11.6-MariaDB-0+deb12u1", "8.0.31",
// "17.5 (Debian …)") field by field, as far as want goes.
func VersionAtLeast(have, want string) bool {
	h, w := versionFields(have), versionFields(want)
	for i := range w {
		var x int
		if i < len(h) {
			x = h[i]
		}
		if x != w[i] {
			return x > w[i]
		}
	}
	return true
}

func versionFields(v string) []int {
	if i := strings.IndexFunc(v, func(r rune) bool { return r != '.' && (r < '0' || r > '9') }); i >= 0 {
		v = v[:i]
	}
	var out []int
	for _, f := range strings.Split(v, ".") {
		n, err := strconv.Atoi(f)
		if err != nil {
			break
		}
		out = append(out, n)
	}
	return out
}

// MajorMinor is a version's first two numbers, "10.11" of "10.11.6-MariaDB-0+deb12u1"; the first
// alone from PostgreSQL 10 on, whose releases are numbered major.minor ("17" of "17.5").
func MajorMinor(server, version string) string {
	f := versionFields(version)
	switch {
	case len(f) == 0:
		return ""
	case server == "PostgreSQL" && f[0] >= 10 || len(f) == 1:
		return strconv.Itoa(f[0])
	}
	return fmt.Sprintf("%d.%d", f[0], f[1])
}
