package target_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	_ "github.com/cairn-bench/cairn/internal/target/all"
)

// MissingFile names an SQLite file that is not there, and nothing else: not an existing file,
// not a server's URL, not a URL that does not parse (opening it says why).
func TestMissingFile(t *testing.T) {
	dir := t.TempDir()
	there := filepath.Join(dir, "there.db")
	if err := os.WriteFile(there, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(dir, "gone.db")
	for db, want := range map[string]string{
		"sqlite://" + gone:                                 gone,
		"sqlite://" + there:                                "",
		"postgres://u:p@127.0.0.1:5432/db":                 "",
		"mysql://u:p@127.0.0.1:3306/db":                    "",
		"nonsense":                                         "",
		"sqlite://" + filepath.Join(dir, "no/such/dir.db"): filepath.Join(dir, "no/such/dir.db"),
	} {
		if got := target.MissingFile(db); got != want {
			t.Errorf("MissingFile(%q) = %q, want %q", db, got, want)
		}
	}
	if _, err := os.Stat(gone); err == nil {
		t.Error("MissingFile created the file it asked about")
	}
}
