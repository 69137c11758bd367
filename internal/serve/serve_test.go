package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	"golang.org/x/sys/unix"

	"github.com/cairn-bench/cairn/internal/cli"
	"github.com/cairn-bench/cairn/internal/serve"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// service is a cairn serve started in the test on a free port, and everything its responses,
// streams and logs said (the password tests grep it).
type service struct {
	t     *testing.T
	base  string
	token string
	store string
	mu    sync.Mutex
	all   bytes.Buffer
	log   *bytes.Buffer
	stop  func() error
}

func start(t *testing.T, cfg serve.Config) *service {
	t.Helper()
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.Store == "" {
		cfg.Store = filepath.Join(t.TempDir(), "results.db")
	}
	if cfg.AllowEnv == nil {
		cfg.AllowEnv = []string{"CAIRN_PASSWORD", "CAIRN_SERVE_TEST_PW"} // serverDB's
	}
	log := &bytes.Buffer{}
	cfg.Log = &lockedWriter{w: log}
	addr := make(chan string, 1)
	cfg.Ready = func(a string) { addr <- a }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve.Run(ctx, cfg) }()
	s := &service{t: t, store: cfg.Store, log: log}
	select {
	case a := <-addr:
		s.base = "http://" + a
	case err := <-done:
		cancel()
		t.Fatalf("serve.Run: %v", err)
	}
	var once sync.Once
	var stopErr error
	s.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-done:
			case <-time.After(60 * time.Second):
				stopErr = fmt.Errorf("serve.Run did not return within 60 s of its context's end")
			}
		})
		return stopErr
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("serve.Run: %v", err)
		}
	})
	return s
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// do sends a request; body is JSON-encoded (a []byte is sent as is).
func (s *service) do(method, path string, body any) (int, []byte, http.Header) {
	s.t.Helper()
	var r io.Reader
	if b, ok := body.([]byte); ok {
		r = bytes.NewReader(b)
	} else if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.base+path, r)
	if err != nil {
		s.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	s.mu.Lock()
	fmt.Fprintf(&s.all, "%s %s %d %v\n%s\n", method, path, resp.StatusCode, resp.Header, b)
	s.mu.Unlock()
	return resp.StatusCode, b, resp.Header
}

// ok sends a request that must answer want, and decodes its JSON body into v (when not nil).
func (s *service) ok(want int, method, path string, body, v any) []byte {
	s.t.Helper()
	code, b, _ := s.do(method, path, body)
	if code != want {
		s.t.Fatalf("%s %s: %d, want %d: %s", method, path, code, want, b)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			s.t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
	return b
}

type job struct {
	ID, Kind, State, Workload, Target, Error, Spec string
	ResultID                                       string `json:"result_id"`
}

func (s *service) submit(kind, spec string) job {
	s.t.Helper()
	var j job
	s.ok(http.StatusCreated, "POST", "/api/v1/jobs", map[string]string{"kind": kind, "spec": spec}, &j)
	return j
}

// wait waits for a job to end and returns it.
func (s *service) wait(id string, limit time.Duration) job {
	s.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var j job
		code, b, _ := s.do("GET", "/api/v1/jobs/"+id, nil)
		if code != http.StatusOK || json.Unmarshal(b, &j) != nil {
			s.t.Fatalf("GET job %s: %d %s", id, code, b)
		}
		switch j.State {
		case "done", "failed", "stopped", "interrupted":
			return j
		}
		if time.Now().After(deadline) {
			_, lg, _ := s.do("GET", "/api/v1/jobs/"+id+"/log", nil)
			s.t.Fatalf("job %s still %s after %s; its log:\n%s", id, j.State, limit, lg)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// done runs a job to its end and requires it done.
func (s *service) done(kind, spec string) job {
	s.t.Helper()
	j := s.wait(s.submit(kind, spec).ID, 3*time.Minute)
	if j.State != "done" {
		_, lg, _ := s.do("GET", "/api/v1/jobs/"+j.ID+"/log", nil)
		s.t.Fatalf("%s job %s: %s (%s); its log:\n%s", kind, j.ID, j.State, j.Error, lg)
	}
	return j
}

type event struct {
	Name string
	Data map[string]any
}

// events reads a job's whole event stream (it ends after the final state).
func (s *service) events(id string) []event {
	s.t.Helper()
	req, _ := http.NewRequest("GET", s.base+"/api/v1/jobs/"+id+"/events", nil)
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		s.t.Fatalf("events: Content-Type %q", ct)
	}
	var out []event
	var name string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		s.mu.Lock()
		s.all.WriteString(line + "\n")
		s.mu.Unlock()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				s.t.Fatalf("event %s: %v", name, err)
			}
			out = append(out, event{name, d})
		}
	}
	return out
}

