package datasets

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// The parsers read the raw UCI files as shipped. All of them:
//   - accept LF and CRLF line endings, blank lines anywhere, and leading or
//     trailing spaces and tabs on a line;
//   - skip C4.5 comment lines (starting with '|', like adult.test's first
//     line) and a header line: a first non-comment line none of whose fields
//     is a number (e.g. "age, workclass, ...");
//   - return a *ParseError naming file:line and what was expected for the
//     first malformed line, and never panic on any input.
// The file argument is the name used in error messages.

// AdultRecord is one line of adult.data or adult.test. Categorical fields
// hold the value as written, "?" when missing.
type AdultRecord struct {
	// The six numeric columns, as written.
	Age, Fnlwgt, EducationNum, CapitalGain, CapitalLoss, HoursPerWeek float64

	// The eight categorical columns: a level of adult.names, or "?".
	Workclass, Education, MaritalStatus, Occupation, Relationship, Race, Sex, NativeCountry string

	// Over50K reports the label ">50K" (adult.test writes ">50K.").
	Over50K bool
	// Line is the 1-based line number in the file.
	Line int
}

// Missing reports whether any field of r is "?".
func (r *AdultRecord) Missing() bool {
	for _, v := range r.categorical() {
		if v == "?" {
			return true
		}
	}
	return false
}

// categorical returns the categorical fields in adultCategorical order.
func (r *AdultRecord) categorical() [8]string {
	return [8]string{r.Workclass, r.Education, r.MaritalStatus, r.Occupation,
		r.Relationship, r.Race, r.Sex, r.NativeCountry}
}

// adultColumns are the 15 columns of the adult files (adult.names).
var adultColumns = [15]string{"age", "workclass", "fnlwgt", "education", "education-num",
	"marital-status", "occupation", "relationship", "race", "sex", "capital-gain",
	"capital-loss", "hours-per-week", "native-country", "income"}

// adultCategorical lists, in adult.names order, the levels of the eight
// categorical columns; missing marks the columns where "?" occurs in the UCI
// files (a "?" elsewhere is a parse error).
var adultCategorical = [8]struct {
	name    string
	column  int
	missing bool
	levels  []string
}{
	{"workclass", 1, true, []string{"Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov",
		"Local-gov", "State-gov", "Without-pay", "Never-worked"}},
	{"education", 3, false, []string{"Bachelors", "Some-college", "11th", "HS-grad", "Prof-school",
		"Assoc-acdm", "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th",
		"Doctorate", "5th-6th", "Preschool"}},
	{"marital-status", 5, false, []string{"Married-civ-spouse", "Divorced", "Never-married",
		"Separated", "Widowed", "Married-spouse-absent", "Married-AF-spouse"}},
	{"occupation", 6, true, []string{"Tech-support", "Craft-repair", "Other-service", "Sales",
		"Exec-managerial", "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct",
		"Adm-clerical", "Farming-fishing", "Transport-moving", "Priv-house-serv",
		"Protective-serv", "Armed-Forces"}},
	{"relationship", 7, false, []string{"Wife", "Own-child", "Husband", "Not-in-family",
		"Other-relative", "Unmarried"}},
	{"race", 8, false, []string{"White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"}},
	{"sex", 9, false, []string{"Female", "Male"}},
	{"native-country", 13, true, []string{"United-States", "Cambodia", "England", "Puerto-Rico",
		"Canada", "Germany", "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South",
		"China", "Cuba", "Iran", "Honduras", "Philippines", "Italy", "Poland", "Jamaica",
		"Vietnam", "Mexico", "Portugal", "Ireland", "France", "Dominican-Republic", "Laos",
		"Ecuador", "Taiwan", "Haiti", "Columbia", "Hungary", "Guatemala", "Nicaragua",
		"Scotland", "Thailand", "Yugoslavia", "El-Salvador", "Trinadad&Tobago", "Peru", "Hong",
		"Holand-Netherlands"}},
}

// adultLevelIndex maps, per categorical column, a level to its position.
var adultLevelIndex = func() [8]map[string]int {
	var m [8]map[string]int
	for i, c := range adultCategorical {
		m[i] = make(map[string]int, len(c.levels))
		for j, l := range c.levels {
			m[i][l] = j
		}
	}
	return m
}()

