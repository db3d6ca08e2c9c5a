package api

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"example.com/userperf/common/user"
)

// stuckStage is a stage whose lists never finish: a request for one stays
// in flight until the test ends.
type stuckStage struct {
	Stage
	entered chan struct{} // receives once per list that has started
	release chan struct{} // closed when the test ends
}

func (s stuckStage) ListByRole(role string) []byte {
	s.entered <- struct{}{}
	<-s.release
	return s.Stage.ListByRole(role)
}

// newStuckServer returns a server on l whose lists never finish.
func newStuckServer(t *testing.T, l net.Listener) (*server, stuckStage, *syncBuffer) {
	t.Helper()
	logger, logs := newTestLogger()
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	stage := stuckStage{newMapStage(users), make(chan struct{}, 1), make(chan struct{})}
	t.Cleanup(func() { close(stage.release) })
	s, err := newServer(testConfig(), stage, users, l, nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	return s, stage, logs
}

// stuckRequest sends a list request to addr and returns once the handler
// is running it. The connection is closed when the test ends.
func stuckRequest(t *testing.T, stage stuckStage, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, "GET /users?role=admin HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	<-stage.entered
	return conn
}

func TestShutdownCutsWhatTheDrainLeaves(t *testing.T) {
	l := listenLoopback(t)
	s, stage, logs := newStuckServer(t, l)
	s.drain = 50 * time.Millisecond
	r := startServer(t, s)
	conn := stuckRequest(t, stage, l.Addr().String())

	r.signals <- syscall.SIGTERM
	if err := r.wait(); err != nil {
		t.Errorf("serve after the drain: %v, want nil (exit status 0)", err)
	}
	if out := logs.String(); !strings.Contains(out, "cut 1 connection(s) still open after the") ||
		!strings.Contains(out, "0 cut (each logged above), 1 still being built and cut") {
		t.Errorf("the log does not count the connection and the answer cut:\n%s", out)
	}
	if _, err := io.ReadAll(conn); err != nil && !strings.Contains(err.Error(), "reset") {
		t.Errorf("reading the cut connection: %v, want its end", err)
	}
}

func TestSecondSignalStopsAtOnce(t *testing.T) {
	l := listenLoopback(t)
	s, stage, logs := newStuckServer(t, l)
	s.drain = time.Hour // only the second signal can end this test
	r := startServer(t, s)
	stuckRequest(t, stage, l.Addr().String())

	r.signals <- syscall.SIGTERM
	r.signals <- syscall.SIGINT
	if err := r.wait(); err != nil {
		t.Errorf("serve after a second signal: %v, want nil", err)
	}
	if out := logs.String(); !strings.Contains(out, "cut 1 connection(s) still open at the second signal") {
		t.Errorf("the log does not say the second signal cut the connection:\n%s", out)
	}
}

func TestShutdownWithNothingInFlight(t *testing.T) {
	l := listenLoopback(t)
	s, logs := newTestServer(t, l, nil)
	r := startServer(t, s)
	if status, _ := get(t, "http://"+l.Addr().String()+"/users/"+user.FormatID(1)); status != http.StatusOK {
		t.Fatalf("GET of a user: status %d", status)
	}
	r.signals <- syscall.SIGTERM
	if err := r.wait(); err != nil {
		t.Errorf("serve: %v", err)
	}
	if out := logs.String(); !strings.Contains(out, "stopped; since it started, 1 answer(s) were sent whole, 0 cut (each logged above), 0 still being built") {
		t.Errorf("an idle server's shutdown is logged as:\n%s", out)
	}
}

// TestLastLineCountsAnAnswerCutDuringTheDrain has an answer cut by the
// minimum rate while the server drains: the drain then ends with no
// connection left, and the last line of the log must still count the cut
// answer rather than say that every request finished.
func TestLastLineCountsAnAnswerCutDuringTheDrain(t *testing.T) {
	s, gated, logs, base := newHugeListServer(t)
	s.h.guard.Pace.Grace = 50 * time.Millisecond
	r := startServer(t, s)
	stalled := dial(t, strings.TrimPrefix(base, "http://")) // never reads
	if _, err := io.WriteString(stalled, "GET /users?role=admin HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	<-gated.entered
	r.signals <- syscall.SIGTERM
	close(gated.release) // the answer starts during the drain, and is cut there
	if err := r.wait(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "0 answer(s) were sent whole, 1 cut (each logged above), 0 still being built") {
		t.Errorf("the last line of the log does not count the answer cut during the drain:\n%s", logs)
	}
}

// TestQueuedConnectionIsAnsweredAtShutdown has a request wait in the
// kernel's accept queue, behind the only connection the server serves,
// when the server shuts down: it must get a status line, 503, rather than
// the reset that closing the listener over it would give.
func TestQueuedConnectionIsAnsweredAtShutdown(t *testing.T) {
	s, l, logs := newOneConnServer(t)
	s.drain = 50 * time.Millisecond
	r := startServer(t, s)
	dial(t, l.Addr().String()) // sends nothing, and holds the only place
	waitFor(func() bool { return s.open.Load() == 1 })
	queued := dial(t, l.Addr().String())
	if _, err := io.WriteString(queued, getUser+"\r\n"); err != nil {
		t.Fatal(err)
	}

	r.signals <- syscall.SIGTERM
	if err := r.wait(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(queued), nil)
	if err != nil {
		t.Fatalf("the queued request got no status line: %v\n%s", err, logs)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "shutting down") {
		t.Errorf("the queued request: %d %s, want 503 saying the server is shutting down", resp.StatusCode, body)
	}
	if !strings.Contains(logs.String(), "and 1 connection(s) refused with 503") ||
		!strings.Contains(logs.String(), "queued in the kernel at the signal: 1 answered with 503, 0 reset") {
		t.Errorf("the log does not count the queued connection as answered:\n%s", logs)
	}
}