// Every route in the server is in docs/openapi.yaml, with its methods, and no other.
func TestOpenAPIListsEveryRoute(t *testing.T) {
	b, err := os.ReadFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string                    `yaml:"openapi"`
		Paths   map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Errorf("openapi %q, want 3.x", doc.OpenAPI)
	}
	documented := map[string][]string{}
	for p, ops := range doc.Paths {
		for m := range ops {
			if m != "parameters" && m != "summary" && m != "description" {
				documented[p] = append(documented[p], m)
			}
		}
	}
	served := serve.Routes()
	if len(served) < 10 {
		t.Fatalf("the server lists %d routes: the table is wrong", len(served))
	}
	for _, m := range []map[string][]string{documented, served} {
		for _, v := range m {
			sort.Strings(v)
		}
	}
	for p, ms := range served {
		if fmt.Sprint(documented[p]) != fmt.Sprint(ms) {
			t.Errorf("%s: the server answers %v, docs/openapi.yaml documents %v", p, ms, documented[p])
		}
	}
	for p, ms := range documented {
		if _, ok := served[p]; !ok {
			t.Errorf("docs/openapi.yaml documents %s %v, which the server does not have", p, ms)
		}
	}
}

// A spec for the service: an oltp run of one small table, its password as ${CAIRN_SERVE_TEST_PW}.
func oltpSpec(db string, extra string) string {
	return fmt.Sprintf("workload: oltp\ndb: %s\nvu: 1\nrampup: 0s\nduration: 2s\nprogress: 1s\nseed: 7\noptions: {tables: 1, table-size: 500}\n%s", db, extra)
}

const secret = "Srv-S3cret-41q"

// serverDB returns the URL a spec names a test database by, its password a ${VAR} the test sets,
// and that password. On PostgreSQL it is a login of the test's own with a password found nowhere
// else (the password tests grep for it); on MariaDB, where the test's account may not grant, the
// test account's own; SQLite has none.
func serverDB(t *testing.T, kind string) (db, password string) {
	t.Helper()
	if kind == "sqlite" {
		return testutil.SQLite(t), ""
	}
	admin := testutil.URL(t, kind)
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	if kind != "postgres" {
		pw, _ := u.User.Password()
		t.Setenv("CAIRN_SERVE_TEST_PW", pw)
		return fmt.Sprintf("%s://%s:${CAIRN_SERVE_TEST_PW}@%s%s", u.Scheme, u.User.Username(), u.Host, u.Path), pw
	}
	t.Setenv("CAIRN_SERVE_TEST_PW", secret)
	_, c := testutil.Open(t, admin)
	ctx := context.Background()
	user := "cairn_serve_pw_test"
	drop := []string{"DROP OWNED BY " + user, "DROP ROLE IF EXISTS " + user}
	for _, q := range drop {
		c.Exec(ctx, q) // a role of an earlier run, and what it owns here; none: an error to ignore
	}
	if _, err := c.Exec(ctx, "CREATE ROLE "+user+" LOGIN SUPERUSER PASSWORD '"+secret+"'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, c := testutil.Open(t, admin)
		for _, q := range drop {
			c.Exec(context.Background(), q)
		}
	})
	return fmt.Sprintf("%s://%s:${CAIRN_SERVE_TEST_PW}@%s%s", u.Scheme, user, u.Host, u.Path), secret
}

