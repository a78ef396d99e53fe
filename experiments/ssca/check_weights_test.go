package ssca

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/datasets/datasetstest"
	"github.com/fedcon/fedcon/experiments"
)

// TestFinalWeightsRecomputed: runs on tiny images store w^T for run 0 of
// each curve only, and the gate's "final weights recomputed" row, which
// evaluates the network at those weights with its own plain loops, passes
// on them in float64 and float32 evaluation. It fails on a weights file
// edited with its SHA-256 updated (the point the curve ends at is not the
// stored one), on a file whose SHA-256 no longer matches, and on a last
// train cost or accuracy moved in the trial; a result whose trials store no
// weights (an older fedcon) passes, counted as not checked. Such a trial
// file is still reused by a run, not recomputed. Run 1 stores no weights.
func TestFinalWeightsRecomputed(t *testing.T) {
	const N, I = 60, 3
	img := datasetstest.TinyImages(N, 12, 10, 9)
	data := &Data{Set: &datasets.IDXSet{Name: "tiny", Train: img, Test: img, SHA256: "tiny"}, EvalTrain: img, EvalTest: img}
	for _, prec := range []Precision{"float64", "float32"} {
		t.Run(string(prec), func(t *testing.T) {
			cfg := sscaTestConfig()
			cfg.Clients, cfg.Hidden, cfg.Rounds, cfg.EvalPrecision = I, 4, 20, prec
			cfg.SampleSteps = []Step{{N / I, 0.9, 0.9, 0.3}}
			specs := []Spec{{Algo: "alg1", Batch: N / I, Lambda: 1e-3}, {Algo: "alg2", Batch: N / I, U: 2.2}}
			dir := filepath.Join(t.TempDir(), "trials")
			store := &experiments.Store{Dir: dir, Hash: cfg.TrialHash()}
			curves, err := RunSpecs(context.Background(), cfg, data, specs, 2, experiments.RunOptions{Workers: 1, Store: store})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range curves {
				for _, tr := range c.Trials {
					if stored := tr.FinalW != nil; stored != (tr.Run == WeightsRun) {
						t.Fatalf("%s run %d: final_w %v", c.Spec.Label(), tr.Run, tr.FinalW)
					}
					if tr.FinalW == nil {
						continue
					}
					if _, err := ReadWeights(dir, tr.FinalW); err != nil || tr.FinalW.File != WeightsFile(experiments.TrialKey(c.Spec.Key(), tr.Run), tr.FinalW.SHA256) {
						t.Fatalf("%s run %d: final_w %v: %v", c.Spec.Label(), tr.Run, tr.FinalW, err)
					}
				}
			}
			load := func() (*Data, error) { return data, nil }
			// check runs the row on the result as written, after edit.
			check := func(edit func(f *sscaFile)) (bool, string) {
				b, err := json.Marshal(&sscaFile{Name: "ssca-figure2", DataSHA256: "tiny", EvalTrainN: N, EvalTestN: N, Curves: curves})
				if err != nil {
					t.Fatal(err)
				}
				var f sscaFile
				if err := json.Unmarshal(b, &f); err != nil {
					t.Fatal(err)
				}
				if edit != nil {
					edit(&f)
				}
				r := weightsRow("ssca-figure2", dir, &f, cfg, load)
				return r.Pass, r.Detail
			}
			wfile := filepath.Join(dir, curves[0].Trials[0].FinalW.File)
			orig, err := os.ReadFile(wfile)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name string
				edit func(f *sscaFile)
				pass bool
				want string
			}{
				{"honest", nil, true, "2 curves"},
				{"weights edited, SHA-256 updated", func(f *sscaFile) {
					w, err := ReadWeights(dir, f.Curves[0].Trials[0].FinalW)
					if err != nil {
						t.Fatal(err)
					}
					w[len(w)-1] += 0.5 // an output weight: every image's logits move
					fw, err := writeWeights(dir, "forged", w)
					if err != nil {
						t.Fatal(err)
					}
					f.Curves[0].Trials[0].FinalW = fw
				}, false, "train_cost"},
				{"weights file edited", func(*sscaFile) {
					b := append([]byte(nil), orig...)
					b[0] ^= 1
					if err := os.WriteFile(wfile, b, 0o644); err != nil {
						t.Fatal(err)
					}
				}, false, "SHA-256"},
				{"last train cost moved", func(f *sscaFile) {
					tc := f.Curves[1].Trials[0].TrainCost
					tc[len(tc)-1] *= 1 + 1e-5
				}, false, "train_cost"},
				{"last accuracy moved", func(f *sscaFile) {
					a := f.Curves[0].Trials[0].TestAcc
					a[len(a)-1] += 2.0 / N
				}, false, "test_acc"},
				{"files of an older fedcon", func(f *sscaFile) {
					for i := range f.Curves {
						for j := range f.Curves[i].Trials {
							f.Curves[i].Trials[j].FinalW = nil
						}
					}
				}, true, "not checked: 2 curves"},
			} {
				pass, detail := check(c.edit)
				if err := os.WriteFile(wfile, orig, 0o644); err != nil {
					t.Fatal(err)
				}
				if pass != c.pass || !strings.Contains(detail, c.want) {
					t.Errorf("%s: pass %v (%s), want %v with %q", c.name, pass, detail, c.pass, c.want)
				}
			}
			// A trial file without final_w (an older fedcon) is reused as it is.
			old := curves[0].Trials[0]
			old.FinalW = nil
			key := experiments.TrialKey(specs[0].Key(), 0)
			if err := store.Save(key, old.Seed, old); err != nil {
				t.Fatal(err)
			}
			var back Trial
			if !store.Load(key, &back) || back.FinalW != nil {
				t.Fatalf("an SSCA trial file without final_w is not reused as it is (final_w %v)", back.FinalW)
			}
		})
	}
}
