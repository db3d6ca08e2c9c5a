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
// server's own bounds but for new participants, which all come from this
// machine's address in a test, and returns its URL.
func startRoom(t *testing.T, dir string) (*server, string) {
	l := roomLimits
	l.perMinute[newcomers] = l.participants
	return startRoomWith(t, dir, l)
}

// startRoomWith serves the room's hand-ins in dir with the bounds l.
func startRoomWith(t *testing.T, dir string, l limits) (*server, string) {
	t.Helper()
	s, err := newServer(dir, workshopStarts, l)
	if err != nil {
		t.Fatal(err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, url := s.httpServer(), "http://"+listener.Addr().String()
	s.send = sendCommand(url)
	go srv.Serve(s.listen(listener))
	t.Cleanup(func() { srv.Close() })
	return s, url
}

// testSecret is the participant secret that post sends, whatever the id.
const testSecret = "TESTSECRET234567ABCDEFGHIJ"

// post sends body to the room with testSecret and returns the status and the reply.
func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	return postWith(t, url, body, testSecret)
}

// postWith sends body to the room with secret, none if "", and returns the status and the reply.
func postWith(t *testing.T, url, body, secret string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/handin", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	resp, err := http.DefaultClient.Do(req)
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

// TestServeSameNameTwoIDs checks that people of one name stay apart: the
// room keys on the id, and tags each with the shortest start of its id
// that no other of that name shares, however many characters they share.
func TestServeSameNameTwoIDs(t *testing.T) {
	_, url := startRoom(t, t.TempDir())
	for _, id := range []string{"aaaaaaaa1111", "bbbbbbbb2222", "bbbbbbbb2223", "bbbb00000000", "cccccccc3333"} {
		who := "Ada Lovelace"
		if id == "cccccccc3333" {
			who = "Ken" // alone of his name: no tag
		}
		if code, reply := post(t, url, handInFile(who, id, "passed: ...", 4, 2)); code != http.StatusOK {
			t.Fatalf("the hand-in of id %s: %d %s", id, code, reply)
		}
	}
	page := roomPage(t, url)
	for _, tag := range []string{"aaaa", "bbbbbbbb2222", "bbbbbbbb2223", "bbbb0"} {
		if want := `<td class="who">Ada Lovelace<small>#` + tag + ` · `; !strings.Contains(page, want) {
			t.Errorf("the page lacks %q: people of one name, each tagged with their id's own start:\n%s", want, page)
		}
	}
	if !strings.Contains(page, `<td class="who">Ken<small><span class="rel">`) {
		t.Errorf("Ken, alone of his name, is tagged:\n%s", page)
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
	l := roomLimits
	l.participants = 2
	_, url := startRoomWith(t, t.TempDir(), l)
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
	for addr, want := range map[string]string{"8080": "127.0.0.1:8080", ":8080": "127.0.0.1:8080", "localhost:1": "127.0.0.1:1", "10.0.0.5:8080": "10.0.0.5:8080",
		"10.0.0.5": "10.0.0.5:8070", "localhost": "127.0.0.1:8070", "10.0.0.5:": "10.0.0.5:8070"} {
		if got, err := listenAddress(addr); err != nil || got != want {
			t.Errorf("listenAddress(%q) = %q, %v; want %q", addr, got, err, want)
		}
	}
}

// TestServeSecret checks that an id's hand-ins are its first hand-in's:
// another machine's secret, or none, gets 403 and what to do; the secret
// is kept as its hash, across a restart; a hand-in kept before secrets is
// claimed by the first secret that comes; a hand-in may not carry the
// room's own line.
func TestServeSecret(t *testing.T) {
	dir := t.TempDir()
	// A hand-in kept by a room before secrets: no hash line.
	os.WriteFile(filepath.Join(dir, "oooooooo1111.txt"), []byte(handInFile("Old", "oooooooo1111", "passed: ...", 2, 2)), 0o644)
	_, url := startRoom(t, dir)
	ada := handInFile("Ada", "aaaaaaaa1111", "passed: ...", 4, 2)
	const other = "OTHERMACHINE234567ABCDEFGH"
	if code, reply := post(t, url, ada); code != http.StatusOK {
		t.Fatalf("the first hand-in: %d %s", code, reply)
	}
	mallory := strings.Replace(ada, "participant: Ada", "participant: Mallory", 1)
	for _, secret := range []string{other, ""} {
		code, reply := postWith(t, url, mallory, secret)
		if code != http.StatusForbidden || !strings.Contains(reply, "secret") || !strings.Contains(reply, "participant-secret") && secret != "" {
			t.Errorf("the id with secret %q: %d %q, want 403, why and what to do", secret, code, reply)
		}
	}
	if code, reply := post(t, url, handInFile("Ada", "aaaaaaaa1111", "passed: ...", 5, 2)); code != http.StatusOK {
		t.Errorf("the same machine again: %d %s", code, reply)
	}
	kept, _ := os.ReadFile(filepath.Join(dir, "aaaaaaaa1111.txt"))
	if bytes.Contains(kept, []byte(testSecret)) || !bytes.Contains(kept, []byte(secretKey+": ")) {
		t.Errorf("the kept hand-in holds the secret, or lacks its hash:\n%s", kept)
	}
	old := handInFile("Old", "oooooooo1111", "passed: ...", 3, 2)
	if code, reply := postWith(t, url, old, other); code != http.StatusOK {
		t.Errorf("the first secret for a hand-in kept without one: %d %s", code, reply)
	}
	if code, _ := post(t, url, old); code != http.StatusForbidden {
		t.Errorf("a second secret for it: %d, want 403", code)
	}
	forged := ada + secretKey + ": 0000\n"
	if code, reply := post(t, url, forged); code != http.StatusBadRequest || !strings.Contains(reply, "the room's own") {
		t.Errorf("a hand-in with the room's line: %d %q, want 400", code, reply)
	}
	_, again := startRoom(t, dir)
	if code, _ := postWith(t, again, mallory, other); code != http.StatusForbidden {
		t.Errorf("after a restart, another secret: %d, want 403", code)
	}
	if page := roomPage(t, again); !strings.Contains(page, "5.0x") || strings.Contains(page, "Mallory") {
		t.Errorf("after a restart, the page lacks Ada's second hand-in or shows Mallory's:\n%s", page)
	}
}

// TestServeNumbers checks that a speed-up or a prediction that is not a
// ratio from 1/10000 to 10000 is refused with 400 naming its line, and
// that the bounds themselves are taken.
func TestServeNumbers(t *testing.T) {
	_, url := startRoom(t, t.TempDir())
	ok := handInFile("Ada", "aaaaaaaa1111", "passed: ...", 4, 2)
	for _, bad := range []string{"NaN", "nan", "+Inf", "-Inf", "Infinity", "0", "-0", "-2", "10001", "1e308", "5e-324", "0.00009"} {
		for field, line := range map[string]string{
			"speedup-ex1-origin": "speedup-ex1-origin: " + bad + "\n",
			"predicted-ex1":      "predicted-ex1: " + bad + "x\n",
		} {
			code, reply := post(t, url, ok+line)
			if code != http.StatusBadRequest || !strings.Contains(reply, field+" is") || !strings.Contains(reply, "1/10000 to 10000") {
				t.Errorf("%s %s: %d %q, want 400 naming the line", field, bad, code, reply)
			}
		}
	}
	for _, edge := range []string{"10000", "0.0001"} {
		file := strings.Replace(ok, "speedup-ex1-origin: 4", "speedup-ex1-origin: "+edge, 1) + "predicted-ex1: " + edge + "x\n"
		if code, reply := post(t, url, file); code != http.StatusOK {
			t.Errorf("the bound %s: %d %s", edge, code, reply)
		}
	}
	if page := roomPage(t, url); strings.Contains(page, "NaN") || strings.Contains(page, "Inf") {
		t.Errorf("the page shows a number that is not one:\n%s", page)
	}
}
