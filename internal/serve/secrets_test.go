package serve_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-bench/cairn/internal/cli"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// cairnBinary builds cairn once per test run, for the tests that run cairn serve as a process.
func cairnBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cairn-serve-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "cairn")
		if out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/cairn").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// leaf is one scalar of a YAML document: its dotted path (a list's items as key[i]) and its place
// in a walk of the document.
type leaf struct {
	path string
	i    int
}

// leaves lists every scalar value of a YAML document, but those under skip.
func leaves(t *testing.T, text, skip string) []leaf {
	t.Helper()
	var out []leaf
	walkLeaves(t, text, func(path string, _ *yaml.Node) {
		if path != skip && !strings.HasPrefix(path, skip+"[") {
			out = append(out, leaf{path, len(out)})
		}
	})
	return out
}

// walkLeaves calls f with every scalar value of text, in order, and its path.
func walkLeaves(t *testing.T, text string, f func(path string, v *yaml.Node)) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, n *yaml.Node)
	walk = func(path string, n *yaml.Node) {
		switch n.Kind {
		case yaml.ScalarNode:
			f(path, n)
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(fmt.Sprintf("%s[%d]", path, i), c)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				p := n.Content[i].Value
				if path != "" {
					p = path + "." + p
				}
				walk(p, n.Content[i+1])
			}
		}
	}
	walk("", doc.Content[0])
	return &doc
}

