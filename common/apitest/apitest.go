package apitest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// Run checks stage against the API contract: statuses, headers and exact
// bytes of every endpoint, the bad input that reaches the stage, writes
// followed by reads, concurrent readers and writers (run it under -race),
// and what the stage keeps once its users are gone. The bad input that the
// API layer refuses alone is APILayer's, run once by common/api.
func Run(t *testing.T, newStage api.NewStage) {
	// The plain reads and writes go first, so that under -failfast a bug in
	// them is reported by the test that names them.
	t.Run("ListByRole", func(t *testing.T) { testListByRole(t, newStage) })
	t.Run("ReadsAfterWritesInIdOrder", func(t *testing.T) { testWrites(t, newStage) })
	t.Run("BadInput", func(t *testing.T) { testBadInput(t, newStage) })
	t.Run("HEAD", func(t *testing.T) {
		t.Run("LikeGetWithoutBuilding", func(t *testing.T) { testHead(t, newStage) })
	})
	t.Run("OverTCP", func(t *testing.T) { testOverTCP(t, newStage) })
	t.Run("ConcurrentReadersAndWriters", func(t *testing.T) { testConcurrent(t, newStage) })
	t.Run("ManyShortCallsAtOnce", func(t *testing.T) { testStageCalls(t, newStage) })
	t.Run("NothingKeptAfterDeletes", func(t *testing.T) { testNothingKept(t, newStage) })
}

// server is a handler over a stage and the plain store that holds what the
// stage must answer: each write a test makes goes to both.
type server struct {
	t     *testing.T
	h     http.Handler
	store *plain.Store
}

// newServer returns a server over a fresh stage holding the default data set.
func newServer(t *testing.T, newStage api.NewStage) *server {
	users := user.MustGenerate(user.DefaultCount, user.DefaultSeed)
	return &server{t, api.NewHandler(newStage(users), users), plain.New(users)}
}

func (s *server) do(method, target, body string) *httptest.ResponseRecorder {
	return Do(s.h, method, target, body)
}

// post wants u created, and adds it to the store.
func (s *server) post(what string, u user.User) {
	s.t.Helper()
	wantJSON(s.t, what, s.do("POST", "/users", string(mustMarshal(u))), http.StatusCreated, mustMarshal(u))
	s.store.Add(u)
}

// delete stops the test unless id is deleted, and deletes it from the store.
func (s *server) delete(id string) {
	s.t.Helper()
	if w := s.do("DELETE", "/users/"+id, ""); w.Code != http.StatusNoContent || w.Body.Len() != 0 {
		s.t.Fatalf("DELETE %s: status %d, body %q; want 204 and no body", id, w.Code, w.Body)
	}
	s.store.Delete(id)
}

// checkLists wants each role listed as the store lists it.
func (s *server) checkLists(what string, roles ...string) {
	s.t.Helper()
	for _, role := range roles {
		wantJSON(s.t, what+": GET "+ListTarget(role), s.do("GET", ListTarget(role), ""), http.StatusOK, s.store.ListBody(role))
	}
}

// Do sends one request to h and returns the recorded response.
func Do(h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	return doReader(h, method, target, r)
}

func doReader(h http.Handler, method, target string, body io.Reader) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, body)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// ListTarget is the request path of GET /users?role=role.
func ListTarget(role string) string {
	return "/users?role=" + url.QueryEscape(role)
}

// wantJSON fails t unless w has status and a JSON body equal to want.
func wantJSON(t *testing.T, what string, w *httptest.ResponseRecorder, status int, want []byte) {
	t.Helper()
	if !wantStatus(t, what, w, status) {
		return
	}
	if cl := w.Header().Get("Content-Length"); cl != strconv.Itoa(w.Body.Len()) {
		t.Errorf("%s: Content-Length %q, body has %d bytes", what, cl, w.Body.Len())
	}
	if !bytes.Equal(w.Body.Bytes(), want) {
		t.Errorf("%s: body differs from encoding/json.Marshal: %s", what, ListMismatch(w.Body.Bytes(), want))
	}
}

