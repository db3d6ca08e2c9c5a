package api

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// postOverTCP serves the API on a loopback listener with ReadTimeout,
// sends head (a request line and headers) and body on a raw connection,
// half-closes it if closeWrite, and returns the response.
func postOverTCP(t *testing.T, ReadTimeout time.Duration, head, body string, closeWrite bool) (*http.Response, string) {
	t.Helper()
	l := listenLoopback(t)
	srv := &http.Server{Handler: newTestHandler(), ReadTimeout: ReadTimeout}
	go srv.Serve(l)
	defer srv.Close()

	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, head+"\r\n"+body); err != nil {
		t.Fatal(err)
	}
	if closeWrite {
		conn.(*net.TCPConn).CloseWrite()
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(answer)
}

const validUser = `{"id":"tcp-1","name":"Over TCP","email":"tcp@example.com","roles":["admin"]}`

func TestBodyShorterThanContentLength(t *testing.T) {
	head := "POST /users HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 500\r\n"
	resp, body := postOverTCP(t, time.Minute, head, validUser, true)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "ended before the length it announced") {
		t.Errorf("a body shorter than its Content-Length: %d %s", resp.StatusCode, body)
	}
	wantNoAddress(t, body)
}

func TestSlowBodyIsATimeout(t *testing.T) {
	head := "POST /users HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 500\r\n"
	resp, body := postOverTCP(t, 200*time.Millisecond, head, validUser[:20], false)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(body, "arrived too slowly") {
		t.Errorf("a body that stops arriving: %d %s", resp.StatusCode, body)
	}
	wantNoAddress(t, body)
}

// wantNoAddress fails t if an error body names a socket address.
func wantNoAddress(t *testing.T, body string) {
	t.Helper()
	var answer map[string]string
	if err := json.Unmarshal([]byte(body), &answer); err != nil {
		t.Errorf("error body %q is not JSON: %v", body, err)
	}
	if strings.Contains(body, "127.0.0.1") || strings.Contains(body, "tcp") || strings.Contains(body, "timeout") {
		t.Errorf("error body %q names the connection", body)
	}
}

func TestCheckText(t *testing.T) {
	for _, tc := range []struct {
		lit  string
		want error
	}{
		{`"plain"`, nil},
		{`""`, nil},
		{`"\u00e9\n\\u\"\/"`, nil},
		{`"\\ud800"`, nil}, // an escaped backslash, then text
		{`"\ud83d\ude00"`, nil},
		{`"\uD83D\uDE00 and \ud83d\ude00"`, nil},
		{`"\ufffd"`, nil},
		{"\"\uFFFD\"", nil},
		{"\"caf\xc3\xa9\"", nil},
		{"\"caf\xc3\"", errNotUTF8},
		{"\"\xff\"", errNotUTF8},
		{"\"\xed\xa0\x80\"", errNotUTF8}, // a surrogate spelled in UTF-8 bytes
		{`"\ud800"`, errLoneSurrogate},
		{`"\udfff"`, errLoneSurrogate},
		{`"\ud800x"`, errLoneSurrogate},
		{`"\ud800\n"`, errLoneSurrogate},
		{`"\ud800\u0041"`, errLoneSurrogate},
		{`"\ud800\ud800"`, errLoneSurrogate},
		{`"\ude00\ud83d"`, errLoneSurrogate},
		{`"\ud83d\ude00\ud83d"`, errLoneSurrogate},
		{`"\u12"`, errMalformedEscape},
	} {
		if got := checkText([]byte(tc.lit)); !errors.Is(got, tc.want) {
			t.Errorf("checkText(%q) = %v, want %v", tc.lit, got, tc.want)
		}
	}
}

// TestBodyAnnouncedTooLargeIs413AtOnce sends only the headers of a POST
// that announces a body over the limit and waits for 100 Continue before
// sending it: the answer must be 413, with no 100 Continue first, and not
// wait for a body that the server would refuse anyway.
func TestBodyAnnouncedTooLargeIs413AtOnce(t *testing.T) {
	head := "POST /users HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n" +
		"Content-Length: " + strconv.Itoa(MaxBodyBytes+1) + "\r\nExpect: 100-continue\r\n"
	resp, body := postOverTCP(t, time.Minute, head, "", false)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "larger than") {
		t.Errorf("a POST announcing %d bytes with Expect: 100-continue: %d %s, want 413", MaxBodyBytes+1, resp.StatusCode, body)
	}
}
