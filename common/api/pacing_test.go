package api

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"example.com/userperf/common/user"
)

// hugeList is a stage whose first admin list is hugeListBytes long (the
// ledger still reserves the real list's size), far more than the kernel's
// socket buffers take from a client that reads nothing. The later ones are
// the real list, which a test can read whole at any pace.
type hugeList struct {
	gatedStage
	admins *atomic.Int64 // admin lists built
}

const hugeListBytes = 64 << 20

func (s hugeList) ListByRole(role string) []byte {
	body := s.gatedStage.ListByRole(role)
	if role == user.RoleAdmin && s.admins.Add(1) == 1 {
		body = make([]byte, hugeListBytes)
	}
	return body
}

// newHugeListServer returns a server whose admin list is huge and waits
// for release, with in-flight room for one admin list at a time, and a
// write timeout that only ends the test.
func newHugeListServer(t *testing.T) (*server, gatedStage, *syncBuffer, string) {
	t.Helper()
	l := listenLoopback(t)
	logger, logs := newTestLogger()
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	gated := gatedStage{newMapStage(users), user.RoleAdmin, make(chan struct{}, 1), make(chan struct{}), new(atomic.Int64)}
	cfg := testConfig()
	adminSize := len(gated.Stage.ListByRole(user.RoleAdmin))
	cfg.limits.MaxInFlightBytes = int64(adminSize + adminSize/2)
	s, err := newServer(cfg, hugeList{gated, new(atomic.Int64)}, users, l, nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	s.servers[0].WriteTimeout = time.Hour
	return s, gated, logs, "http://" + l.Addr().String()
}

// waitForLog waits until logs hold want, and fails t if that takes more
// than a minute: longer than any cut this test can wait for.
func waitForLog(t *testing.T, logs *syncBuffer, want string) {
	t.Helper()
	for give := time.Now().Add(time.Minute); !strings.Contains(logs.String(), want); time.Sleep(time.Millisecond) {
		if time.Now().After(give) {
			t.Fatalf("the log never says %q:\n%s", want, logs)
		}
	}
}

func TestSlowReaderGivesItsReservationBack(t *testing.T) {
	s, gated, logs, base := newHugeListServer(t)
	s.h.guard.Pace.Grace = 50 * time.Millisecond
	startServer(t, s)
	stalled := dial(t, strings.TrimPrefix(base, "http://")) // never reads
	if _, err := io.WriteString(stalled, "GET /users?role=admin HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	<-gated.entered // its reservation is taken
	if status, _ := get(t, base+"/users?role=admin"); status != http.StatusServiceUnavailable {
		t.Errorf("a second list while the first holds the in-flight bytes: status %d, want 503", status)
	}
	if status, _ := get(t, base+"/users/"+user.FormatID(1)); status != http.StatusOK {
		t.Errorf("a small GET meanwhile: status %d, want 200", status)
	}
	close(gated.release)
	waitForLog(t, logs, "fell behind the minimum rate of 64 KiB/s")

	go func() { <-gated.entered }() // the next list may go through
	want := string(gated.Stage.ListByRole(user.RoleAdmin))
	if status, body := get(t, base+"/users?role=admin"); status != http.StatusOK || body != want {
		t.Errorf("a list once the slow reader's answer was cut: status %d with %d bytes, want 200 with the list's %d", status, len(body), len(want))
	}
}

func TestShutdownCutIsLoggedAsTheServers(t *testing.T) {
	s, gated, logs, base := newHugeListServer(t)
	s.drain = 50 * time.Millisecond
	r := startServer(t, s)
	stalled := dial(t, strings.TrimPrefix(base, "http://"))
	if _, err := io.WriteString(stalled, "GET /users?role=admin HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	<-gated.entered
	close(gated.release) // the answer starts, and waits for a reader that never comes

	r.signals <- syscall.SIGTERM
	if err := r.wait(); err != nil {
		t.Fatal(err)
	}
	waitForLog(t, logs, "answer cut: GET /users?role=admin: the server's shutdown drain ended after")
	if out := logs.String(); strings.Contains(out, "the client closed") {
		t.Errorf("the server's cut is blamed on the client:\n%s", out)
	}
}

func TestGoneClientGivesItsReservationBackAtOnce(t *testing.T) {
	s, gated, logs, base := newHugeListServer(t)
	s.h.guard.Pace.Grace = time.Hour // only the client's going can end its answer
	startServer(t, s)
	gone := dial(t, strings.TrimPrefix(base, "http://")).(*net.TCPConn) // never reads
	if _, err := io.WriteString(gone, "GET /users?role=admin HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	<-gated.entered
	close(gated.release)
	time.Sleep(100 * time.Millisecond) // the answer fills the socket's buffers and waits
	gone.CloseWrite()                  // the end of the connection: net/http cancels the request's context

	const soon = 5 * time.Second
	const want = "answer cut: GET /users?role=admin: the client closed the connection after"
	for give := time.Now().Add(soon); !strings.Contains(logs.String(), want); time.Sleep(time.Millisecond) {
		if time.Now().After(give) {
			t.Fatalf("the log does not say %q within %v of the client going:\n%s", want, soon, logs)
		}
	}
	go func() { <-gated.entered }() // the next list may go through
	if status, _ := get(t, base+"/users?role=admin"); status != http.StatusOK {
		t.Errorf("a list once the gone client's answer was cut: status %d, want 200", status)
	}
}
