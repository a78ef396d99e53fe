package datasets

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// IDX type codes (the third byte of the magic number); fedcon reads unsigned bytes.
const idxUbyte = 0x08

// IDXError signifies a malformed idx file: a wrong magic number, a
// truncated or overlong body, or dimensions that do not fit.
type IDXError struct {
	File string // the name given to the parser
	Msg  string // what was expected and what was found
}

// Error is "datasets: file: what was expected".
func (e *IDXError) Error() string { return fmt.Sprintf("datasets: %s: %s", e.File, e.Msg) }

// IDX is one idx array of unsigned bytes: Dims (big-endian in the file) and
// the row-major Data, len(Data) = product of Dims.
type IDX struct {
	Dims []int
	Data []byte
}

// gzipMagic are the first two bytes of a gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// maxIDXBytes caps a decoded idx body (1 GiB): a corrupt header cannot ask
// for more memory than that.
const maxIDXBytes = 1 << 30

// ParseIDX decodes an idx file of unsigned bytes (magic 0x0000 08 nd, e.g.
// 0x803 for images and 0x801 for labels), gzip-compressed or not: gzip is
// detected by its magic bytes, not the file name. name is used in errors.
// wantDims, if > 0, is the required number of dimensions.
func ParseIDX(data []byte, name string, wantDims int) (*IDX, error) {
	if bytes.HasPrefix(data, gzipMagic) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, &IDXError{name, fmt.Sprintf("gzip: %v", err)}
		}
		var buf bytes.Buffer
		if _, err := io.Copy(&buf, io.LimitReader(zr, maxIDXBytes+1)); err != nil {
			return nil, &IDXError{name, fmt.Sprintf("gzip: %v (truncated download?)", err)}
		}
		data = buf.Bytes()
	}
	if len(data) < 4 {
		return nil, &IDXError{name, fmt.Sprintf("%d bytes: too short for the 4-byte idx magic number", len(data))}
	}
	if data[0] != 0 || data[1] != 0 || data[2] != idxUbyte || data[3] == 0 {
		return nil, &IDXError{name, fmt.Sprintf("magic number 0x%08x: want 0x0000080n (unsigned-byte idx, e.g. 0x803 images, 0x801 labels)", binary.BigEndian.Uint32(data))}
	}
	nd := int(data[3])
	if wantDims > 0 && nd != wantDims {
		return nil, &IDXError{name, fmt.Sprintf("magic number 0x%08x: %d dimensions, want %d", binary.BigEndian.Uint32(data), nd, wantDims)}
	}
	head := 4 + 4*nd
	if len(data) < head {
		return nil, &IDXError{name, fmt.Sprintf("truncated header: expected %d bytes, got %d", head, len(data))}
	}
	dims := make([]int, nd)
	size, bound := int64(1), int64(1)
	for i := range dims {
		dims[i] = int(binary.BigEndian.Uint32(data[4+4*i:]))
		size *= int64(dims[i])
		bound *= max(1, int64(dims[i])) // a zero dimension must not hide a huge one
		if bound > maxIDXBytes {
			return nil, &IDXError{name, fmt.Sprintf("dimensions %v exceed %d bytes", dims[:i+1], maxIDXBytes)}
		}
	}
	if got := int64(len(data) - head); got != size {
		what := "truncated"
		if got > size {
			what = "trailing data"
		}
		return nil, &IDXError{name, fmt.Sprintf("%s: dimensions %v need %d data bytes, got %d", what, dims, size, got)}
	}
	return &IDX{Dims: dims, Data: data[head:]}, nil
}

// Images is a labelled image set with pixels stored as sparse rows (CSR of
// the raw bytes): about half of Fashion-MNIST's and 80% of MNIST's pixels
// are zero, and the network's first layer only needs the non-zeros.
type Images struct {
	N, K   int     // images, pixels per image
	RowPtr []int32 // image n's non-zeros are [RowPtr[n], RowPtr[n+1])
	Col    []uint16
	Val    []uint8 // raw pixel, 1..255; the model reads Val/255
	Labels []uint8
}

// NewImages builds an image set from an idx image array (N x rows x cols)
// and an idx label array (N); labels must be < classes.
func NewImages(img, lab *IDX, name string, classes int) (*Images, error) {
	if len(img.Dims) != 3 || len(lab.Dims) != 1 {
		return nil, &IDXError{name, fmt.Sprintf("dimensions %v and %v: want images N x rows x cols and labels N", img.Dims, lab.Dims)}
	}
	n, k := img.Dims[0], img.Dims[1]*img.Dims[2]
	if n == 0 || k == 0 {
		return nil, &IDXError{name, fmt.Sprintf("dimensions %v: no images or no pixels", img.Dims)}
	}
	if lab.Dims[0] != n {
		return nil, &IDXError{name, fmt.Sprintf("%d images but %d labels", n, lab.Dims[0])}
	}
	if k > 1<<16 {
		return nil, &IDXError{name, fmt.Sprintf("%d pixels per image: at most 65536 supported", k)}
	}
	for i, l := range lab.Data {
		if int(l) >= classes {
			return nil, &IDXError{name, fmt.Sprintf("label %d of image %d: want < %d classes", l, i, classes)}
		}
	}
	nnz := 0
	for _, v := range img.Data {
		if v != 0 {
			nnz++
		}
	}
	s := &Images{N: n, K: k, RowPtr: make([]int32, n+1), Col: make([]uint16, 0, nnz), Val: make([]uint8, 0, nnz), Labels: lab.Data}
	for i := 0; i < n; i++ {
		for j, v := range img.Data[i*k : (i+1)*k] {
			if v != 0 {
				s.Col = append(s.Col, uint16(j))
				s.Val = append(s.Val, v)
			}
		}
		s.RowPtr[i+1] = int32(len(s.Col))
	}
	return s, nil
}

