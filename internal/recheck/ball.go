package recheck

import (
	"fmt"
	"math"
)

// unitRoundoff is u = 2^-53.
const unitRoundoff = 0x1p-53

// BallData is a norm ball ||Gw − H||₂ <= T by rows.
type BallData struct {
	G [][]float64
	H []float64
	T float64
}

// EqQPBall returns the minimiser w*, the ball's multiplier λ* and f* of
// Σ_i f_i subject to every party's equalities and one norm ball. For λ >= 0
// the minimiser w(λ) of Σ_i f_i + (λ/2)||Gw − H||₂² on the equalities is an
// EqQP with one more party (A = λGᵀG, B = −λGᵀH), and ψ(λ) = ||Gw(λ) − H||₂
// is nonincreasing in λ: λ* = 0 when w(0) lies in the ball, else the root of
// ψ(λ) = T, bracketed by doubling and narrowed by safeguarded regula
// falsi to a relative width of 2u (u = 2^-53). w* = w(hi), the end of the
// bracket inside the ball.
func EqQPBall(parties []QPData, ball BallData, d int) (w []float64, lambda, fstar float64, err error) {
	gtg := make([][]float64, d)
	for i := range gtg {
		gtg[i] = make([]float64, d)
	}
	gth := make([]float64, d)
	for r, row := range ball.G {
		for i, gi := range row {
			gth[i] += gi * ball.H[r]
			for j, gj := range row {
				gtg[i][j] += gi * gj
			}
		}
	}
	at := func(l float64) ([]float64, float64, error) {
		a := make([][]float64, d)
		b := make([]float64, d)
		for i := range a {
			a[i] = make([]float64, d)
			for j := range a[i] {
				a[i][j] = l * gtg[i][j]
			}
			b[i] = -l * gth[i]
		}
		w, _, _, err := EqQP(append(parties[:len(parties):len(parties)], QPData{A: a, B: b}), d)
		if err != nil {
			return nil, 0, err
		}
		var s float64
		for r, row := range ball.G {
			e := -ball.H[r]
			for j, g := range row {
				e += g * w[j]
			}
			s += e * e
		}
		return w, math.Sqrt(s), nil
	}
	w, psi, err := at(0)
	if err != nil {
		return nil, 0, 0, err
	}
	lo, hi := 0.0, 0.0
	if psi > ball.T {
		// φ(λ) = 1/ψ(λ) − 1/T: negative at lo, >= 0 at hi, and nearly
		// linear (exactly so for G = I and no equalities), so regula falsi
		// (Illinois) takes few steps; a step that does not halve the
		// bracket is followed by a bisection, so it ends at adjacent floats
		// in at most about twice bisection's steps.
		phi := func(p float64) float64 { return 1/p - 1/ball.T }
		flo := phi(psi)
		var fhi float64
		for hi = 1; ; hi *= 2 {
			if hi > 1e300 {
				return nil, 0, 0, fmt.Errorf("recheck: no ball multiplier up to 1e300 (an empty ball?)")
			}
			if w, psi, err = at(hi); err != nil {
				return nil, 0, 0, err
			}
			if psi <= ball.T {
				fhi = phi(psi)
				break
			}
			lo, flo = hi, phi(psi)
		}
		side, bisect := 0, false
		for hi-lo > 2*unitRoundoff*hi {
			mid := lo + (hi-lo)/2
			if !bisect && fhi > flo {
				if x := hi - fhi*(hi-lo)/(fhi-flo); x > lo && x < hi {
					mid = x
				}
			}
			if mid <= lo || mid >= hi {
				break
			}
			wm, pm, err := at(mid)
			if err != nil {
				return nil, 0, 0, err
			}
			width := hi - lo
			if pm <= ball.T {
				hi, fhi, w = mid, phi(pm), wm
				if side == 1 {
					flo /= 2
				}
				side = 1
			} else {
				lo, flo = mid, phi(pm)
				if side == -1 {
					fhi /= 2
				}
				side = -1
			}
			bisect = !bisect && hi-lo > width/2
		}
	}
	for _, p := range parties {
		fstar += QP(p.A, p.B, p.C, p.D, w).F
	}
	return w, hi, fstar, nil
}
