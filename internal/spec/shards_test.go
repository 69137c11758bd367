package spec_test

import (
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/spec"
)

// db takes a list (a shard set): each URL's ${VAR}s expanded, written back as the list it was,
// its references as given, read back the same; a bad member is refused naming it.
func TestDBList(t *testing.T) {
	t.Setenv("H8_SHARD_PW", "s3cret")
	s, err := spec.Read([]byte("workload: oltp\nvu: 1\ndb:\n  - mysql://u:${H8_SHARD_PW}@127.0.0.1:3306/a\n  - mysql://u:${H8_SHARD_PW}@127.0.0.1:3307,127.0.0.1:3308/s_{0..1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(s.DB, "s3cret") != 2 {
		t.Errorf("db %q", s.DB)
	}
	b := s.YAML()
	if strings.Contains(string(b), "s3cret") || !strings.Contains(string(b), "db:\n  - mysql://u:${H8_SHARD_PW}@127.0.0.1:3306/a\n  - mysql://u:${H8_SHARD_PW}@127.0.0.1:3307,127.0.0.1:3308/s_{0..1}\n") {
		t.Errorf("written:\n%s", b)
	}
	back, err := spec.Read(b)
	if err != nil || back.DB != s.DB {
		t.Errorf("read back %v: %q", err, back.DB)
	}
	for text, want := range map[string]string{
		"workload: oltp\nvu: 1\ndb: []\n":                                  "db: an empty list",
		"workload: oltp\nvu: 1\ndb: [mysql://u@h/a, {x: 1}]\n":             "db: item 2 must be a URL",
		"workload: oltp\nvu: 1\ndb: [mysql://u@h/a, mysql://u@h:0/b]\n":    "shard 1 of 2",
		"workload: oltp\nvu: 1\ndb: [mysql://u@h/a, 'postgres://u@h/b']\n": "of one kind",
	} {
		if _, err := spec.Read([]byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}
