package target

import (
	"bytes"
	"errors"
	"testing"
)

func TestParseURL(t *testing.T) {
	good := map[string]string{
		"sqlite://cairn.db":                    "sqlite",
		"sqlite:///tmp/x.db":                   "sqlite",
		"postgres://u:p@127.0.0.1:5432/db":     "postgres",
		"postgresql://u@localhost/db":          "postgres",
		"mysql://u:p@127.0.0.1:3306/db":        "mysql",
		"mariadb://u:p@127.0.0.1/db?tls=false": "mysql",
		"":                                     "sqlite",
	}
	for raw, scheme := range good {
		u, err := ParseURL(raw)
		if err != nil || u.Scheme != scheme {
			t.Errorf("ParseURL(%q) = %v, %v; want scheme %s", raw, u.Scheme, err, scheme)
		}
	}
	u, _ := ParseURL("sqlite:///tmp/x.db")
	if u.Path != "/tmp/x.db" {
		t.Errorf("absolute sqlite path %q", u.Path)
	}
	u, _ = ParseURL("sqlite://rel/x.db")
	if u.Path != "rel/x.db" {
		t.Errorf("relative sqlite path %q", u.Path)
	}
	for _, raw := range []string{"foo", "redis://h/db", "postgres://u:p@/db", "postgres://u:p@h:54x2/db",
		"mysql://u:p@h:3306", "sqlite://", "postgres://u:p@h:5432/%zz"} {
		_, err := ParseURL(raw)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("ParseURL(%q): want a usage error, got %v", raw, err)
		}
	}
}

func TestRedact(t *testing.T) {
	if got := Redact("postgres://u:secret@h/db"); got != "postgres://u:xxxxx@h/db" {
		t.Errorf("Redact = %s", got)
	}
}

func TestAppendFixed(t *testing.T) {
	for _, c := range []struct {
		v      int64
		places int
		want   string
	}{{-1000, 2, "-10.00"}, {30000000, 2, "300000.00"}, {5, 2, "0.05"}, {1234, 4, "0.1234"}, {0, 4, "0.0000"}} {
		if got := string(AppendFixed(nil, c.v, c.places)); got != c.want {
			t.Errorf("AppendFixed(%d,%d) = %s, want %s", c.v, c.places, got, c.want)
		}
	}
}

// Str escapes backslash, tab, newline and carriage return wherever they stand, and copies
// everything else (including UTF-8) as it is.
func TestTextRowWriterStr(t *testing.T) {
	cases := map[string]string{
		"":               "",
		"plain ORIGINAL": "plain ORIGINAL",
		"\\":             "\\\\",
		"a\tb\nc\rd\\e":  "a\\tb\\nc\\rd\\\\e",
		"\n\nend":        "\\n\\nend",
		"start\t":        "start\\t",
		"naïve – ü":      "naïve – ü",
	}
	for in, want := range cases {
		var b bytes.Buffer
		w := NewTextRowWriter(&b)
		w.Int(1)
		w.Str([]byte(in))
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
		if err := w.FlushBuf(); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != "1\t"+want+"\n" {
			t.Errorf("Str(%q) wrote %q, want %q", in, got, "1\t"+want+"\n")
		}
	}
}
