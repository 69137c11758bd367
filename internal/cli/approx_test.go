package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// A run whose VUs stall at the window's end on PostgreSQL (another session holds every district
// row across the end) has an approximate TPM, with bounds, and transactions in flight at the end
// that complete after it. 'results compare' and the HTML report say so as 'results show' does:
// the TPM marked "~" with its bounds, and the in-flight line.
func TestApproximateTPMShownEverywhere(t *testing.T) {
	url := testutil.PG(t)
	prepared(t, url)
	bin := cairnBinary(t)
	store := filepath.Join(t.TempDir(), "results.db")
	run := []string{"tpcc", "run", "--db", url, "--results", store, "--vu", "2", "--rampup", "1s", "--duration", "4s", "--progress", "1s", "--seed", "3"}
	if code, out, stderr := cairn(t, run...); code != 0 {
		t.Fatalf("run 1: exit %d\n%s\n%s", code, out, stderr)
	}
	cmd, out := startUntil(t, bin, "window 1s", run...)
	tg, err := target.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	released := testutil.HoldLock(t, tg, "UPDATE district SET d_ytd = d_ytd WHERE d_w_id = 1", 4*time.Second)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run 2: %v\n%s", err, out)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "TPM is approximate, between") {
		t.Fatalf("run 2's VUs did not stall at the window's end: its TPM is exact\n%s", out)
	}
	code, show, stderr := cairn(t, "results", "show", "2", "--results", store)
	if code != 0 {
		t.Fatalf("show: exit %d %s", code, stderr)
	}
	code, cmp, stderr := cairn(t, "results", "compare", "1", "2", "--results", store)
	if code != 0 {
		t.Fatalf("compare: exit %d %s", code, stderr)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	if code, _, stderr := cairn(t, "report", "1", "2", "--results", store, "-o", html); code != 0 {
		t.Fatalf("report: exit %d %s", code, stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"from ~", "TPM is approximate, between", "in flight at the window's end: 2 transactions"} {
		if !strings.Contains(show, want) {
			t.Errorf("results show lacks %q:\n%s", want, show)
		}
	}
	var tpmRow string
	for _, l := range strings.Split(cmp, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "TPM ") {
			tpmRow = l
		}
	}
	for _, want := range []string{"B: TPM is approximate, between", "B: in flight at the window's end: 2 transactions"} {
		if !strings.Contains(cmp, want) {
			t.Errorf("results compare lacks %q:\n%s", want, cmp)
		}
	}
	if f := strings.Fields(tpmRow); len(f) < 4 || strings.HasPrefix(f[1], "~") || !strings.HasPrefix(f[2], "~") {
		t.Errorf("compare's TPM row %q: want B's marked ~ and A's not", tpmRow)
	}
	for _, want := range []string{"approximate: between", "TPM is approximate, between", "in flight at the window&#39;s end", "2 transactions, the oldest running for"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}
