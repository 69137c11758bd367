package target

import (
	"bytes"
	"testing"
)

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
