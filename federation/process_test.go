package federation_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fedcon/fedcon/experiments/fedjob"
	"github.com/fedcon/fedcon/federation/fedpb"
)

// TestProcesses runs `fedcon serve` and 5 `fedcon client` processes on
// 127.0.0.1 with mutual TLS (`make test-federation`; it builds the binary).
// In the QP run client 3 hangs at a round, is killed and restarted from its
// checkpoint. The QP, NP, fairness and DRFL runs must match the in-process runs bit
// for bit.
func TestProcesses(t *testing.T) {
	if os.Getenv("FEDCON_FEDERATION_PROCESSES") == "" {
		t.Skip("set FEDCON_FEDERATION_PROCESSES=1 (make test-federation) to run client processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "fedcon")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/fedcon/fedcon").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	certs := filepath.Join(dir, "certs")
	for _, args := range [][]string{{"init"}, {"issue", "server", "--host", "127.0.0.1"}, {"issue", "--clients", "5"}} {
		if out, err := exec.CommandContext(ctx, bin, append(append([]string{"certs"}, args...), "--dir", certs)...).CombinedOutput(); err != nil {
			t.Fatalf("certs %v: %v\n%s", args, err, out)
		}
	}
	// NP clients 1 and 2 read their rows from an export, the others from
	// the data set by name.
	export := filepath.Join(dir, "monks-1-5.json")
	if _, err := os.Stat(filepath.Join(testDirs[0], "monks")); err == nil {
		cmd := exec.CommandContext(ctx, bin, "data", "export", "monks-1", "--clients", "5", "--seed", "1", "--format", "json", "-o", export, "--quiet")
		cmd.Env = append(os.Environ(), "FEDCON_DATA_DIR="+testDirs[0])
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("data export: %v\n%s", err, out)
		}
	}
	for _, tc := range []struct {
		name  string
		serve []string
		kill  int // client killed and restarted; 0: none
	}{
		{"qp", []string{"--problem", "qp", "--cell", "5,100,1"}, 3},
		// Partial participation with a round deadline: client 3 is killed
		// in a round and restarted; the others go on without it until a
		// full round waits for it (--rejoin). The served run is the
		// in-process replay of its recorded participation.
		{"qp-partial", []string{"--problem", "qp", "--cell", "5,100,1", "--participation", "0.4", "--drop-prob", "0.1", "--round-deadline", "2s"}, 3},
		{"np", []string{"--problem", "np", "--dataset", "monks-1", "--clients", "5", "--max-outer", "10"}, 0},
		{"fair", []string{"--problem", "fair", "--clients", "5", "--max-outer", "2"}, 0},
		{"drfl", []string{"--problem", "drfl", "--dataset", "heart", "--clients", "5", "--max-rounds", "300"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name != "qp" {
				needData(t, &fedjob.Job{Problem: "np"})
			}
			addr := freePort(t)
			result := filepath.Join(dir, tc.name+".json")
			env := append(os.Environ(), "FEDCON_DATA_DIR="+testDirs[0])
			srv := exec.CommandContext(ctx, bin, append([]string{"serve", "--listen", addr, "--certs", certs,
				"--rejoin", "60s", "--quiet", "-o", result}, tc.serve...)...)
			var srvOut bytes.Buffer
			srv.Stdout, srv.Stderr, srv.Env = &srvOut, &srvOut, env
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			client := func(party int, extra ...string) *exec.Cmd {
				c := exec.CommandContext(ctx, bin, append([]string{"client", "--server", addr, "--certs", certs,
					"--party", strconv.Itoa(party), "--quiet"}, extra...)...)
				c.Env = env
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				return c
			}
			const stall = 40
			ckpt := filepath.Join(dir, tc.name+"-client.ckpt")
			var procs []*exec.Cmd
			for p := 1; p <= 5; p++ {
				switch {
				case p == tc.kill:
					procs = append(procs, client(p, "--checkpoint", ckpt, "--stall-at", strconv.Itoa(stall)))
				case tc.name == "np" && p <= 2:
					procs = append(procs, client(p, "--data", export))
				default:
					procs = append(procs, client(p))
				}
			}
			if tc.kill > 0 {
				// The client hangs once it has checkpointed round 40 (or
				// its first round after it): kill it there.
				for checkpointRound(ckpt) < stall {
					if ctx.Err() != nil {
						t.Fatalf("client %d never reached round %d", tc.kill, stall)
					}
					time.Sleep(20 * time.Millisecond)
				}
				old := procs[tc.kill-1]
				old.Process.Kill()
				old.Wait()
				procs[tc.kill-1] = client(tc.kill, "--checkpoint", ckpt)
			}
			if err := srv.Wait(); err != nil {
				t.Fatalf("serve: %v\n%s", err, srvOut.String())
			}
			for p, c := range procs {
				if err := c.Wait(); err != nil {
					t.Errorf("client %d: %v", p+1, err)
				}
			}
			compareWithLocal(ctx, t, result)
			t.Log(srvOut.String())
		})
	}
}

