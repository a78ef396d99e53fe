package solver

import "testing"

// TestEnumText: the configuration enums of the solver read and write
// their names, and refuse any other text naming the valid ones.
func TestEnumText(t *testing.T) {
	for _, r := range []RhoRule{RhoFixed, RhoBalance, RhoAdaptive, RhoHessian} {
		b, err := r.MarshalText()
		if err != nil || string(b) != r.String() {
			t.Errorf("%v: MarshalText %q, %v", r, b, err)
		}
		var back RhoRule = -1
		if err := back.UnmarshalText(b); err != nil || back != r {
			t.Errorf("%q: UnmarshalText %v, %v", b, back, err)
		}
	}
	for _, it := range []InnerTest{InnerTestPaper, InnerTestMeasured} {
		b, err := it.MarshalText()
		if err != nil || string(b) != it.String() {
			t.Errorf("%v: MarshalText %q, %v", it, b, err)
		}
		var back InnerTest = -1
		if err := back.UnmarshalText(b); err != nil || back != it {
			t.Errorf("%q: UnmarshalText %v, %v", b, back, err)
		}
	}
	var r RhoRule
	if err := r.UnmarshalText([]byte("osqp")); err == nil || err.Error() != `unknown rho rule "osqp": want fixed (the paper), balance, adaptive or hessian` {
		t.Errorf("osqp: %v", err)
	}
	var it InnerTest
	if err := it.UnmarshalText([]byte("")); err == nil || err.Error() != `"": want paper or measured` {
		t.Errorf("empty inner test: %v", err)
	}
	if _, err := RhoRule(7).MarshalText(); err == nil {
		t.Error("RhoRule(7) has a name")
	}
}
