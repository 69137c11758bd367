// Package deploy holds what runs cairn elsewhere: the Dockerfile's image and the Kubernetes
// manifests under kubernetes/. Its tests check them, since no registry or cluster is reachable
// where cairn is built and tested.
package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// goBuild returns the flags (without their values) and the package of the first `go build` in
// text, and its environment assignments.
func goBuild(t *testing.T, what, text string) (flags []string, pkg string, env []string) {
	t.Helper()
	m := regexp.MustCompile("((?:[A-Z_]+=\\S+ )*)go build ([^`\\n]+)").FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s has no go build", what)
	}
	env = strings.Fields(m[1])
	args := strings.Fields(m[2])
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-o":
			flags = append(flags, a)
			i++ // its value is where the binary goes
		case strings.HasPrefix(a, "-"):
			flags = append(flags, a)
		default:
			pkg = a
		}
	}
	return flags, pkg, env
}

// The image is built with the go build the README tells users to run (the same flags and package),
// static (CGO_ENABLED=0), by go.mod's Go, and ships only the binary on a small base.
func TestDockerfileBuildsAsTheREADMESays(t *testing.T) {
	docker, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	wantFlags, wantPkg, _ := goBuild(t, "README.md", string(readme))
	flags, pkg, env := goBuild(t, "Dockerfile", string(docker))
	if !slices.Equal(flags, wantFlags) || pkg != wantPkg {
		t.Errorf("Dockerfile builds %v %s, README.md %v %s", flags, pkg, wantFlags, wantPkg)
	}
	if !slices.Contains(env, "CGO_ENABLED=0") {
		t.Errorf("Dockerfile's go build is not static: env %v", env)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	froms := regexp.MustCompile(`(?m)^FROM (\S+)`).FindAllSubmatch(docker, -1)
	if len(froms) != 2 || goVersion == nil || string(froms[0][1]) != "golang:"+string(goVersion[1]) {
		t.Fatalf("Dockerfile: want two stages, the first golang:%s (go.mod's), got %q", goVersion[1], froms)
	}
	if final := string(froms[1][1]); strings.Contains(final, "golang") {
		t.Errorf("the image's base is %s: want a minimal one, without the toolchain", final)
	}
	if !bytes.Contains(docker, []byte("COPY --from=build /out/cairn ")) {
		t.Error("the final stage does not take the binary the build stage made")
	}
}

// go install ./cmd/cairn, as the README says, installs a cairn that runs, from the checkout:
// into an empty GOBIN, then --version and help. go.mod keeps no replace or exclude directive,
// which go install …@latest refuses once the module is published at its path.
func TestGoInstallFromAClone(t *testing.T) {
	mod, _ := os.ReadFile("../go.mod")
	readme, _ := os.ReadFile("../README.md")
	if !bytes.Contains(readme, []byte("`go install ./cmd/cairn`")) {
		t.Error("README.md does not say `go install ./cmd/cairn`")
	}
	if regexp.MustCompile(`(?m)^(replace|exclude)\b`).Match(mod) {
		t.Error("go.mod has a replace or exclude directive: go install …@latest refuses it")
	}
	gobin := t.TempDir()
	install := exec.Command("go", "install", "./cmd/cairn")
	install.Dir = ".."
	install.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/cairn: %v\n%s", err, out)
	}
	bin := filepath.Join(gobin, "cairn")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "cairn version ") {
		t.Errorf("the installed cairn --version: %v %q", err, out)
	}
	out, err = exec.Command(bin, "help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "cairn benchmarks databases") {
		t.Errorf("the installed cairn help: %v %q", err, out)
	}
}
