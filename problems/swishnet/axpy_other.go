//go:build !amd64

package swishnet

import "gonum.org/v1/gonum/floats"

// axpy sets y[:len(x)] += a x with gonum's kernel.
func axpy(a float64, x, y []float64) { floats.AddScaled(y[:len(x)], a, x) }
