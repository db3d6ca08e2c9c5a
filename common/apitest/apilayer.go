package apitest

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// APILayer checks that the API layer alone refuses every bad request that
// needs no stage to refuse, with its status and in words that say what was
// wrong. No stage can change that, so common/api's tests run it once.
func APILayer(t *testing.T, newStage api.NewStage) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	var request string
	h := api.NewHandler(watched{newStage(users), func(call, arg string) {
		t.Errorf("%s reached the stage's %s(%s): the API layer must refuse it alone", request, call, clip(arg, 40))
	}}, users)

	for _, bad := range BadRequests() {
		request = bad.Name
		wantError(t, bad.Name, Do(h, bad.Method, bad.Target, bad.Body), bad.Status, bad.Says)
	}
	// A body whose connection fails, as a real one reports it (naming both
	// sockets), is answered about the request.
	request = "a body whose read fails"
	sockets := &net.OpError{Op: "read", Net: "tcp",
		Source: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 19101},
		Addr:   &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 42588}, Err: os.ErrDeadlineExceeded}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrClosed}
	whole := rawUser(`"strict-read"`, `"Read Fails"`, `"read@example.com"`, `["admin"]`)
	for _, tc := range []struct {
		name, sent string
		err        error
		status     int
		says       string
	}{
		{"body shorter than its Content-Length", whole, io.ErrUnexpectedEOF, 400, "ended before"},
		{"body cut in a value", whole[:20], io.ErrUnexpectedEOF, 400, "ended before"},
		{"body too slow", whole[:20], sockets, 408, "too slowly"},
		{"whole body, then too slow", whole, sockets, 408, "too slowly"},
		{"connection reset", whole[:20], reset, 400, "could not be read"},
	} {
		body := io.MultiReader(strings.NewReader(tc.sent), iotest.ErrReader(tc.err))
		wantError(t, tc.name, doReader(h, "POST", "/users", body), tc.status, tc.says)
	}

	// Over a real connection, an oversized body is refused before it is read to the end.
	request = "a 10 MiB POST over TCP"
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/users", "application/json", bytes.NewReader(bytes.Repeat([]byte(" "), 10<<20)))
	if err != nil {
		t.Fatalf("10 MiB POST over TCP: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("10 MiB POST over TCP: status %d, want 413", resp.StatusCode)
	}
}

// watched is a stage that tells seen of each call made to it.
type watched struct {
	api.Stage
	seen func(call, arg string)
}

func (s watched) ListByRole(role string) []byte {
	s.seen("ListByRole", role)
	return s.Stage.ListByRole(role)
}

func (s watched) Get(id string) (user.User, bool) {
	s.seen("Get", id)
	return s.Stage.Get(id)
}

func (s watched) Add(u user.User) bool {
	s.seen("Add", u.ID)
	return s.Stage.Add(u)
}

func (s watched) Delete(id string) bool {
	s.seen("Delete", id)
	return s.Stage.Delete(id)
}

// Recycle passes the bodies back to a stage that reuses them.
func (s watched) Recycle(body []byte) { api.Recycle(s.Stage, body) }
