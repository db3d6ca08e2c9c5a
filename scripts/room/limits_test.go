package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// dialRoom opens a connection to the room at url.
func dialRoom(t *testing.T, url string) net.Conn {
	t.Helper()
	return dialRoomFrom(t, url, nil)
}

// dialRoomFrom opens a connection to the room at url from the loopback
// address ip (nil: the system's choice).
func dialRoomFrom(t *testing.T, url string, ip net.IP) net.Conn {
	t.Helper()
	d := net.Dialer{}
	if ip != nil {
		d.LocalAddr = &net.TCPAddr{IP: ip}
	}
	conn, err := d.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil && ip != nil {
		t.Skipf("cannot send from %v, which Linux and Windows have and macOS does not by default: %v", ip, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// getOn sends GET / on conn and returns the answer's status, or the error
// of reading it within wait.
func getOn(conn net.Conn, wait time.Duration) (int, error) {
	conn.SetDeadline(time.Now().Add(wait))
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: room\r\n\r\n"); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// waitFor polls cond until it holds, or fails the test after a while.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s did not happen", what)
}

// TestConnsBound checks that the room serves at most limits.conns
// connections at once: one beyond them waits until a connection closes.
func TestConnsBound(t *testing.T) {
	l := roomLimits
	l.conns, l.clientConns, l.participants = 2, 3, 0 // the address's share does not bind; the second is the reserve, for a new address
	_, url := startRoomWith(t, t.TempDir(), l)
	held := []net.Conn{dialRoomFrom(t, url, net.IPv4(127, 0, 0, 1)), dialRoomFrom(t, url, net.IPv4(127, 0, 0, 2))}
	for _, c := range held { // served, so accepted: each holds its slot while it stays open
		if code, err := getOn(c, 10*time.Second); code != http.StatusOK {
			t.Fatalf("a connection within the bound: %d, %v", code, err)
		}
	}
	third := dialRoomFrom(t, url, net.IPv4(127, 0, 0, 3))
	if code, err := getOn(third, 300*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a third connection with two held was answered (%d, %v); want it to wait", code, err)
	}
	held[0].Close()
	// The request already sent is read once the connection is accepted.
	third.SetDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(third), nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the third connection, once one closed: %v, %v", resp, err)
	}
	resp.Body.Close()
}

// TestClientConnsBound checks that one address holds at most
// limits.clientConns connections: the next is answered 503 and closed.
func TestClientConnsBound(t *testing.T) {
	l := roomLimits
	l.conns, l.clientConns, l.participants = 10, 2, 0
	_, url := startRoomWith(t, t.TempDir(), l)
	for range 2 {
		if code, err := getOn(dialRoom(t, url), 10*time.Second); code != http.StatusOK {
			t.Fatalf("a connection within the address's share: %d, %v", code, err)
		}
	}
	conn := dialRoom(t, url)
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(conn, "GET / HTTP/1.1\r\nHost: room\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "hold 2 connections") || !resp.Close {
		t.Errorf("a third connection from one address: %s %q (closed: %v), want 503, the share, and the connection closed", resp.Status, body, resp.Close)
	}
}

// holdBodies starts n hand-ins that send their headers and half their
// body, then stall, and waits until the server reads them.
func holdBodies(t *testing.T, s *server, url string, n int) {
	for range n {
		conn := dialRoom(t, url)
		fmt.Fprintf(conn, "POST /handin HTTP/1.1\r\nHost: room\r\nContent-Length: 1000\r\n\r\n%s", strings.Repeat("x", 500))
	}
	waitFor(t, fmt.Sprintf("%d bodies being read", n), func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.bodies == n
	})
}

// TestBodiesBound checks that the room reads at most limits.bodies
// hand-ins at once, and limits.clientBodies from one address: the next
// is answered 503, with its reason, before its body is read.
func TestBodiesBound(t *testing.T) {
	for _, c := range []struct {
		name                 string
		bodies, clientBodies int
		reply                string
	}{
		{"in all", 2, 4, "the room is reading 2 hand-ins at once"},
		{"from one address", 4, 2, "your address is sending 2 hand-ins at once"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := roomLimits
			l.bodies, l.clientBodies = c.bodies, c.clientBodies
			s, url := startRoomWith(t, t.TempDir(), l)
			holdBodies(t, s, url, 2)
			code, reply := post(t, url, handInFile("Ada", "aaaaaaaa1111", "passed: ...", 4, 2))
			if code != http.StatusServiceUnavailable || !strings.Contains(reply, c.reply) {
				t.Errorf("a hand-in beyond the bound: %d %q, want 503 and %q", code, reply, c.reply)
			}
		})
	}
}

