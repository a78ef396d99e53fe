package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestNewCmdReproduceTable3(t *testing.T) {
	f, _, _ := dataFactory(map[string]string{"FEDCON_DATA_DIR": "/env"})
	var got *Table3Options
	c := newCmdReproduceTable3Run(f, func(o *Table3Options) error { got = o; return nil })
	root := dataRoot(c) // mounted as "data table3": only the flags matter here
	root.SetArgs([]string{"--data-dir", "/d", "data", "table3", "--out", "/o", "--no-verify", "--quiet"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.OutDir != "/o" || !got.NoVerify || !got.Quiet || !slices.Equal(got.Dirs[:2], []string{"/d", "/env"}) || got.Version != "test-version" {
		t.Errorf("%+v", got)
	}
}

func TestTable3Run(t *testing.T) {
	dir := dataRealDir(t)
	out := t.TempDir()
	f, stdout, stderr := dataFactory(nil)
	o := &Table3Options{IO: f.IO, Version: f.Version, Dirs: []string{dir}, OutDir: out}
	if err := table3Run(o); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"breast-cancer-wisc", "444 / 239", "455 / 240", "24720 / 7841", "24715 / 7840 (= paper)", "278 / 278"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr.String(), "table3.{json,csv,md}") {
		t.Errorf("stderr %q", stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "table3", "table3.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Info struct {
			Version string `json:"fedcon_version"`
		} `json:"info"`
		Rows []json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Info.Version != "test-version" || len(doc.Rows) != 3 {
		t.Errorf("table3.json: %v %+v", err, doc)
	}
	for _, ext := range []string{"csv", "md"} {
		if b, err := os.ReadFile(filepath.Join(out, "table3", "table3."+ext)); err != nil || !strings.Contains(string(b), "monks-1") {
			t.Errorf("table3.%s: %v", ext, err)
		}
	}
}
