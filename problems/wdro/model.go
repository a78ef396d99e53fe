package wdro

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fedcon/fedcon/solver/adlpmm"
)

// Support is the support X of the features in Ω_s.
type Support int

const (
	// Box is X = [−1, 1]ⁿ (Proposition 6.3). Its dual variables π±, τ± ≥ 0
	// make the set valid also for rows x̂ outside the box (noisy features).
	Box Support = iota
	// Free is X = ℝⁿ: Ω_s needs only ‖w‖∞ ≤ λ (Corollary B.4 with no rows).
	Free
)

func (s Support) String() string {
	switch s {
	case Box:
		return "box"
	case Free:
		return "free"
	}
	return fmt.Sprintf("Support(%d)", int(s))
}

// ParseSupport reads "box" or "free".
func ParseSupport(s string) (Support, error) {
	switch s {
	case "box":
		return Box, nil
	case "free":
		return Free, nil
	}
	return 0, fmt.Errorf("wdro: support %q: want box or free", s)
}

// UnmarshalText reads "box" or "free" (a configuration's support key).
func (s *Support) UnmarshalText(b []byte) error {
	v, err := ParseSupport(string(b))
	if err != nil {
		return fmt.Errorf("%q: want box or free", string(b))
	}
	*s = v
	return nil
}

// MarshalText writes "box" or "free".
func (s Support) MarshalText() ([]byte, error) {
	if s != Box && s != Free {
		return nil, fmt.Errorf("wdro: unknown support %d", int(s))
	}
	return []byte(s.String()), nil
}

// Loss is the model's loss function.
type Loss int

const (
	// LossHinge is the SVM's hinge loss, labels ±1, transport cost
	// ‖x − x̂‖₁ + κ·1{y ≠ ŷ} (Prop. 6.3).
	LossHinge Loss = iota
	// LossHuber is Huber regression, real labels, transport cost
	// ‖x − x̂‖₁ + κ|y − ŷ| and Ξ = ℝⁿ⁺¹ (Cor. B.1).
	LossHuber
)

func (l Loss) String() string {
	switch l {
	case LossHinge:
		return "hinge"
	case LossHuber:
		return "huber"
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// ParseLoss reads "hinge" or "huber".
func ParseLoss(s string) (Loss, error) {
	switch s {
	case "hinge", "svm":
		return LossHinge, nil
	case "huber":
		return LossHuber, nil
	}
	return 0, fmt.Errorf("wdro: loss %q: want hinge or huber", s)
}

// Client is one client's training data and Wasserstein radius.
type Client struct {
	// X holds the N_s feature rows, each of length n.
	X [][]float64
	// Y holds the labels: −1 or +1 for the hinge loss, real for Huber.
	Y []float64
	// Rho is the radius ρ_s ≥ 0 of the ball around the empirical
	// distribution (ignored with Model.Epigraph).
	Rho float64
}

// Model is the loss, support and transport cost shared by all clients.
type Model struct {
	// Loss is the loss function (default LossHinge).
	Loss Loss
	// Epsilon is the Huber threshold ε > 0 (0: DefaultHuberEpsilon).
	Epsilon float64
	// Support is the feature support in Ω_s of the hinge loss (default
	// Box); Huber regression has Ξ = ℝⁿ⁺¹ and ignores it.
	Support Support
	// Kappa is the cost κ > 0 of flipping a label in the transport cost.
	Kappa float64
	// Epigraph replaces Ω_s by the epigraph of the empirical hinge loss
	// (α_si ≥ max(0, 1 − ŷ(⟨w, x̂⟩ + b)), λ_s = 0): AFL, eq. (18), and with
	// θ ≥ 2 DRFA, eq. (21).
	Epigraph bool
}

// ErrInput signifies invalid model data; errors wrapping it name the field.
// It is solver/adlpmm's ErrInput, so one errors.Is test covers both packages.
var ErrInput = adlpmm.ErrInput

func inputErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInput}, a...)...)
}

// Features returns n, the number of features of the clients (that of the
// first row of the first nonempty client).
func Features(clients []Client) int {
	for _, c := range clients {
		if len(c.X) > 0 {
			return len(c.X[0])
		}
	}
	return 0
}

