package study

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// TestFileTextKeepsFactorOrder: a stored config's settings mapping comes back from JSON in no
// particular order, yet the cases follow the file's: the printed file lists the settings in the
// study's factor order, and reads back to the same cases. Its password is a reference.
func TestFileTextKeepsFactorOrder(t *testing.T) {
	st, err := Read([]byte(`name: two
workload: tpcb
db: postgres://cairn:secret@127.0.0.1:5432/x
vu: [2]
settings:
  synchronous_commit: ["on", "off"]
  commit_delay: [0, 10]
`))
	if err != nil {
		t.Fatal(err)
	}
	doc := &results.Study{Factors: []results.Factor{{Name: "synchronous_commit", Levels: []string{"on", "off"}}, {Name: "commit_delay", Levels: []string{"0", "10"}}}}
	b, _ := json.Marshal(st.Config())
	if err := json.Unmarshal(b, &doc.Config); err != nil {
		t.Fatal(err)
	}
	text, err := FileText(doc)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), "secret") {
		t.Fatalf("the password is printed:\n%s", text)
	}
	t.Setenv("CAIRN_PASSWORD", "secret")
	back, err := Read(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	label := func(s *Study) (l []string) {
		for _, c := range s.Cases() {
			l = append(l, c.Label())
		}
		return l
	}
	if !reflect.DeepEqual(label(st), label(back)) || back.Spec.DB != st.Spec.DB {
		t.Errorf("cases %q, want %q (db %s)\n%s", label(back), label(st), back.Spec.DB, text)
	}
}