// TestProcessLost: a client process that hangs is named after the round
// timeout; serve exits 1 with status ClientLost and the last committed
// iterate in its result file, and the other clients exit 1 too.
func TestProcessLost(t *testing.T) {
	if os.Getenv("FEDCON_FEDERATION_PROCESSES") == "" {
		t.Skip("set FEDCON_FEDERATION_PROCESSES=1 (make test-federation) to run client processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	defer cancel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "fedcon")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/fedcon/fedcon").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	addr, result := freePort(t), filepath.Join(dir, "lost.json")
	srv := exec.CommandContext(ctx, bin, "serve", "--insecure", "--listen", addr, "--problem", "qp", "--cell", "3,50,1",
		"--round-timeout", "2s", "-o", result)
	var srvOut bytes.Buffer
	srv.Stdout, srv.Stderr = &srvOut, &srvOut
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	var clients []*exec.Cmd
	for p := 1; p <= 3; p++ {
		args := []string{"client", "--insecure", "--server", addr, "--party", strconv.Itoa(p), "--quiet"}
		if p == 2 {
			args = append(args, "--checkpoint", filepath.Join(dir, "c2.ckpt"), "--stall-at", "30")
		}
		c := exec.CommandContext(ctx, bin, args...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	err := srv.Wait()
	clients[1].Process.Kill()
	for i, c := range clients {
		// The survivors must not report success for a failed run.
		if cerr := c.Wait(); i != 1 {
			if ee, ok := cerr.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Errorf("client %d after client 2 was lost: %v, want exit status 1", i+1, cerr)
			}
		}
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("serve: %v, want exit status 1\n%s", err, srvOut.String())
	}
	if !bytes.Contains(srvOut.Bytes(), []byte("client 2, round 30: client lost: no reply within 2s")) {
		t.Errorf("serve does not name the lost client:\n%s", srvOut.String())
	}
	b, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Status string    `json:"status"`
		W      []float64 `json:"w"`
		Error  string    `json:"error"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != fedjob.StatusClientLost || len(got.W) != 50 || !strings.Contains(got.Error, "client 2") {
		t.Errorf("result: status %s, %d weights, error %q; want ClientLost, 50, client 2", got.Status, len(got.W), got.Error)
	}
}

// TestProcessPartialLost: under partial participation a killed client that
// never comes back is absent from the partial rounds, then the next full
// round waits --rejoin for it: serve exits 1 with status ClientLost naming
// it, and the other clients exit 1 too.
func TestProcessPartialLost(t *testing.T) {
	if os.Getenv("FEDCON_FEDERATION_PROCESSES") == "" {
		t.Skip("set FEDCON_FEDERATION_PROCESSES=1 (make test-federation) to run client processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	defer cancel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "fedcon")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/fedcon/fedcon").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	addr, result := freePort(t), filepath.Join(dir, "lost.json")
	srv := exec.CommandContext(ctx, bin, "serve", "--insecure", "--listen", addr, "--problem", "qp", "--cell", "4,50,1",
		"--participation", "0.5", "--round-deadline", "1s", "--rejoin", "3s", "-o", result)
	var srvOut bytes.Buffer
	srv.Stdout, srv.Stderr = &srvOut, &srvOut
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(dir, "c2.ckpt")
	var clients []*exec.Cmd
	for p := 1; p <= 4; p++ {
		args := []string{"client", "--insecure", "--server", addr, "--party", strconv.Itoa(p), "--quiet"}
		if p == 2 {
			args = append(args, "--checkpoint", ckpt, "--stall-at", "30")
		}
		c := exec.CommandContext(ctx, bin, args...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	for checkpointRound(ckpt) < 30 {
		if ctx.Err() != nil {
			t.Fatal("client 2 never reached round 30")
		}
		time.Sleep(20 * time.Millisecond)
	}
	clients[1].Process.Kill() // and never restarted
	err := srv.Wait()
	for i, c := range clients {
		if cerr := c.Wait(); i != 1 {
			if ee, ok := cerr.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Errorf("client %d after client 2 was lost: %v, want exit status 1", i+1, cerr)
			}
		}
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("serve: %v, want exit status 1\n%s", err, srvOut.String())
	}
	if !bytes.Contains(srvOut.Bytes(), []byte("client 2, round")) || !bytes.Contains(srvOut.Bytes(), []byte("client lost")) {
		t.Errorf("serve does not name the lost client:\n%s", srvOut.String())
	}
	b, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Status string    `json:"status"`
		W      []float64 `json:"w"`
		Error  string    `json:"error"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != fedjob.StatusClientLost || len(got.W) != 50 || !strings.Contains(got.Error, "client 2") {
		t.Errorf("result: status %s, %d weights, error %q; want ClientLost, 50, client 2", got.Status, len(got.W), got.Error)
	}
	t.Log(srvOut.String())
}

// checkpointRound is the round of a client's checkpoint file (0: none yet).
func checkpointRound(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	ck := &fedpb.Checkpoint{}
	if proto.Unmarshal(b, ck) != nil {
		return 0
	}
	return ck.Round
}

// compareWithLocal reruns the job of a served result in this process.
func compareWithLocal(ctx context.Context, t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Job    json.RawMessage `json:"job"`
		Status string          `json:"status"`
		W      []float64       `json:"w"`
		Stats  struct {
			Rounds          int `json:"rounds"`
			OuterIterations int `json:"outer_iterations"`
		} `json:"stats"`
		Participation *struct {
			Answered string `json:"answered"`
			Missed   string `json:"missed"`
		} `json:"participation"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	job, err := fedjob.UnmarshalJob(got.Job)
	if err != nil {
		t.Fatal(err)
	}
	if got.Participation != nil {
		// Who answered depended on the clients' timing and the kill:
		// the reference is the in-process replay of that record.
		job.Replay(got.Participation.Answered, got.Participation.Missed)
	}
	if job.Problem == "drfl" {
		want, err := job.SolveDRFLLocal(ctx, testDirs, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != want.Status.String() || fmt.Sprint(got.W) != fmt.Sprint(want.V) || got.Stats.Rounds != want.Rounds {
			t.Errorf("served DRFL: %s, %d rounds, v %v\nin-process: %s, %d rounds, v %v", got.Status, got.Stats.Rounds, got.W, want.Status, want.Rounds, want.V)
		}
		return
	}
	want, err := job.SolveLocal(ctx, testDirs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != want.Status.String() || len(got.W) != len(want.W) {
		t.Fatalf("served: %s with %d weights, in-process: %s with %d", got.Status, len(got.W), want.Status, len(want.W))
	}
	for j := range got.W {
		if math.Float64bits(got.W[j]) != math.Float64bits(want.W[j]) {
			t.Fatalf("w[%d] = %v served, %v in-process", j, got.W[j], want.W[j])
		}
	}
	if fmt.Sprint(got.Stats.Rounds, got.Stats.OuterIterations) != fmt.Sprint(want.Stats.Rounds, want.Stats.OuterIterations) {
		t.Errorf("rounds, outer iterations: served %d, %d; in-process %d, %d", got.Stats.Rounds, got.Stats.OuterIterations, want.Stats.Rounds, want.Stats.OuterIterations)
	}
}

// freePort returns a loopback address that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestReadmeRecipe runs the README's federation recipe as written, pasted
// into one shell (on a free port): every process must exit 0 and serve
// must write its result.
func TestReadmeRecipe(t *testing.T) {
	if os.Getenv("FEDCON_FEDERATION_PROCESSES") == "" {
		t.Skip("set FEDCON_FEDERATION_PROCESSES=1 (make test-federation) to run client processes")
	}
	needData(t, &fedjob.Job{Problem: "np"})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second) // hang guard
	defer cancel()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "## Federation")
	_, rest, ok2 := strings.Cut(rest, "```sh\n")
	block, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README: no sh block under ## Federation")
	}
	dir := t.TempDir()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, "fedcon"), "github.com/fedcon/fedcon").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// Pasted as is: serve in the foreground would wait for clients that
	// never start, until the hang guard.
	sh := exec.CommandContext(ctx, "bash", "-c", strings.ReplaceAll(block, "127.0.0.1:7070", freePort(t)))
	sh.Dir = dir
	sh.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "FEDCON_DATA_DIR="+testDirs[0])
	out, err := sh.CombinedOutput()
	if err != nil {
		t.Fatalf("recipe: %v\n%s", err, out)
	}
	var res struct {
		Status    string   `json:"status"`
		Objective *float64 `json:"objective"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err == nil {
		err = json.Unmarshal(b, &res)
	}
	if err != nil || res.Objective == nil || res.Status == fedjob.StatusClientLost || !strings.Contains(string(out), "objective ") {
		t.Fatalf("run.json: %v, status %q\n%s", err, res.Status, out)
	}
}
