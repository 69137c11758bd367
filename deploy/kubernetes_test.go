package deploy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"go.yaml.in/yaml/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	kyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// manifests decodes every manifest under dir (each file may hold several documents) into the
// Kubernetes API's types, strictly: an unknown or duplicated field, or a kind the API has not,
// fails, as 'kubectl apply --validate=strict' would.
func manifests(t *testing.T, dir string) []runtime.Object {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) == 0 {
		t.Fatalf("no manifests in %s", dir)
	}
	var objs []runtime.Object
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs := kyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
		for {
			doc, err := docs.Read()
			if errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			obj, err := strictDecode(doc)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			objs = append(objs, obj)
		}
	}
	return objs
}

func strictDecode(doc []byte) (runtime.Object, error) {
	scheme := runtime.NewScheme()
	if err := errors.Join(batchv1.AddToScheme(scheme), corev1.AddToScheme(scheme)); err != nil {
		return nil, err
	}
	obj, _, err := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer().Decode(doc, nil, nil)
	return obj, err
}

// find returns the one object of type T among objs.
func find[T runtime.Object](t *testing.T, objs []runtime.Object) T {
	t.Helper()
	var found []T
	for _, o := range objs {
		if x, ok := o.(T); ok {
			found = append(found, x)
		}
	}
	if len(found) != 1 {
		var zero T
		t.Fatalf("want one %T among the manifests, found %d", zero, len(found))
	}
	return found[0]
}

