package resultstore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
)

// TestMain lets the concurrent-writer test start this binary as a second process that writes.
func TestMain(m *testing.M) {
	if path := os.Getenv("CAIRN_TEST_STORE_WRITER"); path != "" {
		if err := writeRuns(path, 25); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func writeRuns(path string, n int) error {
	s, err := Open(context.Background(), path)
	if err != nil {
		return err
	}
	defer s.Close()
	for i := 0; i < n; i++ {
		d := storedRun(2, int64(1000+i))
		if err := s.SaveRun(context.Background(), d, 0); err != nil {
			return err
		}
	}
	return nil
}

func storedRun(vu int, nopm int64) *results.Document {
	d := fakeRun(vu, nopm, 3.5)
	d.Format, d.Workload = results.FormatVersion, "tpcc"
	d.StartedAt = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	d.Target = results.Target{Kind: "postgres", Name: "PostgreSQL", Version: "15.18", Address: "127.0.0.1:5432", Settings: map[string]string{"shared_buffers": "262144"}}
	d.Host = &results.Host{CPUModel: "test cpu", Threads: 2}
	d.Window = results.Window{Seconds: 60}
	d.Series = []metrics.Second{{T: 1, Txns: 10, Headline: 4, P95ms: 3}, {T: 2, Window: true, Txns: 12, Headline: 5, P95ms: 3.2}}
	d.Histograms = map[string]string{"new_order": "HISTFAKE"}
	d.Config = map[string]any{"mode": "procs"}
	return d
}

func TestStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "results.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := storedRun(4, 5000)
	if err := s.SaveRun(ctx, d, 0); err != nil {
		t.Fatal(err)
	}
	if d.ID != "1" {
		t.Fatalf("first id %q", d.ID)
	}
	got, prof, err := s.Get(ctx, d.ID)
	if err != nil || prof != nil {
		t.Fatalf("get: %v %v", err, prof)
	}
	if got.ID != "1" || *got.Result.NOPM != 5000 || got.Target.Settings["shared_buffers"] != "262144" || got.Host.CPUModel != "test cpu" ||
		len(got.Series) != 2 || got.Histograms["new_order"] != "HISTFAKE" {
		t.Fatalf("round trip lost something: %+v", got)
	}
	var series, hists int
	s.db.QueryRow("SELECT count(*) FROM series WHERE result_id = 1").Scan(&series)
	s.db.QueryRow("SELECT count(*) FROM histograms WHERE result_id = 1").Scan(&hists)
	if series != 2 || hists != 1 {
		t.Fatalf("series rows %d, histogram rows %d", series, hists)
	}

	// A profile with two steps, stored as it runs: begun before a step has measured its figure,
	// whose name it learns from its first step.
	p := &results.Profile{Format: results.FormatVersion, Workload: "tpcc", VUs: []int{1, 2}, Repeat: 1, Target: d.Target}
	if err := s.BeginProfile(ctx, p); err != nil {
		t.Fatal(err)
	}
	for i, vu := range []int{1, 2} {
		r := storedRun(vu, int64(1000*vu))
		r.ProfileID = p.ID
		p.Steps = append(p.Steps, &results.Step{VU: vu, Runs: []*results.Document{r}})
		if err := s.SaveRun(ctx, r, i); err != nil {
			t.Fatal(err)
		}
		p.Summarize()
		if err := s.UpdateProfile(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	_, gp, err := s.Get(ctx, p.ID)
	if err != nil || gp == nil {
		t.Fatalf("get profile: %v", err)
	}
	if len(gp.Steps) != 2 || len(gp.Steps[1].Runs) != 1 || gp.Steps[1].Runs[0].VU != 2 || gp.Marks.Peak != 2 {
		t.Fatalf("profile came back as %+v", gp)
	}

	es, err := s.List(ctx, Filter{})
	if err != nil || len(es) != 2 || es[0].Kind != results.KindProfile || *es[0].Headline != 2000 || es[0].VU != "1,2" {
		t.Fatalf("list: %v %+v", err, es)
	}
	if name, _, _ := p.Steps[0].Runs[0].Headline(); name == "" || es[0].HeadlineName != name {
		t.Errorf("the profile is listed with headline %q, want its steps' %q", es[0].HeadlineName, name)
	}
	if es, _ := s.List(ctx, Filter{Steps: true}); len(es) != 4 {
		t.Fatalf("list with steps: %d entries", len(es))
	}
	if es, _ := s.List(ctx, Filter{Target: "mysql"}); len(es) != 0 {
		t.Fatalf("target filter: %+v", es)
	}
	if es, _ := s.List(ctx, Filter{Limit: 1}); len(es) != 1 {
		t.Fatalf("limit: %+v", es)
	}

	// A step alone cannot be removed; the profile takes its steps, their series and histograms.
	var se *Error
	if err := s.Remove(ctx, gp.Steps[0].Runs[0].ID); !errors.As(err, &se) {
		t.Fatalf("removing a step: %v", err)
	}
	if err := s.Remove(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	var left, leftSeries int
	s.db.QueryRow("SELECT count(*) FROM results").Scan(&left)
	s.db.QueryRow("SELECT count(*) FROM series").Scan(&leftSeries)
	if left != 1 || leftSeries != 2 {
		t.Fatalf("after removing the profile: %d results, %d series rows", left, leftSeries)
	}
	var nf *NotFoundError
	if _, _, err := s.Get(ctx, "99"); !errors.As(err, &nf) {
		t.Fatalf("unknown id: %v", err)
	}
	if _, _, err := s.Get(ctx, "abc"); !errors.As(err, &nf) {
		t.Fatalf("malformed id: %v", err)
	}
	if err := s.Remove(ctx, "99"); !errors.As(err, &nf) {
		t.Fatalf("removing an unknown id: %v", err)
	}
}

// TestStoreMigrations builds a store as the first schema version left it and opens it with this
// cairn: it is upgraded in place and keeps its data.
func TestStoreMigrations(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(migrations[0].(string) + "; PRAGMA user_version = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO results (kind, workload, target_kind, target_name, target_version, target_address, started_at,
		vu, headline_name, headline, interrupted, config, settings, host, document, stored_at)
		VALUES ('run', 'tpcc', 'sqlite', 'SQLite', '3', 'x.db', '2026-01-01T00:00:00Z', '1', 'NOPM', 42, 0, '{}', '{}', 'null', x'', '2026-01-01T00:00:00Z'),
		('run', 'tpcc', 'sqlite', 'SQLite', '3', 'x.db', '2026-01-01T00:01:00Z', '1', 'NOPM', 21, 1, '{}', '{}', 'null', x'', '2026-01-01T00:01:00Z')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// Read-only, the old store lists as it is: its interrupted run is cut short, the one mark
	// it knew (v4 adds the mark's column).
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	es, err := ro.List(ctx, Filter{})
	ro.Close()
	if err != nil || len(es) != 2 || fmt.Sprint(es[0].NotAsPlanned) != "[cut_short]" || es[1].NotAsPlanned != nil {
		t.Fatalf("an old store read-only: %v %+v", err, es)
	}

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v, idx int
	s.db.QueryRow("PRAGMA user_version").Scan(&v)
	s.db.QueryRow("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'results_by_%'").Scan(&idx)
	if v != SchemaVersion || idx != 2 {
		t.Fatalf("after upgrade: version %d (want %d), %d indexes", v, SchemaVersion, idx)
	}
	es, err = s.List(ctx, Filter{})
	if err != nil || len(es) != 2 || *es[1].Headline != 42 || fmt.Sprint(es[0].NotAsPlanned) != "[cut_short]" {
		t.Fatalf("old rows after upgrade: %v %+v", err, es)
	}
	if err := s.SaveRun(ctx, storedRun(1, 7), 0); err != nil {
		t.Fatal(err)
	}
	// v3 admits studies; the rows stored before keep their place.
	st := &results.Study{Name: "s", Workload: "tpcc", Target: results.Target{Kind: "sqlite"}, StartedAt: time.Now(),
		Cases: []*results.StudyCase{{Label: "as found", Profile: &results.Profile{}}}}
	if err := s.BeginStudy(ctx, st); err != nil {
		t.Fatalf("a study in an upgraded store: %v", err)
	}
	if l, err := s.Load(ctx, st.ID); err != nil || l.Study == nil || l.Study.Name != "s" {
		t.Fatalf("the study read back: %v %+v", err, l)
	}
	if es, _ := s.List(ctx, Filter{}); len(es) != 4 {
		t.Fatalf("after storing a study: %d results, want 4", len(es))
	}
}

// TestStoreRefuses checks that files which are not stores of this cairn are refused with a
// Error and left byte for byte as they were.
func TestStoreRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	newer := filepath.Join(dir, "newer.db")
	s, err := Open(ctx, newer)
	if err != nil {
		t.Fatal(err)
	}
	s.db.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion+1))
	s.Close()

	foreign := filepath.Join(dir, "foreign.db")
	db, _ := sql.Open("sqlite", "file:"+foreign)
	if _, err := db.Exec("CREATE TABLE invoices (id INTEGER)"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte(strings.Repeat("not a database\n", 100)), 0o644)

	for _, c := range []struct{ path, want string }{
		{newer, "newer cairn"},
		{foreign, "another program"},
		{text, "not a cairn results store"},
		{dir, "is a directory"},
	} {
		var before []byte
		if fi, _ := os.Stat(c.path); !fi.IsDir() {
			before, _ = os.ReadFile(c.path)
		}
		_, err := Open(ctx, c.path)
		var se *Error
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want a Error saying %q", filepath.Base(c.path), err, c.want)
		}
		if before != nil {
			after, _ := os.ReadFile(c.path)
			if !bytes.Equal(before, after) {
				t.Errorf("%s was changed by a refused open", filepath.Base(c.path))
			}
		}
	}
}

// TestStoreConcurrentWriters runs two writer processes and two in-process writers against one
// new store at once: every run must land, with distinct ids, and the file must stay intact.
func TestStoreConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "CAIRN_TEST_STORE_WRITER="+path)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer process: %v: %s", err, out)
			}
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := writeRuns(path, 25); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n, distinct, series int
	var check string
	s.db.QueryRow("SELECT count(*), count(DISTINCT id) FROM results").Scan(&n, &distinct)
	s.db.QueryRow("SELECT count(*) FROM series").Scan(&series)
	s.db.QueryRow("PRAGMA integrity_check").Scan(&check)
	if n != 100 || distinct != 100 || series != 200 || check != "ok" {
		t.Fatalf("%d results (%d distinct ids), %d series rows, integrity %q; want 100, 100, 200, ok", n, distinct, series, check)
	}
	// Every stored document carries its own id.
	for _, e := range mustList(t, s) {
		d, _, err := s.Get(ctx, fmt.Sprint(e.ID))
		if err != nil || d.ID != fmt.Sprint(e.ID) {
			t.Fatalf("result %d: %v, document id %q", e.ID, err, d.ID)
		}
	}
}

func mustList(t *testing.T, s *Store) []Entry {
	es, err := s.List(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return es
}
