// Package deploy holds what runs cairn elsewhere: the Dockerfile's image and the Kubernetes
// manifests under kubernetes/. Its tests check them, since no registry or cluster is reachable
// where cairn is built and tested.
package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
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

// go install …/cmd/cairn@latest works: the module path is the README's, cmd/cairn is a main
// package, and go.mod has no replace or exclude directive (go install refuses those).
func TestGoInstallFromTheModulePath(t *testing.T) {
	mod, _ := os.ReadFile("../go.mod")
	readme, _ := os.ReadFile("../README.md")
	main, _ := os.ReadFile("../cmd/cairn/main.go")
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no module line")
	}
	if want := "go install " + string(m[1]) + "/cmd/cairn@latest"; !bytes.Contains(readme, []byte(want)) {
		t.Errorf("README.md does not say %q", want)
	}
	if regexp.MustCompile(`(?m)^(replace|exclude)\b`).Match(mod) {
		t.Error("go.mod has a replace or exclude directive: go install …@latest refuses it")
	}
	if !regexp.MustCompile(`(?m)^package main$`).Match(main) {
		t.Error("cmd/cairn is not a main package")
	}
}

// The manifests a user applies as they are: an Indexed Job of N parts (completions = parallelism
// = N, the N of the command's --part), each pod's part from JOB_COMPLETION_INDEX, the spec from the
// ConfigMap, the password from a Secret as ${CAIRN_PASSWORD}, results on the claim merge reads.
func TestKubernetesIndexedJob(t *testing.T) {
	files, _ := filepath.Glob("kubernetes/*.yaml")
	kinds := map[string]map[string]any{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			kind, _ := doc["kind"].(string)
			kinds[kind] = doc
		}
	}
	get := func(v any, path ...any) any {
		for _, p := range path {
			switch k := p.(type) {
			case string:
				m, _ := v.(map[string]any)
				v = m[k]
			case int:
				l, _ := v.([]any)
				if k >= len(l) {
					return nil
				}
				v = l[k]
			}
		}
		return v
	}
	job := kinds["Job"]
	if job == nil || kinds["ConfigMap"] == nil || kinds["PersistentVolumeClaim"] == nil {
		t.Fatalf("want a Job, a ConfigMap and a PersistentVolumeClaim, got %v", slices.Collect(func(yield func(string) bool) {
			for k := range kinds {
				yield(k)
			}
		}))
	}
	if get(job, "apiVersion") != "batch/v1" || get(job, "spec", "completionMode") != "Indexed" {
		t.Errorf("Job: apiVersion %v, completionMode %v: want an Indexed batch/v1 Job", get(job, "apiVersion"), get(job, "spec", "completionMode"))
	}
	n, _ := get(job, "spec", "completions").(int)
	if p, _ := get(job, "spec", "parallelism").(int); n < 2 || p != n {
		t.Errorf("completions %d, parallelism %d: want equal, two parts or more", n, p)
	}
	if r := get(job, "spec", "template", "spec", "restartPolicy"); r != "Never" {
		t.Errorf("restartPolicy %v: a part started again misses the window", r)
	}
	c := get(job, "spec", "template", "spec", "containers", 0)
	var cmd []string
	for _, a := range append(get(c, "command").([]any), func() []any { l, _ := get(c, "args").([]any); return l }()...) {
		cmd = append(cmd, a.(string))
	}
	line := strings.Join(cmd, " ")
	want := regexp.MustCompile(`cairn run --spec (\S+) --part "\$\(\(JOB_COMPLETION_INDEX \+ 1\)\)/(\d+)"`).FindStringSubmatch(line)
	if want == nil || want[2] != strconv.Itoa(n) {
		t.Fatalf("the command %q does not run part JOB_COMPLETION_INDEX+1 of %d", line, n)
	}
	if !strings.Contains(line, "--json \"/results/part-$((JOB_COMPLETION_INDEX + 1)).json\"") {
		t.Errorf("the command %q does not write its document where merge reads it", line)
	}
	spec, _ := get(kinds["ConfigMap"], "data", filepath.Base(want[1])).(string)
	var s map[string]any
	if err := yaml.Unmarshal([]byte(spec), &s); err != nil || s["workload"] == nil || s["part-run"] == nil {
		t.Errorf("the ConfigMap's %s is not a run spec with a part-run: %v %v", filepath.Base(want[1]), s, err)
	}
	if db, _ := s["db"].(string); !strings.Contains(db, "${CAIRN_PASSWORD}") {
		t.Errorf("the spec's db %q does not take the password from ${CAIRN_PASSWORD}", db)
	}
	var fromSecret bool
	for _, e := range get(c, "env").([]any) {
		if get(e, "name") == "CAIRN_PASSWORD" && get(e, "valueFrom", "secretKeyRef", "name") != nil {
			fromSecret = true
		}
	}
	if !fromSecret {
		t.Error("CAIRN_PASSWORD does not come from a Secret")
	}
	mounts := map[string]string{}
	for _, m := range get(c, "volumeMounts").([]any) {
		mounts[get(m, "name").(string)] = get(m, "mountPath").(string)
	}
	vols := map[string]any{}
	for _, v := range get(job, "spec", "template", "spec", "volumes").([]any) {
		vols[get(v, "name").(string)] = v
	}
	if filepath.Dir(want[1]) != mounts["spec"] || get(vols["spec"], "configMap", "name") != get(kinds["ConfigMap"], "metadata", "name") {
		t.Errorf("the spec %s is not the ConfigMap's, mounted at %s", want[1], mounts["spec"])
	}
	if mounts["results"] != "/results" || get(vols["results"], "persistentVolumeClaim", "claimName") != get(kinds["PersistentVolumeClaim"], "metadata", "name") {
		t.Errorf("/results is not the claim's: mounts %v", mounts)
	}
}
