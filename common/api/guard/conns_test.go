package guard

import (
	"bufio"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// getFrom sends a GET from the loopback address ip over a new connection
// to addr, and returns the connection, left open, and the answer's status
// and body.
func getFrom(t *testing.T, ip net.IP, addr string) (net.Conn, int, string) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("cannot send from %v, which Linux and Windows have and macOS does not by default: %v", ip, err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second)) // a test that fails ends
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	return conn, resp.StatusCode, string(body)
}

// TestConnectionReserveIsKeptForNewClients has two clients take every
// connection that the reserve leaves them: a third client must
// still be answered, and the connection that would have taken the reserve
// is refused saying why.
func TestConnectionReserveIsKeptForNewClients(t *testing.T) {
	limits := DefaultLimits
	limits.MaxConns, limits.MaxClientConns = 8, 4 // a reserve of one
	g := New(limits, nil)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	ts.Listener = g.Listen(ts.Listener, limits)
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	ts.Start()
	t.Cleanup(ts.Close)
	addr := ts.Listener.Addr().String()

	first, second, third := net.IPv4(127, 0, 0, 1), net.IPv4(127, 0, 0, 2), net.IPv4(127, 0, 0, 3)
	for range limits.MaxClientConns {
		if _, status, _ := getFrom(t, first, addr); status != http.StatusOK {
			t.Fatalf("a connection within the first client's MaxClientConns: status %d, want 200", status)
		}
	}
	shared := limits.MaxConns - limits.ConnReserve() - limits.MaxClientConns
	for range shared {
		if _, status, _ := getFrom(t, second, addr); status != http.StatusOK {
			t.Fatalf("a connection within the second client's MaxClientConns: status %d, want 200", status)
		}
	}
	if _, status, body := getFrom(t, second, addr); status != http.StatusServiceUnavailable || !strings.Contains(body, "kept for clients") {
		t.Errorf("a connection from a client that holds some, into the reserve: %d %s, want 503 naming the reserve", status, body)
	}
	if _, status, _ := getFrom(t, third, addr); status != http.StatusOK {
		t.Errorf("the first connection of a third client: status %d, want 200", status)
	}
}

// TestEveryQueuedConnectionIsAnswered queues many requests in the
// kernel, which the server never accepts, and closes the listener: each
// must get a 503, and the counts must say so. One deadline for the whole
// drain answered the first few hundred and reset the rest.
func TestEveryQueuedConnectionIsAnswered(t *testing.T) {
	const queued = 1000
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := New(DefaultLimits, nil).Listen(inner, DefaultLimits)
	conns := make([]net.Conn, queued)
	dialer := net.Dialer{Timeout: 5 * time.Second} // a kernel that queues fewer (macOS: 128) keeps the rest waiting
	for i := range conns {
		conn, err := dialer.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Skipf("cannot queue %d connections here: %v", queued, err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		conns[i] = conn
	}
	l.Close()
	l.WaitRefusals()
	answered := 0
	for _, conn := range conns {
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err == nil && resp.StatusCode == http.StatusServiceUnavailable {
			answered++
		}
	}
	if answered != queued {
		t.Errorf("%d of %d queued connections answered with 503", answered, queued)
	}
	if a, r := l.QueuedAnswered.Load(), l.QueuedReset.Load(); a != int64(answered) || r != int64(queued-answered) {
		t.Errorf("the listener counts %d answered and %d reset; the clients saw %d answered of %d", a, r, answered, queued)
	}
}