// TestStalledBodyLetGo checks that a body that stops coming frees its slot
// at the read timeout, and is told so.
func TestStalledBodyLetGo(t *testing.T) {
	l := roomLimits
	l.readTime = 200 * time.Millisecond
	s, url := startRoomWith(t, t.TempDir(), l)
	conn := dialRoom(t, url)
	fmt.Fprintf(conn, "POST /handin HTTP/1.1\r\nHost: room\r\nContent-Length: 1000\r\n\r\n%s", strings.Repeat("x", 500))
	waitFor(t, "the stalled body's slot freed", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.addrs) == 0 // nothing held, not even the connection
	})
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("a stalled body: %v, %v; want 408", resp, err)
	}
}

// TestNewParticipantsBound checks that one address makes at most
// limits.perMinute[newcomers] participants at once, then one per minute/that,
// that the page counts those refused, and that a known participant hands
// in again whatever the count.
func TestNewParticipantsBound(t *testing.T) {
	l := roomLimits
	l.perMinute[newcomers] = 3
	s, url := startRoomWith(t, t.TempDir(), l)
	tick := stopClock(s)
	for i := range 3 {
		if code, reply := post(t, url, handInFile("Ada", fmt.Sprintf("aaaaaaaa%04d", i), "passed: ...", 4, 2)); code != http.StatusOK {
			t.Fatalf("new participant %d of 3: %d %s", i, code, reply)
		}
	}
	if page := roomPage(t, url); strings.Contains(page, "refused") {
		t.Errorf("the page says some were refused before any was:\n%s", page)
	}
	tick(5 * time.Second)
	code, reply := post(t, url, handInFile("Ada", "bbbbbbbb0000", "passed: ...", 4, 2))
	if code != http.StatusTooManyRequests || !strings.Contains(reply, "made 3 new participants in the last minute") || !strings.Contains(reply, "retry in 16 s") {
		t.Errorf("a fourth new participant at once: %d %q, want 429, the bound and when to retry", code, reply)
	}
	if code, reply := post(t, url, handInFile("Ada", "aaaaaaaa0001", "passed: ...", 5, 2)); code != http.StatusOK {
		t.Errorf("a known participant handing in again: %d %q, want 200", code, reply)
	}
	if page := roomPage(t, url); !strings.Contains(page, "1 new participant refused: too many from one address in a minute") {
		t.Errorf("the page does not say that one was refused:\n%s", page)
	}
	tick(15 * time.Second) // a third of a minute after the first three
	if code, reply := post(t, url, handInFile("Ada", "bbbbbbbb0000", "passed: ...", 4, 2)); code != http.StatusOK {
		t.Errorf("a new participant a third of a minute later: %d %q, want 200", code, reply)
	}
}

// stopClock gives s's limiters a clock that only the returned tick moves.
func stopClock(s *server) (tick func(time.Duration)) {
	var mu sync.Mutex // the server reads the clock, the test moves it
	clock := time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock
	}
	return func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(d)
	}
}

