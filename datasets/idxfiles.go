package datasets

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
)

// idxRecords are the images (and labels) of each idx file of the MNIST
// layout, in idxFiles order; MNIST and Fashion-MNIST share them.
var idxRecords = []int{60000, 60000, 10000, 10000}

// idxSizes are the decompressed sizes of the idx files, in idxFiles order:
// a 16-byte header and 28 x 28 pixels per image, an 8-byte header and one
// byte per label.
var idxSizes = []int64{16 + 60000*28*28, 8 + 60000, 16 + 10000*28*28, 8 + 10000}

// idxSummaries are the one-line descriptions of the idx data sets.
var idxSummaries = map[string]string{
	"fashion-mnist": "Fashion-MNIST: 60,000 + 10,000 28 x 28 grey images of 10 clothing classes (SSCA figures)",
	"mnist":         "MNIST: 60,000 + 10,000 28 x 28 grey images of the 10 digits (SSCA, --dataset mnist)",
}

// IsIDX reports whether name is an idx data set (IDXSetNames).
func IsIDX(name string) bool { return slices.Contains(IDXSetNames, name) }

// idxFileList returns the registry entries of the idx data set name's four
// files. Path is "<name>/<file>"; the file is found plain or .gz in
// IDXSearchPath. Fashion-MNIST's files are pinned by the SHA-256 of their
// decompressed bytes (ContentSHA256, URL relative to FashionMNISTBaseURL);
// MNIST has no pinned checksum or download and is checked by its idx
// header, size and record count.
func idxFileList(name string) []File {
	out := make([]File, len(idxFiles))
	for i, f := range idxFiles {
		out[i] = File{Path: name + "/" + f, Records: idxRecords[i], idx: name, size: idxSizes[i]}
		if name == "fashion-mnist" {
			out[i].URL = f + ".gz"
			out[i].ContentSHA256 = fashionFiles[i].sha256
		}
	}
	return out
}

// base is an idx file's name without its data set: "train-images-idx3-ubyte".
func (f File) base() string { return f.Path[len(f.idx)+1:] }

// verifyIDX checks an idx file (plain or gzip-compressed): its decompressed
// size, idx header and record count, and the pinned SHA-256 of the
// decompressed bytes when there is one.
func (f File) verifyIDX(data []byte) (int, error) {
	raw := data
	if bytes.HasPrefix(data, gzipMagic) {
		var err error
		if raw, err = gunzip(data, f.size); err != nil {
			return 0, &IDXError{f.Path, err.Error()}
		}
	}
	if int64(len(raw)) != f.size {
		return 0, &IDXError{f.Path, fmt.Sprintf("%d decompressed bytes, want %d", len(raw), f.size)}
	}
	nd := 3
	if f.Records == len(raw)-8 {
		nd = 1
	}
	arr, err := ParseIDX(raw, f.Path, nd)
	if err != nil {
		return 0, err
	}
	if arr.Dims[0] != f.Records {
		return arr.Dims[0], &CountError{Got: arr.Dims[0], Want: f.Records}
	}
	if f.ContentSHA256 != "" {
		sum := sha256.Sum256(raw)
		if got := hex.EncodeToString(sum[:]); got != f.ContentSHA256 {
			return arr.Dims[0], &ChecksumError{Got: got, Want: f.ContentSHA256}
		}
	}
	return arr.Dims[0], nil
}

// fix is the remedy for a missing or damaged file: "" (the default, 'fedcon
// data fetch NAME') except for MNIST, which fedcon does not download.
func (f File) fix() string {
	if f.idx == "mnist" {
		return idxFix("mnist")
	}
	return ""
}

// readIDXFile locates the idx file f (plain or .gz) in IDXSearchPath(f's
// data set, dirs) and reads it; errors are *FileError.
func readIDXFile(f File, dirs []string, dataset string) (string, []byte, error) {
	path := IDXSearchPath(f.idx, dirs)
	p, err := locateIDX(f.base(), path)
	if err != nil {
		return "", nil, &FileError{File: f.Path + "[.gz]", Dirs: path, Dataset: dataset, Fix: f.fix(), Err: ErrNotFound}
	}
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = ErrNotFound
		}
		return p, nil, &FileError{File: f.Path, Path: p, Dirs: path, Dataset: dataset, Fix: f.fix(), Err: err}
	}
	return p, data, nil
}

// IDXDescription summarises an idx data set for 'fedcon data describe'.
type IDXDescription struct {
	// Name is the data set's name.
	Name string `json:"name"`
	// Files are the files read; SHA256 the hash of their decoded contents
	// (IDXSet.SHA256).
	Files  []string `json:"files"`
	SHA256 string   `json:"sha256"`
	// Pixels is the number of pixels per image.
	Pixels int `json:"pixels"`
	// Train and Test count the images per label, increasing.
	Train []ClassCount `json:"train"`
	Test  []ClassCount `json:"test"`
	// Density is the fraction of non-zero pixels of the training images.
	Density float64 `json:"density"`
}

// DescribeIDX computes the IDXDescription of s.
func DescribeIDX(s *IDXSet) *IDXDescription {
	counts := func(im *Images) []ClassCount {
		y := make([]float64, len(im.Labels))
		for i, l := range im.Labels {
			y[i] = float64(l)
		}
		return ClassCounts(y)
	}
	return &IDXDescription{Name: s.Name, Files: slices.Clone(s.Paths), SHA256: s.SHA256, Pixels: s.Train.K,
		Train: counts(s.Train), Test: counts(s.Test), Density: s.Train.Density()}
}
