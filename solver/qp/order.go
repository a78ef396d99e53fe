package qp

import "math"

// kktGraph returns the adjacency lists of the sparsity graph of the KKT
// matrix [P Aᵀ; A 0]: node j < n is variable j, node n+i constraint row i.
func kktGraph(P, A *CSC) [][]int {
	n, m := P.N, A.M
	deg := make([]int, n+m)
	for j := 0; j < n; j++ {
		for p := P.P[j]; p < P.P[j+1]; p++ {
			if i := P.I[p]; i != j {
				deg[i]++
				deg[j]++
			}
		}
		for p := A.P[j]; p < A.P[j+1]; p++ {
			deg[j]++
			deg[n+A.I[p]]++
		}
	}
	adj := make([][]int, n+m)
	for v := range adj {
		adj[v] = make([]int, 0, deg[v])
	}
	for j := 0; j < n; j++ {
		for p := P.P[j]; p < P.P[j+1]; p++ {
			if i := P.I[p]; i != j {
				adj[i] = append(adj[i], j)
				adj[j] = append(adj[j], i)
			}
		}
		for p := A.P[j]; p < A.P[j+1]; p++ {
			r := n + A.I[p]
			adj[j] = append(adj[j], r)
			adj[r] = append(adj[r], j)
		}
	}
	return adj
}

// minDegree returns an elimination order of the nodes of the graph adj
// (which it consumes) not marked in skip, by the exact minimum-degree rule on
// the explicit elimination graph: repeatedly eliminate a node of smallest
// current degree and join its neighbours into a clique. Nodes are kept in
// degree buckets (doubly linked lists), so ties go to the node most recently
// given that degree; the result is deterministic. Memory and time grow with
// the fill of the factor.
func minDegree(adj [][]int, skip []bool) []int {
	N := len(adj)
	alive := make([]bool, N)
	deg := make([]int, N)
	head := make([]int, N+1)
	next := make([]int, N)
	prev := make([]int, N)
	for d := range head {
		head[d] = -1
	}
	insert := func(v int) {
		d := deg[v]
		prev[v] = -1
		next[v] = head[d]
		if head[d] >= 0 {
			prev[head[d]] = v
		}
		head[d] = v
	}
	remove := func(v int) {
		if prev[v] >= 0 {
			next[prev[v]] = next[v]
		} else {
			head[deg[v]] = next[v]
		}
		if next[v] >= 0 {
			prev[next[v]] = prev[v]
		}
	}
	count := 0
	for v := 0; v < N; v++ {
		alive[v] = skip == nil || !skip[v]
	}
	for v := N - 1; v >= 0; v-- {
		if !alive[v] {
			continue
		}
		// Drop edges to skipped nodes.
		k := 0
		for _, w := range adj[v] {
			if alive[w] {
				adj[v][k] = w
				k++
			}
		}
		adj[v] = adj[v][:k]
		deg[v] = k
		insert(v)
		count++
	}
	mark := make([]int, N)
	stamp := 0
	order := make([]int, 0, count)
	var nb []int
	mindeg := 0
	for len(order) < count {
		for head[mindeg] < 0 {
			mindeg++
		}
		v := head[mindeg]
		remove(v)
		alive[v] = false
		order = append(order, v)
		nb = nb[:0]
		for _, w := range adj[v] {
			if alive[w] {
				nb = append(nb, w)
			}
		}
		adj[v] = nil
		for _, u := range nb {
			stamp++
			mark[u] = stamp
			list := adj[u][:0]
			for _, w := range adj[u] {
				if alive[w] && mark[w] != stamp {
					mark[w] = stamp
					list = append(list, w)
				}
			}
			for _, w := range nb {
				if mark[w] != stamp {
					mark[w] = stamp
					list = append(list, w)
				}
			}
			adj[u] = list
			if len(list) != deg[u] {
				remove(u)
				deg[u] = len(list)
				insert(u)
				if deg[u] < mindeg {
					mindeg = deg[u]
				}
			}
		}
	}
	return order
}

// autoOrdering is the ordering used when Settings.Ordering is nil: nodes
// whose degree exceeds max(16, 10·√(n+m)) are treated as dense (as AMD does)
// and ordered last by increasing degree; the rest are ordered by minDegree.
// On a problem made of independent blocks coupled through a few shared
// variables this finds the arrow ordering by itself.
func autoOrdering(P, A *CSC) []int {
	adj := kktGraph(P, A)
	N := len(adj)
	thr := int(math.Max(16, 10*math.Sqrt(float64(N))))
	skip := make([]bool, N)
	var dense []int
	for v := range adj {
		if len(adj[v]) > thr {
			skip[v] = true
			dense = append(dense, v)
		}
	}
	degs := make([]int, N)
	for _, v := range dense {
		degs[v] = len(adj[v])
	}
	order := minDegree(adj, skip)
	// insertion sort of the (few) dense nodes by degree, then index
	for a := 1; a < len(dense); a++ {
		for b := a; b > 0 && (degs[dense[b]] < degs[dense[b-1]] || degs[dense[b]] == degs[dense[b-1]] && dense[b] < dense[b-1]); b-- {
			dense[b], dense[b-1] = dense[b-1], dense[b]
		}
	}
	return append(order, dense...)
}

// ArrowOrdering returns an elimination order for Settings.Ordering in which
// the KKT indices listed in shared come last, in the order given, and all
// other indices come first in minimum-degree order. KKT index j < n is
// variable j and n+i is constraint row i.
//
// For a problem made of per-sample blocks coupled only through a few shared
// variables (and rows), listing those in shared makes the factor an arrow:
// each block fills in only within itself and towards the shared indices, so
// the factorisation costs O(Σ block² + (n+m)·len(shared)). Rows that couple
// several blocks should be listed in shared as well.
//
// ArrowOrdering returns an *InputError if prob is invalid or shared holds an
// index out of range or a duplicate.
func ArrowOrdering(prob *Problem, shared []int) ([]int, error) {
	d, err := newData(prob)
	if err != nil {
		return nil, err
	}
	N := d.n + d.m
	skip := make([]bool, N)
	for k, v := range shared {
		if v < 0 || v >= N {
			return nil, inputErrorf("shared", "shared[%d] = %d outside [0, n+m = %d)", k, v, N)
		}
		if skip[v] {
			return nil, inputErrorf("shared", "shared[%d] = %d is listed twice", k, v)
		}
		skip[v] = true
	}
	order := minDegree(kktGraph(d.P, d.A), skip)
	return append(order, shared...), nil
}

// checkPermutation returns an *InputError unless p is a permutation of
// 0..N−1.
func checkPermutation(p []int, N int) error {
	if len(p) != N {
		return inputErrorf("Settings.Ordering", "length %d, want n+m = %d", len(p), N)
	}
	seen := make([]bool, N)
	for k, v := range p {
		if v < 0 || v >= N {
			return inputErrorf("Settings.Ordering", "Ordering[%d] = %d outside [0, %d)", k, v, N)
		}
		if seen[v] {
			return inputErrorf("Settings.Ordering", "Ordering[%d] = %d is repeated", k, v)
		}
		seen[v] = true
	}
	return nil
}

// MinDegreeOrdering returns the ordering Solve and InteriorPoint compute
// when Settings.Ordering is nil. Many problems with one sparsity pattern
// (a parameter grid) can compute it once and pass it in Settings.Ordering.
func MinDegreeOrdering(prob *Problem) ([]int, error) {
	d, err := newData(prob)
	if err != nil {
		return nil, err
	}
	return autoOrdering(d.P, d.A), nil
}
