package datasets

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// idxBytes encodes an unsigned-byte idx array.
func idxBytes(dims []int, data []byte) []byte {
	b := []byte{0, 0, idxUbyte, byte(len(dims))}
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, uint32(d))
	}
	return append(b, data...)
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func TestParseIDX(t *testing.T) {
	img := idxBytes([]int{2, 2, 3}, []byte{0, 1, 2, 3, 0, 0, 255, 0, 0, 0, 0, 7})
	for _, tc := range []struct {
		name    string
		data    []byte
		nd      int
		want    []int
		wantErr string
	}{
		{"plain", img, 3, []int{2, 2, 3}, ""},
		{"gzip", gz(img), 3, []int{2, 2, 3}, ""},
		{"labels", idxBytes([]int{3}, []byte{1, 2, 3}), 1, []int{3}, ""},
		{"wrong magic", append([]byte{0, 0, 0x0d, 3}, img[4:]...), 3, nil, "magic number 0x00000d03"},
		{"wrong dims", img, 1, nil, "3 dimensions, want 1"},
		{"truncated body", img[:len(img)-2], 3, nil, "truncated: dimensions [2 2 3] need 12 data bytes, got 10"},
		{"trailing", append(img[:len(img):len(img)], 9), 3, nil, "trailing data"},
		{"truncated header", img[:9], 3, nil, "truncated header: expected 16 bytes, got 9"},
		{"empty", nil, 0, nil, "too short"},
		{"truncated gzip", gz(img)[:20], 3, nil, "gzip"},
		{"huge dims", idxBytes([]int{1 << 20, 1 << 20, 1 << 20}, nil), 3, nil, "exceed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := ParseIDX(tc.data, "f", tc.nd)
			if tc.wantErr != "" {
				var ie *IDXError
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want *IDXError containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Dims) != len(tc.want) {
				t.Fatalf("dims %v, want %v", a.Dims, tc.want)
			}
			for i := range a.Dims {
				if a.Dims[i] != tc.want[i] {
					t.Fatalf("dims %v, want %v", a.Dims, tc.want)
				}
			}
		})
	}
}

func TestNewImagesCSR(t *testing.T) {
	pix := []byte{0, 1, 2, 3, 0, 0, 255, 0, 0, 0, 0, 7}
	img, _ := ParseIDX(idxBytes([]int{2, 2, 3}, pix), "i", 3)
	lab, _ := ParseIDX(idxBytes([]int{2}, []byte{4, 9}), "l", 1)
	s, err := NewImages(img, lab, "x", 10)
	if err != nil {
		t.Fatal(err)
	}
	// Rebuild the dense pixels from the CSR rows: the oracle is the input.
	dense := make([]byte, len(pix))
	for n := 0; n < s.N; n++ {
		for p := s.RowPtr[n]; p < s.RowPtr[n+1]; p++ {
			dense[n*s.K+int(s.Col[p])] = s.Val[p]
		}
	}
	if !bytes.Equal(dense, pix) || s.K != 6 || s.N != 2 {
		t.Fatalf("csr round trip %v, want %v", dense, pix)
	}
	if _, err := NewImages(img, lab, "x", 9); err == nil || !strings.Contains(err.Error(), "label 9 of image 1") {
		t.Fatalf("label >= L: err = %v", err)
	}
	lab3, _ := ParseIDX(idxBytes([]int{3}, []byte{1, 2, 3}), "l", 1)
	if _, err := NewImages(img, lab3, "x", 10); err == nil || !strings.Contains(err.Error(), "2 images but 3 labels") {
		t.Fatalf("count mismatch: err = %v", err)
	}
	sub := s.Subset([]int{1})
	if sub.N != 1 || sub.Labels[0] != 9 || len(sub.Val) != 2 || sub.Val[1] != 7 {
		t.Fatalf("subset %+v", sub)
	}
}