// huberEps returns ε (DefaultHuberEpsilon when unset).
func (m Model) huberEps() float64 {
	if m.Epsilon == 0 {
		return DefaultHuberEpsilon
	}
	return m.Epsilon
}

// Validate checks the clients against the model: at least one client, every
// client nonempty with rows of one length n ≥ 1, labels ±1 (hinge) or
// finite (Huber), finite values, ρ_s ≥ 0, κ > 0 (unless Epigraph) and
// ε ≥ 0.
func Validate(clients []Client, m Model) error {
	if len(clients) == 0 {
		return inputErr("no clients")
	}
	if m.Loss != LossHinge && m.Loss != LossHuber {
		return inputErr("loss %v", m.Loss)
	}
	if !(m.Epsilon >= 0) || math.IsInf(m.Epsilon, 1) {
		return inputErr("epsilon = %v, want > 0 (0: %v)", m.Epsilon, DefaultHuberEpsilon)
	}
	if !m.Epigraph && (!(m.Kappa > 0) || math.IsInf(m.Kappa, 1)) {
		return inputErr("kappa = %v, want a finite value > 0", m.Kappa)
	}
	if m.Support != Box && m.Support != Free {
		return inputErr("support %v", m.Support)
	}
	n := Features(clients)
	if n == 0 {
		return inputErr("no features")
	}
	for s, c := range clients {
		if len(c.X) == 0 {
			return inputErr("client %d has no rows", s+1)
		}
		if len(c.Y) != len(c.X) {
			return inputErr("client %d: %d labels for %d rows", s+1, len(c.Y), len(c.X))
		}
		if !(c.Rho >= 0) || math.IsInf(c.Rho, 1) {
			return inputErr("client %d: rho = %v, want ≥ 0", s+1, c.Rho)
		}
		for i, x := range c.X {
			if len(x) != n {
				return inputErr("client %d row %d has %d features, want %d", s+1, i+1, len(x), n)
			}
			for j, v := range x {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return inputErr("client %d row %d feature %d = %v", s+1, i+1, j+1, v)
				}
			}
			y := c.Y[i]
			if m.Loss == LossHuber {
				if math.IsNaN(y) || math.IsInf(y, 0) {
					return inputErr("client %d row %d: label %v, want finite", s+1, i+1, y)
				}
			} else if y != 1 && y != -1 {
				return inputErr("client %d row %d: label %v, want ±1", s+1, i+1, y)
			}
		}
	}
	return nil
}

// Margin returns ⟨w, x⟩ + b for v = (w, b).
func Margin(v, x []float64) float64 {
	n := len(x)
	m := v[n]
	for j, xj := range x {
		m += v[j] * xj
	}
	return m
}

// HingeLoss returns the empirical hinge loss (1/N) Σ max(0, 1 − y(⟨w,x⟩+b)).
func HingeLoss(c Client, v []float64) float64 {
	var s float64
	for i, x := range c.X {
		s += math.Max(0, 1-c.Y[i]*Margin(v, x))
	}
	return s / float64(len(c.X))
}

// Accuracy returns the share of rows with sign(⟨w,x⟩+b) = y. A margin
// within MarginTol·(1 + ‖x‖₁) of zero is below the solvers' accuracy and
// counts as zero, predicted +1. Large radii make w = 0 optimal with b
// anywhere on a face; there an interior point returns w ~ 1e-9 that still
// points somewhere useful (80% validation accuracy on heart) and Algorithm 1
// w ~ 1e-19 with b ~ 1e-16 (44%): both are the constant classifier.
func Accuracy(X [][]float64, Y []float64, v []float64) float64 {
	if len(X) == 0 {
		return math.NaN()
	}
	ok := 0
	for i, x := range X {
		p := 1.0
		if m := Margin(v, x); m < 0 && -m > MarginTol*(1+floats.Norm(x, 1)) {
			p = -1
		}
		if p == Y[i] {
			ok++
		}
	}
	return float64(ok) / float64(len(X))
}

// MarginTol is the margin below which Accuracy sees no decision: the
// interior point's tolerance in cross-validation.
const MarginTol = 1e-6

