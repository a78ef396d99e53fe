package datasets

import "fmt"

// The preprocessing pipelines, one per named dataset. Each is documented in
// doc.go and docs/datasets.md; keep the three in step.

func buildBreastCancer(l *loader) (*Dataset, error) {
	recs, err := read(l, "breast-cancer-wisconsin/breast-cancer-wisconsin.data", parseBreastCancer)
	if err != nil {
		return nil, err
	}
	keep := recs[:0:0]
	for _, r := range recs {
		if !r.Missing() {
			keep = append(keep, r)
		}
	}
	names := append(breastCancerAttrs[:], "intercept")
	m := newDesign(names, len(keep))
	y := make([]float64, len(keep))
	for i, r := range keep {
		copy(m.row(i), r.Attrs[:])
		y[i] = boolf(r.Malignant)
	}
	sc := m.standardize(seq(9), nil)
	return m.dataset(y, "1 = malignant (class 4), 0 = benign (class 2)", len(recs)-len(keep), sc), nil
}

func labelsBreastCancer(l *loader) ([]float64, error) {
	recs, err := read(l, "breast-cancer-wisconsin/breast-cancer-wisconsin.data", parseBreastCancer)
	if err != nil {
		return nil, err
	}
	y := make([]float64, len(recs))
	for i, r := range recs {
		y[i] = boolf(r.Malignant)
	}
	return y, nil
}

func readMonks(l *loader) ([]MonksRecord, error) {
	train, err := read(l, "monks/monks-1.train", parseMonks)
	if err != nil {
		return nil, err
	}
	test, err := read(l, "monks/monks-1.test", parseMonks)
	if err != nil {
		return nil, err
	}
	return append(train, test...), nil
}

func buildMonks(l *loader) (*Dataset, error) {
	recs, err := readMonks(l)
	if err != nil {
		return nil, err
	}
	var names []string
	offset := [6]int{}
	for a, k := range monksLevels {
		offset[a] = len(names)
		for v := 1; v <= k; v++ {
			names = append(names, fmt.Sprintf("a%d=%d", a+1, v))
		}
	}
	names = append(names, "intercept")
	m := newDesign(names, len(recs))
	y := make([]float64, len(recs))
	for i, r := range recs {
		row := m.row(i)
		for a, v := range r.Attrs {
			row[offset[a]+v-1] = 1
		}
		y[i] = float64(r.Class)
	}
	return m.dataset(y, "1 = class 1, 0 = class 0 (monks.names)", 0, nil), nil
}

func labelsMonks(l *loader) ([]float64, error) {
	recs, err := readMonks(l)
	if err != nil {
		return nil, err
	}
	y := make([]float64, len(recs))
	for i, r := range recs {
		y[i] = float64(r.Class)
	}
	return y, nil
}

// adultLabel is the meaning of Y for both adult datasets.
const adultLabel = "1 = income >50K, 0 = <=50K"

func buildAdultA(l *loader) (*Dataset, error) {
	recs, err := read(l, "adult/adult.data", parseAdult)
	if err != nil {
		return nil, err
	}
	// Numeric columns first (standardised), then every categorical one-hot
	// in adult.names order, with a "?" level where values are missing.
	names := []string{"age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"}
	var offset [8]int
	for i, c := range adultCategorical {
		offset[i] = len(names)
		for _, lv := range c.levels {
			names = append(names, c.name+"="+lv)
		}
		if c.missing {
			names = append(names, c.name+"=?")
		}
	}
	names = append(names, "intercept")
	m := newDesign(names, len(recs))
	y := make([]float64, len(recs))
	for i := range recs {
		r := &recs[i]
		row := m.row(i)
		row[0], row[1], row[2] = r.Age, r.Fnlwgt, r.EducationNum
		row[3], row[4], row[5] = r.CapitalGain, r.CapitalLoss, r.HoursPerWeek
		for k, v := range r.categorical() {
			j, ok := adultLevelIndex[k][v]
			if !ok { // "?", validated by the parser
				j = len(adultCategorical[k].levels)
			}
			row[offset[k]+j] = 1
		}
		y[i] = boolf(r.Over50K)
	}
	sc := m.standardize(seq(6), nil)
	return m.dataset(y, adultLabel, 0, sc), nil
}

func labelsAdult(l *loader) ([]float64, error) {
	recs, err := read(l, "adult/adult.data", parseAdult)
	if err != nil {
		return nil, err
	}
	y := make([]float64, len(recs))
	for i, r := range recs {
		y[i] = boolf(r.Over50K)
	}
	return y, nil
}

// adultBWorkclass groups the workclass levels for adult-b.
var adultBWorkclass = map[string]int{
	"Federal-gov": 0, "Local-gov": 0, "State-gov": 0, // government
	"Private":          1,                    // private
	"Self-emp-not-inc": 2, "Self-emp-inc": 2, // self-employed
	"Without-pay": 3, "Never-worked": 3, // without pay
}

// adultBCouple are the marital-status levels mapped to "couple"; the
// others (Never-married, Divorced, Separated, Widowed) are "single".
var adultBCouple = map[string]bool{
	"Married-civ-spouse": true, "Married-spouse-absent": true, "Married-AF-spouse": true,
}