// ParseAdult parses adult.data or adult.test: 15 comma-separated fields
// (the UCI files put a space after each comma), "?" for a missing
// categorical value, the label "<=50K" or ">50K" with an optional final ".".
// Categorical values must be levels listed in adult.names.
func ParseAdult(r io.Reader, file string) ([]AdultRecord, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("datasets: read %s: %w", file, err)
	}
	return parseAdult(data, file)
}

func parseAdult(data []byte, file string) ([]AdultRecord, error) {
	recs := make([]AdultRecord, 0, estimateLines(data))
	err := scanRecords(data, file, ',', 15, func(f []string, line int) string {
		var rec AdultRecord
		nums := [6]struct {
			col int
			dst *float64
		}{{0, &rec.Age}, {2, &rec.Fnlwgt}, {4, &rec.EducationNum},
			{10, &rec.CapitalGain}, {11, &rec.CapitalLoss}, {12, &rec.HoursPerWeek}}
		for _, n := range nums {
			v, ok := parseNumber(f[n.col])
			if !ok {
				return fmt.Sprintf("expected a number for %s (field %d), got %s", adultColumns[n.col], n.col+1, quote(f[n.col]))
			}
			*n.dst = v
		}
		dst := [8]*string{&rec.Workclass, &rec.Education, &rec.MaritalStatus, &rec.Occupation,
			&rec.Relationship, &rec.Race, &rec.Sex, &rec.NativeCountry}
		for i, c := range adultCategorical {
			v := f[c.column]
			if _, ok := adultLevelIndex[i][v]; !ok && (v != "?" || !c.missing) {
				return fmt.Sprintf("expected a %s level of adult.names for field %d, got %s", c.name, c.column+1, quote(v))
			}
			*dst[i] = v
		}
		switch strings.TrimSuffix(f[14], ".") {
		case "<=50K":
		case ">50K":
			rec.Over50K = true
		default:
			return fmt.Sprintf("expected the label <=50K or >50K (field 15), got %s", quote(f[14]))
		}
		rec.Line = line
		recs = append(recs, rec)
		return ""
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// BreastCancerRecord is one line of breast-cancer-wisconsin.data.
type BreastCancerRecord struct {
	// ID is the sample code number.
	ID string
	// Attrs are the 9 attributes (1-10); NaN where the file has "?".
	Attrs [9]float64
	// Malignant reports class 4 (class 2 is benign).
	Malignant bool
	// Line is the 1-based line number in the file.
	Line int
}

// Missing reports whether any attribute of r is missing.
func (r *BreastCancerRecord) Missing() bool {
	for _, v := range r.Attrs {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}

// breastCancerAttrs are the attribute names of breast-cancer-wisconsin.names.
var breastCancerAttrs = [9]string{"clump-thickness", "cell-size-uniformity", "cell-shape-uniformity",
	"marginal-adhesion", "epithelial-cell-size", "bare-nuclei", "bland-chromatin",
	"normal-nucleoli", "mitoses"}

// ParseBreastCancer parses breast-cancer-wisconsin.data: 11 comma-separated
// fields, the sample id, 9 integer attributes in 1..10 ("?" for missing) and
// the class 2 (benign) or 4 (malignant).
func ParseBreastCancer(r io.Reader, file string) ([]BreastCancerRecord, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("datasets: read %s: %w", file, err)
	}
	return parseBreastCancer(data, file)
}

func parseBreastCancer(data []byte, file string) ([]BreastCancerRecord, error) {
	recs := make([]BreastCancerRecord, 0, estimateLines(data))
	err := scanRecords(data, file, ',', 11, func(f []string, line int) string {
		rec := BreastCancerRecord{ID: f[0], Line: line}
		if _, err := strconv.ParseUint(f[0], 10, 64); err != nil {
			return fmt.Sprintf("expected an integer sample id (field 1), got %s", quote(f[0]))
		}
		for i := range rec.Attrs {
			s := f[i+1]
			if s == "?" {
				rec.Attrs[i] = math.NaN()
				continue
			}
			v, err := strconv.Atoi(s)
			if err != nil || v < 1 || v > 10 {
				return fmt.Sprintf("expected an integer 1-10 or ? for %s (field %d), got %s", breastCancerAttrs[i], i+2, quote(s))
			}
			rec.Attrs[i] = float64(v)
		}
		switch f[10] {
		case "2":
		case "4":
			rec.Malignant = true
		default:
			return fmt.Sprintf("expected the class 2 or 4 (field 11), got %s", quote(f[10]))
		}
		recs = append(recs, rec)
		return ""
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// MonksRecord is one line of a MONK's problems file.
type MonksRecord struct {
	// Class is the label, 0 or 1.
	Class int
	// Attrs are a1..a6, with ranges 1-3, 1-3, 1-2, 1-3, 1-4, 1-2.
	Attrs [6]int
	// ID is the instance name (e.g. "data_5"); empty when the line has none.
	ID string
	// Line is the 1-based line number in the file.
	Line int
}

// monksLevels is the number of values of a1..a6 (monks.names).
var monksLevels = [6]int{3, 3, 2, 3, 4, 2}

// ParseMonks parses monks-1.train or monks-1.test: whitespace-separated
// class (0/1), a1..a6 and an optional instance id.
func ParseMonks(r io.Reader, file string) ([]MonksRecord, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("datasets: read %s: %w", file, err)
	}
	return parseMonks(data, file)
}

func parseMonks(data []byte, file string) ([]MonksRecord, error) {
	recs := make([]MonksRecord, 0, estimateLines(data))
	err := scanRecords(data, file, ' ', -1, func(f []string, line int) string {
		if len(f) != 7 && len(f) != 8 {
			return fmt.Sprintf("expected 8 whitespace-separated fields (class, a1..a6, id), got %d", len(f))
		}
		rec := MonksRecord{Line: line}
		switch f[0] {
		case "0":
		case "1":
			rec.Class = 1
		default:
			return fmt.Sprintf("expected the class 0 or 1 (field 1), got %s", quote(f[0]))
		}
		for i := range rec.Attrs {
			v, err := strconv.Atoi(f[i+1])
			if err != nil || v < 1 || v > monksLevels[i] {
				return fmt.Sprintf("expected a%d in 1..%d (field %d), got %s", i+1, monksLevels[i], i+2, quote(f[i+1]))
			}
			rec.Attrs[i] = v
		}
		if len(f) == 8 {
			rec.ID = f[7]
		}
		recs = append(recs, rec)
		return ""
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// HeartRecord is one line of the Statlog heart.dat file.
type HeartRecord struct {
	// Attrs are the 13 attributes in file order (heart.doc).
	Attrs [13]float64
	// Present reports class 2 (heart disease present); class 1 is absent.
	Present bool
	// Line is the 1-based line number in the file.
	Line int
}

// heartAttrs are the attribute names of the Statlog heart documentation.
var heartAttrs = [13]string{"age", "sex", "chest-pain-type", "resting-blood-pressure",
	"serum-cholesterol", "fasting-blood-sugar", "resting-ecg", "max-heart-rate",
	"exercise-angina", "oldpeak", "st-slope", "major-vessels", "thal"}

// ParseHeart parses heart.dat: 13 whitespace-separated numeric attributes
// and the class 1 (absent) or 2 (present).
func ParseHeart(r io.Reader, file string) ([]HeartRecord, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("datasets: read %s: %w", file, err)
	}
	return parseHeart(data, file)
}

func parseHeart(data []byte, file string) ([]HeartRecord, error) {
	recs := make([]HeartRecord, 0, estimateLines(data))
	err := scanRecords(data, file, ' ', 14, func(f []string, line int) string {
		rec := HeartRecord{Line: line}
		for i := range rec.Attrs {
			v, ok := parseNumber(f[i])
			if !ok {
				return fmt.Sprintf("expected a number for %s (field %d), got %s", heartAttrs[i], i+1, quote(f[i]))
			}
			rec.Attrs[i] = v
		}
		switch f[13] {
		case "1":
		case "2":
			rec.Present = true
		default:
			return fmt.Sprintf("expected the class 1 or 2 (field 14), got %s", quote(f[13]))
		}
		recs = append(recs, rec)
		return ""
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// AbaloneRecord is one line of abalone.data.
type AbaloneRecord struct {
	// Sex is "M", "F" or "I" (infant).
	Sex string
	// Measurements are length, diameter, height (mm) and whole, shucked,
	// viscera and shell weights (g), as in abalone.names.
	Measurements [7]float64
	// Rings is the target (age in years is rings + 1.5).
	Rings int
	// Line is the 1-based line number in the file.
	Line int
}

// abaloneMeasurements are the measurement names of abalone.names.
var abaloneMeasurements = [7]string{"length", "diameter", "height", "whole-weight",
	"shucked-weight", "viscera-weight", "shell-weight"}

// ParseAbalone parses abalone.data: 9 comma-separated fields, the sex
// (M, F, I), 7 measurements and the integer number of rings.
func ParseAbalone(r io.Reader, file string) ([]AbaloneRecord, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("datasets: read %s: %w", file, err)
	}
	return parseAbalone(data, file)
}

func parseAbalone(data []byte, file string) ([]AbaloneRecord, error) {
	recs := make([]AbaloneRecord, 0, estimateLines(data))
	err := scanRecords(data, file, ',', 9, func(f []string, line int) string {
		rec := AbaloneRecord{Sex: f[0], Line: line}
		switch f[0] {
		case "M", "F", "I":
		default:
			return fmt.Sprintf("expected the sex M, F or I (field 1), got %s", quote(f[0]))
		}
		for i := range rec.Measurements {
			v, ok := parseNumber(f[i+1])
			if !ok {
				return fmt.Sprintf("expected a number for %s (field %d), got %s", abaloneMeasurements[i], i+2, quote(f[i+1]))
			}
			rec.Measurements[i] = v
		}
		v, err := strconv.Atoi(f[8])
		if err != nil || v < 0 {
			return fmt.Sprintf("expected a non-negative integer number of rings (field 9), got %s", quote(f[8]))
		}
		rec.Rings = v
		recs = append(recs, rec)
		return ""
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// scanRecords calls rec for every data line of data, split on sep (',': a
// comma with the fields trimmed; ' ': runs of spaces and tabs). want > 0 is
// the required number of fields, checked before rec is called. rec returns ""
// for a good line, else what was wrong. The fields slice is reused between
// calls. A file without data records is an error. Comment lines ('|'), blank lines and a header line are skipped (see
// the comment at the top of this file).
func scanRecords(data []byte, file string, sep byte, want int, rec func(f []string, line int) string) error {
	text := string(data)
	fields := make([]string, 0, 16)
	first := true
	records, line := 0, 0
	for line = 1; len(text) > 0; line++ {
		var l string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			l, text = text, ""
		}
		l = strings.Trim(l, " \t\r")
		if l == "" || l[0] == '|' {
			continue
		}
		fields = splitFields(fields[:0], l, sep)
		msg := ""
		if want > 0 && len(fields) != want {
			what := "comma-separated"
			if sep == ' ' {
				what = "whitespace-separated"
			}
			msg = fmt.Sprintf("expected %d %s fields, got %d", want, what, len(fields))
		} else {
			msg = rec(fields, line)
		}
		if msg != "" {
			if first && isHeader(fields) {
				first = false
				continue
			}
			return &ParseError{File: file, Line: line, Msg: msg}
		}
		first = false
		records++
	}
	if records == 0 {
		return &ParseError{File: file, Line: max(line-1, 1), Msg: "expected data records, found none (empty or truncated file)"}
	}
	return nil
}

// splitFields appends the fields of l to dst.
func splitFields(dst []string, l string, sep byte) []string {
	if sep == ' ' {
		return append(dst, strings.Fields(l)...)
	}
	for {
		i := strings.IndexByte(l, sep)
		if i < 0 {
			return append(dst, strings.TrimSpace(l))
		}
		dst = append(dst, strings.TrimSpace(l[:i]))
		l = l[i+1:]
	}
}

// isHeader reports whether a first line looks like column names: none of
// its fields is a number.
func isHeader(fields []string) bool {
	for _, f := range fields {
		if _, ok := parseNumber(f); ok {
			return false
		}
	}
	return true
}

// parseNumber parses a finite decimal number.
func parseNumber(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// estimateLines is a capacity hint for the record slices.
func estimateLines(data []byte) int {
	n := 0
	for _, b := range data {
		if b == '\n' {
			n++
		}
	}
	return n + 1
}

// quote quotes a field for an error message, shortened to keep it one line.
func quote(s string) string {
	const limit = 40
	if len(s) > limit {
		s = s[:limit] + "..."
	}
	return strconv.Quote(s)
}
