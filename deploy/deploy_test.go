// Package deploy holds the cluster recipes (Slurm, Kubernetes, the container
// image); its test checks the fields a batch engine acts on.
package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"
)

// decodeStrict reads path's one YAML document into obj, a type of the
// Kubernetes API itself: a misspelt or misplaced field is an error, as
// kubectl apply --validate=strict would say.
func decodeStrict(t *testing.T, path string, obj any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(regexp.MustCompile(`(?m)^---`).FindAll(b, -1)); n > 0 {
		t.Fatalf("%s: %d document separators, want one document", path, n)
	}
	if err := sigsyaml.UnmarshalStrict(b, obj); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// job reads a batch/v1 Job.
func job(t *testing.T, path string) *batchv1.Job {
	t.Helper()
	var j batchv1.Job
	decodeStrict(t, path, &j)
	if j.APIVersion != "batch/v1" || j.Kind != "Job" {
		t.Fatalf("%s: %s %s, want batch/v1 Job", path, j.APIVersion, j.Kind)
	}
	return &j
}

// argValue is the value after flag in args ("" when absent).
func argValue(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

// TestKubernetes decodes every manifest into the Kubernetes API's own types
// (k8s.io/api) with unknown fields refused, and checks what makes the
// recipe run: the data fetched once onto the claim and read from it with
// --data-dir, pods that can write the claim and HOME, --workers equal to
// the CPU request, requests and limits everywhere, an Indexed Job whose
// shard count is its completions, and a locally built image that is never
// pulled from a public registry.
func TestKubernetes(t *testing.T) {
	var pvc corev1.PersistentVolumeClaim
	decodeStrict(t, "kubernetes/pvc.yaml", &pvc)
	if pvc.APIVersion != "v1" || pvc.Kind != "PersistentVolumeClaim" || !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("pvc.yaml: %s %s access %v, want a ReadWriteMany v1 PersistentVolumeClaim", pvc.APIVersion, pvc.Kind, pvc.Spec.AccessModes)
	}
	if pvc.Spec.StorageClassName == nil || *pvc.Spec.StorageClassName == "" {
		t.Errorf("pvc.yaml: no storageClassName: the cluster's default class is usually ReadWriteOnce")
	}
	if q, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; !ok || q.IsZero() {
		t.Errorf("pvc.yaml: no storage request")
	}
	claim := pvc.Name

	data, shards, merge := job(t, "kubernetes/data-job.yaml"), job(t, "kubernetes/shards-job.yaml"), job(t, "kubernetes/merge-job.yaml")
	image := shards.Spec.Template.Spec.Containers[0].Image
	for _, j := range []*batchv1.Job{data, shards, merge} {
		checkPod(t, j, claim, image)
	}

	// The data Job fetches into the claim; nothing else fetches.
	var fetched []string
	for _, c := range append(data.Spec.Template.Spec.InitContainers, data.Spec.Template.Spec.Containers...) {
		if len(c.Args) < 2 || c.Args[0] != "data" || c.Args[1] != "fetch" || argValue(c.Args, "--data-dir") != "/work/datasets" {
			t.Errorf("data-job.yaml: container %s runs %v, want data fetch --data-dir /work/datasets", c.Name, c.Args)
		}
		fetched = append(fetched, c.Args[2:]...)
	}
	if !slices.Contains(fetched, "fashion-mnist") {
		t.Errorf("data-job.yaml fetches %v: the SSCA figures need fashion-mnist", fetched)
	}

	spec := shards.Spec
	switch {
	case spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion:
		t.Errorf("shards-job.yaml: completionMode %v, want Indexed", spec.CompletionMode)
	case spec.Completions == nil || *spec.Completions < 1:
		t.Fatalf("shards-job.yaml: completions missing")
	case spec.Parallelism == nil || *spec.Parallelism < 1 || *spec.Parallelism > *spec.Completions:
		t.Errorf("shards-job.yaml: parallelism %v, want 1..completions", spec.Parallelism)
	case spec.BackoffLimitPerIndex == nil:
		t.Errorf("shards-job.yaml: no backoffLimitPerIndex: a failing index would be retried without bound per index")
	}
	n := int(*spec.Completions)
	c := spec.Template.Spec.Containers[0]
	args := strings.Join(c.Args, " ")
	if !strings.Contains(args, "--shard auto") || argValue(c.Args, "--out") != "/work/results/shard-$(JOB_COMPLETION_INDEX)" {
		t.Errorf("shards args %q: want --shard auto and --out /work/results/shard-$(JOB_COMPLETION_INDEX)", args)
	}
	if !slices.Contains(c.Args, "--no-fetch") || argValue(c.Args, "--data-dir") != "/work/datasets" {
		t.Errorf("shards args %q: want --no-fetch --data-dir /work/datasets (the data Job fetched them once)", args)
	}
	count := ""
	for _, e := range c.Env {
		if e.Name == "FEDCON_SHARD_COUNT" {
			count = e.Value
		}
	}
	if count != strconv.Itoa(n) {
		t.Errorf("FEDCON_SHARD_COUNT %q, want completions %d", count, n)
	}
	cpu := c.Resources.Requests[corev1.ResourceCPU]
	if w, err := strconv.Atoi(argValue(c.Args, "--workers")); err != nil || int64(w) != cpu.Value() || cpu.MilliValue()%1000 != 0 {
		t.Errorf("shards: --workers %q, CPU request %s: want --workers equal to a whole CPU request", argValue(c.Args, "--workers"), cpu.String())
	}

	// The image has no shell: fedcon merge expands the pattern itself, so
	// it must match every shard directory (of any count) and not OUT.
	mc := merge.Spec.Template.Spec.Containers[0]
	if merge.Spec.CompletionMode != nil && *merge.Spec.CompletionMode == batchv1.IndexedCompletion {
		t.Errorf("merge-job.yaml: want a plain Job")
	}
	if len(mc.Args) < 3 || mc.Args[0] != "merge" || argValue(mc.Args, "--data-dir") != "/work/datasets" {
		t.Fatalf("merge args %v: want merge OUT PATTERN --data-dir /work/datasets", mc.Args)
	}
	out, pattern := mc.Args[1], mc.Args[2]
	for k := 0; k < n+10; k++ {
		if ok, err := filepath.Match(pattern, "/work/results/shard-"+strconv.Itoa(k)); !ok || err != nil {
			t.Errorf("merge pattern %q does not match shard %d (%v)", pattern, k, err)
		}
	}
	if ok, _ := filepath.Match(pattern, out); ok || !strings.HasPrefix(out, "/work/") {
		t.Errorf("merge OUT %q: want a directory on the claim that the pattern %q does not match", out, pattern)
	}

	// run.sh waits for each Job's Complete or Failed condition: never a
	// wait for completion alone.
	run, err := os.ReadFile("kubernetes/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`*" Failed "*)`, `*" Complete "*)`, `jobs=${FEDCON_K8S_JOBS:-data shards merge}`} {
		if !strings.Contains(string(run), w) {
			t.Errorf("run.sh lacks %q", w)
		}
	}
	if strings.Contains(string(run), "--for=condition=complete") {
		t.Errorf("run.sh waits for condition=complete: a failed Job would keep it waiting until the timeout")
	}
}

// checkPod checks what every Job of the recipe needs.
func checkPod(t *testing.T, j *batchv1.Job, claim, image string) {
	t.Helper()
	pod := j.Spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever && pod.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("%s: restartPolicy %q", j.Name, pod.RestartPolicy)
	}
	// The claim must be writable by the pods' uid.
	sc := pod.SecurityContext
	if sc == nil || sc.FSGroup == nil || sc.RunAsUser == nil || *sc.RunAsUser == 0 || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("%s: want a pod securityContext with runAsNonRoot, a non-root runAsUser and fsGroup", j.Name)
	}
	vols := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		vols[v.Name] = v
	}
	for _, c := range append(pod.InitContainers, pod.Containers...) {
		if c.Image != image {
			t.Errorf("%s/%s: image %q, shards %q: a merge refuses shards of another fedcon version", j.Name, c.Name, c.Image, image)
		}
		name, tag, _ := strings.Cut(c.Image[strings.LastIndex(c.Image, "/")+1:], ":")
		if name == "" || tag == "" || tag == "latest" || !strings.HasPrefix(c.Image, "localhost/") {
			t.Errorf("%s/%s: image %q: want the locally built localhost/NAME:TAG, not a public registry's or :latest", j.Name, c.Name, c.Image)
		}
		if c.ImagePullPolicy != corev1.PullNever && c.ImagePullPolicy != corev1.PullIfNotPresent {
			t.Errorf("%s/%s: imagePullPolicy %q, want Never or IfNotPresent", j.Name, c.Name, c.ImagePullPolicy)
		}
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, okr := c.Resources.Requests[r]
			lim, okl := c.Resources.Limits[r]
			if !okr || !okl || req.Cmp(lim) > 0 || req.IsZero() {
				t.Errorf("%s/%s: %s request %v limit %v: want both, request <= limit", j.Name, c.Name, r, req.String(), lim.String())
			}
		}
		mounts := map[string]string{}
		for _, m := range c.VolumeMounts {
			mounts[m.MountPath] = m.Name
		}
		if v, ok := vols[mounts["/work"]]; !ok || v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != claim {
			t.Errorf("%s/%s: claim %q is not mounted at /work", j.Name, c.Name, claim)
		}
		home := ""
		for _, e := range c.Env {
			if e.Name == "HOME" {
				home = e.Value
			}
		}
		if v, ok := vols[mounts[home]]; home == "" || !ok || v.EmptyDir == nil {
			t.Errorf("%s/%s: HOME %q is not a writable emptyDir", j.Name, c.Name, home)
		}
	}
}