// imageUser is the Dockerfile's USER, uid and gid, numeric (Kubernetes verifies runAsNonRoot
// only of a numeric user), and the user its adduser makes with that uid.
func imageUser(t *testing.T) (uid, gid int64) {
	t.Helper()
	docker, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^USER (\d+):(\d+)$`).FindSubmatch(docker)
	if m == nil {
		t.Fatal("the Dockerfile has no numeric USER UID:GID")
	}
	uid, _ = strconv.ParseInt(string(m[1]), 10, 64)
	gid, _ = strconv.ParseInt(string(m[2]), 10, 64)
	if uid == 0 {
		t.Fatal("the image runs as root")
	}
	if !regexp.MustCompile(fmt.Sprintf(`adduser [^\n]*-u %d\b`, uid)).Match(docker) {
		t.Errorf("the Dockerfile makes no user of uid %d (its home holds cairn's state)", uid)
	}
	return uid, gid
}

// checkPodSecurity: the pod runs as the image's non-root user, and fsGroup gives that user's
// group the volumes it writes.
func checkPodSecurity(t *testing.T, what string, ps corev1.PodSpec, uid, gid int64) {
	t.Helper()
	sc := ps.SecurityContext
	if sc == nil || sc.RunAsUser == nil || sc.RunAsGroup == nil || sc.FSGroup == nil || sc.RunAsNonRoot == nil {
		t.Fatalf("%s: want a securityContext with runAsNonRoot, runAsUser, runAsGroup and fsGroup, got %+v", what, sc)
	}
	if *sc.RunAsUser != uid || *sc.RunAsGroup != gid || *sc.FSGroup != gid || !*sc.RunAsNonRoot {
		t.Errorf("%s: runAsUser %d, runAsGroup %d, fsGroup %d, runAsNonRoot %v: want the image's user %d:%d, fsGroup %d, non-root",
			what, *sc.RunAsUser, *sc.RunAsGroup, *sc.FSGroup, *sc.RunAsNonRoot, uid, gid, gid)
	}
	if ps.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("%s: restartPolicy %s: a part started again misses the window", what, ps.RestartPolicy)
	}
}

// pod is a container's command as a pod would run it here: its command and args through
// setpriv as the pod's user, with its group and the fsGroup, its mount paths replaced by local
// directories, and the environment a pod would have (the image's PATH and HOME, the container's
// env) and nothing else.
type pod struct {
	sc     *corev1.PodSecurityContext
	c      corev1.Container
	mounts map[string]string // mount path -> local directory
	env    []string
}

func (p pod) run(t *testing.T, extraEnv ...string) (string, error) {
	t.Helper()
	argv := append(append([]string{}, p.c.Command...), p.c.Args...)
	for m, dir := range p.mounts {
		at := regexp.MustCompile(regexp.QuoteMeta(m) + `(/|$|[\s"'])`)
		for i := range argv {
			argv[i] = at.ReplaceAllStringFunc(argv[i], func(s string) string { return dir + s[len(m):] })
		}
	}
	args := []string{"--reuid", fmt.Sprint(*p.sc.RunAsUser), "--regid", fmt.Sprint(*p.sc.RunAsGroup),
		"--groups", fmt.Sprint(*p.sc.FSGroup), "--"}
	cmd := exec.Command("setpriv", append(args, argv...)...)
	cmd.Env = append(append([]string{}, p.env...), extraEnv...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The manifests a user applies as they are, decoded strictly into the API's types and RUN: the
// Indexed Job's command for each of its N parts (JOB_COMPLETION_INDEX 0…N-1) at once, as each pod
// runs it — the same command line through the same shell, as the image's user with the fsGroup's
// volume, the password from the environment as the Secret gives it — with only the spec's db
// (a local PostgreSQL database) and the two mount paths (local directories) replaced; then the
// merge pod's command on their documents. The merged run is the spec's: N parts, all its VUs,
// its NOPM counted by the database.
func TestKubernetesIndexedJob(t *testing.T) {
	objs := manifests(t, "kubernetes")
	job := find[*batchv1.Job](t, objs)
	cm := find[*corev1.ConfigMap](t, objs)
	pvc := find[*corev1.PersistentVolumeClaim](t, objs)
	merge := find[*corev1.Pod](t, manifests(t, "kubernetes/merge"))
	if _, err := strictDecode([]byte("apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec: {completion: 3}\n")); err == nil {
		t.Fatal("the strict decoder took a Job with an unknown field")
	}

	uid, gid := imageUser(t)
	if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("Job: completionMode %v: want Indexed", job.Spec.CompletionMode)
	}
	if job.Spec.Completions == nil || job.Spec.Parallelism == nil || *job.Spec.Completions < 2 || *job.Spec.Parallelism != *job.Spec.Completions {
		t.Fatalf("completions %v, parallelism %v: want equal, two parts or more", job.Spec.Completions, job.Spec.Parallelism)
	}
	if job.Spec.BackoffLimit == nil || *job.Spec.BackoffLimit != 0 {
		t.Errorf("backoffLimit %v: a part started again misses the window", job.Spec.BackoffLimit)
	}
	n := int(*job.Spec.Completions)
	ps := job.Spec.Template.Spec
	checkPodSecurity(t, "the Job's pods", ps, uid, gid)
	checkPodSecurity(t, "the merge pod", merge.Spec, uid, gid)
	if len(ps.Containers) != 1 || len(merge.Spec.Containers) != 1 {
		t.Fatalf("want one container in the Job's pods and in the merge pod")
	}
	c := ps.Containers[0]

	// Where each volume is mounted, and what it is.
	mountsOf := func(what string, ps corev1.PodSpec) map[string]corev1.Volume {
		vols := map[string]corev1.Volume{}
		for _, v := range ps.Volumes {
			vols[v.Name] = v
		}
		out := map[string]corev1.Volume{}
		for _, m := range ps.Containers[0].VolumeMounts {
			v, ok := vols[m.Name]
			if !ok {
				t.Fatalf("%s mounts %s, which is no volume", what, m.Name)
			}
			out[m.MountPath] = v
		}
		return out
	}
	var specMount, resultsMount string
	for path, v := range mountsOf("the Job's pods", ps) {
		switch {
		case v.ConfigMap != nil && v.ConfigMap.Name == cm.Name:
			specMount = path
		case v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == pvc.Name:
			resultsMount = path
		}
	}
	if specMount == "" || resultsMount == "" {
		t.Fatalf("the Job's pods do not mount the ConfigMap %s and the claim %s", cm.Name, pvc.Name)
	}
	var mergeMount string
	for path, v := range mountsOf("the merge pod", merge.Spec) {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == pvc.Name {
			mergeMount = path
		}
	}
	if mergeMount == "" {
		t.Fatalf("the merge pod does not mount the claim %s", pvc.Name)
	}
	if !slicesContainsRWX(pvc.Spec.AccessModes) {
		t.Errorf("the claim's access modes %v: every pod of the Job mounts it, on any node: want ReadWriteMany", pvc.Spec.AccessModes)
	}
	var password string
	for _, e := range c.Env {
		if e.Name == "CAIRN_PASSWORD" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			password = e.ValueFrom.SecretKeyRef.Name
		}
	}
	if password == "" {
		t.Error("CAIRN_PASSWORD does not come from a Secret")
	}

	// The spec, with its db replaced by a local database (its password still ${CAIRN_PASSWORD}).
	if len(cm.Data) != 1 {
		t.Fatalf("the ConfigMap holds %d files, want the spec alone", len(cm.Data))
	}
	var specName, specText string
	for k, v := range cm.Data {
		specName, specText = k, v
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(specText), &doc); err != nil || len(doc.Content) != 1 {
		t.Fatalf("the ConfigMap's %s: %v", specName, err)
	}
	db := testutil.Databases(t, testutil.PG(t), "cairn_k8s_job")[0]
	u, err := target.ParseURL(db)
	if err != nil {
		t.Fatal(err)
	}
	var replaced bool
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "db" {
			if !strings.Contains(m.Content[i+1].Value, "${CAIRN_PASSWORD}") {
				t.Errorf("the spec's db %q does not take the password from ${CAIRN_PASSWORD}", m.Content[i+1].Value)
			}
			m.Content[i+1].Value, _ = spec.WrittenDB(db)
			replaced = true
		}
	}
	if !replaced {
		t.Fatal("the spec has no db")
	}
	localSpec, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	// The pods' world: the binary on PATH, the spec (read-only), the results volume owned by
	// root and the pods' fsGroup, setgid and group-writable, as Kubernetes makes a volume of a pod
	// with an fsGroup (without one it stays root's, and the image's user cannot write it), and
	// the image user's home.
	if os.Geteuid() != 0 {
		t.Skip("running as the image's user (setpriv) needs root")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("running as the image's user needs setpriv (util-linux)")
	}
	base, err := os.MkdirTemp("", "cairn-k8s-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	dirs := map[string]string{}
	for _, d := range []string{"bin", "spec", "results", "home"} {
		dirs[d] = filepath.Join(base, d)
		if err := os.Mkdir(dirs[d], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "build", "-o", dirs["bin"], "../cmd/cairn").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dirs["spec"], specName), localSpec, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(os.Chown(dirs["results"], 0, int(*ps.SecurityContext.FSGroup)), os.Chmod(dirs["results"], 0o2775), os.Chown(dirs["home"], int(uid), int(gid))); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + dirs["bin"] + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + dirs["home"], "CAIRN_PASSWORD=" + u.Password}

	// The database is prepared first, once, as the recipe says.
	if out, err := exec.Command(filepath.Join(dirs["bin"], "cairn"), "tpcc", "prepare", "--db", db, "--warehouses", strconv.Itoa(n)).CombinedOutput(); err != nil {
		t.Fatalf("prepare: %v\n%s", err, out)
	}
	job1 := pod{sc: ps.SecurityContext, c: c, mounts: map[string]string{specMount: dirs["spec"], resultsMount: dirs["results"]}, env: env}
	outs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = job1.run(t, "JOB_COMPLETION_INDEX="+strconv.Itoa(i))
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("the pod of index %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	// Each pod ran part index+1 of N, and wrote its document where merge reads it.
	for i := range n {
		f := filepath.Join(dirs["results"], fmt.Sprintf("part-%d.json", i+1))
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("the pod of index %d: %v (its output:\n%s)", i, err, outs[i])
		}
		var d results.Document
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		if d.Part == nil || d.Part.I != i+1 || d.Part.N != n {
			t.Errorf("the pod of index %d ran part %+v, want %d/%d", i, d.Part, i+1, n)
		}
	}

	mp := pod{sc: merge.Spec.SecurityContext, c: merge.Spec.Containers[0], mounts: map[string]string{mergeMount: dirs["results"]}, env: env}
	out, err := mp.run(t)
	if err != nil {
		t.Fatalf("the merge pod: %v\n%s", err, out)
	}
	t.Logf("the merge pod printed:\n%s", out)
	store := filepath.Join(dirs["results"], "results.db")
	fi, err := os.Stat(store)
	if err != nil {
		t.Fatalf("the merge pod made no store on the volume: %v", err)
	}
	if st := fi.Sys().(*syscall.Stat_t); int64(st.Uid) != uid || int64(st.Gid) != gid {
		t.Errorf("the store is owned by %d:%d, want the image's user %d:%d", st.Uid, st.Gid, uid, gid)
	}
	ls, err := resultstore.Read(context.Background(), store, []string{"1"})
	if err != nil {
		t.Fatal(err)
	}
	d := ls[0].Run
	if d == nil || d.Part == nil || d.Part.I != 0 || len(d.Part.Parts) != n || d.VU != shippedVU(t, specText) {
		t.Fatalf("the merged run: %+v", d)
	}
	if h := d.Result.Headline; h == nil || h.Source != "server" || h.Value <= 0 {
		t.Errorf("the merged run's headline %+v: want a NOPM counted by the database", h)
	}
	if !strings.HasPrefix(out, "result 1, started ") {
		t.Errorf("the merge pod did not print the run it stored:\n%s", out)
	}
}

func slicesContainsRWX(modes []corev1.PersistentVolumeAccessMode) bool {
	for _, m := range modes {
		if m == corev1.ReadWriteMany {
			return true
		}
	}
	return false
}

// shippedVU is the spec's vu.
func shippedVU(t *testing.T, text string) int {
	var s struct{ VU int }
	if err := yaml.Unmarshal([]byte(text), &s); err != nil || s.VU == 0 {
		t.Fatalf("the spec's vu: %v", err)
	}
	return s.VU
}
