package stochastic

// The in-process federation: one goroutine per client, typed messages on
// channels. A client owns its state and buffers; the server only reads a
// reply's slices before it sends the next broadcast, and clients only read
// the broadcast w until they reply, so no slice is written while shared.

// down is a broadcast: iteration t and the model (or the parts a client
// needs), read-only until the client replies.
type down struct {
	t     int
	w     []float64
	batch []int // feature-based: the server's mini-batch
}

// up is client i's reply.
type up[R any] struct {
	i   int
	msg R
}

// fed runs n client goroutines, each answering a broadcast with work(i, d).
type fed[R any] struct {
	in   []chan down
	out  chan up[R]
	recv []R
}

func startFed[R any](n int, work func(i int, d down) R) *fed[R] {
	f := &fed[R]{in: make([]chan down, n), out: make(chan up[R], n), recv: make([]R, n)}
	for i := range f.in {
		f.in[i] = make(chan down, 1)
		go func() {
			for d := range f.in[i] {
				f.out <- up[R]{i, work(i, d)}
			}
		}()
	}
	return f
}

// round broadcasts d to every client and returns the replies in client order.
func (f *fed[R]) round(d down) []R {
	for _, c := range f.in {
		c <- d
	}
	for range f.in {
		u := <-f.out
		f.recv[u.i] = u.msg
	}
	return f.recv
}

// stop ends the client goroutines.
func (f *fed[R]) stop() {
	for _, c := range f.in {
		close(c)
	}
}
