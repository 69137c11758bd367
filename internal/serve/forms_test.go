package serve_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/dustin/go-humanize"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/serve"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
)

type formOption struct {
	Name, Kind, Help, Group, Min, Max, Default string
	Enum                                       []string
	Auto, Profile                              bool
	ProfileDefault                             *string `json:"profile_default"`
}

type formWorkload struct {
	Name, Title, Doc     string
	Profile, Check       bool
	Engine, Run, Prepare []formOption
}

// GET /api/v1/workloads answers every workload's options as they are declared (the flags' and
// the spec's): each run and prepare option, with its default, limits and help; the engine
// settings with a run's and a profile's defaults; the ${VAR} names, never a value.
func TestWorkloadsRouteIsTheDeclarations(t *testing.T) {
	t.Setenv("CAIRN_FORMS_TEST_PW", "not-to-be-seen-9q")
	s := start(t, serve.Config{Version: "test", AllowEnv: []string{"CAIRN_FORMS_TEST_PW"}})
	var body struct {
		Workloads []formWorkload
		AllowEnv  []string `json:"allow_env"`
	}
	raw := s.ok(200, "GET", "/api/v1/workloads", nil, &body)
	if strings.Contains(string(raw), "not-to-be-seen-9q") {
		t.Fatal("the workloads route shows a variable's value")
	}
	if len(body.AllowEnv) != 1 || body.AllowEnv[0] != "CAIRN_FORMS_TEST_PW" {
		t.Errorf("allow_env %v, want the service's", body.AllowEnv)
	}
	if len(body.Workloads) != len(workload.All()) {
		t.Fatalf("%d workloads, the registry has %d", len(body.Workloads), len(workload.All()))
	}
	byName := map[string]formWorkload{}
	for _, w := range body.Workloads {
		byName[w.Name] = w
	}
	for _, w := range workload.All() {
		f, ok := byName[w.Info().Name]
		if !ok {
			t.Errorf("no %s", w.Info().Name)
			continue
		}
		for _, set := range []struct {
			what string
			got  []formOption
			decl any
		}{{"run", f.Run, w.RunOptions()}, {"prepare", f.Prepare, w.PrepareOptions()}} {
			var names []string
			for _, o := range set.got {
				names = append(names, o.Name)
				d, ok := options.Lookup(set.decl, o.Name)
				if !ok {
					t.Errorf("%s %s option %s is not declared", f.Name, set.what, o.Name)
					continue
				}
				if o.Help != d.Help || o.Kind != string(d.Kind) || (!d.HasUnset && o.Default != d.Default) || o.Auto != d.HasUnset {
					t.Errorf("%s %s option %s: %+v, declared %+v", f.Name, set.what, o.Name, o, d)
				}
			}
			if strings.Join(names, ",") != strings.Join(visible(set.decl), ",") {
				t.Errorf("%s %s options %v, declared %v", f.Name, set.what, names, visible(set.decl))
			}
		}
	}
	tpcc := byName["tpcc"]
	find := func(l []formOption, name string) formOption {
		for _, o := range l {
			if o.Name == name {
				return o
			}
		}
		t.Fatalf("tpcc has no option %s", name)
		return formOption{}
	}
	if wh := find(tpcc.Prepare, "warehouses"); wh.Min != "1" || wh.Default != "1" || wh.Help == "" {
		t.Errorf("tpcc prepare warehouses: %+v", wh)
	}
	if m := find(tpcc.Run, "mode"); strings.Join(m.Enum, ",") != "procs,sql" || !m.Auto {
		t.Errorf("tpcc mode: %+v, want procs or sql, decided by the schema when left out", m)
	}
	vu := find(tpcc.Engine, "vu")
	if vu.Default != "4" || vu.ProfileDefault == nil || *vu.ProfileDefault != "1,2,4,8" || vu.Kind != "int list" || vu.Group != "run" {
		t.Errorf("tpcc vu: %+v, want 4 in a run, 1,2,4,8 in a profile", vu)
	}
	if r := find(tpcc.Engine, "repeat"); !r.Profile {
		t.Errorf("repeat is not marked a profile's: %+v", r)
	}
	if ws := find(tpcc.Engine, "wait-sample"); ws.Group != "observation" || ws.Default != "100ms" {
		t.Errorf("wait-sample: %+v", ws)
	}
	if tpcc.Doc != "tpcc.md" || !tpcc.Profile || !tpcc.Check {
		t.Errorf("tpcc: doc %q profile %v check %v", tpcc.Doc, tpcc.Profile, tpcc.Check)
	}
}

