package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// startRoom serves the room's hand-ins in dir on a loopback port, with the
// server's own bounds, and returns its URL.
func startRoom(t *testing.T, dir string) (*server, string) {
	t.Helper()
	s, err := newServer(dir, workshopStarts)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, url := s.httpServer(), "http://"+l.Addr().String()
	s.send = sendCommand(url)
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return s, url
}

// post sends body to the room and returns the status and the reply.
func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url+"/handin", "text/plain; charset=utf-8", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(reply)
}

// roomPage returns the page, which must be served.
func roomPage(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET / answered %s:\n%s", resp.Status, page)
	}
	return string(page)
}

// manyStages is n verdict lines of n stages.
func manyStages(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "verdict-s%d: passed\n", i)
	}
	return b.String()
}

// TestServeSameNameTwoIDs checks that two people of one name stay two: the room keys on the id.
func TestServeSameNameTwoIDs(t *testing.T) {
	_, url := startRoom(t, t.TempDir())
	for _, id := range []string{"aaaaaaaa1111", "bbbbbbbb2222"} {
		if code, reply := post(t, url, handInFile("Ada Lovelace", id, "passed: ...", 4, 2)); code != http.StatusOK {
			t.Fatalf("the hand-in of id %s: %d %s", id, code, reply)
		}
	}
	page := roomPage(t, url)
	for _, want := range []string{`<td class="who">Ada Lovelace<small>#aaaa · `, `<td class="who">Ada Lovelace<small>#bbbb · `} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q: two people of one name, each tagged with their id:\n%s", want, page)
		}
	}
}

// TestServeEscapes checks that a name or stage holding HTML is shown as text, not run as HTML.
func TestServeEscapes(t *testing.T) {
	_, url := startRoom(t, t.TempDir())
	file := handInFile("<script>alert(1)</script>", "cccccccc3333", "passed: ...", 4, 2, "predicted-ex1: <b>2x</b>\n")
	if code, reply := post(t, url, file); code != http.StatusOK {
		t.Fatalf("%d %s", code, reply)
	}
	page := roomPage(t, url)
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<b>2x") {
		t.Errorf("the page holds the hand-in's HTML as HTML:\n%s", page)
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "guess &lt;b&gt;2x&lt;/b&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
}

// TestServeRefuses checks that a body over the cap, a malformed hand-in, a
// room over its cap and another method are each refused with a 4xx that
// says why, and that the server serves on.
func TestServeRefuses(t *testing.T) {
	s, url := startRoom(t, t.TempDir())
	s.max = 2
	ok := handInFile("Ada", "aaaaaaaa1111", "passed: ...", 4, 2)
	for _, c := range []struct {
		name, body, reply string
		code              int
	}{
		{"10 MB", ok + strings.Repeat("x", 10<<20), "at most 256 KiB", http.StatusRequestEntityTooLarge},
		{"no participant", strings.Replace(ok, "participant: Ada\n", "", 1), "no participant line", http.StatusBadRequest},
		{"no id", strings.Replace(ok, "id: aaaaaaaa1111\n", "", 1), "no id line", http.StatusBadRequest},
		{"a bad id", strings.Replace(ok, "aaaaaaaa1111", "../../etc", 1), "not 8 to 32 lower-case letters", http.StatusBadRequest},
		{"a bad ratio", strings.Replace(ok, "speedup-ex1-origin: 4", "speedup-ex1-origin: fast", 1), `speedup-ex1-origin is "fast"`, http.StatusBadRequest},
		{"a bad stage", strings.Replace(ok, "verdict-ex1:", "verdict-<ex1>:", 1), "not a stage's name", http.StatusBadRequest},
		{"too many stages", ok + manyStages(30), "more than 30 stages", http.StatusBadRequest},
		{"not UTF-8", ok + "\xff\xfe", "not UTF-8", http.StatusBadRequest},
		{"a long name", strings.Replace(ok, "Ada", strings.Repeat("A", 41), 1), "longer than 40", http.StatusBadRequest},
		{"a control character", strings.Replace(ok, "Ada", "A\x1bda", 1), "cannot be printed", http.StatusBadRequest},
	} {
		code, reply := post(t, url, c.body)
		if code != c.code || !strings.Contains(reply, c.reply) {
			t.Errorf("%s: %d %q, want %d and %q", c.name, code, reply, c.code, c.reply)
		}
		roomPage(t, url) // and it serves on
	}
	for i, id := range []string{"aaaaaaaa1111", "bbbbbbbb2222", "aaaaaaaa1111"} { // a known id hands in again in a full room
		if code, reply := post(t, url, handInFile("Ada", id, "passed: ...", float64(i+1), 2)); code != http.StatusOK {
			t.Errorf("hand-in %d: %d %s", i, code, reply)
		}
	}
	if code, reply := post(t, url, handInFile("Ken", "cccccccc3333", "passed: ...", 4, 2)); code != http.StatusForbidden || !strings.Contains(reply, "full") {
		t.Errorf("a third participant in a room of 2: %d %q, want 403 and full", code, reply)
	}
	resp, err := http.Get(url + "/handin")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /handin: %s, want 405", resp.Status)
	}
}

// TestServeRestart checks that hand-ins outlive the server: each is a file,
// the last hand-in of an id replaces the first, and a new server reads them.
func TestServeRestart(t *testing.T) {
	dir := t.TempDir()
	_, url := startRoom(t, dir)
	for _, h := range []string{
		handInFile("Ada", "aaaaaaaa1111", "passed: ...", 4, 2),
		handInFile("Ada", "aaaaaaaa1111", "passed: ...", 7, 2),
		handInFile("Ken", "cccccccc3333", "passed: ...", 3, 2),
	} {
		if code, reply := post(t, url, h); code != http.StatusOK {
			t.Fatalf("%d %s", code, reply)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 2 {
		t.Errorf("the hand-ins' folder holds %q, want one file per id", files)
	}
	_, again := startRoom(t, dir)
	page := roomPage(t, again)
	for _, want := range []string{"Ada<small>", "Ken<small>", "7.0x", "3.0x"} {
		if !strings.Contains(page, want) {
			t.Errorf("after a restart, the page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "4.0x") {
		t.Errorf("after a restart, the page shows Ada's first hand-in, which her second replaced:\n%s", page)
	}
	kept, err := os.ReadFile(filepath.Join(dir, "aaaaaaaa1111.txt"))
	if err != nil || !bytes.Contains(kept, []byte("speedup-ex1-origin: 7\n")) {
		t.Errorf("aaaaaaaa1111.txt (%v):\n%s", err, kept)
	}
}

func TestListenAddress(t *testing.T) {
	for addr, want := range map[string]string{"8080": "127.0.0.1:8080", ":8080": "127.0.0.1:8080", "localhost:1": "127.0.0.1:1", "10.0.0.5:8080": "10.0.0.5:8080"} {
		if got, err := listenAddress(addr); err != nil || got != want {
			t.Errorf("listenAddress(%q) = %q, %v; want %q", addr, got, err, want)
		}
	}
}