// adultBNames are the adult-b columns; the standardised ones are 0-3, the
// sex column (the sensitive attribute) is adultBSex, the intercept last.
var adultBNames = func() []string {
	names := []string{"age", "fnlwgt", "education-num", "hours-per-week",
		"capital-gain>0", "capital-loss>0", "native-country=United-States", "marital-status=couple",
		"workclass=government", "workclass=private", "workclass=self-employed", "workclass=without-pay"}
	for _, c := range []int{3, 4, 5} { // occupation, relationship, race
		for _, lv := range adultCategorical[c].levels {
			names = append(names, adultCategorical[c].name+"="+lv)
		}
	}
	return append(names, "sex=Male", "intercept")
}()

// adultBSex is the column of the sex indicator in adult-b.
var adultBSex = len(adultBNames) - 2

func buildAdultB(l *loader) (*Dataset, error) {
	train, err := read(l, "adult/adult.data", parseAdult)
	if err != nil {
		return nil, err
	}
	test, err := read(l, "adult/adult.test", parseAdult)
	if err != nil {
		return nil, err
	}
	d := adultB(train, nil)
	d.Server = adultB(test, d.Scalings)
	return d, nil
}

// adultB runs the adult-b pipeline on recs; stats nil computes the
// standardisation statistics from recs, else they are applied.
func adultB(recs []AdultRecord, stats []Scaling) *Dataset {
	keep := make([]*AdultRecord, 0, len(recs))
	for i := range recs {
		if !recs[i].Missing() {
			keep = append(keep, &recs[i])
		}
	}
	m := newDesign(adultBNames, len(keep))
	y := make([]float64, len(keep))
	g := make([]int, len(keep))
	const occ, rel, race = 12, 12 + 14, 12 + 14 + 6
	for i, r := range keep {
		row := m.row(i)
		row[0], row[1], row[2], row[3] = r.Age, r.Fnlwgt, r.EducationNum, r.HoursPerWeek
		row[4] = boolf(r.CapitalGain > 0)
		row[5] = boolf(r.CapitalLoss > 0)
		row[6] = boolf(r.NativeCountry == "United-States")
		row[7] = boolf(adultBCouple[r.MaritalStatus])
		row[8+adultBWorkclass[r.Workclass]] = 1
		row[occ+adultLevelIndex[3][r.Occupation]] = 1
		row[rel+adultLevelIndex[4][r.Relationship]] = 1
		row[race+adultLevelIndex[5][r.Race]] = 1
		if r.Sex == "Male" {
			row[adultBSex] = 1
			g[i] = 1
		}
		y[i] = boolf(r.Over50K)
	}
	sc := m.standardize(seq(4), stats)
	d := m.dataset(y, adultLabel, len(recs)-len(keep), sc)
	d.Group, d.GroupColumn = g, adultBSex
	return d
}

func buildHeart(l *loader) (*Dataset, error) {
	recs, err := read(l, "statlog-heart/heart.dat", parseHeart)
	if err != nil {
		return nil, err
	}
	names := append(heartAttrs[:], "intercept")
	m := newDesign(names, len(recs))
	y := make([]float64, len(recs))
	for i, r := range recs {
		copy(m.row(i), r.Attrs[:])
		y[i] = boolf(r.Present)
	}
	sc := m.standardize(seq(13), nil)
	return m.dataset(y, "1 = heart disease present (class 2), 0 = absent (class 1)", 0, sc), nil
}

func labelsHeart(l *loader) ([]float64, error) {
	recs, err := read(l, "statlog-heart/heart.dat", parseHeart)
	if err != nil {
		return nil, err
	}
	y := make([]float64, len(recs))
	for i, r := range recs {
		y[i] = boolf(r.Present)
	}
	return y, nil
}

// abaloneSexes are the one-hot levels of the abalone sex, in abalone.names order.
var abaloneSexes = [3]string{"M", "F", "I"}

func buildAbalone(l *loader) (*Dataset, error) {
	recs, err := read(l, "abalone/abalone.data", parseAbalone)
	if err != nil {
		return nil, err
	}
	names := []string{"sex=M", "sex=F", "sex=I"}
	names = append(append(names, abaloneMeasurements[:]...), "intercept")
	m := newDesign(names, len(recs))
	y := make([]float64, len(recs))
	for i, r := range recs {
		row := m.row(i)
		for k, s := range abaloneSexes {
			if r.Sex == s {
				row[k] = 1
			}
		}
		copy(row[3:10], r.Measurements[:])
		y[i] = float64(r.Rings)
	}
	sc := m.standardize([]int{3, 4, 5, 6, 7, 8, 9}, nil)
	d := m.dataset(y, "number of rings (age in years = rings + 1.5)", 0, sc)
	d.Regression = true
	return d, nil
}

func labelsAbalone(l *loader) ([]float64, error) {
	recs, err := read(l, "abalone/abalone.data", parseAbalone)
	if err != nil {
		return nil, err
	}
	y := make([]float64, len(recs))
	for i, r := range recs {
		y[i] = float64(r.Rings)
	}
	return y, nil
}
