package ui_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestUIValidateLooksAtTheDatabase: Validate answers every kind the form offers (a prepare spec
// is valid), and catches before Start what would fail after it: a ${VAR} the service may read
// but that is not set (with advice a serve user can follow), a PostgreSQL database that does not
// exist, and a run with no schema to run on. A valid run names the server and what it holds.
func TestUIValidateLooksAtTheDatabase(t *testing.T) {
	pg := testutil.PG(t)
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	t.Setenv("CAIRN_PASSWORD", pw)
	_, _, ctx := openFormWith(t, "--allow-env", "CAIRN_PASSWORD,CAIRN_NOT_SET_HERE")
	u.User = url.UserPassword(u.User.Username(), "PW")
	withPW := func(ref, db string) string {
		v := *u
		v.Path = "/" + db
		return strings.Replace(v.String(), ":PW@", ":${"+ref+"}@", 1)
	}
	db := strings.TrimPrefix(u.Path, "/")
	kind := func(k string) {
		t.Helper()
		pickKind(t, ctx, k)
	}
	type answer struct {
		Status string `json:"status"`
		Mark   string `json:"mark"`
		Field  string `json:"field"`
		Target string `json:"target"`
	}
	validate := func(spec string) answer {
		t.Helper()
		fillSpec(t, ctx, spec)
		if err := chromedp.Do(ctx, chromedp.Click("#validate")); err != nil {
			t.Fatal(err)
		}
		return until[answer](t, ctx, "validate's answer", 30*time.Second, `(function () {
		  var st = document.querySelector("#status").textContent, m = document.querySelector("#mark");
		  var tg = document.querySelector("#target");
		  if (!st || document.querySelector("#validate").disabled) { return null; }
		  return { status: st, mark: m ? m.textContent : "", field: m ? m.dataset.field : "", target: tg.hidden ? "" : tg.textContent };
		})()`)
	}

	kind("prepare")
	a := validate("workload: tpcb\ndb: sqlite://v.db\nprepare:\n  scale: 1\n")
	if a.Status != "Valid." || !strings.Contains(a.Target, "no such file yet") {
		t.Errorf("validate of a prepare spec: %+v, want Valid. and the file not there yet", a)
	}

	kind("run")
	a = validate("workload: tpcb\ndb: " + withPW("CAIRN_NOT_SET_HERE", db) + "\nvu: 1\n")
	if a.Field != "db" || !strings.Contains(a.Mark, "${CAIRN_NOT_SET_HERE} is not set") || strings.Contains(a.Mark, "in the URL") || strings.Contains(a.Mark, "--db") {
		t.Errorf("validate of an unset ${VAR}: %+v, want it named at db, with advice for cairn serve (not to write it in the URL, no --db)", a)
	}
	a = validate("workload: tpcb\ndb: " + withPW("CAIRN_PASSWORD", "cairn_no_such_db") + "\nvu: 1\n")
	if a.Field != "db" || !strings.Contains(a.Mark, "cairn_no_such_db") {
		t.Errorf("validate of a database that does not exist: %+v, want it named at db", a)
	}
	// cairn_test holds no tpcb schema unless a test left one: a run without prepare: is refused,
	// a run with it is valid and says what it found.
	testutil.Databases(t, pg, "cairn_ui_validate")
	a = validate("workload: tpcb\ndb: " + withPW("CAIRN_PASSWORD", "cairn_ui_validate") + "\nvu: 1\n")
	if a.Field != "db" || !strings.Contains(a.Mark, "holds no") || !strings.Contains(a.Mark, "prepare") {
		t.Errorf("validate of a run on an empty database: %+v, want it refused at db, saying how to prepare", a)
	}
	a = validate("workload: tpcb\ndb: " + withPW("CAIRN_PASSWORD", "cairn_ui_validate") + "\nvu: 1\nprepare:\n  scale: 1\n")
	if a.Status != "Valid." || !strings.Contains(a.Target, "PostgreSQL") || !strings.Contains(a.Target, "cairn_ui_validate: no ") {
		t.Errorf("validate of a run that prepares first: %+v, want Valid. and PostgreSQL's version with no schema yet", a)
	}
	// the user's name and the database may spell the password (cairn/cairn): look for it as a
	// URL would hold it
	if body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`)); strings.Contains(body, ":"+pw+"@") {
		t.Errorf("the page shows the password")
	}
}

// TestUICleanupAsksFirst: Start on a cleanup names what it will drop and starts nothing until
// confirmed; Cancel starts nothing; the confirmed cleanup drops the schema.
func TestUICleanupAsksFirst(t *testing.T) {
	s, _, ctx := openForm(t)
	s.cli(t, "tpcb", "prepare", "--db", "sqlite://c.db", "--scale", "1")
	pickKind(t, ctx, "cleanup")
	fillSpec(t, ctx, "workload: tpcb\ndb: sqlite://c.db\n")
	click := func(sel string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click(sel)); err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
	}
	click("#start")
	text := until[string](t, ctx, "the confirmation", 20*time.Second, `(function () {
	  var c = document.querySelector("#confirm"); return c && !c.hidden ? c.textContent : "";
	})()`)
	if !strings.Contains(text, "drops") || !strings.Contains(text, "c.db") || !strings.Contains(text, "4 tables") {
		t.Errorf("the confirmation says %q: want what it drops (the TPC-B schema's 4 tables in c.db)", text)
	}
	shot(t, ctx, "cleanup-confirm")
	if n := jobCount(t, s); n != 0 {
		t.Fatalf("%d jobs before the cleanup was confirmed, want none", n)
	}
	click("#confirm-cancel")
	until[bool](t, ctx, "the confirmation to go", 5*time.Second, `document.querySelector("#confirm").hidden`)
	click("#start")
	until[bool](t, ctx, "the confirmation again", 20*time.Second, `!document.querySelector("#confirm").hidden && !!document.querySelector("#confirm-drop")`)
	if n := jobCount(t, s); n != 0 {
		t.Fatalf("%d jobs after Cancel, want none", n)
	}
	click("#confirm-drop")
	until[bool](t, ctx, "the cleanup job to end", time.Minute, `(function () {
	  var st = document.querySelector("#job-state .state"); return !!st && st.dataset.state === "done";
	})()`)
	if out := s.cli(t, "tpcb", "cleanup", "--db", "sqlite://"+filepath.Join(s.dir, "c.db")); !strings.Contains(out, "nothing to drop") {
		t.Errorf("after the confirmed cleanup, cleanup again says:\n%s\nwant nothing to drop", out)
	}
}

// TestUIStopQueuedJob: Stop on a queued job shows it stopped at once, without a reload: the
// answer to the Stop, taken before the job ended, does not undo the stopped state its stream
// told first.
func TestUIStopQueuedJob(t *testing.T) {
	s, _, ctx := openForm(t)
	spec := "workload: tpcb\ndb: sqlite://q.db\nvu: 1\nrampup: 0s\nduration: 5m\nprogress: 1s\nprepare:\n  scale: 1\n"
	first := s.post(t, "run", spec).ID
	defer stopJob(t, s, first)
	second := s.post(t, "run", spec).ID
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#/jobs/"+second)); err != nil {
		t.Fatal(err)
	}
	until[bool](t, ctx, "the queued job's page", 15*time.Second, `(function () {
	  var st = document.querySelector("#job-state .state"); return !!st && st.dataset.state === "queued" && !document.querySelector("#stop").disabled;
	})()`)
	if err := chromedp.Do(ctx, chromedp.Click("#stop")); err != nil {
		t.Fatal(err)
	}
	// Long enough for the Stop's answer to arrive after the stream's event (the defect).
	time.Sleep(2 * time.Second)
	st := until[string](t, ctx, "the stopped state", 10*time.Second, `(function () {
	  var st = document.querySelector("#job-state .state").dataset.state; return st === "queued" ? "" : st;
	})()`)
	if st != "stopped" {
		t.Errorf("after Stop the queued job shows %q, want stopped", st)
	}
	if dis := until[bool](t, ctx, "Stop disabled", 5*time.Second, `document.querySelector("#stop").disabled`); !dis {
		t.Errorf("Stop still enabled on a stopped job")
	}
}

// pickKind picks the form's kind, as choosing it in the list would.
func pickKind(t *testing.T, ctx context.Context, k string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(function(){var e=document.querySelector("#kind"); e.value="`+k+`"; e.dispatchEvent(new Event("change"));})()`)); err != nil {
		t.Fatal(err)
	}
}

func jobCount(t *testing.T, s *serve) int {
	t.Helper()
	resp, err := http.Get(s.base + "/api/v1/jobs")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Jobs []json.RawMessage `json:"jobs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return len(body.Jobs)
}

func stopJob(t *testing.T, s *serve, id string) {
	resp, err := http.Post(s.base+"/api/v1/jobs/"+id+"/stop", "application/json", nil)
	if err == nil {
		resp.Body.Close()
	}
}