// TestSlurmAndImage: the array script shards by the array index, the merge
// waits for the whole array (afterok), and the image is a static binary on
// an empty base.
func TestSlurmAndImage(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for file, want := range map[string][]string{
		"slurm/fedcon-array.sbatch": {"--shard auto", "shard-$SLURM_ARRAY_TASK_ID"},
		"slurm/fedcon-merge.sbatch": {" merge "},
		"slurm/submit.sh":           {"--array=0-", "--dependency=afterok:", "--kill-on-invalid-dep=yes", `--shard "0/$n" --dry-run`},
		"slurm/test-slurm.sh":       {"SLURM_CONF=$work/slurm.conf", "StateSaveLocation=$work/state", `scancel "${jobs_submitted[@]}"`},
		"Dockerfile":                {"CGO_ENABLED=0", "FROM scratch", "ENTRYPOINT [\"/fedcon\"]"},
	} {
		s := read(file)
		for _, w := range want {
			if !strings.Contains(s, w) {
				t.Errorf("%s lacks %q", file, w)
			}
		}
	}
	// The Slurm test keeps to its own directory and jobs.
	for _, bad := range []string{"/etc/slurm", "scancel --user", "/var/spool/slurm"} {
		if strings.Contains(read("slurm/test-slurm.sh"), bad) {
			t.Errorf("slurm/test-slurm.sh uses %q: it must touch only its temporary cluster and its own jobs", bad)
		}
	}
	froms := regexp.MustCompile(`(?m)^FROM (\S+)`).FindAllStringSubmatch(read("Dockerfile"), -1)
	if len(froms) != 2 || froms[1][1] != "scratch" {
		t.Errorf("Dockerfile stages %v: want a build stage, then scratch", froms)
	}
}
