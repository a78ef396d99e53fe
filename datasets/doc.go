// Package datasets reads the raw UCI data files used by the papers'
// experiments, turns them into preprocessed design matrices, and splits
// their rows among federated clients.
//
// # Files and where they are found
//
// The raw files are never copied into the repository. Load looks for each
// file, by its relative path (e.g. "adult/adult.data"), in a list of
// directories, the first holding it wins; SearchPath builds that list from
// --data-dir, then $FEDCON_DATA_DIR, then the per-user cache directory
// (CacheDir), which is where Fetcher downloads to. Every file's SHA-256 and
// record count are pinned (AllFiles); Load and CheckFile verify both unless
// NoVerify is given, and CheckFiles and CheckAll check the files of several
// datasets, each shared file once. A copy differing from the shipped file only in line
// endings or spacing (as public copies of the MONK's and heart files do)
// passes through its content checksum (NormalizedSHA256).
//
// # Image data sets (idx)
//
// ParseIDX reads an unsigned-byte idx array (magic 0x801, 0x803, ...;
// big-endian dimensions), plain or gzip-compressed (detected by its magic
// bytes), and reports a wrong magic number or a truncated body (expected vs
// actual bytes) as an *IDXError. LoadIDXSet reads the named sets
// fashion-mnist and mnist (the four files of the MNIST layout) from
// IDXSearchPath, which adds Debian's /usr/share/datasets/fashion-mnist/ for
// Fashion-MNIST, into Images: sparse rows of raw pixel bytes.
//
// # Parsers
//
// ParseAdult, ParseBreastCancer, ParseMonks, ParseHeart and ParseAbalone read
// the files as shipped. They tolerate CRLF, blank lines, surrounding spaces,
// '|' comment lines and a header line, and report the first malformed line
// as a *ParseError naming file:line and what was expected. They never panic.
//
// # Named datasets
//
// Names lists them: breast-cancer-wisc, adult-a, monks-1 (the
// Neyman-Pearson datasets of the core paper's Table 3), adult-b (fairness),
// heart and abalone. Each is a fixed pipeline:
//
//   - breast-cancer-wisc: drop the 16 rows with '?'; the 9 attributes
//     standardised; Y = 1 for malignant (class 4). 683 rows, 10 columns.
//   - adult-a: adult.data; age, fnlwgt, education-num, capital-gain,
//     capital-loss, hours-per-week standardised; the 8 categoricals one-hot
//     over their adult.names levels, plus a "?" level for workclass,
//     occupation and native-country; Y = 1 for >50K. 32561 rows, 109 columns.
//   - monks-1: monks-1.train then monks-1.test; a1..a6 one-hot; Y = class.
//     556 rows, 18 columns.
//   - adult-b: rows with '?' dropped; age, fnlwgt, education-num,
//     hours-per-week standardised; capital-gain > 0 and capital-loss > 0 as
//     0/1; native-country United-States or not; marital-status couple
//     (Married-*) or single; workclass grouped into government, private,
//     self-employed, without-pay (with Never-worked) and one-hot; occupation,
//     relationship and race one-hot; education dropped; the sex indicator
//     (1 = Male) in the column before the intercept and in Group. The
//     adult.data rows are the clients' data, the adult.test rows the
//     Server's. 30162 + 15060 rows, 39 columns.
//   - heart: the 13 attributes standardised; Y = 1 for present (class 2).
//   - abalone: sex one-hot (M, F, I), the 7 measurements standardised;
//     Y = rings.
//
// Every dataset ends with an intercept column of ones. Standardisation
// statistics (mean and population standard deviation) are computed over the
// dataset's own rows after dropping, before any partitioning, and recorded
// in Dataset.Scalings; adult-b's Server reuses the adult.data statistics.
//
// # A user's data
//
// ParseCSV (a header row, then rows of as many fields) and ParseLIBSVM
// (label index:value ...) read a user's file into a Table; ReadOwn reads a
// path, choosing the reader by extension, and returns the file's SHA-256.
// Build preprocesses a Table as the named pipelines do, by rules instead
// of a fixed layout (OwnSpec): rows with a missing value (empty, ?, NA,
// NaN) dropped; the label coded 0/1; a column whose first value is a
// number standardised, any other one-hot with its values in increasing
// order; the sensitive indicator and the intercept last; optionally a
// seeded fraction of the rows held out as the Server (ServerRand). A bad
// row is a *ParseError naming file:line and the column; an impossible
// request a *RequestError. docs/own-data.md is the user's guide.
//
// # Partitioning
//
// PartitionByClass gives each of n clients floor(count/n) rows of every
// class (so all clients share the class ratio) and PartitionFolds splits
// rows into n equal folds; both drop and report the remainder, and both are
// pure functions of their inputs and the *rand.Rand state. PartitionRand
// returns the generator that fedcon uses for a seed. For a user's data,
// PartitionBySite gives one client per value of a column and
// PartitionDirichlet skews the classes among clients with Dirichlet(alpha)
// proportions.
//
// # Export
//
// NewExport lays out a Dataset's rows, partitioned as the experiments do
// when asked, for other tools; Export.Write writes them as CSV (numbers
// that parse back to the same float64) or as JSON recording the data set's
// provenance, the fedcon version and the partition seed.
//
// # Errors
//
// A missing, unreadable, malformed or mismatching file gives a *FileError,
// whose message is one line naming the file, the directories searched and
// the fix. An unknown dataset or an impossible partition gives a
// *RequestError. Nothing in this package prints, logs or exits.
//
// # Invariants
//
// Load, CheckFile, CheckFiles, CheckAll and the parsers only read files;
// Export writes only to the io.Writer it is given. Fetcher.Fetch writes only
// below the directory it is given, atomically. Inputs are never modified.
package datasets
