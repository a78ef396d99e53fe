package datasets

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// checkParse is the property every parser must have: no panic (the fuzzer
// reports one), and either records with valid fields or a *ParseError at a
// line that exists.
func checkParse[T any](t *testing.T, data []byte, parse func([]byte, string) ([]T, error), valid func(*T) bool) {
	recs, err := parse(data, "fuzz")
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line < 1 || pe.File != "fuzz" {
			t.Fatalf("error %v is not a *ParseError with a line", err)
		}
		return
	}
	if len(recs) == 0 {
		t.Fatal("no error and no records")
	}
	for i := range recs {
		if !valid(&recs[i]) {
			t.Fatalf("record %d invalid: %+v", i, recs[i])
		}
	}
}

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func FuzzParseAdult(f *testing.F) {
	f.Add([]byte(adultLine1 + "\n" + adultLine2 + "\n"))
	f.Add([]byte("|1x3 Cross validator\r\n" + adultLine2 + "\r\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, parseAdult, func(r *AdultRecord) bool {
			return finite(r.Age, r.Fnlwgt, r.EducationNum, r.CapitalGain, r.CapitalLoss, r.HoursPerWeek) && r.Sex != "" && r.Line >= 1
		})
	})
}

func FuzzParseBreastCancer(f *testing.F) {
	f.Add([]byte("1000025,5,1,1,1,2,1,3,1,1,2\n1057013,8,4,5,1,2,?,7,3,1,4\n"))
	f.Add([]byte("id,a,b,c,d,e,f,g,h,i,class\r\n1,1,1,1,1,1,1,1,1,1,4"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, parseBreastCancer, func(r *BreastCancerRecord) bool {
			for _, v := range r.Attrs {
				if !math.IsNaN(v) && (v < 1 || v > 10) {
					return false
				}
			}
			return r.Line >= 1
		})
	})
}

func FuzzParseMonks(f *testing.F) {
	f.Add([]byte(" 1 1 1 1 1 3 1 data_5\n 0 1 1 1 1 3 2 data_6\n"))
	f.Add([]byte("1\t3 3 2 3 4 2\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, parseMonks, func(r *MonksRecord) bool {
			for i, v := range r.Attrs {
				if v < 1 || v > monksLevels[i] {
					return false
				}
			}
			return (r.Class == 0 || r.Class == 1) && r.Line >= 1
		})
	})
}

func FuzzParseHeart(f *testing.F) {
	f.Add([]byte("70.0 1.0 4.0 130.0 322.0 0.0 2.0 109.0 0.0 2.4 2.0 3.0 3.0 2\n"))
	f.Add([]byte("67 0 3 115 564 0 2 160 0 1.6 2 0 7 1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, parseHeart, func(r *HeartRecord) bool {
			return finite(r.Attrs[:]...) && r.Line >= 1
		})
	})
}

func FuzzParseAbalone(f *testing.F) {
	f.Add([]byte("M,0.455,0.365,0.095,0.514,0.2245,0.101,0.15,15\n"))
	f.Add([]byte("Sex,Length,Diameter,Height,Whole,Shucked,Viscera,Shell,Rings\r\nI,1,1,1,1,1,1,1,0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, parseAbalone, func(r *AbaloneRecord) bool {
			return (r.Sex == "M" || r.Sex == "F" || r.Sex == "I") && finite(r.Measurements[:]...) && r.Rings >= 0
		})
	})
}

// checkOwn is the property of the user-data readers: no panic, either a
// table or a *ParseError at a line that exists; and Build of a table with
// the default spec gives a Dataset with finite entries or a one-line
// *ParseError or *RequestError.
func checkOwn(t *testing.T, data []byte, parse func([]byte, string) (*Table, error)) {
	tb, err := parse(data, "fuzz")
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line < 1 || pe.File != "fuzz" || strings.Contains(err.Error(), "\n") {
			t.Fatalf("error %q is not a one-line *ParseError with a line", err)
		}
		return
	}
	if tb.Rows() == 0 || len(tb.Names) == 0 {
		t.Fatal("no error and no rows")
	}
	d, err := Build(tb, OwnSpec{ServerFraction: 0.5}, 1)
	if err != nil {
		var pe *ParseError
		var re *RequestError
		if !errors.As(err, &pe) && !errors.As(err, &re) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("build error %q is not a one-line *ParseError or *RequestError", err)
		}
		return
	}
	for _, ds := range []*Dataset{d, d.Server} {
		if ds == nil {
			continue
		}
		if r, c := ds.X.Dims(); r != ds.Rows() || c != len(ds.FeatureNames) {
			t.Fatalf("X is %dx%d for %d rows, %d features", r, c, ds.Rows(), len(ds.FeatureNames))
		}
		if !finite(ds.X.RawMatrix().Data...) {
			t.Fatal("non-finite design matrix entry")
		}
		for _, y := range ds.Y {
			if y != 0 && y != 1 {
				t.Fatalf("label %v", y)
			}
		}
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add([]byte("a,b,y\n1,x,0\n2,z,1\n3,x,1\n"))
	f.Add([]byte("\"a\";b\r\n1;?\r\n2;3\r\n"))
	f.Add([]byte("x\ty\n1e308\t0\n-1e308\t1\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) { checkOwn(t, data, parseCSV) })
}

func FuzzParseLIBSVM(f *testing.F) {
	f.Add([]byte("+1 1:0.5 3:2\n-1 qid:1 2:1 # c\n"))
	f.Add([]byte("0 1:1\n1\n2 4:1e-300\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) { checkOwn(t, data, parseLIBSVM) })
}