// writeIDXSet writes a tiny 4-file idx set into dir (gzipped when z).
func writeIDXSet(t *testing.T, dir string, z bool, n int) {
	t.Helper()
	pix := make([]byte, n*4)
	labs := make([]byte, n)
	for i := range pix {
		pix[i] = byte(i % 3 * 100)
	}
	for i := range labs {
		labs[i] = byte(i % 10)
	}
	for i, f := range idxFiles {
		b := idxBytes([]int{n, 2, 2}, pix)
		if i%2 == 1 {
			b = idxBytes([]int{n}, labs)
		}
		if z {
			b, f = gz(b), f+".gz"
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadIDXSet(t *testing.T) {
	for _, z := range []bool{false, true} {
		dir := t.TempDir()
		writeIDXSet(t, dir, z, 5)
		set, err := LoadIDXSet("mnist", []string{dir}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if set.Train.N != 5 || set.Test.K != 4 || len(set.SHA256) != 64 {
			t.Fatalf("set %+v", set)
		}
	}
	// Missing file: one line naming it, the directories and the fix.
	empty := t.TempDir()
	_, err := LoadIDXSet("fashion-mnist", []string{empty}, 10)
	var fe *FileError
	if !errors.As(err, &fe) || !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want *FileError wrapping ErrNotFound", err)
	}
	msg := err.Error()
	for _, want := range []string{"train-images-idx3-ubyte", empty, "apt-get install dataset-fashion-mnist"} {
		if !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
			t.Errorf("message %q lacks %q or is not one line", msg, want)
		}
	}
	_, err = LoadIDXSet("mnist", []string{empty}, 10)
	if err == nil || !strings.Contains(err.Error(), "MNIST's four idx files") {
		t.Errorf("mnist fix: %v", err)
	}
	// Truncated file: expected vs actual bytes.
	dir := t.TempDir()
	writeIDXSet(t, dir, false, 5)
	p := filepath.Join(dir, idxFiles[0])
	b, _ := os.ReadFile(p)
	os.WriteFile(p, b[:len(b)-3], 0o644)
	_, err = LoadIDXSet("mnist", []string{dir}, 10)
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "need 20 data bytes, got 17") {
		t.Errorf("truncated: %v", err)
	}
	if _, err := LoadIDXSet("cifar", nil, 10); err == nil {
		t.Error("unknown name accepted")
	}
}

// TestFashionMNISTInstalled reads the Debian package's files when present.
func TestFashionMNISTInstalled(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 30 MB")
	}
	if _, err := os.Stat(DebianFashionDir); err != nil {
		t.Skip("dataset-fashion-mnist not installed")
	}
	set, err := LoadIDXSet("fashion-mnist", []string{DebianFashionDir}, 10)
	if err != nil {
		t.Fatal(err)
	}
	// Sizes published with Fashion-MNIST: 60000/10000 images of 28x28.
	if set.Train.N != 60000 || set.Test.N != 10000 || set.Train.K != 784 {
		t.Fatalf("sizes %d %d %d", set.Train.N, set.Test.N, set.Train.K)
	}
	if d := set.Train.Density(); d < 0.3 || d > 0.7 {
		t.Errorf("density %.2f: the issue expects about half the pixels non-zero", d)
	}
}

func FuzzParseIDX(f *testing.F) {
	f.Add(idxBytes([]int{2, 2, 3}, make([]byte, 12)))
	f.Add(gz(idxBytes([]int{3}, []byte{1, 2, 3})))
	f.Add([]byte{0, 0, 8, 1, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseIDX(data, "fuzz", 0)
		if err != nil {
			var ie *IDXError
			if !errors.As(err, &ie) {
				t.Fatalf("error %T is not *IDXError", err)
			}
			return
		}
		size := 1
		for _, d := range a.Dims {
			size *= d
		}
		if size != len(a.Data) {
			t.Fatalf("dims %v but %d bytes", a.Dims, len(a.Data))
		}
		if len(a.Dims) == 3 {
			lab := &IDX{Dims: []int{a.Dims[0]}, Data: make([]byte, a.Dims[0])}
			if s, err := NewImages(a, lab, "fuzz", 10); err == nil && int(s.RowPtr[s.N]) != len(s.Val) {
				t.Fatal("csr row pointers inconsistent")
			}
		}
	})
}
