package datasets

// DatasetStatus is the outcome of checking one dataset's raw files.
type DatasetStatus struct {
	// Name is the dataset's name.
	Name string
	// Files are its files' statuses, in Files order.
	Files []FileStatus
}

// CheckAll checks the raw files of every dataset in dirs (ListNames order:
// the UCI ones, Fashion-MNIST, and MNIST when one of its files is present).
// A file that several datasets share is read once; its errors name the
// first dataset that uses it.
func CheckAll(dirs []string) []DatasetStatus {
	checked := map[string]FileStatus{}
	var out []DatasetStatus
	for _, name := range ListNames(dirs) {
		files, _ := Files(name)
		ds := DatasetStatus{Name: name}
		for _, f := range files {
			st, ok := checked[f.Path]
			if !ok {
				st = CheckFile(f, dirs, name)
				checked[f.Path] = st
			}
			ds.Files = append(ds.Files, st)
		}
		out = append(out, ds)
	}
	return out
}

// ListNames are the data sets 'fedcon data list' and 'verify' show: the
// UCI ones (Names), Fashion-MNIST, and MNIST when one of its idx files is
// in dirs (IDXSearchPath).
func ListNames(dirs []string) []string {
	out := FetchNames()
	for _, f := range idxFiles {
		if _, err := locateIDX(f, IDXSearchPath("mnist", dirs)); err == nil {
			return append(out, "mnist")
		}
	}
	return out
}

// CheckFiles checks, in dirs, each distinct raw file of the named datasets
// (all of ListNames when names is empty) once, in order of first use; a file's errors
// name the first dataset that uses it. The error is a *RequestError for an
// unknown name (and no statuses), else the Err of the first file that is
// missing or fails its checks, else nil.
func CheckFiles(names []string, dirs []string) ([]FileStatus, error) {
	if len(names) == 0 {
		names = ListNames(dirs)
	}
	files, owners, err := distinctFiles(names)
	if err != nil {
		return nil, err
	}
	var first error
	out := make([]FileStatus, len(files))
	for i, f := range files {
		out[i] = CheckFile(f, dirs, owners[i])
		if first == nil {
			first = out[i].Err
		}
	}
	return out, first
}

// distinctFiles returns the distinct raw files of the named datasets in
// order of first use, each with the first dataset that uses it, or a
// *RequestError for an unknown name.
func distinctFiles(names []string) (files []File, owners []string, err error) {
	seen := map[string]bool{}
	for _, n := range names {
		fs, err := Files(n)
		if err != nil {
			return nil, nil, err
		}
		for _, f := range fs {
			if !seen[f.Path] {
				seen[f.Path] = true
				files, owners = append(files, f), append(owners, n)
			}
		}
	}
	return files, owners, nil
}