// TestWrongSecretsThrottled sends wrong secrets for a known id from one
// address: after limits.perMinute[wrongSecrets] of them, its hand-ins are refused
// unread, the right secret too, until its rate allows one more; another
// address is not held back, and the log counts them.
func TestWrongSecretsThrottled(t *testing.T) {
	logs := captureLog(t)
	s, url := startRoom(t, t.TempDir())
	tick := stopClock(s)
	ada := handInFile("Ada", "aaaaaaaa1111", "passed: ...", 4, 2)
	if code, reply := post(t, url, ada); code != http.StatusOK {
		t.Fatalf("the first hand-in: %d %s", code, reply)
	}
	const wrong = "WRONGSECRET234567ABCDEFGHI"
	for i := range roomLimits.perMinute[wrongSecrets] {
		if code, reply := postWith(t, url, ada, wrong); code != http.StatusForbidden {
			t.Fatalf("wrong secret %d: %d %q, want 403", i+1, code, reply)
		}
	}
	if code, reply := postWith(t, url, ada, wrong); code != http.StatusTooManyRequests || !strings.Contains(reply, "wrong secrets") {
		t.Errorf("a wrong secret past the rate: %d %q, want 429 saying why", code, reply)
	}
	if code, reply := post(t, url, ada); code != http.StatusTooManyRequests {
		t.Errorf("the right secret from the address past its rate: %d %q, want 429: it is not compared", code, reply)
	}
	if code, reply := postFrom(t, url, net.IPv4(127, 0, 0, 2), ada); code != http.StatusOK {
		t.Errorf("the right secret from another address: %d %q, want 200", code, reply)
	}
	tick(time.Minute / time.Duration(roomLimits.perMinute[wrongSecrets]))
	if code, reply := post(t, url, ada); code != http.StatusOK {
		t.Errorf("the right secret once the rate allows one: %d %q, want 200", code, reply)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrongSecrets != roomLimits.perMinute[wrongSecrets] || s.rateRefused[wrongSecrets] != 2 {
		t.Errorf("counted %d wrong secrets and %d refused unread, want %d and 2", s.wrongSecrets, s.rateRefused[wrongSecrets], roomLimits.perMinute[wrongSecrets])
	}
	if out := logs.String(); !strings.Contains(out, "a wrong secret for id aaaaaaaa1111") || !strings.Contains(out, "refusing the secrets of 127.0.0.1 unread") {
		t.Errorf("the log does not name the wrong secrets and the refusal:\n%s", out)
	}
}

// TestNinthAddressServed has as many addresses as the room takes
// participants hold every connection they can: one more address, and so
// the page, must still be answered at once.
func TestNinthAddressServed(t *testing.T) {
	l := roomLimits
	l.conns, l.clientConns, l.participants = 64, 16, 20 // the addresses would take every slot but for the reserve
	_, url := startRoomWith(t, t.TempDir(), l)
	for a := range l.participants {
		ip := net.IPv4(127, 0, 0, byte(2+a))
		for range l.clientConns {
			conn := dialRoomFrom(t, url, ip)
			// 200, or 503 once only the reserve is left, or, with every
			// slot held, no answer: a short wait, so that the test ends
			// before the server's idle timeout frees any of them.
			getOn(conn, 300*time.Millisecond)
		}
	}
	next := dialRoomFrom(t, url, net.IPv4(127, 0, 0, byte(2+l.participants)))
	if code, err := getOn(next, 5*time.Second); code != http.StatusOK {
		t.Errorf("the page from one more address: %d, %v; want 200", code, err)
	}
}

// postFrom sends body to the room with testSecret from the loopback
// address ip, and returns the status and the reply.
func postFrom(t *testing.T, url string, ip net.IP, body string) (int, string) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}
	client := http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodPost, url+"/handin", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testSecret)
	resp, err := client.Do(req)
	if err != nil {
		t.Skipf("cannot send from %v, which Linux and Windows have and macOS does not by default: %v", ip, err)
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(reply)
}

// lockedBuffer is a buffer that the server's goroutines write and the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// captureLog sends the log to a buffer until the test ends.
func captureLog(t *testing.T) *lockedBuffer {
	logs := &lockedBuffer{}
	log.SetOutput(logs)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	return logs
}

// TestShutdownKeepsHandInsInFlight stops the room while hand-ins are
// half sent: each must be answered and kept once its body arrives, the
// server must return no error (exit status 0), and the log must say so.
func TestShutdownKeepsHandInsInFlight(t *testing.T) {
	logs := captureLog(t)
	dir := t.TempDir()
	s, err := newServer(dir, workshopStarts, roomLimits)
	if err != nil {
		t.Fatal(err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + listener.Addr().String()
	signals, stopped := make(chan os.Signal, 1), make(chan error, 1)
	go func() { stopped <- s.run(s.listen(listener), signals) }()
	const inFlight = 3
	var rest []func() (int, error)
	for i := range inFlight {
		conn := dialRoom(t, url)
		id := fmt.Sprintf("aaaaaaaa%04d", i)
		body := handInFile("Ada", id, "passed: ...", 4, 2)
		fmt.Fprintf(conn, "POST /handin HTTP/1.1\r\nHost: room\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s",
			testSecret, len(body), body[:len(body)/2])
		rest = append(rest, func() (int, error) {
			io.WriteString(conn, body[len(body)/2:])
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				return 0, err
			}
			return resp.StatusCode, nil
		})
	}
	waitFor(t, "the hand-ins being read", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.bodies == inFlight
	})
	signals <- os.Interrupt
	waitFor(t, "the shutdown to start", func() bool { return strings.Contains(logs.String(), "finishing the hand-ins") })
	for i, finish := range rest {
		if code, err := finish(); code != http.StatusOK {
			t.Errorf("hand-in %d, finished during the shutdown: %d, %v; want 200", i, code, err)
		}
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("run after a signal: %v, want nil (exit status 0)", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the room did not stop within 10 s of its last hand-in")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(files) != inFlight {
		t.Errorf("%d hand-ins kept, want %d", len(files), inFlight)
	}
	if out := logs.String(); !strings.Contains(out, fmt.Sprintf("room: stopped: %d hand-ins kept", inFlight)) {
		t.Errorf("the log does not say what the room kept:\n%s", out)
	}
}