// Every route's happy path, on SQLite, PostgreSQL and MariaDB: prepare, two runs, their log, events,
// the results routes, compare, host, validate, cleanup; and the password is nowhere in what the
// service said, kept or logged.
func TestEveryRoute(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres", "mysql"} {
		t.Run(kind, func(t *testing.T) {
			db, pw := serverDB(t, kind)
			s := start(t, serve.Config{Version: "test"})
			spec := oltpSpec(db, "")
			s.ok(200, "GET", "/healthz", nil, nil)
			s.done("cleanup", spec)
			s.done("prepare", spec+"prepare: {tables: 1, table-size: 500}\n")
			var v struct {
				Kind, Plan string
				Target     []string
			}
			s.ok(200, "POST", "/api/v1/validate", map[string]string{"kind": "run", "spec": spec}, &v)
			if v.Kind != "run" || !strings.Contains(v.Plan, "workload: oltp") || !strings.Contains(v.Plan, "${CAIRN_SERVE_TEST_PW}") && kind != "sqlite" ||
				len(v.Target) != 1 || !strings.Contains(v.Target[0], "a complete sysbench-style OLTP schema (1 table; table_size 500, tables 1)") {
				t.Errorf("validate: %+v", v)
			}
			a := s.done("run", spec)
			b := s.done("run", spec)
			if a.ResultID == "" || b.ResultID == "" || a.Workload != "oltp" || strings.Contains(a.Target, "@") {
				t.Fatalf("jobs: %+v %+v", a, b)
			}
			var list struct{ Jobs []job }
			s.ok(200, "GET", "/api/v1/jobs", nil, &list)
			if len(list.Jobs) != 4 || list.Jobs[0].ID != b.ID {
				t.Errorf("jobs, newest first: %+v", list.Jobs)
			}
			lg := string(s.ok(200, "GET", "/api/v1/jobs/"+a.ID+"/log", nil, nil))
			if !strings.Contains(lg, "TPS") || !strings.Contains(lg, "stored as result "+a.ResultID) {
				t.Errorf("the run's log:\n%s", lg)
			}
			evs := s.events(a.ID)
			ticks := 0
			for _, e := range evs {
				if e.Name == "tick" {
					ticks++
					if _, ok := e.Data["tps"]; !ok {
						t.Errorf("a tick without tps: %v", e.Data)
					}
				}
			}
			if ticks < 1 || evs[0].Name != "state" || evs[len(evs)-1].Name != "state" || evs[len(evs)-1].Data["state"] != "done" ||
				evs[len(evs)-1].Data["result_id"] != a.ResultID {
				t.Errorf("events: %d ticks, first %v, last %v", ticks, evs[0], evs[len(evs)-1])
			}
			var rs struct{ Results []map[string]any }
			s.ok(200, "GET", "/api/v1/results?workload=oltp&kind=run", nil, &rs)
			if len(rs.Results) != 2 || rs.Results[0]["id"] != b.ResultID {
				t.Errorf("results: %v", rs.Results)
			}
			var doc map[string]any
			s.ok(200, "GET", "/api/v1/results/"+a.ResultID, nil, &doc)
			if doc["workload"] != "oltp" {
				t.Errorf("result %s: %v", a.ResultID, doc["workload"])
			}
			if h := string(s.ok(200, "GET", "/api/v1/results/"+a.ResultID+"/report", nil, nil)); !strings.Contains(h, "<html") {
				t.Errorf("report: %.200s", h)
			}
			if c := string(s.ok(200, "GET", "/api/v1/results/"+a.ResultID+"/export?format=csv", nil, nil)); !strings.Contains(c, ",") {
				t.Errorf("csv: %.200s", c)
			}
			s.ok(200, "GET", "/api/v1/results/"+a.ResultID+"/export?format=json", nil, &doc)
			var cmp struct{ Text string }
			s.ok(200, "GET", "/api/v1/compare?ids="+a.ResultID+"+"+b.ResultID, nil, &cmp)
			if !strings.Contains(cmp.Text, "%") {
				t.Errorf("compare: %s", cmp.Text)
			}
			// What the result ran with, to run again: its password the ${VAR} it was given.
			var sp struct{ Kind, Spec string }
			s.ok(200, "GET", "/api/v1/results/"+a.ResultID+"/spec", nil, &sp)
			if sp.Kind != "run" || !strings.Contains(sp.Spec, "workload: oltp") || !strings.Contains(sp.Spec, "${CAIRN_SERVE_TEST_PW}") && kind != "sqlite" {
				t.Errorf("result %s's spec: %+v", a.ResultID, sp)
			}
			// PostgreSQL's role has a password no spec's text holds otherwise.
			if kind == "postgres" && strings.Contains(sp.Spec, pw) {
				t.Errorf("result %s's spec holds the password", a.ResultID)
			}
			if h := string(s.ok(200, "GET", "/api/v1/report?ids="+a.ResultID+"+"+b.ResultID, nil, nil)); !strings.Contains(h, `data-chart-id="runs-throughput"`) {
				t.Errorf("the report of two runs overlays no throughput: %.200s", h)
			}
			s.ok(400, "GET", "/api/v1/report", nil, nil)
			s.ok(404, "GET", "/api/v1/report?ids=9999", nil, nil)
			s.ok(404, "GET", "/api/v1/results/9999/spec", nil, nil)
			if kind == "postgres" {
				var h map[string]any
				s.ok(200, "GET", "/api/v1/host", nil, &h)
				if len(h) == 0 {
					t.Error("host: empty")
				}
			}
			s.ok(404, "GET", "/api/v1/results/9999", nil, nil)
			s.ok(404, "GET", "/api/v1/jobs/j999", nil, nil)
			s.ok(409, "POST", "/api/v1/jobs/"+a.ID+"/stop", nil, nil)
			if kind == "sqlite" {
				// A profile is a run spec with a list of VU counts; check is a job too.
				tpcb := fmt.Sprintf("workload: tpcb\ndb: %s\nrampup: 0s\nduration: 1s\nprogress: 0s\nseed: 7\n", testutil.SQLite(t))
				s.done("prepare", tpcb)
				if lg := string(s.ok(200, "GET", "/api/v1/jobs/"+s.done("check", tpcb).ID+"/log", nil, nil)); !strings.Contains(lg, "PASS") {
					t.Errorf("check's log:\n%s", lg)
				}
				p := s.done("run", tpcb+"vu: [1, 2]\npause: 0s\n")
				steps := 0
				for _, e := range s.events(p.ID) {
					if e.Name == "step" {
						steps++
					}
				}
				var prof struct{ Kind string }
				s.ok(200, "GET", "/api/v1/results/"+p.ResultID, nil, &prof)
				if steps != 2 || prof.Kind != "profile" {
					t.Errorf("the profile job: %d step events, result %s a %q", steps, p.ResultID, prof.Kind)
				}
				// One report overlays results of one workload, as cairn report does.
				var re struct{ Error string }
				s.ok(400, "GET", "/api/v1/report?ids="+a.ResultID+"+"+p.ResultID, nil, &re)
				if !strings.Contains(re.Error, "one workload") {
					t.Errorf("the report of an oltp run and a tpcb profile: %q", re.Error)
				}
				var e struct{ Error, Field string }
				s.ok(400, "POST", "/api/v1/jobs", map[string]string{"kind": "check", "spec": spec}, &e)
				if e.Field != "workload" {
					t.Errorf("check of oltp: %+v", e)
				}
			}
			s.done("cleanup", spec)
			if err := s.stop(); err != nil {
				t.Fatal(err)
			}
			if kind == "postgres" {
				noSecret(t, s, pw)
			}
		})
	}
}

