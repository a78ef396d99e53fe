package datasets

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// parsers maps each parser to a record counter, for table-driven tests.
var parsers = map[string]func([]byte, string) (int, error){
	"adult":   counter(parseAdult),
	"breast":  counter(parseBreastCancer),
	"monks":   counter(parseMonks),
	"heart":   counter(parseHeart),
	"abalone": counter(parseAbalone),
}

const (
	adultLine1 = "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K"
	adultLine2 = "54, ?, 180211, Some-college, 10, Married-civ-spouse, ?, Husband, Asian-Pac-Islander, Male, 0, 0, 60, ?, >50K."
)

func TestParsers(t *testing.T) {
	tests := []struct {
		name, parser, in string
		want             int    // records, when no error
		errLine          int    // line of the *ParseError, 0 for none
		errHas           string // substring of the error message
	}{
		{name: "adult/plain", parser: "adult", in: adultLine1 + "\n" + adultLine2 + "\n", want: 2},
		{name: "adult/crlf+blanks", parser: "adult", in: "\r\n" + adultLine1 + "  \r\n\r\n" + adultLine2 + "\r\n\r\n", want: 2},
		{name: "adult/comment first", parser: "adult", in: "|1x3 Cross validator\n" + adultLine2 + "\n", want: 1},
		{name: "adult/header", parser: "adult", in: strings.Join(adultColumns[:], ", ") + "\n" + adultLine1, want: 1},
		{name: "adult/no spaces", parser: "adult", in: strings.ReplaceAll(adultLine1, ", ", ","), want: 1},
		{name: "adult/short line", parser: "adult", in: adultLine1 + "\n39, State-gov, 77516\n", errLine: 2, errHas: "expected 15 comma-separated fields, got 3"},
		{name: "adult/bad number", parser: "adult", in: strings.Replace(adultLine1, "77516", "77x16", 1), errLine: 1, errHas: "fnlwgt"},
		{name: "adult/missing number", parser: "adult", in: strings.Replace(adultLine1, "39,", "?,", 1), errLine: 1, errHas: "expected a number for age"},
		{name: "adult/unknown level", parser: "adult", in: strings.Replace(adultLine1, "State-gov", "Space-gov", 1), errLine: 1, errHas: "workclass"},
		{name: "adult/? where never missing", parser: "adult", in: strings.Replace(adultLine1, "Male", "?", 1), errLine: 1, errHas: "sex"},
		{name: "adult/bad label", parser: "adult", in: strings.Replace(adultLine1, "<=50K", "50K", 1), errLine: 1, errHas: "label"},
		{name: "adult/second header is data", parser: "adult", in: adultLine1 + "\nage, workclass\n", errLine: 2},
		{name: "adult/NaN is not a number", parser: "adult", in: strings.Replace(adultLine1, "39,", "NaN,", 1), errLine: 1},
		{name: "adult/empty", parser: "adult", in: "", errLine: 1, errHas: "found none"},
		{name: "adult/only blanks", parser: "adult", in: "\n \r\n\t\n", errLine: 3, errHas: "found none"},
		{name: "adult/truncated", parser: "adult", in: adultLine1 + "\n" + adultLine2[:30], errLine: 2},

		{name: "breast/plain", parser: "breast", in: "1000025,5,1,1,1,2,1,3,1,1,2\n1057013,8,4,5,1,2,?,7,3,1,4\n", want: 2},
		{name: "breast/header", parser: "breast", in: "id,a,b,c,d,e,f,g,h,i,class\r\n1000025,5,1,1,1,2,1,3,1,1,2\r\n", want: 1},
		{name: "breast/out of range", parser: "breast", in: "1000025,5,1,1,1,2,11,3,1,1,2\n", errLine: 1, errHas: "bare-nuclei"},
		{name: "breast/bad class", parser: "breast", in: "1000025,5,1,1,1,2,1,3,1,1,3\n", errLine: 1, errHas: "class 2 or 4"},
		{name: "breast/bad id", parser: "breast", in: "10x,5,1,1,1,2,1,3,1,1,2\n", errLine: 1, errHas: "sample id"},

		{name: "monks/plain", parser: "monks", in: " 1 1 1 1 1 3 1 data_5\n 0 1 1 1 1 3 2 data_6\n", want: 2},
		{name: "monks/tabs no id", parser: "monks", in: "1\t1\t1 1 1 3 1\r\n", want: 1},
		{name: "monks/out of range", parser: "monks", in: " 1 1 1 3 1 3 1 data_5\n", errLine: 1, errHas: "a3 in 1..2"},
		{name: "monks/too few", parser: "monks", in: " 1 1 1 1 1 3 1 data_5\n 1 1 1\n", errLine: 2, errHas: "got 3"},

		{name: "heart/plain", parser: "heart", in: "70.0 1.0 4.0 130.0 322.0 0.0 2.0 109.0 0.0 2.4 2.0 3.0 3.0 2\n", want: 1},
		{name: "heart/bad class", parser: "heart", in: "70.0 1.0 4.0 130.0 322.0 0.0 2.0 109.0 0.0 2.4 2.0 3.0 3.0 0\n", errLine: 1, errHas: "class 1 or 2"},
		{name: "heart/garbled", parser: "heart", in: "70.0 1.0 4.0 130.0 322.0 0.0 2.0 109.0 0.0 2.4 2.0 3.0 3.0 2\n\x00\x01\x02 zz\n", errLine: 2},

		{name: "abalone/plain", parser: "abalone", in: "M,0.455,0.365,0.095,0.514,0.2245,0.101,0.15,15\nI,0.33,0.255,0.08,0.205,0.0895,0.0395,0.055,7", want: 2},
		{name: "abalone/header", parser: "abalone", in: "Sex,Length,Diameter,Height,Whole,Shucked,Viscera,Shell,Rings\nM,0.455,0.365,0.095,0.514,0.2245,0.101,0.15,15\n", want: 1},
		{name: "abalone/bad sex", parser: "abalone", in: "X,0.455,0.365,0.095,0.514,0.2245,0.101,0.15,15\n", errLine: 1, errHas: "M, F or I"},
		{name: "abalone/fractional rings", parser: "abalone", in: "M,0.455,0.365,0.095,0.514,0.2245,0.101,0.15,1.5\n", errLine: 1, errHas: "rings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := parsers[tt.parser]([]byte(tt.in), "sample.txt")
			if tt.errLine == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if n != tt.want {
					t.Fatalf("got %d records, want %d", n, tt.want)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got error %v, want a *ParseError", err)
			}
			if pe.Line != tt.errLine || pe.File != "sample.txt" {
				t.Errorf("error at %s:%d, want sample.txt:%d (%v)", pe.File, pe.Line, tt.errLine, err)
			}
			if !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("error %q does not mention %q", err, tt.errHas)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans several lines: %q", err)
			}
		})
	}
}

