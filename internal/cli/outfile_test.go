package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOutputsWrittenThrough: every file cairn writes is written through the path it was given,
// never renamed over it. A device stays a device and a write to a full one fails (exit 1); a
// symlink stays a symlink and its target receives the bytes; a chart written into --png at the
// name of a symlink follows it.
func TestOutputsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "results.db")
	code, out, stderr := cairn(t, "tpcc", "run", "--prepare", "--db", "sqlite://"+filepath.Join(dir, "t.db"), "--results", store,
		"--vu", "1", "--rampup", "1s", "--duration", "2s")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, stderr)
	}
	r := []string{"--results", store}

	// A symlink given to -o: its target is written and the link is left as it was.
	target := filepath.Join(dir, "target.html")
	link := filepath.Join(dir, "link.html")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	pngs := filepath.Join(dir, "png")
	os.Mkdir(pngs, 0o755)
	chart := filepath.Join(dir, "chart.png")
	if err := os.Symlink(chart, filepath.Join(pngs, "run-throughput.png")); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := cairn(t, append([]string{"report", "1", "-o", link, "--png", pngs}, r...)...); code != 0 {
		t.Fatalf("report: exit %d\n%s%s", code, out, stderr)
	}
	for _, l := range []struct{ link, target, want string }{{link, target, "<!DOCTYPE html>"}, {filepath.Join(pngs, "run-throughput.png"), chart, "\x89PNG"}} {
		if fi, err := os.Lstat(l.link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symlink (%v)", l.link, err)
		}
		if b, err := os.ReadFile(l.target); err != nil || !strings.HasPrefix(string(b), l.want) {
			t.Errorf("the symlink's target %s was not written (%d bytes, %v)", l.target, len(b), err)
		}
	}
	exported := filepath.Join(dir, "export.json")
	if err := os.Symlink(filepath.Join(dir, "export-target.json"), exported); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := cairn(t, append([]string{"results", "export", "1", "-o", exported}, r...)...); code != 0 {
		t.Fatalf("export: exit %d\n%s%s", code, out, stderr)
	}
	if fi, err := os.Lstat(exported); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("export -o replaced the symlink %s (%v)", exported, err)
	}
	bundled := filepath.Join(dir, "bundle.json")
	if err := os.Symlink(filepath.Join(dir, "bundle-target.json"), bundled); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := cairn(t, append([]string{"results", "bundle", "1", "-o", bundled}, r...)...); code != 0 {
		t.Fatalf("bundle: exit %d\n%s%s", code, out, stderr)
	}
	if fi, err := os.Lstat(bundled); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("bundle -o replaced the symlink %s (%v)", bundled, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "bundle-target.json")); err != nil || !strings.Contains(string(b), `"format": "cairn-bundle"`) {
		t.Errorf("the bundle's symlink target was not written (%v)", err)
	}

	// Devices of our own (never /dev/full itself): the null device takes the bytes, the full one
	// fails the command with exit 1, and both stay devices.
	null, full := filepath.Join(dir, "null"), filepath.Join(dir, "full")
	if err := unix.Mknod(null, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("cannot make a device node to write to (mknod needs CAP_MKNOD): %v", err)
	}
	if err := unix.Mknod(full, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 7))); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"report", "1", "-o", null}, {"results", "export", "1", "-o", null}, {"results", "bundle", "1", "-o", null}} {
		if code, out, stderr := cairn(t, append(args, r...)...); code != 0 {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, stderr)
		}
	}
	for _, args := range [][]string{{"report", "1", "-o", full}, {"results", "export", "1", "-o", full}, {"results", "export", "1", "--format", "csv", "-o", full}, {"results", "bundle", "1", "-o", full}} {
		code, out, stderr := cairn(t, append(args, r...)...)
		if code != ExitFailed {
			t.Errorf("%v: exit %d, want %d\n%s%s", args, code, ExitFailed, out, stderr)
			continue
		}
		oneCleanLine(t, stderr)
		if !strings.Contains(stderr, "no space left on device") || strings.Contains(out, "written") {
			t.Errorf("%v: the failed write is not reported as such: stdout %q, stderr %q", args, out, stderr)
		}
	}
	for _, dev := range []string{null, full} {
		if fi, err := os.Lstat(dev); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("%s is no longer a character device: %v %v", dev, fi.Mode(), err)
		}
	}
}

// An output directory cairn makes (report --png, tpcc gen --out) is made with its missing
// parents, as mkdir -p would, and docs/cli.md says so; an output file (--json, -o) needs its
// directory to exist (exit 2, before any work), as a shell redirection does.
func TestOutputDirectoriesMadeWithTheirParents(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "results.db")
	db := "sqlite://" + filepath.Join(dir, "t.db")
	if code, out, stderr := cairn(t, "tpcc", "run", "--prepare", "--db", db, "--results", store, "--vu", "1", "--rampup", "0s", "--duration", "1s"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, stderr)
	}
	pngs := filepath.Join(dir, "no", "such", "png")
	if code, out, stderr := cairn(t, "report", "1", "-o", filepath.Join(dir, "r.html"), "--png", pngs, "--results", store); code != 0 {
		t.Errorf("report --png into missing parents: exit %d\n%s%s", code, out, stderr)
	} else if m, _ := filepath.Glob(filepath.Join(pngs, "*.png")); len(m) == 0 {
		t.Errorf("report --png made no chart in %s", pngs)
	}
	gen := filepath.Join(dir, "no", "such", "gen")
	if code, out, stderr := cairn(t, "tpcc", "gen", "-w", "1", "--out", gen); code != 0 {
		t.Errorf("tpcc gen --out into missing parents: exit %d\n%s%s", code, out, stderr)
	} else if _, err := os.Stat(filepath.Join(gen, "tpcc-manifest-1-of-1.json")); err != nil {
		t.Errorf("tpcc gen wrote no manifest: %v", err)
	}
	for _, args := range [][]string{
		{"tpcc", "run", "--db", db, "--no-store", "--json", filepath.Join(dir, "nope", "r.json")},
		{"report", "1", "--results", store, "-o", filepath.Join(dir, "nope", "r.html")},
	} {
		code, _, stderr := cairn(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, "directory "+filepath.Join(dir, "nope")+" does not exist") {
			t.Errorf("%v: exit %d %q, want 2 naming the missing directory", args, code, stderr)
		}
	}
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "an output file (`--json`, `-o`) in a missing or unwritable directory") ||
		!strings.Contains(string(doc), "An output directory (`--png`, `tpcc gen --out`, `tpch gen --out`) is made with its missing parents") {
		t.Error("docs/cli.md does not say which outputs need their directory and which are made with it")
	}
}
