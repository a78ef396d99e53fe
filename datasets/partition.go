package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// PartitionStream is the PCG stream of PartitionRand: a fixed constant, so
// that a seed means the same partition in every fedcon command.
const PartitionStream = 0x6665_6463_6f6e_7074 // "fedconpt"

// PartitionRand returns the generator fedcon uses to partition rows for a
// seed: rand.New(rand.NewPCG(seed, PartitionStream)). Experiments and
// 'fedcon data export --seed' both use it, so an exported partition is the
// one the experiments solve.
func PartitionRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, PartitionStream))
}

// PartitionByClass splits the rows of a classification dataset among n
// clients so that every client has the same number of rows of each class,
// as the paper's Neyman-Pearson experiments do. For each class in increasing
// label order, the class's row indices (in increasing order) are shuffled
// with rng and client i receives the i-th block of floor(count/n) of them;
// the count mod n rows left over are dropped and their total is returned.
// Each client's indices are returned sorted. The result is a pure function
// of (y, n, the state of rng).
//
// A *RequestError is returned when n < 1, when y is empty or holds a NaN,
// or when a class has fewer rows than clients. rng must not be nil.
func PartitionByClass(y []float64, n int, rng *rand.Rand) (clients [][]int, dropped int, err error) {
	if n < 1 {
		return nil, 0, &RequestError{Field: "clients", Value: n, Reason: "must be at least 1"}
	}
	if len(y) == 0 {
		return nil, 0, &RequestError{Field: "clients", Value: n, Reason: "there are no rows to partition"}
	}
	byClass, labels, err := classRows(y, n)
	if err != nil {
		return nil, 0, err
	}
	clients = make([][]int, n)
	for _, v := range labels {
		idx := byClass[v]
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		k := len(idx) / n
		for i := range clients {
			clients[i] = append(clients[i], idx[i*k:(i+1)*k]...)
		}
		dropped += len(idx) - k*n
	}
	for _, c := range clients {
		slices.Sort(c)
	}
	return clients, dropped, nil
}

// classRows groups the row indices of y by class (in increasing order) and
// returns the classes sorted; every class must have at least n rows.
func classRows(y []float64, n int) (map[float64][]int, []float64, error) {
	byClass := map[float64][]int{}
	for i, v := range y {
		if math.IsNaN(v) {
			return nil, nil, &RequestError{Field: "labels", Value: "NaN", Reason: fmt.Sprintf("row %d has no class", i)}
		}
		byClass[v] = append(byClass[v], i)
	}
	labels := make([]float64, 0, len(byClass))
	for v := range byClass {
		labels = append(labels, v)
	}
	slices.Sort(labels)
	for _, v := range labels {
		if c := len(byClass[v]); c < n {
			return nil, nil, &RequestError{Field: "clients", Value: n,
				Reason: fmt.Sprintf("class %v has %d rows, fewer than the %d clients", v, c, n)}
		}
	}
	return byClass, labels, nil
}

// PartitionFolds splits rows 0..rows-1 into n folds of floor(rows/n) rows,
// as the paper's fairness experiment does: the indices are shuffled with rng
// and fold i is the i-th block; the rows mod n left over are dropped and
// their number returned. Each fold's indices are returned sorted. A
// *RequestError is returned when n < 1 or rows < n. rng must not be nil.
func PartitionFolds(rows, n int, rng *rand.Rand) ([][]int, int, error) {
	if n < 1 {
		return nil, 0, &RequestError{Field: "clients", Value: n, Reason: "must be at least 1"}
	}
	if rows < n {
		return nil, 0, &RequestError{Field: "clients", Value: n,
			Reason: fmt.Sprintf("there are %d rows, fewer than the %d clients", rows, n)}
	}
	idx := rng.Perm(rows)
	k := rows / n
	folds := make([][]int, n)
	for i := range folds {
		folds[i] = slices.Clone(idx[i*k : (i+1)*k])
		slices.Sort(folds[i])
	}
	return folds, rows - k*n, nil
}

// Partition splits d's rows among n clients the way the experiments do:
// equal folds (PartitionFolds) for the fairness dataset (Group != nil) and
// for regression, per-class blocks (PartitionByClass) otherwise. For
// adult-b only the client rows are split; the Server rows stay whole.
func (d *Dataset) Partition(n int, rng *rand.Rand) (clients [][]int, dropped int, err error) {
	if d.Group != nil || d.Regression {
		return PartitionFolds(d.Rows(), n, rng)
	}
	return PartitionByClass(d.Y, n, rng)
}