func visible(v any) []string {
	var n []string
	for _, f := range options.Fields(v) {
		if !f.Hidden {
			n = append(n, f.Name)
		}
	}
	return n
}

// The docs are served from the binary, as they are in the repository; nothing but them.
func TestDocsRoute(t *testing.T) {
	s := start(t, serve.Config{Version: "test"})
	var list struct{ Docs []string }
	s.ok(200, "GET", "/api/v1/docs", nil, &list)
	if !strings.Contains(strings.Join(list.Docs, " "), "tpcc.md") || !strings.Contains(strings.Join(list.Docs, " "), "serve.md") {
		t.Errorf("docs listed: %v", list.Docs)
	}
	for _, name := range []string{"tpcc.md", "serve.md", "openapi.yaml"} {
		want, err := os.ReadFile("../../docs/" + name)
		if err != nil {
			t.Fatal(err)
		}
		code, got, h := s.do("GET", "/api/v1/docs/"+name, nil)
		if code != 200 || string(got) != string(want) {
			t.Errorf("GET /api/v1/docs/%s: %d, %d bytes; the file has %d", name, code, len(got), len(want))
		}
		if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "text/markdown") && !strings.HasPrefix(ct, "application/yaml") {
			t.Errorf("%s: Content-Type %q", name, ct)
		}
	}
	code, html, h := s.do("GET", "/api/v1/docs/tpcc.md?format=html", nil)
	if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") || !strings.Contains(string(html), `<h1 id="the-tpc-c-workload">The TPC-C workload</h1>`) ||
		!strings.Contains(string(html), "<table>") || !strings.Contains(string(html), `href="cli.md`) {
		t.Errorf("tpcc.md as HTML: %d %q, want its title, its tables and its links rendered", code, h.Get("Content-Type"))
	}
	if code, _, _ := s.do("GET", "/api/v1/docs/tpcc.md?format=pdf", nil); code != http.StatusBadRequest {
		t.Errorf("format=pdf: %d, want 400", code)
	}
	for _, bad := range []string{"nosuch.md", "embed.go", "examples", "..%2Fgo.mod"} {
		if code, _, _ := s.do("GET", "/api/v1/docs/"+bad, nil); code != http.StatusNotFound {
			t.Errorf("GET /api/v1/docs/%s: %d, want 404", bad, code)
		}
	}
}

// POST /api/v1/edit sets a field in the text and reads the values back; bad YAML is a 400.
func TestEditRoute(t *testing.T) {
	s := start(t, serve.Config{Version: "test"})
	var out struct {
		Spec   string
		Values map[string]string
	}
	s.ok(200, "POST", "/api/v1/edit", map[string]any{"spec": "workload: tpcc\n# keep me\nfoo: bar\n", "set": map[string]any{"vu": "1,2", "prepare.warehouses": "2"}}, &out)
	if out.Spec != "workload: tpcc\n# keep me\nfoo: bar\nprepare:\n  warehouses: 2\nvu: [1, 2]\n" || out.Values["vu"] != "1,2" || out.Values["prepare.warehouses"] != "2" {
		t.Errorf("edit: %q %v", out.Spec, out.Values)
	}
	code, b, _ := s.do("POST", "/api/v1/edit", map[string]any{"spec": "workload: [tpcc\n"})
	if code != 400 || !strings.Contains(string(b), "not YAML") {
		t.Errorf("bad YAML: %d %s", code, b)
	}
}

