package api

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"example.com/userperf/common/user"
)

// dial opens a connection to addr, closed when the test ends.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// sendRaw writes request on conn, which must be answered, and returns the
// answer's status.
func sendRaw(t *testing.T, conn net.Conn, request string) int {
	t.Helper()
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

var getUser = "GET /users/" + user.FormatID(1) + " HTTP/1.1\r\nHost: test\r\n"

// newOneConnServer returns a server that serves one connection at a
// time, its listener and its log.
func newOneConnServer(t *testing.T) (*server, net.Listener, *syncBuffer) {
	t.Helper()
	l := listenLoopback(t)
	logger, logs := newTestLogger()
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	cfg := testConfig()
	cfg.limits.MaxConns = 1
	s, err := newServer(cfg, newMapStage(users), users, l, nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	return s, l, logs
}

func TestConnectionsBeyondTheCapWait(t *testing.T) {
	s, l, _ := newOneConnServer(t)
	startServer(t, s)
	first := dial(t, l.Addr().String()) // sends nothing, and holds the only place
	waitFor(func() bool { return s.open.Load() == 1 })

	second := dial(t, l.Addr().String()) // the kernel accepts it; the server does not yet
	if _, err := io.WriteString(second, getUser+"\r\n"); err != nil {
		t.Fatal(err)
	}
	second.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if n, err := second.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a request beyond -max-conns 1 while the first connection is open: read %d bytes, %v; want no answer yet", n, err)
	}

	first.Close()
	second.SetReadDeadline(time.Time{})
	if status := sendRaw(t, second, ""); status != http.StatusOK {
		t.Errorf("the waiting request once the first connection closed: status %d, want 200", status)
	}
}

func TestHeadersBeyondMaxHeaderBytesAre431(t *testing.T) {
	l := listenLoopback(t)
	s, _ := newTestServer(t, l, nil)
	startServer(t, s)
	// padded is a GET whose request line and headers, the blank line
	// included, are exactly size bytes.
	padded := func(size int) string {
		const name, end = "X-Pad: ", "\r\n\r\n"
		return getUser + name + strings.Repeat("p", size-len(getUser)-len(name)-len(end)) + end
	}
	for _, tc := range []struct {
		size, status int
	}{
		{MaxHeaderBytes, http.StatusOK},
		{MaxHeaderBytes + 1, http.StatusRequestHeaderFieldsTooLarge},
	} {
		if status := sendRaw(t, dial(t, l.Addr().String()), padded(tc.size)); status != tc.status {
			t.Errorf("headers of %d bytes, the limit being %d: status %d, want %d", tc.size, MaxHeaderBytes, status, tc.status)
		}
	}
}

// TestOneClientHoldsAtMostMaxClientConns opens every connection the
// server serves from one client, and a GET from another: the first client
// gets MaxClientConns and a 503 for each connection beyond it, and the
// other client is answered. It needs a second loopback address, which
// Linux and Windows have (all of 127/8) and macOS does not by default.
func TestOneClientHoldsAtMostMaxClientConns(t *testing.T) {
	l := listenLoopback(t)
	logger, _ := newTestLogger()
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	cfg := testConfig()
	cfg.limits.MaxConns, cfg.limits.MaxClientConns = 4, 1
	s, err := newServer(cfg, newMapStage(users), users, l, nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	startServer(t, s)
	other := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	otherConn, err := other.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Skipf("no second loopback address to send from: %v", err)
	}
	otherConn.Close()

	first := dial(t, l.Addr().String()) // sends nothing, and holds its client's MaxClientConns
	waitFor(func() bool { return s.open.Load() == 1 })
	for i := range cfg.limits.MaxConns {
		conn := dial(t, l.Addr().String())
		conn.SetDeadline(time.Now().Add(10 * time.Second)) // a test that fails ends
		if status := sendRaw(t, conn, getUser+"\r\n"); status != http.StatusServiceUnavailable {
			t.Errorf("connection %d beyond the client's MaxClientConns: status %d, want 503", i+2, status)
		}
	}
	conn, err := other.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if status := sendRaw(t, conn, getUser+"\r\n"); status != http.StatusOK {
		t.Errorf("a GET from another client: status %d, want 200", status)
	}
	first.Close()
}
