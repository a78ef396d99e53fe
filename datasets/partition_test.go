package datasets

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
)

// checkPartition checks that clients are disjoint, sorted, in range, and
// that together with the dropped rows they account for every row.
func checkPartition(t *testing.T, rows int, clients [][]int, dropped int) {
	t.Helper()
	seen := make([]bool, rows)
	total := 0
	for c, idx := range clients {
		if !slices.IsSorted(idx) {
			t.Errorf("client %d: indices not sorted", c)
		}
		for _, i := range idx {
			if i < 0 || i >= rows || seen[i] {
				t.Fatalf("client %d: index %d out of range or repeated", c, i)
			}
			seen[i] = true
		}
		total += len(idx)
	}
	if total+dropped != rows {
		t.Errorf("%d rows assigned + %d dropped != %d", total, dropped, rows)
	}
}

func TestPartitionByClass(t *testing.T) {
	tests := []struct {
		c0, c1, n   int
		wantDropped int
	}{
		{10, 4, 1, 0},
		{10, 4, 3, 1 + 1},
		{24720, 7841, 20, 0 + 1}, // adult.data
		{444, 239, 5, 4 + 4},     // breast-cancer-wisc
		{278, 278, 20, 18 + 18},  // monks-1
		{5, 5, 5, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%d into %d", tt.c0, tt.c1, tt.n), func(t *testing.T) {
			y := make([]float64, tt.c0+tt.c1) // class 0 rows, then class 1 rows
			for i := tt.c0; i < len(y); i++ {
				y[i] = 1
			}
			clients, dropped, err := PartitionByClass(y, tt.n, PartitionRand(7))
			if err != nil {
				t.Fatal(err)
			}
			if len(clients) != tt.n || dropped != tt.wantDropped {
				t.Fatalf("%d clients, %d dropped; want %d, %d", len(clients), dropped, tt.n, tt.wantDropped)
			}
			checkPartition(t, len(y), clients, dropped)
			for c, idx := range clients {
				var sub []float64
				for _, i := range idx {
					sub = append(sub, y[i])
				}
				if c0, c1 := counts(sub); c0 != tt.c0/tt.n || c1 != tt.c1/tt.n {
					t.Errorf("client %d has %d/%d, want %d/%d", c, c0, c1, tt.c0/tt.n, tt.c1/tt.n)
				}
			}
			again, _, _ := PartitionByClass(y, tt.n, PartitionRand(7))
			if !equalParts(clients, again) {
				t.Error("same seed, different partition")
			}
			if tt.n > 1 {
				other, _, _ := PartitionByClass(y, tt.n, PartitionRand(8))
				if equalParts(clients, other) {
					t.Error("different seeds, same partition")
				}
			}
		})
	}
}

func equalParts(a, b [][]int) bool {
	return slices.EqualFunc(a, b, func(x, y []int) bool { return slices.Equal(x, y) })
}

func TestPartitionByClassErrors(t *testing.T) {
	tests := []struct {
		name string
		y    []float64
		n    int
	}{
		{"zero clients", []float64{0, 1}, 0},
		{"negative clients", []float64{0, 1}, -3},
		{"no rows", nil, 2},
		{"class smaller than clients", []float64{0, 0, 0, 1, 1}, 3},
		{"NaN label", []float64{0, math.NaN(), 1}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := PartitionByClass(tt.y, tt.n, PartitionRand(1))
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want a *RequestError", err)
			}
		})
	}
	_, _, err := PartitionByClass([]float64{0, 0, 0, 1, 1}, 3, PartitionRand(1))
	if want := "datasets: clients = 3: class 1 has 2 rows, fewer than the 3 clients"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

func TestPartitionFolds(t *testing.T) {
	tests := []struct{ rows, n, size, dropped int }{
		{10, 1, 10, 0},
		{10, 3, 3, 1},
		{30162, 20, 1508, 2}, // adult-b clients
		{7, 7, 1, 0},
	}
	for _, tt := range tests {
		folds, dropped, err := PartitionFolds(tt.rows, tt.n, PartitionRand(3))
		if err != nil {
			t.Fatal(err)
		}
		checkPartition(t, tt.rows, folds, dropped)
		for i, f := range folds {
			if len(f) != tt.size {
				t.Errorf("%d rows / %d: fold %d has %d rows, want %d", tt.rows, tt.n, i, len(f), tt.size)
			}
		}
		if dropped != tt.dropped {
			t.Errorf("%d rows / %d: dropped %d, want %d", tt.rows, tt.n, dropped, tt.dropped)
		}
		again, _, _ := PartitionFolds(tt.rows, tt.n, PartitionRand(3))
		if !equalParts(folds, again) {
			t.Error("same seed, different folds")
		}
	}
	for _, bad := range []struct{ rows, n int }{{3, 4}, {3, 0}, {0, 1}} {
		if _, _, err := PartitionFolds(bad.rows, bad.n, PartitionRand(3)); !errors.As(err, new(*RequestError)) {
			t.Errorf("PartitionFolds(%d, %d): %v, want a *RequestError", bad.rows, bad.n, err)
		}
	}
}

func TestDatasetPartition(t *testing.T) {
	for _, name := range []string{"breast-cancer-wisc", "adult-b", "abalone"} {
		d, err := Load(name, []string{"testdata"}, NoVerify())
		if err != nil {
			t.Fatal(err)
		}
		clients, dropped, err := d.Partition(1, PartitionRand(0))
		if err != nil {
			t.Fatal(err)
		}
		checkPartition(t, d.Rows(), clients, dropped)
	}
	// Folds for fairness: adult-b's 4 sample rows (2 per class) split
	// among 3 clients, which a per-class split cannot do.
	d, _ := Load("adult-b", []string{"testdata"}, NoVerify())
	if _, _, err := d.Partition(3, PartitionRand(0)); err != nil {
		t.Errorf("adult-b folds: %v", err)
	}
	if _, _, err := PartitionByClass(d.Y, 3, PartitionRand(0)); err == nil {
		t.Error("by class: want an error, each class has 2 rows")
	}
}

func TestPartitionByClassReal(t *testing.T) {
	d, err := Load("adult-a", []string{realDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	clients, dropped, err := d.Partition(20, PartitionRand(1))
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, d.Rows(), clients, dropped)
	// 24720 = 20 x 1236, 7841 = 20 x 392 + 1.
	if dropped != 1 || len(clients[0]) != 1236+392 {
		t.Errorf("dropped %d, client 0 has %d rows", dropped, len(clients[0]))
	}
}
