package datasets_test

import (
	"fmt"

	"github.com/fedcon/fedcon/datasets"
)

func ExamplePartitionByClass() {
	// Six rows of class 0 and three of class 1 for two clients: each gets
	// three of class 0 and one of class 1; one row of class 1 is dropped.
	y := []float64{0, 0, 0, 0, 0, 0, 1, 1, 1}
	clients, dropped, err := datasets.PartitionByClass(y, 2, datasets.PartitionRand(42))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(clients[0]), len(clients[1]), dropped)
	_, _, err = datasets.PartitionByClass(y, 4, datasets.PartitionRand(42))
	fmt.Println(err)
	// Output:
	// 4 4 1
	// datasets: clients = 4: class 1 has 3 rows, fewer than the 4 clients
}

func ExampleLoad() {
	// The hand-written samples in testdata stand in for the real files;
	// their checksums are not the pinned ones, hence NoVerify.
	d, err := datasets.Load("monks-1", []string{"testdata"}, datasets.NoVerify())
	if err != nil {
		fmt.Println(err)
		return
	}
	rows, cols := d.X.Dims()
	fmt.Println(rows, cols, d.FeatureNames[0], d.FeatureNames[cols-1])

	_, err = datasets.Load("monks-1", []string{"/nonexistent"})
	fmt.Println(err)
	// Output:
	// 5 18 a1=1 intercept
	// datasets: monks/monks-1.train not found (searched /nonexistent): set --data-dir or FEDCON_DATA_DIR to the folder holding monks/monks-1.train, or run 'fedcon data fetch monks-1'
}
