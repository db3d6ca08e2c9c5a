package apitest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
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
// and what the stage keeps once its users are gone. Each stage's
// stage_test.go calls it with the stage's constructor. The bad input that
// the API layer refuses alone is APILayer's, run once by common/api.
func Run(t *testing.T, newStage api.NewStage) {
	// The plain reads and writes go first: with -failfast (check), a
	// bug in them is reported by the test that names them, not by a later
	// test that happens to read a list after a write too.
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

// newServer returns a handler over a fresh stage holding the default data
// set, and the plain store holding the same users: what the stage must
// answer, once each write is made to both.
func newServer(newStage api.NewStage) (http.Handler, *plain.Store) {
	users := user.MustGenerate(user.DefaultCount, user.DefaultSeed)
	return api.NewHandler(newStage(users), users), plain.New(users)
}

// Do sends one request to h and returns the recorded response.
func Do(h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	if body != "" {
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

// wantStatus fails t unless w has status and Content-Type
// application/json, and reports whether the status was right: a body with
// another status is not worth checking.
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

// wantError fails t unless w has status and a body {"error": "<non-empty>"}.
func wantError(t *testing.T, what string, w *httptest.ResponseRecorder, status int) {
	t.Helper()
	if !wantStatus(t, what, w, status) {
		return
	}
	var body map[string]string
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || len(body) != 1 || body["error"] == "" {
		t.Errorf(`%s: body %.200q is not {"error": "..."}`, what, w.Body)
	}
}

func testListByRole(t *testing.T, newStage api.NewStage) {
	h, store := newServer(newStage)
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
		w := Do(h, "GET", ListTarget(tc.role), "")
		want := store.ListBody(tc.role)
		wantJSON(t, "GET "+ListTarget(tc.role), w, http.StatusOK, want)
		if tc.count >= 0 {
			var got []user.User
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || len(got) != tc.count {
				t.Errorf("role %q: %d users (err %v), want %d", tc.role, len(got), err, tc.count)
			}
		}
	}
}

func testOverTCP(t *testing.T, newStage api.NewStage) {
	h, store := newServer(newStage)
	srv := httptest.NewServer(h)
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
	if !bytes.Equal(body, store.ListBody(user.RoleEditor)) {
		t.Errorf("over TCP: body differs from encoding/json.Marshal")
	}
}

func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// mustMarshal returns encoding/json.Marshal of v, which cannot fail on the
// users and bodies the tests marshal.
func mustMarshal(v any) []byte {
	body, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return body
}