// Subset returns the images idx (in that order), sharing nothing with s.
func (s *Images) Subset(idx []int) *Images {
	out := &Images{N: len(idx), K: s.K, RowPtr: make([]int32, len(idx)+1), Labels: make([]uint8, len(idx))}
	for i, n := range idx {
		a, b := s.RowPtr[n], s.RowPtr[n+1]
		out.Col = append(out.Col, s.Col[a:b]...)
		out.Val = append(out.Val, s.Val[a:b]...)
		out.RowPtr[i+1] = int32(len(out.Col))
		out.Labels[i] = s.Labels[n]
	}
	return out
}

// Density is the fraction of non-zero pixels.
func (s *Images) Density() float64 { return float64(len(s.Val)) / float64(max(1, s.N*s.K)) }

// IDXSet is a named idx data set: the four files of the MNIST layout.
type IDXSet struct {
	Name        string
	Train, Test *Images
	// Paths are the files read; SHA256 is the hex SHA-256 of their decoded
	// contents in the order train images, train labels, test images, test labels.
	Paths  []string
	SHA256 string
}

// idxFiles are the MNIST-layout file names shared by MNIST and Fashion-MNIST.
var idxFiles = []string{"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}

// IDXSetNames are the idx data sets LoadIDXSet knows; the first is the default.
var IDXSetNames = []string{"fashion-mnist", "mnist"}

// DebianFashionDir is where Debian's dataset-fashion-mnist installs its
// files; a variable so that tests can stand for a machine without it.
var DebianFashionDir = "/usr/share/datasets/fashion-mnist"

// IDXSearchPath is where LoadIDXSet looks for name, given the general
// search path dirs (SearchPath: --data-dir, $FEDCON_DATA_DIR, the cache
// dir): each directory d but the cache as d/<name>/ then d/, then the
// Debian package's directory (Fashion-MNIST), then <cache>/<name>/.
func IDXSearchPath(name string, dirs []string) []string {
	cache := CacheDir()
	var out []string
	for _, d := range dirs {
		if d != "" && d != cache {
			out = append(out, filepath.Join(d, name), d)
		}
	}
	if name == "fashion-mnist" {
		out = append(out, DebianFashionDir)
	}
	if cache != "" {
		out = append(out, filepath.Join(cache, name))
	}
	return out
}

// idxFix is the remedy printed with a missing or damaged idx file.
func idxFix(name string) string {
	if name == "mnist" {
		return "put MNIST's four idx files (" + idxFiles[0] + "[.gz], ...) in --data-dir"
	}
	return "run 'apt-get install dataset-fashion-mnist', or put the four idx files (" + idxFiles[0] + "[.gz], ...) in --data-dir"
}

// LoadIDXSet reads the named idx data set (see IDXSetNames) from the first
// directory of dirs holding each file, plain or .gz. A missing, unreadable
// or malformed file is a *FileError naming it, the directories and the fix.
func LoadIDXSet(name string, dirs []string, classes int) (*IDXSet, error) {
	known := false
	for _, n := range IDXSetNames {
		known = known || n == name
	}
	if !known {
		return nil, &RequestError{"dataset", name, fmt.Sprintf("unknown idx data set (valid: %v)", IDXSetNames)}
	}
	set := &IDXSet{Name: name}
	arrs := make([]*IDX, 4)
	h := sha256.New()
	for i, f := range idxFiles {
		path, err := locateIDX(f, dirs)
		if err != nil {
			return nil, &FileError{File: f + "[.gz]", Dirs: dirs, Dataset: name, Fix: idxFix(name), Err: err}
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, &FileError{File: f, Path: path, Dirs: dirs, Dataset: name, Fix: idxFix(name), Err: err}
		}
		nd := 3
		if i%2 == 1 {
			nd = 1
		}
		arr, err := ParseIDX(data, filepath.Base(path), nd)
		if err != nil {
			return nil, &FileError{File: f, Path: path, Dirs: dirs, Dataset: name, Fix: idxFix(name), Err: err}
		}
		sum := sha256.Sum256(arr.Data)
		h.Write(sum[:])
		arrs[i] = arr
		set.Paths = append(set.Paths, path)
	}
	set.SHA256 = hex.EncodeToString(h.Sum(nil))
	var err error
	if set.Train, err = NewImages(arrs[0], arrs[1], set.Paths[0], classes); err != nil {
		return nil, &FileError{File: idxFiles[0], Path: set.Paths[0], Dirs: dirs, Dataset: name, Fix: idxFix(name), Err: err}
	}
	if set.Test, err = NewImages(arrs[2], arrs[3], set.Paths[2], classes); err != nil {
		return nil, &FileError{File: idxFiles[2], Path: set.Paths[2], Dirs: dirs, Dataset: name, Fix: idxFix(name), Err: err}
	}
	if set.Train.K != set.Test.K {
		return nil, &FileError{File: idxFiles[2], Path: set.Paths[2], Dirs: dirs, Dataset: name, Fix: idxFix(name),
			Err: &IDXError{set.Paths[2], fmt.Sprintf("%d pixels per image, the training set has %d", set.Test.K, set.Train.K)}}
	}
	return set, nil
}

// locateIDX finds f or f.gz in the first directory that has one.
func locateIDX(f string, dirs []string) (string, error) {
	for _, d := range dirs {
		for _, cand := range []string{f, f + ".gz"} {
			p := filepath.Join(d, cand)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, nil
			}
		}
	}
	return "", ErrNotFound
}
