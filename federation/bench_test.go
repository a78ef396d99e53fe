package federation_test

import (
	"context"
	"testing"
	"time"

	"github.com/fedcon/fedcon/experiments/fedjob"
	"github.com/fedcon/fedcon/federation"
	"github.com/fedcon/fedcon/solver"
)

// BenchmarkRounds compares one Algorithm 1 run with in-process clients
// (solver.LocalTransport over the same nodes) and with clients over gRPC
// with mutual TLS on 127.0.0.1; the clients' set-up (data, factorisations)
// is outside the timer in both. Reported: µs per round and rounds per second.
//
//	go test -run '^$' -bench Rounds -benchtime 1x ./federation
func BenchmarkRounds(b *testing.B) {
	npAdult := npJob(10, "newton", 10)
	npAdult.Dataset = "adult-a"
	for _, bc := range []struct {
		name string
		job  *fedjob.Job
	}{
		{"qp-d500-n10-m5", qpJob(10, 500, 5)},
		{"np-adult-a-n10", npAdult},
	} {
		for _, grpc := range []bool{false, true} {
			name := bc.name + "/in-process"
			if grpc {
				name = bc.name + "/grpc-mtls"
			}
			b.Run(name, func(b *testing.B) {
				needData(b, bc.job)
				var rounds int
				var wall time.Duration
				for range b.N {
					b.StopTimer()
					r, tr, stop := transport(b, bc.job, grpc)
					b.StartTimer()
					start := time.Now()
					res, err := r.Solve(context.Background(), tr)
					wall += time.Since(start)
					if err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					stop()
					rounds += res.Stats.Rounds
				}
				b.ReportMetric(float64(wall.Microseconds())/float64(rounds), "µs/round")
				b.ReportMetric(float64(rounds)/wall.Seconds(), "rounds/s")
			})
		}
	}
}

// transport returns the job's server side and its clients, ready.
func transport(b *testing.B, job *fedjob.Job, grpc bool) (*fedjob.FedRun, solver.Transport, func()) {
	if !grpc {
		run, err := job.Server(testDirs, 2)
		if err != nil {
			b.Fatal(err)
		}
		cfgs, err := run.Nodes()
		if err != nil {
			b.Fatal(err)
		}
		lt := &solver.LocalTransport{}
		for i, c := range cfgs {
			p, _, err := job.Party(testDirs, "", i+1)
			if err != nil {
				b.Fatal(err)
			}
			node, err := solver.NewClientNode(p, c)
			if err != nil {
				b.Fatal(err)
			}
			lt.Nodes = append(lt.Nodes, node)
		}
		return run, lt, func() {}
	}
	certs := certDir(b, job.N)
	f := startServer(b, job, certs, federation.ServerConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	var done []<-chan error
	for i := 1; i <= job.N; i++ {
		done = append(done, runClient(ctx, b, f.addr, certs, i, i, ""))
	}
	if err := f.srv.WaitJoined(ctx); err != nil {
		b.Fatal(err)
	}
	return f.run, f.srv, func() {
		f.srv.Close()
		for _, d := range done {
			<-d
		}
		cancel()
		f.g.Stop()
	}
}
