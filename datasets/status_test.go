package datasets

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readmeSums returns the SHA-256 sums that the shared data folder's
// README.md lists ("<hex>  <path>" lines), by path.
func readmeSums(t *testing.T, dir string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Skipf("no README.md with the SHA-256 sums beside the real files: %v", err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 2 && len(fs[0]) == 64 {
			if _, err := hex.DecodeString(fs[0]); err == nil {
				sums[fs[1]] = fs[0]
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sums
}

// The pinned sums, the README's and the files' own agree, and CheckFiles
// passes every real file.
func TestCheckFilesReadme(t *testing.T) {
	dir := realDir(t)
	sums := readmeSums(t, dir)
	sts, err := CheckFiles(Names(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) != len(AllFiles()) {
		t.Fatalf("%d files checked, want %d", len(sts), len(AllFiles()))
	}
	for _, st := range sts {
		t.Run(st.File.Path, func(t *testing.T) {
			want, ok := sums[st.File.Path]
			if !ok {
				t.Fatalf("README lists no SHA-256 for %s", st.File.Path)
			}
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(st.File.Path)))
			if err != nil {
				t.Fatal(err)
			}
			got := sha256.Sum256(data)
			if hex.EncodeToString(got[:]) != want || st.File.SHA256 != want {
				t.Errorf("file %x, pinned %s, README %s", got, st.File.SHA256, want)
			}
			if !st.OK() || st.Normalized || st.Records != st.File.Records ||
				st.Path != filepath.Join(dir, filepath.FromSlash(st.File.Path)) {
				t.Errorf("%+v", st)
			}
		})
	}
}

func TestCheckFiles(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name      string
		names     []string
		dirs      []string
		wantFiles []string // in order of first use
		wantErr   any      // nil, or a pointer to the type of the first error
		wantFix   string   // the dataset named in the first error's fix
		missing   int
	}{
		// The sample heart.dat has 3 records, not the pinned 270.
		{"count differs", []string{"heart"}, []string{"testdata"}, []string{"statlog-heart/heart.dat"}, new(*CountError), "heart", 0},
		{"missing", []string{"monks-1"}, []string{empty}, []string{"monks/monks-1.train", "monks/monks-1.test"}, &ErrNotFound, "monks-1", 2},
		// adult.data is shared: checked once, on behalf of the first data set naming it.
		{"shared file", []string{"adult-b", "adult-a"}, []string{empty}, []string{"adult/adult.data", "adult/adult.test"}, &ErrNotFound, "adult-b", 2},
		{"all", nil, []string{empty}, []string{"breast-cancer-wisconsin/breast-cancer-wisconsin.data", "adult/adult.data",
			"monks/monks-1.train", "monks/monks-1.test", "adult/adult.test", "statlog-heart/heart.dat", "abalone/abalone.data",
			"fashion-mnist/train-images-idx3-ubyte", "fashion-mnist/train-labels-idx1-ubyte",
			"fashion-mnist/t10k-images-idx3-ubyte", "fashion-mnist/t10k-labels-idx1-ubyte"}, &ErrNotFound, "breast-cancer-wisc", 11},
		{"fashion-mnist", []string{"fashion-mnist"}, []string{empty}, []string{"fashion-mnist/train-images-idx3-ubyte", "fashion-mnist/train-labels-idx1-ubyte",
			"fashion-mnist/t10k-images-idx3-ubyte", "fashion-mnist/t10k-labels-idx1-ubyte"}, &ErrNotFound, "fashion-mnist", 4},
		{"unknown", []string{"heart", "iris"}, []string{"testdata"}, nil, new(*RequestError), "", 0},
	}
	withoutDebian(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sts, err := CheckFiles(tt.names, tt.dirs)
			var got []string
			missing := 0
			for _, st := range sts {
				got = append(got, st.File.Path)
				if !st.Present() {
					missing++
				}
			}
			if !slices.Equal(got, tt.wantFiles) || missing != tt.missing {
				t.Errorf("files %v (%d missing), want %v (%d)", got, missing, tt.wantFiles, tt.missing)
			}
			switch w := tt.wantErr.(type) {
			case *error:
				if !errors.Is(err, *w) {
					t.Errorf("got %v, want %v", err, *w)
				}
			default:
				if !errors.As(err, w) {
					t.Errorf("got %v (%T), want %T", err, err, w)
				}
			}
			if tt.wantFix != "" && !strings.Contains(err.Error(), "fedcon data fetch "+tt.wantFix+"'") {
				t.Errorf("fix does not name %s: %v", tt.wantFix, err)
			}
		})
	}
}