// supTerm returns sup_{x ∈ X} a·(x − x̂) − λ|x − x̂| for one coordinate:
// 0 if |a| ≤ λ and x̂ ∈ X, and otherwise the larger of the values at the
// candidate points {−1, clip(x̂), 1} (the function is concave and piecewise
// linear in x with kinks only there). With Free support it is 0 for
// |a| ≤ λ and +Inf otherwise.
func supTerm(a, lam, xh float64, sup Support) float64 {
	if sup == Free {
		if math.Abs(a) <= lam {
			return 0
		}
		return math.Inf(1)
	}
	f := func(x float64) float64 { return a*(x-xh) - lam*math.Abs(x-xh) }
	return math.Max(f(math.Min(math.Max(xh, -1), 1)), math.Max(f(-1), f(1)))
}

// sampleSup returns sup_{x ∈ X} 1 − y(⟨w, x⟩ + b) − λ‖x − x̂‖₁, the
// affine branch of the hinge loss for one label y, in closed form.
func sampleSup(v, xh []float64, y, lam float64, sup Support) float64 {
	aff := 1 - y*Margin(v, xh)
	for j := range xh {
		aff += supTerm(-y*v[j], lam, xh[j], sup)
	}
	return aff
}

// lossAt returns ρλ + (1/N)Σ_i max(0, keep_i, flip_i − κλ), with keep and
// flip the affine branches for ŷ_i and −ŷ_i. The zero branch is taken as 0,
// as α ≥ 0 in Proposition 6.3: exact for x̂ ∈ X, and an upper bound of the
// supremum (−λ·dist(x̂, X)) for a noisy row outside the box.
func lossAt(c Client, m Model, v []float64, lam float64) float64 {
	s := 0.0
	for i, x := range c.X {
		keep := sampleSup(v, x, c.Y[i], lam, m.Support)
		flip := sampleSup(v, x, -c.Y[i], lam, m.Support) - m.Kappa*lam
		s += math.Max(0, math.Max(keep, flip))
	}
	return c.Rho*lam + s/float64(len(c.X))
}

// WorstCaseLoss returns f_s(v), client c's worst-case expected loss over
// its Wasserstein ball (Proposition 4.2), and the minimising λ. For Huber
// it is the closed form of huberWorstCase. For the hinge loss it is a
// golden-section search over λ ∈ [λ_min, λ_max] of the convex function
// lossAt, with the inner suprema in closed form. With Epigraph it returns
// the empirical hinge loss and λ = 0. The result is accurate to about
// 1e-12 relative (80 golden-section steps on a piecewise-linear function).
func WorstCaseLoss(c Client, m Model, v []float64) (loss, lam float64) {
	if m.Loss == LossHuber {
		return huberWorstCase(c, m, v)
	}
	if m.Epigraph {
		return HingeLoss(c, v), 0
	}
	n := len(v) - 1
	var wInf, w1, xMax float64
	for j := range n {
		wInf = math.Max(wInf, math.Abs(v[j]))
		w1 += math.Abs(v[j])
	}
	for _, x := range c.X {
		for _, xj := range x {
			xMax = math.Max(xMax, math.Abs(xj))
		}
	}
	lo := 0.0
	if m.Support == Free {
		lo = wInf // below it the supremum is +Inf
	}
	// Beyond ‖w‖∞ every coordinate term stops rising and the flipped branch
	// falls with slope κ; rows outside the box keep falling (slope ≥ their
	// distance to it) until the zero floor. By convexity the minimiser is
	// below any h with f(2h) ≥ f(h): double until then.
	f := func(l float64) float64 { return lossAt(c, m, v, l) }
	h := wInf + (2+2*math.Abs(v[n])+2*w1*(1+xMax))/m.Kappa + 1
	for range 64 {
		if f(2*h) >= f(h) {
			break
		}
		h *= 2
	}
	hi := 2 * h
	const g = 0.6180339887498949
	a, b := lo, hi
	x1, x2 := b-g*(b-a), a+g*(b-a)
	f1, f2 := f(x1), f(x2)
	for range 200 {
		if f1 <= f2 {
			b, x2, f2 = x2, x1, f1
			x1 = b - g*(b-a)
			f1 = f(x1)
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = a + g*(b-a)
			f2 = f(x2)
		}
		if b-a <= 1e-14*(1+b) {
			break
		}
	}
	best, bl := f(lo), lo
	for _, l := range []float64{a, b, x1, x2} {
		if v := f(l); v < best {
			best, bl = v, l
		}
	}
	return best, bl
}