// Every example the New job page offers runs: each validated and run as a job on the test's
// server (its db pointed there and its window cut to 2 s through the form's own edit route), its
// schema cleaned up after.
func TestExamplesRun(t *testing.T) {
	var body struct {
		Examples []struct{ Name, Title, Kind, Spec string }
	}
	start(t, serve.Config{Version: "test"}).ok(200, "GET", "/api/v1/examples", nil, &body)
	if len(body.Examples) < 3 {
		t.Fatalf("%d examples, want SQLite, PostgreSQL and MySQL/MariaDB", len(body.Examples))
	}
	for _, ex := range body.Examples {
		t.Run(ex.Name, func(t *testing.T) {
			kind, _, _ := strings.Cut(ex.Name, "-")
			if ex.Title == "" || !strings.Contains(ex.Spec, "db: "+kind+"://") {
				t.Fatalf("example %s: title %q, db not %s://", ex.Name, ex.Title, kind)
			}
			db, _ := serverDB(t, kind)
			s := start(t, serve.Config{Version: "test"})
			var out struct{ Spec string }
			s.ok(200, "POST", "/api/v1/edit", map[string]any{"spec": ex.Spec, "set": map[string]any{"db": db, "duration": "2s", "rampup": "1s", "pause": nil}}, &out)
			var v struct{ Target []string }
			s.ok(200, "POST", "/api/v1/validate", map[string]string{"kind": ex.Kind, "spec": out.Spec}, &v)
			if len(v.Target) != 1 {
				t.Errorf("validate of %s: %+v", ex.Name, v)
			}
			j := s.done(ex.Kind, out.Spec)
			if j.ResultID == "" {
				t.Errorf("example %s stored no result: %+v", ex.Name, j)
			}
			s.done("cleanup", out.Spec)
		})
	}
}

// Validate (and so Test connection) says what the workload's schema holds on disk: on
// PostgreSQL what pg_total_relation_size says of its table, asked here; on SQLite no more than
// the file; on MariaDB, InnoDB's estimate, worded "about".
func TestValidateSaysTheSchemaSize(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres", "mysql"} {
		t.Run(kind, func(t *testing.T) {
			db, _ := serverDB(t, kind)
			s := start(t, serve.Config{Version: "test"})
			spec := oltpSpec(db, "")
			s.done("cleanup", spec)
			s.done("prepare", spec+"prepare: {tables: 1, table-size: 2000}\n")
			t.Cleanup(func() { s.done("cleanup", spec) })
			var v struct{ Target []string }
			s.ok(200, "POST", "/api/v1/validate", map[string]string{"kind": "run", "spec": spec}, &v)
			if len(v.Target) != 1 {
				t.Fatalf("validate: %+v", v)
			}
			line := v.Target[0]
			t.Logf("%s", line)
			m := regexp.MustCompile(`\), (about )?([0-9.]+ [KMG]?i?B) on disk`).FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("validate says %q: no size on disk", line)
			}
			if (m[1] != "") != (kind == "mysql") {
				t.Errorf("%s: %q, want \"about\" for MariaDB's estimate alone", kind, line)
			}
			switch kind {
			case "postgres":
				_, c := testutil.Open(t, testutil.PG(t))
				var n int64
				if err := c.QueryRow(context.Background(), "SELECT pg_total_relation_size('sbtest1')").Scan(&n); err != nil {
					t.Fatal(err)
				}
				if want := humanize.IBytes(uint64(n)); m[2] != want {
					t.Errorf("validate says %s on disk, pg_total_relation_size %s", m[2], want)
				}
			case "sqlite":
				u, _ := url.Parse(db)
				st, err := os.Stat(strings.TrimPrefix(db, "sqlite://"))
				if err != nil {
					st, err = os.Stat(u.Path)
				}
				if err != nil {
					t.Fatal(err)
				}
				n, err := humanize.ParseBytes(m[2])
				if err != nil || n == 0 || n > uint64(st.Size()) {
					t.Errorf("validate says %s on disk, the file is %d bytes", m[2], st.Size())
				}
			}
		})
	}
}
