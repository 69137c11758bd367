package target

import "os"

// MissingFile is the path of the SQLite file db names when there is no file there, "" for a
// server's URL, an existing file or a URL that does not parse (opening it says why). Opening an
// SQLite URL creates its file: commands that expect a schema, or that must leave none behind,
// ask this first.
func MissingFile(db string) string {
	u, err := ParseURL(db)
	if err != nil || u.Path == "" {
		return ""
	}
	if _, err := os.Stat(u.Path); err != nil {
		return u.Path
	}
	return ""
}