// wantStatus fails t unless w has status and Content-Type application/json,
// and reports whether the status was right.
func wantStatus(t *testing.T, what string, w *httptest.ResponseRecorder, status int) bool {
	t.Helper()
	if w.Code != status {
		t.Errorf("%s: status %d, want %d (body %.200s)", what, w.Code, status, w.Body)
		return false
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q, want application/json", what, ct)
	}
	return true
}

// wantError fails t unless w has status and a body {"error": "..."} whose
// message holds each of says and leaks nothing of the server.
func wantError(t *testing.T, what string, w *httptest.ResponseRecorder, status int, says ...string) {
	t.Helper()
	if !wantStatus(t, what, w, status) {
		return
	}
	var body map[string]string
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || len(body) != 1 || body["error"] == "" {
		t.Errorf(`%s: body %.200q is not {"error": "..."}`, what, w.Body)
	}
	for _, s := range says {
		if !strings.Contains(body["error"], s) {
			t.Errorf("%s: error %q does not say %q", what, body["error"], s)
		}
	}
	for _, p := range leakPatterns {
		if m := p.re.FindString(w.Body.String()); m != "" {
			t.Errorf("%s: the error body holds %s (%s): %.300s", what, p.what, m, w.Body)
		}
	}
}

// leakPatterns are what an error body must never hold: its client needs a
// sentence about its request, not the server's addresses or Go's types.
var leakPatterns = []struct {
	what string
	re   *regexp.Regexp
}{
	{"an IPv4 address", regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}\b`)},
	{"an IPv6 address", regexp.MustCompile(`\[[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*\]|::1\b`)},
	{"a socket error", regexp.MustCompile(`\b(read|write|dial) (tcp|udp)|i/o timeout|connection reset`)},
	{"a Go library's text", regexp.MustCompile(`invalid character|semicolon separator|exceeded limit|in string escape code`)},
	{"a Go escape (JSON has none for bytes)", regexp.MustCompile(`\\x`)},
	{"a Go type name", regexp.MustCompile(`Go (struct|value)|\bjson: |\bstruct\b|\binterface ?\{|\bmap\[|\[\][a-z]|` +
		`\*[a-z]+\.?[A-Za-z]*\b|\b(u?int|float|complex)(8|16|32|64|128)\b|\bnewUserRequest\b|\b(user|api|main)\.[A-Z]`)},
}

func testListByRole(t *testing.T, newStage api.NewStage) {
	s := newServer(t, newStage)
	for _, tc := range []struct {
		role  string
		count int // -1: whatever the data holds
	}{
		{user.RoleAdmin, user.AdminCount},
		{user.RoleEditor, user.EditorCount},
		{"viewer", -1},    // a large result
		{"team-0000", -1}, // the head of the long tail
		{"team-1999", -1}, // its far end
		{"연구원", -1},       // a non-ASCII role
		{"nobody", 0},     // unknown: "[]", never "null"
		{"Admin", 0},      // roles are case-sensitive
		{"admin ", 0},     // and not trimmed
		{"<&>\u2028", 0},  // characters an encoder escapes
	} {
		s.checkLists("role "+tc.role, tc.role)
		if tc.count >= 0 {
			var got []user.User
			if err := json.Unmarshal(s.do("GET", ListTarget(tc.role), "").Body.Bytes(), &got); err != nil || len(got) != tc.count {
				t.Errorf("role %q: %d users (err %v), want %d", tc.role, len(got), err, tc.count)
			}
		}
	}
}

func testOverTCP(t *testing.T, newStage api.NewStage) {
	s := newServer(t, newStage)
	srv := httptest.NewServer(s.h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + ListTarget(user.RoleEditor))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.ContentLength != int64(len(body)) {
		t.Errorf("over TCP: status %d, Content-Length %d for %d bytes", resp.StatusCode, resp.ContentLength, len(body))
	}
	if !bytes.Equal(body, s.store.ListBody(user.RoleEditor)) {
		t.Errorf("over TCP: body differs from encoding/json.Marshal")
	}
}

// mustMarshal returns json.Marshal of v, which cannot fail on users and bodies.
func mustMarshal(v any) []byte {
	body, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return body
}

// clip shortens s for a report to about n bytes, keeping its head and its
// tail (where a POST body lists the roles).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n/2] + "...(" + strconv.Itoa(len(s)) + " bytes)..." + s[len(s)-n/2:]
}