// noSecret fails when the password is in anything the service answered, streamed, logged or kept.
func noSecret(t *testing.T, s *service, secret string) {
	t.Helper()
	all := s.all.String() + s.log.String()
	filepath.Walk(s.store+".jobs", func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			all += string(b)
		}
		return nil
	})
	if b, err := os.ReadFile(s.store); err == nil {
		all += string(b)
	}
	for _, x := range []string{secret, url.QueryEscape(secret)} {
		if strings.Contains(all, x) {
			t.Errorf("the password %q is in what the service said or kept", x)
		}
	}
	if len(all) < 1000 {
		t.Errorf("captured only %d bytes: the grep proves nothing", len(all))
	}
}

// A bad spec is a 400 whose message is the one the command line prints for the same spec (less
// its "cairn: "), with the key at fault.
func TestBadSpecSaysWhatTheCLISays(t *testing.T) {
	t.Setenv("CAIRN_SERVE_TEST_PW", secret)
	s := start(t, serve.Config{Version: "test"})
	db := "postgres://u:${CAIRN_SERVE_TEST_PW}@127.0.0.1:5432/x"
	dir := t.TempDir()
	for i, c := range []struct{ kind, spec, field string }{
		{"run", oltpSpec(db, "") + "vu: 0\n", "vu"},
		{"run", strings.Replace(oltpSpec(db, ""), "oltp", "nosuch", 1), "workload"},
		{"run", oltpSpec(db, "") + "durration: 3s\n", ""},
		{"run", oltpSpec(db, "options: {mode: sideways}\n"), ""},
		{"run", "workload: [oltp\n", ""},
		{"study", "name: x\n" + oltpSpec(db, "") + "order: sideways\n", "order"},
		{"study", "name: x\n" + oltpSpec(db, "") + "settings: {\"bad name;\": [1]}\n", ""},
	} {
		file := filepath.Join(dir, fmt.Sprintf("s%d.yaml", i))
		if err := os.WriteFile(file, []byte(c.spec), 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{"run", "--spec", file, "--print-spec"}
		if c.kind == "study" {
			args = []string{"study", "plan", file}
		}
		var out, errb bytes.Buffer
		if code := cli.Main(args, &out, &errb); code != cli.ExitUsage {
			t.Fatalf("case %d: the CLI exits %d (%s), want 2: the case is not a bad spec", i, code, errb.String())
		}
		want := strings.TrimPrefix(strings.TrimSpace(errb.String()), "cairn: ")
		for _, path := range []string{"/api/v1/jobs", "/api/v1/validate"} {
			var e struct{ Error, Field string }
			s.ok(400, "POST", path, map[string]string{"kind": c.kind, "spec": c.spec}, &e)
			if e.Error != want {
				t.Errorf("case %d %s: %q, the CLI says %q", i, path, e.Error, want)
			}
			if c.field != "" && e.Field != c.field {
				t.Errorf("case %d %s: field %q, want %q", i, path, e.Field, c.field)
			}
		}
	}
	var e struct{ Error, Field string }
	s.ok(400, "POST", "/api/v1/jobs", map[string]string{"kind": "run", "spec": oltpSpec("postgres://u:"+secret+"@127.0.0.1:5432/x", "")}, &e)
	if e.Field != "db" || !strings.Contains(e.Error, "${VAR}") {
		t.Errorf("a literal password: %+v", e)
	}
	s.ok(400, "POST", "/api/v1/jobs", map[string]string{"kind": "bench", "spec": "x"}, nil)
	code, _, _ := s.do("POST", "/api/v1/jobs", bytes.Repeat([]byte(" "), 2<<20))
	if code != http.StatusRequestEntityTooLarge {
		t.Errorf("a 2 MiB body: %d, want 413", code)
	}
	var list struct{ Jobs []job }
	s.ok(200, "GET", "/api/v1/jobs", nil, &list)
	if len(list.Jobs) != 0 {
		t.Errorf("bad specs made jobs: %+v", list.Jobs)
	}
	noSecretIn(t, s.all.String()+s.log.String())
}

func noSecretIn(t *testing.T, all string) {
	t.Helper()
	if strings.Contains(all, secret) {
		t.Errorf("the password is in what the service said:\n%s", all)
	}
}

// Beyond loopback (127.0.0.2 is loopback traffic but not 127.0.0.1) the service makes a token,
// prints it once, and answers 401 without it; GET /healthz needs none. A --token-file token is
// required on loopback too. The token is in no response.
func TestTokenBeyondLoopback(t *testing.T) {
	s := start(t, serve.Config{Listen: "127.0.0.2:0", Version: "test"})
	line := s.log.String()
	i := strings.Index(line, "Bearer ")
	if i < 0 {
		t.Fatalf("no token printed: %q", line)
	}
	tok := strings.Fields(line[i+len("Bearer "):])[0]
	tok = strings.TrimSuffix(tok, "'")
	if len(tok) < 32 {
		t.Fatalf("token %q", tok)
	}
	for _, p := range []string{"/api/v1/jobs", "/api/v1/results", "/api/v1/host", "/metrics"} {
		s.ok(401, "GET", p, nil, nil)
	}
	// The UI's page and files hold no data and need no token (the page asks for it): this
	// service has no UI, so they are 404, not 401.
	s.ok(404, "GET", "/", nil, nil)
	s.ok(404, "GET", "/ui/app.js", nil, nil)
	s.ok(401, "POST", "/api/v1/jobs", map[string]string{"kind": "run", "spec": "x"}, nil)
	s.ok(200, "GET", "/healthz", nil, nil)
	s.token = "wrong" + tok
	s.ok(401, "GET", "/api/v1/jobs", nil, nil)
	s.token = tok
	s.ok(200, "GET", "/api/v1/jobs", nil, nil)
	s.token = ""
	// The scheme is case-insensitive (RFC 7235): "bearer", "BEARER" are "Bearer".
	for _, scheme := range []string{"bearer", "BEARER", "Bearer", "Basic"} {
		req, _ := http.NewRequest("GET", s.base+"/api/v1/jobs", nil)
		req.Header.Set("Authorization", scheme+" "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[bool]int{true: 200, false: 401}[scheme != "Basic"]; resp.StatusCode != want {
			t.Errorf("Authorization: %s TOKEN: %d, want %d", scheme, resp.StatusCode, want)
		}
	}
	if strings.Contains(s.all.String(), tok) {
		t.Error("a response holds the token")
	}
	if n := strings.Count(s.log.String(), tok); n != 1 {
		t.Errorf("the token is printed %d times, want once", n)
	}

	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("a-token-of-the-users-own-1234\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := start(t, serve.Config{TokenFile: file, Version: "test"})
	f.ok(401, "GET", "/api/v1/jobs", nil, nil)
	f.token = "a-token-of-the-users-own-1234"
	f.ok(200, "GET", "/api/v1/jobs", nil, nil)
	if strings.Contains(f.log.String(), f.token) {
		t.Error("a --token-file token is printed")
	}
}

// One load per target: a second job on a busy target waits, its log naming the job it waits for,
// and starts when that one ends; stopping the first keeps and stores what it measured; a queued
// job that is stopped ends without starting.
func TestSecondJobQueues(t *testing.T) {
	db, _ := serverDB(t, "postgres")
	s := start(t, serve.Config{Version: "test"})
	spec := oltpSpec(db, "")
	s.done("prepare", spec+"prepare: {tables: 1, table-size: 500}\n")
	long := strings.Replace(spec, "duration: 2s", "duration: 30s", 1)
	a := s.submit("run", long)
	b := s.submit("run", spec)
	c := s.submit("run", spec)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var j job
		s.ok(200, "GET", "/api/v1/jobs/"+a.ID, nil, &j)
		lg := string(s.ok(200, "GET", "/api/v1/jobs/"+a.ID+"/log", nil, nil))
		if j.State == "running" && strings.Contains(lg, "window 1s") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s did not get going: %s\n%s", a.ID, j.State, lg)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// A client watching the running job gets its ticks live, then goes away mid-stream.
	req, _ := http.NewRequest("GET", s.base+"/api/v1/jobs/"+a.ID+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// The past ticks come at once; live ones keep coming a second apart.
	sc, live, t0 := bufio.NewScanner(resp.Body), 0, time.Now()
	for live < 2 && sc.Scan() {
		if sc.Text() == "event: tick" && time.Since(t0) > 500*time.Millisecond {
			live++
		}
	}
	resp.Body.Close()
	if live < 2 {
		t.Errorf("the live stream ended after %s with %d live ticks", time.Since(t0), live)
	}
	var jb job
	s.ok(200, "GET", "/api/v1/jobs/"+b.ID, nil, &jb)
	lg := string(s.ok(200, "GET", "/api/v1/jobs/"+b.ID+"/log", nil, nil))
	if jb.State != "queued" || !strings.Contains(lg, "waiting for job "+a.ID+" on 127.0.0.1:") {
		t.Fatalf("the second job: %s, log %q", jb.State, lg)
	}
	s.ok(202, "POST", "/api/v1/jobs/"+c.ID+"/stop", nil, nil)
	s.ok(202, "POST", "/api/v1/jobs/"+a.ID+"/stop", nil, nil)
	ja := s.wait(a.ID, time.Minute)
	if ja.State != "stopped" || ja.ResultID == "" {
		t.Errorf("the stopped job: %+v (want stopped, its measured part stored)", ja)
	}
	jc := s.wait(c.ID, time.Minute)
	if jc.State != "stopped" {
		t.Errorf("the stopped queued job: %+v", jc)
	}
	if lg := string(s.ok(200, "GET", "/api/v1/jobs/"+c.ID+"/log", nil, nil)); strings.Contains(lg, "running ") {
		t.Errorf("the queued job ran after its stop:\n%s", lg)
	}
	jb = s.wait(b.ID, time.Minute)
	if jb.State != "done" {
		t.Errorf("the second job after the first stopped: %+v", jb)
	}
	var full struct {
		StartedAt time.Time `json:"started_at"`
		EndedAt   time.Time `json:"ended_at"`
	}
	var fa, fb = full, full
	s.ok(200, "GET", "/api/v1/jobs/"+a.ID, nil, &fa)
	s.ok(200, "GET", "/api/v1/jobs/"+b.ID, nil, &fb)
	if fb.StartedAt.Before(fa.EndedAt) {
		t.Errorf("the second job started %s, before the first ended %s", fb.StartedAt, fa.EndedAt)
	}
	var doc struct{ Interrupted bool }
	s.ok(200, "GET", "/api/v1/results/"+ja.ResultID, nil, &doc)
	if !doc.Interrupted {
		t.Error("the stopped run's stored document is not marked interrupted")
	}
	s.done("cleanup", spec)
}

// A job through the API stores the same result document as the same spec run by the CLI, less
// ids, times and measured figures: its config, workload, target and settings, and its shape.
func TestSameDocumentAsTheCLI(t *testing.T) {
	db, pw := serverDB(t, "postgres")
	s := start(t, serve.Config{Version: cli.Version})
	spec := oltpSpec(db, "")
	s.done("prepare", spec+"prepare: {tables: 1, table-size: 500}\n")
	a := s.done("run", spec)
	var api map[string]any
	s.ok(200, "GET", "/api/v1/results/"+a.ResultID, nil, &api)

	dir := t.TempDir()
	file, store := filepath.Join(dir, "s.yaml"), filepath.Join(dir, "cli.db")
	if err := os.WriteFile(file, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := cli.Main([]string{"run", "--spec", file, "--results", store}, &out, &errb); code != 0 {
		t.Fatalf("cairn run --spec: %d %s", code, errb.String())
	}
	out.Reset()
	if code := cli.Main([]string{"results", "export", "1", "--results", store}, &out, &errb); code != 0 {
		t.Fatalf("cairn results export: %d %s", code, errb.String())
	}
	var byCLI map[string]any
	if err := json.Unmarshal(out.Bytes(), &byCLI); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return strings.Join(ks, " ")
	}
	if keys(api) != keys(byCLI) {
		t.Errorf("the documents' keys differ:\nAPI %s\nCLI %s", keys(api), keys(byCLI))
	}
	for _, k := range []string{"format", "kind", "cairn", "workload", "main_transaction", "vu", "mode", "seed", "config", "target",
		"transaction_order", "statement_order", "interrupted"} {
		x, _ := json.Marshal(api[k])
		y, _ := json.Marshal(byCLI[k])
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs:\nAPI %s\nCLI %s", k, x, y)
		}
	}
	if len(keys(api)) < 100 {
		t.Errorf("the document has only %q", keys(api))
	}
	s.done("cleanup", spec)
	noSecret(t, s, pw)
}

// asFound is how a PostgreSQL server holds synchronous_commit: its value and what
// postgresql.auto.conf says of it (ALTER SYSTEM is how a study changes it).
func asFound(t *testing.T, admin string) string {
	t.Helper()
	_, c := testutil.Open(t, admin)
	var v, auto string
	ctx := context.Background()
	if err := c.QueryRow(ctx, "SELECT setting FROM pg_settings WHERE name = 'synchronous_commit'").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "SELECT COALESCE(string_agg(setting, ','), '') FROM pg_file_settings WHERE name = 'synchronous_commit' AND sourcefile LIKE '%postgresql.auto.conf'").Scan(&auto); err != nil {
		t.Fatal(err)
	}
	return v + " (auto.conf: " + auto + ")"
}

// process is a cairn serve binary running in the test.
type process struct {
	*service
	cmd    *exec.Cmd
	stderr *bytes.Buffer
}

func startProcess(t *testing.T, bin, store, state string, args ...string) *process {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", addr, "--results", store}, args...)...)
	cmd.Env = append(os.Environ(), "CAIRN_STATE="+state)
	p := &process{service: &service{t: t, base: "http://" + addr, store: store, log: &bytes.Buffer{}}, cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = &lockedWriter{w: p.stderr}
	cmd.Stdout = &lockedWriter{w: p.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// SIGTERM first: a test that failed midway leaves no study's settings changed.
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			<-done
		}
	})
	for i := 0; ; i++ {
		if resp, err := http.Get(p.base + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		if i > 100 {
			t.Fatalf("cairn serve did not answer: %s", p.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return p
}

// waitLog waits for a line in a job's log.
func (s *service) waitLog(id, want string, limit time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		_, b, _ := s.do("GET", "/api/v1/jobs/"+id+"/log", nil)
		if strings.Contains(string(b), want) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("job %s's log has no %q after %s:\n%s", id, want, limit, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// changed waits until a study job has changed synchronous_commit from how it was found (its case
// sets it on, its live change off: one of them differs).
func changed(t *testing.T, s *service, id, admin, before string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for asFound(t, admin) == before {
		var j job
		s.ok(200, "GET", "/api/v1/jobs/"+id, nil, &j)
		if j.State != "queued" && j.State != "running" || time.Now().After(deadline) {
			_, lg, _ := s.do("GET", "/api/v1/jobs/"+id+"/log", nil)
			t.Fatalf("the study (%s) did not change synchronous_commit from %s:\n%s", j.State, before, lg)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// SIGTERM to cairn serve during a PostgreSQL study with a live change stops the study as Ctrl-C
// does: its settings are as found, the journal is empty, the study is stored interrupted, and
// the service exits 0. A serve killed outright during one leaves the settings changed: the next
// serve marks the job interrupted and puts them back through the undo journal.
func TestSIGTERMDuringAStudy(t *testing.T) {
	db, pw := serverDB(t, "postgres")
	admin := testutil.PG(t)
	bin := cairnBinary(t)
	text, err := os.ReadFile("../../studies/ci/postgres-synchronous-commit-live.yaml")
	if err != nil {
		t.Fatal(err)
	}
	study := string(text) + "db: " + db + "\n"
	dir := t.TempDir()
	store, state := filepath.Join(dir, "results.db"), filepath.Join(dir, "state")
	before := asFound(t, admin)

	var said strings.Builder // what every serve process answered and printed
	p := startProcess(t, bin, store, state, "--allow-env", "CAIRN_SERVE_TEST_PW")
	var plan struct{ Plan string }
	p.ok(200, "POST", "/api/v1/validate", map[string]string{"kind": "study", "spec": study}, &plan)
	if !strings.Contains(plan.Plan, "nothing was changed") {
		t.Errorf("the study's plan:\n%s", plan.Plan)
	}
	tpcb := "workload: tpcb\ndb: " + db + "\n"
	p.done("cleanup", tpcb) // a schema a stopped prepare left partial
	j := p.submit("study", study)
	changed(t, p.service, j.ID, admin, before)
	// A second study on the busy server queues (its plan would read the first one's settings).
	q := p.submit("study", study)
	if q.State != "queued" {
		t.Errorf("a second study on a busy server: %+v", q)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("cairn serve after SIGTERM: %v\n%s", err, p.stderr)
	}
	if got := asFound(t, admin); got != before {
		lg, _ := os.ReadFile(filepath.Join(store+".jobs", j.ID+".log"))
		t.Errorf("synchronous_commit after SIGTERM: %s, as found %s\n%s\n%s", got, before, p.stderr, lg)
	}
	if left, _ := os.ReadDir(state); len(left) > 0 {
		t.Errorf("the journal keeps %d entries after SIGTERM", len(left))
	}

	// The records survive: a new serve lists the job stopped, its study stored interrupted.
	said.WriteString(p.all.String() + p.stderr.String())
	p = startProcess(t, bin, store, state, "--allow-env", "CAIRN_SERVE_TEST_PW")
	var got job
	p.ok(200, "GET", "/api/v1/jobs/"+j.ID, nil, &got)
	lg, _ := os.ReadFile(filepath.Join(store+".jobs", j.ID+".log"))
	if got.State != "stopped" || got.Error != "" {
		t.Fatalf("the job after SIGTERM: %+v\n%s", got, lg)
	}
	var gq job
	p.ok(200, "GET", "/api/v1/jobs/"+q.ID, nil, &gq)
	if gq.State != "stopped" {
		t.Errorf("the queued study after SIGTERM: %+v", gq)
	}
	// A study stopped before its first run measured anything is not stored (as on Ctrl-C).
	if got.ResultID != "" {
		var doc struct{ Interrupted, Restored bool }
		p.ok(200, "GET", "/api/v1/results/"+got.ResultID, nil, &doc)
		if !doc.Interrupted || !doc.Restored {
			t.Errorf("the study stopped by SIGTERM is stored as %+v\n%s", doc, lg)
		}
	} else if !strings.Contains(string(lg), "the study measured nothing: it is not stored") {
		t.Errorf("the stopped study has no result, and its log does not say why:\n%s", lg)
	}

	// Killed outright: the settings stay changed until the next serve restores them.
	k := p.submit("study", study)
	changed(t, p.service, k.ID, admin, before)
	p.cmd.Process.Kill()
	p.cmd.Wait()
	if got := asFound(t, admin); got == before {
		t.Fatalf("synchronous_commit is as found right after the kill (%s): the test proves nothing", got)
	}
	said.WriteString(p.all.String() + p.stderr.String())
	p = startProcess(t, bin, store, state, "--allow-env", "CAIRN_SERVE_TEST_PW")
	var gk job
	p.ok(200, "GET", "/api/v1/jobs/"+k.ID, nil, &gk)
	if gk.State != "interrupted" {
		t.Errorf("the killed serve's job: %+v", gk)
	}
	// Its study is stored (from its start): the job's record names it.
	if gk.ResultID == "" || gk.ResultID == got.ResultID {
		t.Errorf("the killed serve's study job has no result_id of its own: %+v", gk)
	} else {
		var doc struct{ Kind string }
		p.ok(200, "GET", "/api/v1/results/"+gk.ResultID, nil, &doc)
		if doc.Kind != "study" {
			t.Errorf("the killed serve's job names result %s, a %q", gk.ResultID, doc.Kind)
		}
	}
	if got := asFound(t, admin); got != before {
		t.Errorf("synchronous_commit after the restart: %s, as found %s\n%s", got, before, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "restored: settings synchronous_commit") {
		t.Errorf("the restart does not say what it restored:\n%s", p.stderr)
	}
	p.done("cleanup", tpcb)
	p.events(k.ID)
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("cairn serve after SIGTERM: %v", err)
	}
	p.all.WriteString(said.String())
	p.log = p.stderr
	noSecret(t, p.service, pw)
}

// A job that binds cairn to client CPUs runs alone, even beside a job on another target, and
// cairn runs on every CPU again after it.
func TestBindingJobRunsAlone(t *testing.T) {
	s := start(t, serve.Config{Version: "test"})
	one, other := testutil.SQLite(t), testutil.SQLite(t)
	spec := func(db, extra string) string {
		return oltpSpec(db, extra) + "prepare: {tables: 1, table-size: 500}\n"
	}
	a := s.submit("run", spec(one, "client-cpus: \"0\"\n"))
	b := s.submit("run", spec(other, ""))
	ja, jb := s.wait(a.ID, time.Minute), s.wait(b.ID, time.Minute)
	if ja.State != "done" || jb.State != "done" {
		t.Fatalf("jobs: %+v %+v", ja, jb)
	}
	lg := string(s.ok(200, "GET", "/api/v1/jobs/"+b.ID+"/log", nil, nil))
	if !strings.Contains(lg, "waiting for job "+a.ID+" (a job that binds client CPUs runs alone)") {
		t.Errorf("the other target's job did not wait for the binding one:\n%s", lg)
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	if set.Count() != runtime.NumCPU() {
		t.Errorf("after the binding job cairn may run on %d CPUs of %d", set.Count(), runtime.NumCPU())
	}
}

// A study's restart command is a shell command the service would run as its own user: a client
// may not send one unless the operator started the service with --allow-restart (a study with
// "restart: env" would otherwise print the service's environment into the job's log).
func TestStudyRestartNeedsTheOperator(t *testing.T) {
	db, _ := serverDB(t, "postgres")
	text, err := os.ReadFile("../../studies/ci/postgres-synchronous-commit-live.yaml")
	if err != nil {
		t.Fatal(err)
	}
	study := string(text) + "db: " + db + "\nrestart: env\n"
	for _, allow := range []bool{false, true} {
		s := start(t, serve.Config{AllowRestart: allow})
		for _, path := range []string{"/api/v1/validate", "/api/v1/jobs"} {
			code, body, _ := s.do("POST", path, map[string]string{"kind": "study", "spec": study})
			var e struct{ Error, Field, ID string }
			json.Unmarshal(body, &e)
			if path == "/api/v1/jobs" && code == http.StatusCreated {
				s.do("POST", "/api/v1/jobs/"+e.ID+"/stop", nil)
			}
			switch {
			case !allow && (code != http.StatusBadRequest || e.Field != "restart" || !strings.Contains(e.Error, "--allow-restart")):
				t.Errorf("%s without --allow-restart: %d %s", path, code, body)
			case allow && code >= 400:
				t.Errorf("%s with --allow-restart: %d %s", path, code, body)
			}
		}
		s.stop()
	}
}

// A query parameter the service does not take is a 400 naming it and what it takes, as the
// command line refuses the same flag value, never read as the default: an unknown workload (the
// CLI: results list --workload nosuch, exit 2) and a series other than true or false.
func TestBadQuerySaysWhatItTakes(t *testing.T) {
	s := start(t, serve.Config{Version: "test"})
	for _, c := range []struct{ path, field, want string }{
		{"/api/v1/results?workload=nosuch", "workload", `workload "nosuch": use fanout, oltp, tpcb, tpcc, tpch`},
		{"/api/v1/results/1/export?format=csv&series=maybe", "series", `series "maybe": use true or false`},
	} {
		var e struct{ Error, Field string }
		s.ok(400, "GET", c.path, nil, &e)
		if e.Field != c.field || e.Error != c.want {
			t.Errorf("%s: %+v, want %q on %s", c.path, e, c.want, c.field)
		}
	}
}