// with is text with the scalar at path replaced by value.
func with(t *testing.T, text, path, value string) string {
	t.Helper()
	doc := walkLeaves(t, text, func(p string, v *yaml.Node) {
		if p == path {
			v.Value, v.Tag, v.Style = value, "", 0
		}
	})
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// cairn serve reads ${VAR} only where a password goes and only the variables its operator allows
// (CAIRN_PASSWORD by default): a variable of its environment in any other field of a spec or part
// of a URL, or one it does not allow in a password, is refused naming the key; a password written
// in the spec is refused without being echoed; and after a real job, nothing the service answered,
// streamed, logged, kept, exported or reported holds the other variable's value or the password.
func TestServeReadsOnlyItsPasswords(t *testing.T) {
	bin := cairnBinary(t)
	db, pw := serverDB(t, "postgres")
	db = strings.Replace(db, "${CAIRN_SERVE_TEST_PW}", "${CAIRN_PASSWORD}", 1)
	t.Setenv("CAIRN_PASSWORD", pw)
	b := make([]byte, 8)
	rand.Read(b)
	probe := "probe-" + hex.EncodeToString(b)
	t.Setenv("CAIRN_PROBE_VALUE", probe)
	dir := t.TempDir()
	store := filepath.Join(dir, "results.db")
	// --allow-restart: the study below has a restart command, and every one of its fields is tried.
	p := startProcess(t, bin, store, filepath.Join(dir, "state"), "--allow-restart")

	refused := func(kind, text, field string) {
		t.Helper()
		for _, path := range []string{"/api/v1/validate", "/api/v1/jobs"} {
			if kind != "run" && kind != "study" && path == "/api/v1/validate" {
				continue
			}
			var e struct{ Error, Field, ID string }
			code, body, _ := p.do("POST", path, map[string]string{"kind": kind, "spec": text})
			json.Unmarshal(body, &e)
			if code == http.StatusCreated {
				p.do("POST", "/api/v1/jobs/"+e.ID+"/stop", nil) // a failing test runs nothing
			}
			if code != http.StatusBadRequest || e.Field != field {
				t.Errorf("%s %s with %s: %d %s\n%s", path, kind, field, code, body, text)
			}
		}
	}
	run := oltpSpec(db, "prepare: {tables: 1, table-size: 500}\n")
	profile := strings.Replace(run, "vu: 1\n", "vu: [1, 2]\nrepeat: 1\npause: 0s\n", 1)
	studyText, err := os.ReadFile("../../studies/ci/postgres-synchronous-commit-live.yaml")
	if err != nil {
		t.Fatal(err)
	}
	study := string(studyText) + "db: " + db + "\nclient_cpus: [\"0\"]\nrestart: \"true\"\nready_timeout: 30s\norder: sequential\n"
	// Every field of a run spec as --print-spec writes it (every engine setting and option,
	// the prepare's), of a profile and of a study, the variable allowed in a password included.
	specs := map[string]string{"run": run, "profile": profile, "study": study}
	n := 0
	for name, text := range specs {
		kind := "run"
		if name == "study" {
			kind = "study"
		}
		if name != "study" {
			var plan struct{ Plan string }
			p.ok(200, "POST", "/api/v1/validate", map[string]string{"kind": "run", "spec": text}, &plan)
			text = plan.Plan // every field, written out
			specs[name] = text
		}
		for _, l := range leaves(t, text, "db") {
			for _, ref := range []string{"${CAIRN_PROBE_VALUE}", "${CAIRN_PASSWORD}", "x-${CAIRN_PROBE_VALUE}"} {
				refused(kind, with(t, text, l.path, ref), l.path)
				n++
			}
		}
		if name == "run" {
			for _, k := range []string{"prepare", "check", "cleanup"} {
				refused(k, with(t, text, "duration", "${CAIRN_PROBE_VALUE}"), "duration")
			}
		}
	}
	t.Logf("%d fields tried", n)
	if n < 150 {
		t.Errorf("only %d fields were tried", n)
	}
	// Every part of the URL, and the password from a variable the service does not allow.
	u := strings.TrimPrefix(db, "postgres://")
	userinfo, rest, _ := strings.Cut(u, "@")
	user, _, _ := strings.Cut(userinfo, ":")
	host, dbname, _ := strings.Cut(rest, "/")
	for _, x := range []string{
		"${CAIRN_PROBE_VALUE}://" + u,
		"postgres://${CAIRN_PROBE_VALUE}:${CAIRN_PASSWORD}@" + rest,
		"postgres://" + user + ":${CAIRN_PROBE_VALUE}@" + rest,
		"postgres://" + userinfo + "@${CAIRN_PROBE_VALUE}/" + dbname,
		"postgres://" + userinfo + "@" + strings.Split(host, ":")[0] + ":${CAIRN_PROBE_VALUE}/" + dbname,
		"postgres://" + userinfo + "@" + host + "/${CAIRN_PROBE_VALUE}",
		"postgres://" + userinfo + "@" + host + "/" + dbname + "?${CAIRN_PROBE_VALUE}=1",
		"postgres://" + userinfo + "@" + host + "/" + dbname + "?application_name=${CAIRN_PROBE_VALUE}",
		"postgres://" + userinfo + "@" + host + "/" + dbname + "?sslmode=${CAIRN_PASSWORD}",
		"postgres://" + user + "@" + host + "/" + dbname + "?password=${CAIRN_PROBE_VALUE}",
		"postgres://" + userinfo + "@" + host + "/" + dbname + "?sslpassword=${CAIRN_PROBE_VALUE}",
		"postgres://" + userinfo + "@" + host + "/" + dbname + "#${CAIRN_PROBE_VALUE}",
		"postgres://" + user + ":x${CAIRN_PASSWORD}@" + rest,
	} {
		refused("run", with(t, specs["run"], "db", x), "db")
		refused("study", with(t, study, "db", x), "db")
	}
	// A password written in the spec, anywhere a password goes, is refused and not echoed.
	const literal = "Lit3ral-Secret-77"
	for _, x := range []string{
		"postgres://" + userinfo + "@" + host + "/" + dbname + "?sslpassword=" + literal,
		"postgres://" + userinfo + "@" + host + "/" + dbname + "?password=" + literal,
		"postgres://" + user + "@" + host + "/" + dbname + "?password=" + literal,
		"postgres://" + user + ":" + literal + "@" + rest,
	} {
		refused("run", with(t, specs["run"], "db", x), "db")
	}

	// A real run: the password is read from the variable allowed.
	p.done("cleanup", run)
	p.done("prepare", run)
	j := p.done("run", run)
	var list struct{ Jobs []job }
	p.ok(200, "GET", "/api/v1/jobs", nil, &list)
	if len(list.Jobs) != 3 {
		t.Errorf("refused specs made jobs: %d jobs", len(list.Jobs))
	}
	p.events(j.ID)
	p.ok(200, "GET", "/api/v1/jobs/"+j.ID+"/log", nil, nil)
	p.ok(200, "GET", "/api/v1/results", nil, nil)
	p.ok(200, "GET", "/api/v1/results/"+j.ResultID, nil, nil)
	p.ok(200, "GET", "/api/v1/results/"+j.ResultID+"/report", nil, nil)
	p.ok(200, "GET", "/api/v1/results/"+j.ResultID+"/export?format=csv&series=true", nil, nil)
	if m := string(p.ok(200, "GET", "/metrics", nil, nil)); !strings.Contains(m, `job_id="`+j.ID+`"`) {
		t.Errorf("/metrics has no series of the job:\n%.2000s", m)
	}
	var out, errb bytes.Buffer
	if code := cli.Main([]string{"results", "export", j.ResultID, "--results", store}, &out, &errb); code != 0 {
		t.Fatalf("results export: %d %s", code, errb.String())
	}
	p.all.WriteString(out.String())
	p.done("cleanup", run)
	said := p.all.String() + p.stderr.String()
	filepath.Walk(store+".jobs", func(path string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(path)
			said += string(b)
		}
		return nil
	})
	if f, err := os.Open(store); err == nil {
		b, _ := io.ReadAll(f)
		f.Close()
		said += string(b)
	}
	for what, v := range map[string]string{"the probe variable's value": probe, "the literal password": literal} {
		if strings.Contains(said, v) {
			i := strings.Index(said, v)
			t.Errorf("%s is in what the service said or kept: …%s…", what, said[max(0, i-300):min(len(said), i+100)])
		}
	}
	p.log = p.stderr
	noSecret(t, p.service, pw)
}