func TestCheckAll(t *testing.T) {
	withoutDebian(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	all := CheckAll([]string{"testdata"})
	var names []string
	for _, ds := range all {
		names = append(names, ds.Name)
		files, _ := Files(ds.Name)
		if IsIDX(ds.Name) {
			for _, st := range ds.Files {
				if st.Present() || !errors.Is(st.Err, ErrNotFound) {
					t.Errorf("%s: %+v, want missing", ds.Name, st)
				}
			}
			continue
		}
		if len(ds.Files) != len(files) {
			t.Errorf("%s: %d statuses, want %d", ds.Name, len(ds.Files), len(files))
		}
		for i, st := range ds.Files {
			// Every sample is present, none is the pinned file.
			if st.File.Path != files[i].Path || !st.Present() || st.OK() || !errors.As(st.Err, new(*FileError)) {
				t.Errorf("%s: %+v", ds.Name, st)
			}
		}
	}
	if !slices.Equal(names, FetchNames()) {
		t.Errorf("datasets %v, want %v", names, FetchNames())
	}
}

// The idx data sets are listed and checked like the UCI ones: Fashion-MNIST
// always, MNIST when present; a damaged idx file fails its check.
func TestCheckAllIDX(t *testing.T) {
	withoutDebian(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	withMNIST := t.TempDir()
	writeMNISTLayout(t, filepath.Join(withMNIST, "mnist"))
	// The same layout passed off as Fashion-MNIST: right sizes, wrong checksums.
	fake := t.TempDir()
	writeMNISTLayout(t, filepath.Join(fake, "fashion-mnist"))
	short := t.TempDir()
	writeMNISTLayout(t, short)
	if err := os.WriteFile(filepath.Join(short, "t10k-labels-idx1-ubyte.gz"), []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		dirs  []string
		names []string       // ListNames
		ok    map[string]int // intact files per data set
		err   map[string]any // a pointer to the type of a data set's failing files' cause
	}{
		{"nothing", []string{t.TempDir()}, FetchNames(), map[string]int{"fashion-mnist": 0}, nil},
		{"MNIST present", []string{withMNIST}, append(FetchNames(), "mnist"), map[string]int{"fashion-mnist": 0, "mnist": 4}, nil},
		{"MNIST in the directory itself", []string{short}, append(FetchNames(), "mnist"), map[string]int{"mnist": 3}, map[string]any{"mnist": new(*IDXError)}},
		{"Fashion-MNIST checksum", []string{fake}, FetchNames(), map[string]int{"fashion-mnist": 0}, map[string]any{"fashion-mnist": new(*ChecksumError)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ListNames(tt.dirs); !slices.Equal(got, tt.names) {
				t.Fatalf("ListNames = %v, want %v", got, tt.names)
			}
			for _, ds := range CheckAll(tt.dirs) {
				want, ok := tt.ok[ds.Name]
				if !ok {
					continue
				}
				n := 0
				for _, st := range ds.Files {
					if st.OK() {
						n++
						continue
					}
					if w := tt.err[ds.Name]; w != nil && st.Present() && !errors.As(st.Err, w) {
						t.Errorf("%s: %v, want a %T", st.File.Path, st.Err, w)
					}
				}
				if n != want {
					t.Errorf("%s: %d intact files, want %d", ds.Name, n, want)
				}
			}
		})
	}
}

func TestCheckAllReal(t *testing.T) {
	for _, ds := range CheckAll([]string{realDir(t)}) {
		for _, st := range ds.Files {
			if !st.OK() {
				t.Errorf("%s: %s: %v", ds.Name, st.File.Path, st.Err)
			}
		}
	}
}