func TestParseValues(t *testing.T) {
	recs, err := ParseAdult(strings.NewReader(adultLine1+"\n"+adultLine2), "a")
	if err != nil {
		t.Fatal(err)
	}
	a, b := recs[0], recs[1]
	if a.Age != 39 || a.Fnlwgt != 77516 || a.CapitalGain != 2174 || a.Workclass != "State-gov" ||
		a.NativeCountry != "United-States" || a.Over50K || a.Missing() || a.Line != 1 {
		t.Errorf("first record = %+v", a)
	}
	if !b.Over50K || !b.Missing() || b.Workclass != "?" || b.Line != 2 {
		t.Errorf("second record = %+v", b)
	}

	bc, err := ParseBreastCancer(strings.NewReader("1057013,8,4,5,1,2,?,7,3,1,4\n"), "b")
	if err != nil {
		t.Fatal(err)
	}
	if !bc[0].Malignant || !bc[0].Missing() || !math.IsNaN(bc[0].Attrs[5]) || bc[0].Attrs[0] != 8 || bc[0].ID != "1057013" {
		t.Errorf("breast record = %+v", bc[0])
	}

	mk, err := ParseMonks(strings.NewReader(" 1 3 3 2 3 4 2 data_432\n"), "m")
	if err != nil {
		t.Fatal(err)
	}
	if mk[0] != (MonksRecord{Class: 1, Attrs: [6]int{3, 3, 2, 3, 4, 2}, ID: "data_432", Line: 1}) {
		t.Errorf("monks record = %+v", mk[0])
	}

	ab, err := ParseAbalone(strings.NewReader("F,0.53,0.42,0.135,0.677,0.2565,0.1415,0.21,9\n"), "ab")
	if err != nil {
		t.Fatal(err)
	}
	if ab[0].Sex != "F" || ab[0].Rings != 9 || ab[0].Measurements[6] != 0.21 {
		t.Errorf("abalone record = %+v", ab[0])
	}

	hr, err := ParseHeart(strings.NewReader("67.0 0.0 3.0 115.0 564.0 0.0 2.0 160.0 0.0 1.6 2.0 0.0 7.0 1\n"), "h")
	if err != nil {
		t.Fatal(err)
	}
	if hr[0].Present || hr[0].Attrs[4] != 564 || hr[0].Attrs[12] != 7 {
		t.Errorf("heart record = %+v", hr[0])
	}
}

// errReader fails every read.
type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestParseReadError(t *testing.T) {
	_, err := ParseMonks(errReader{}, "m")
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.HasPrefix(err.Error(), "datasets: ") {
		t.Fatalf("got %v", err)
	}
}
