package experiments

import (
	"encoding/json"
	"testing"
)

// TestNamesText: a string enum accepts its names (and the empty default
// where it has one), refuses others listing the valid ones, and encodes
// to JSON as the plain string would, so that hashes do not move.
func TestNamesText(t *testing.T) {
	cases := []struct {
		in      string
		w0, rng string // what W0 and RNG decode to, or the error
	}{
		{"ones", "ones", `"ones": want fedcon or numpy`},
		{"numpy", `"numpy": want sphere, ones or zeros`, "numpy"},
		{"", "", `"": want fedcon or numpy`},
		{"Ones", `"Ones": want sphere, ones or zeros`, `"Ones": want fedcon or numpy`},
	}
	for _, tc := range cases {
		var w W0
		if err := w.UnmarshalText([]byte(tc.in)); err != nil && err.Error() != tc.w0 || err == nil && string(w) != tc.w0 {
			t.Errorf("W0 %q: %q, %v; want %s", tc.in, w, err, tc.w0)
		}
		var r RNG
		if err := r.UnmarshalText([]byte(tc.in)); err != nil && err.Error() != tc.rng || err == nil && string(r) != tc.rng {
			t.Errorf("RNG %q: %q, %v; want %s", tc.in, r, err, tc.rng)
		}
	}
	typed, err := json.Marshal(struct {
		W0  W0  `json:"w0,omitempty"`
		RNG RNG `json:"rng"`
	}{"ones", "numpy"})
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := json.Marshal(struct {
		W0  string `json:"w0,omitempty"`
		RNG string `json:"rng"`
	}{"ones", "numpy"})
	if string(typed) != string(plain) {
		t.Errorf("typed JSON %s, plain %s", typed, plain)
	}
}
