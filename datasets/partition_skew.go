package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// PartitionBySite gives client k the rows whose site is k (see
// Dataset.Site): a natural federated split, one client per value of a
// column. Nothing is dropped and nothing is random. A *RequestError is
// returned when a site index is outside 0..n-1 or a client has no rows.
func PartitionBySite(site []int, n int) ([][]int, error) {
	if n < 1 {
		return nil, &RequestError{Field: "clients", Value: n, Reason: "must be at least 1"}
	}
	clients := make([][]int, n)
	for i, s := range site {
		if s < 0 || s >= n {
			return nil, &RequestError{Field: "site", Value: s, Reason: fmt.Sprintf("row %d: not in 0..%d", i, n-1)}
		}
		clients[s] = append(clients[s], i)
	}
	for k, c := range clients {
		if len(c) == 0 {
			return nil, &RequestError{Field: "clients", Value: n, Reason: fmt.Sprintf("client %d has no rows", k+1)}
		}
	}
	return clients, nil
}

// PartitionDirichlet splits the rows of a classification dataset among n
// clients with Dirichlet(alpha) label skew (small alpha: each client sees
// mostly one class; large alpha: close to the class ratio). For each class
// in increasing label order, its row indices (increasing) are shuffled with
// rng; client i first receives the i-th of them, so that every client has
// every class, and the rest are cut in client order in the proportions
// p ~ Dirichlet(alpha, ..., alpha) drawn from rng (client k gets the rows
// from round(m·(p_1+...+p_{k-1})) to round(m·(p_1+...+p_k))). Nothing is
// dropped; each client's indices are sorted. The result is a pure function
// of (y, n, alpha, the state of rng).
//
// A *RequestError is returned when n < 1, alpha is not a finite number > 0,
// y is empty or holds a NaN, or a class has fewer rows than clients.
func PartitionDirichlet(y []float64, n int, alpha float64, rng *rand.Rand) ([][]int, error) {
	switch {
	case n < 1:
		return nil, &RequestError{Field: "clients", Value: n, Reason: "must be at least 1"}
	case !(alpha > 0) || math.IsInf(alpha, 0):
		return nil, &RequestError{Field: "dirichlet-alpha", Value: alpha, Reason: "must be a finite number > 0"}
	case len(y) == 0:
		return nil, &RequestError{Field: "clients", Value: n, Reason: "there are no rows to partition"}
	}
	byClass, labels, err := classRows(y, n)
	if err != nil {
		return nil, err
	}
	clients := make([][]int, n)
	p := make([]float64, n)
	for _, v := range labels {
		idx := byClass[v]
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for i := range clients {
			clients[i] = append(clients[i], idx[i])
		}
		rest := idx[n:]
		dirichlet(p, alpha, rng)
		var cum float64
		lo := 0
		for k := range clients {
			cum += p[k]
			hi := int(math.Round(cum * float64(len(rest))))
			if k == n-1 {
				hi = len(rest)
			}
			hi = min(max(hi, lo), len(rest))
			clients[k] = append(clients[k], rest[lo:hi]...)
			lo = hi
		}
	}
	for _, c := range clients {
		slices.Sort(c)
	}
	return clients, nil
}

// dirichlet fills p with a Dirichlet(alpha, ..., alpha) draw: independent
// Gamma(alpha) variables, normalised. They are kept as logarithms so that a
// small alpha, whose draws underflow, still gives proportions summing to 1.
func dirichlet(p []float64, alpha float64, rng *rand.Rand) {
	top := math.Inf(-1)
	for k := range p {
		p[k] = logGamma(alpha, rng)
		top = max(top, p[k])
	}
	var sum float64
	for k := range p {
		p[k] = math.Exp(p[k] - top)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
}

// logGamma returns the logarithm of a Gamma(alpha, 1) draw: Marsaglia and
// Tsang's method (ACM TOMS 26(3), 2000) for alpha >= 1, and for alpha < 1
// their boost Gamma(alpha) = Gamma(alpha+1)·U^(1/alpha).
func logGamma(alpha float64, rng *rand.Rand) float64 {
	if alpha < 1 {
		u := 1 - rng.Float64() // in (0, 1]: log u is finite
		return logGamma(alpha+1, rng) + math.Log(u)/alpha
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - rng.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return math.Log(d) + math.Log(v)
		}
	}
}
