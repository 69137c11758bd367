package serve_test

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/serve"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// A PostgreSQL TPC-C job's live figures are the command line's: each progress event's NOPM, TPM
// and their source are what the progress line of the job's log prints for the same interval, the
// server's count; its build's loading events count every row per table and per loader.
func TestProgressEventsAreTheLines(t *testing.T) {
	u, err := url.Parse(testutil.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	t.Setenv("CAIRN_PASSWORD", pw)
	u.User = url.User(u.User.Username())
	db := strings.Replace(u.String(), "@", ":${CAIRN_PASSWORD}@", 1)
	s := start(t, serve.Config{})
	spec := "workload: tpcc\ndb: " + db + "\nvu: 2\nrampup: 1s\nduration: 8s\nprogress: 1s\nprepare: {warehouses: 1, loaders: 2}\n"
	s.done("cleanup", spec)
	t.Cleanup(func() { s.done("cleanup", spec) })
	j := s.done("run", spec)
	evs := s.events(j.ID)
	_, lg, _ := s.do("GET", "/api/v1/jobs/"+j.ID+"/log", nil)
	line := regexp.MustCompile(`NOPM +([0-9]+) +TPM +([0-9]+) \((server|client)\)`)
	lines := line.FindAllStringSubmatch(string(lg), -1)
	var progress []event
	var loading []event
	for _, e := range evs {
		switch e.Name {
		case "progress":
			progress = append(progress, e)
		case "loading":
			loading = append(loading, e)
		}
	}
	if len(progress) < 5 || len(progress) != len(lines) {
		t.Fatalf("%d progress events, %d progress lines in the log:\n%s", len(progress), len(lines), lg)
	}
	servers := 0
	for i, e := range progress {
		d := e.Data
		got := []string{strconv.FormatFloat(d["headline_pm"].(float64), 'f', 0, 64), strconv.FormatFloat(d["tpm"].(float64), 'f', 0, 64), d["source"].(string)}
		if want := lines[i][1:]; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("progress event %d: NOPM, TPM, source %q; its line prints %q", i, got, want)
		}
		if d["headline_name"] != "NOPM" {
			t.Errorf("progress event %d names its headline %v", i, d["headline_name"])
		}
		if d["source"] == "server" {
			servers++
		}
	}
	if servers == 0 {
		t.Errorf("no progress event counted by the server: %v", progress)
	}
	if len(loading) < 2 {
		t.Fatalf("%d loading events for a build of a warehouse", len(loading))
	}
	last := loading[len(loading)-1].Data
	rows := int64(last["rows"].(float64))
	var tables, loaders int64
	for _, x := range last["tables"].([]any) {
		tables += int64(x.(map[string]any)["rows"].(float64))
	}
	for _, x := range last["loaders"].([]any) {
		loaders += int64(x.(float64))
	}
	if last["done"] != true || rows == 0 || tables != rows || loaders != rows || len(last["loaders"].([]any)) != 2 {
		t.Errorf("the build's last loading event: %v; want done, its tables' rows and its 2 loaders' rows adding up to its %d rows (tables %d, loaders %d)", last, rows, tables, loaders)
	}
}
