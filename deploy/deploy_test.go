// Package deploy holds the cluster recipes (Slurm, Kubernetes, the container
// image); its test checks the fields a batch engine acts on.
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

// doc is the part of a Kubernetes object the test reads.
type doc struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string   `yaml:"completionMode"`
		Completions    *int     `yaml:"completions"`
		Parallelism    *int     `yaml:"parallelism"`
		AccessModes    []string `yaml:"accessModes"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Image string   `yaml:"image"`
					Args  []string `yaml:"args"`
					Env   []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func readDocs(t *testing.T, path string) []doc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(false)
	var out []doc
	for {
		var d doc
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, d)
	}
}

func one(t *testing.T, path string) doc {
	t.Helper()
	ds := readDocs(t, path)
	if len(ds) != 1 {
		t.Fatalf("%s: %d documents, want 1", path, len(ds))
	}
	return ds[0]
}

// TestKubernetes: an Indexed Job whose pods run shard JOB_COMPLETION_INDEX of
// completions on the shared claim, and a merge Job that reads every shard.
func TestKubernetes(t *testing.T) {
	pvc := one(t, "kubernetes/pvc.yaml")
	if pvc.Kind != "PersistentVolumeClaim" || !slices.Contains(pvc.Spec.AccessModes, "ReadWriteMany") {
		t.Errorf("pvc.yaml: kind %q access %v, want a ReadWriteMany PersistentVolumeClaim", pvc.Kind, pvc.Spec.AccessModes)
	}
	claim := pvc.Metadata.Name

	job := one(t, "kubernetes/shards-job.yaml")
	switch {
	case job.APIVersion != "batch/v1" || job.Kind != "Job":
		t.Fatalf("shards-job.yaml: %s %s, want batch/v1 Job", job.APIVersion, job.Kind)
	case job.Spec.CompletionMode != "Indexed":
		t.Errorf("completionMode %q, want Indexed", job.Spec.CompletionMode)
	case job.Spec.Completions == nil || *job.Spec.Completions < 1:
		t.Fatalf("completions missing")
	case job.Spec.Parallelism == nil || *job.Spec.Parallelism < 1 || *job.Spec.Parallelism > *job.Spec.Completions:
		t.Errorf("parallelism %v, want 1..completions", job.Spec.Parallelism)
	}
	n := *job.Spec.Completions
	pod := job.Spec.Template.Spec
	if pod.RestartPolicy != "Never" && pod.RestartPolicy != "OnFailure" {
		t.Errorf("restartPolicy %q", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	args := strings.Join(c.Args, " ")
	if !strings.Contains(args, "--shard auto") || !strings.Contains(args, "--out /work/results/shard-$(JOB_COMPLETION_INDEX)") {
		t.Errorf("args %q: want --shard auto and --out .../shard-$(JOB_COMPLETION_INDEX)", args)
	}
	count := ""
	for _, e := range c.Env {
		if e.Name == "FEDCON_SHARD_COUNT" {
			count = e.Value
		}
	}
	if count != itoa(n) {
		t.Errorf("FEDCON_SHARD_COUNT %q, want completions %d", count, n)
	}
	checkVolume(t, "shards-job.yaml", pod.Volumes, c.VolumeMounts, claim)

	merge := one(t, "kubernetes/merge-job.yaml")
	if merge.Kind != "Job" || merge.Spec.CompletionMode == "Indexed" {
		t.Errorf("merge-job.yaml: want a plain Job")
	}
	mc := merge.Spec.Template.Spec.Containers[0]
	// The image has no shell: fedcon merge expands the pattern itself, so
	// it must match every shard directory (of any count) and not OUT.
	if len(mc.Args) != 3 || mc.Args[0] != "merge" {
		t.Fatalf("merge args %v: want merge OUT and one pattern of the shard directories", mc.Args)
	}
	out, pattern := mc.Args[1], mc.Args[2]
	for k := 0; k < n+10; k++ {
		if ok, err := filepath.Match(pattern, "/work/results/shard-"+itoa(k)); !ok || err != nil {
			t.Errorf("merge pattern %q does not match shard %d (%v)", pattern, k, err)
		}
	}
	if ok, _ := filepath.Match(pattern, out); ok || !strings.HasPrefix(out, "/work/") {
		t.Errorf("merge OUT %q: want a directory on the claim that the pattern %q does not match", out, pattern)
	}
	checkVolume(t, "merge-job.yaml", merge.Spec.Template.Spec.Volumes, mc.VolumeMounts, claim)
	if mc.Image != c.Image {
		t.Errorf("merge image %q, shards %q: a merge refuses shards of another fedcon version", mc.Image, c.Image)
	}
}

func checkVolume(t *testing.T, file string, vols []struct {
	Name                  string `yaml:"name"`
	PersistentVolumeClaim struct {
		ClaimName string `yaml:"claimName"`
	} `yaml:"persistentVolumeClaim"`
}, mounts []struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
}, claim string) {
	t.Helper()
	for _, v := range vols {
		if v.PersistentVolumeClaim.ClaimName != claim {
			continue
		}
		for _, m := range mounts {
			if m.Name == v.Name && m.MountPath == "/work" {
				return
			}
		}
	}
	t.Errorf("%s: claim %q is not mounted at /work", file, claim)
}

func itoa(n int) string { return strconv.Itoa(n) }

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
		"slurm/submit.sh":           {"--array=0-", "--dependency=afterok:"},
		"Dockerfile":                {"CGO_ENABLED=0", "FROM scratch", "ENTRYPOINT [\"/fedcon\"]"},
	} {
		s := read(file)
		for _, w := range want {
			if !strings.Contains(s, w) {
				t.Errorf("%s lacks %q", file, w)
			}
		}
	}
	froms := regexp.MustCompile(`(?m)^FROM (\S+)`).FindAllStringSubmatch(read("Dockerfile"), -1)
	if len(froms) != 2 || froms[1][1] != "scratch" {
		t.Errorf("Dockerfile stages %v: want a build stage, then scratch", froms)
	}
}
