package apitest

import (
	"bytes"
	"fmt"
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

// APILayer checks what the API layer does alone: every bad request and
// body that needs no stage to refuse is refused with its status, in words
// that say what was wrong and nothing of the server. No stage can change
// that, so common/api's tests run it once, over a stage that fails the
// test when a request reaches it; Run keeps the checks that need a stage.
func APILayer(t *testing.T, newStage api.NewStage) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	guard := &unreachable{Stage: newStage(users), t: t}
	h := api.NewHandler(guard, users)

	for _, bad := range BadRequests() {
		guard.request = bad.Name
		wantError(t, bad.Name, Do(h, bad.Method, bad.Target, bad.Body), bad.Status)
	}
	guard.request = "a bad body"
	for _, bad := range badBodies() {
		wantErrorSaying(t, bad.name, Do(h, "POST", "/users", bad.body), bad.status, bad.says)
	}
	guard.request = "a body whose read fails"
	testFailingBodies(t, h)

	// Over a real connection, an oversized body is refused before it is read to the end.
	guard.request = "a 10 MiB POST over TCP"
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

// unreachable is a stage that fails the test when it is called: the API
// layer must refuse the request named by request without asking it.
type unreachable struct {
	api.Stage
	t       *testing.T
	request string
}

func (s *unreachable) reached(call, arg string) {
	s.t.Helper()
	s.t.Errorf("%s reached the stage's %s(%s): the API layer must refuse it alone", s.request, call, clip(arg, 40))
}

func (s *unreachable) ListByRole(role string) []byte {
	s.reached("ListByRole", role)
	return s.Stage.ListByRole(role)
}

func (s *unreachable) Get(id string) (user.User, bool) {
	s.reached("Get", id)
	return s.Stage.Get(id)
}

func (s *unreachable) Add(u user.User) bool {
	s.reached("Add", u.ID)
	return s.Stage.Add(u)
}

func (s *unreachable) Delete(id string) bool {
	s.reached("Delete", id)
	return s.Stage.Delete(id)
}

// Recycle passes the bodies back to a stage that reuses them.
func (s *unreachable) Recycle(body []byte) { api.Recycle(s.Stage, body) }

// rawUser is a POST body of raw JSON values, which may hold bytes that
// encoding/json would never write.
func rawUser(id, name, email, roles string) string {
	return fmt.Sprintf(`{"id":%s,"name":%s,"email":%s,"roles":%s}`, id, name, email, roles)
}

// badBody is a POST body that must be refused with status, in an error
// that says what was wrong: the field at fault, or the problem in the
// client's terms.
type badBody struct {
	name, body string
	status     int
	says       string
}

// badBodies are refused because storing them would mean guessing, or
// changing what was sent.
func badBodies() []badBody {
	const (
		name  = `"Strict Body"`
		email = `"strict@example.com"`
		roles = `["admin"]`
	)
	id := func(n int) string { return fmt.Sprintf(`"strict-%d"`, n) }
	return []badBody{
		{"name not UTF-8", rawUser(id(1), "\"bad \xff name\"", email, roles), 400, "field name is not valid UTF-8"},
		{"email not UTF-8", rawUser(id(2), name, "\"a\xc3@example.com\"", roles), 400, "field email is not valid UTF-8"},
		{"id not UTF-8", rawUser("\"strict-3\xe2\x80\"", name, email, roles), 400, "field id is not valid UTF-8"},
		{"second role not UTF-8", rawUser(id(4), name, email, "[\"admin\",\"r\xed\xa0\x80\"]"), 400, "field roles[1] is not valid UTF-8"},
		{"lone high surrogate", rawUser(id(5), `"x \ud800 y"`, email, roles), 400, "field name holds an unpaired surrogate"},
		{"lone low surrogate", rawUser(id(6), `"\udc00"`, email, roles), 400, "field name holds an unpaired surrogate"},
		{"surrogates in the wrong order", rawUser(id(7), `"\udc00\ud800"`, email, roles), 400, "unpaired surrogate"},
		{"key in upper case", `{"ID":` + id(8) + `,"name":` + name + `,"email":` + email + `,"roles":` + roles + `}`,
			400, `unknown field "ID": field names are case-sensitive`},
		{"key given twice", `{"id":` + id(9) + `,"name":` + name + `,"name":"Other","email":` + email + `,"roles":` + roles + `}`,
			400, "field name is given twice"},
		{"null name", rawUser(id(10), `null`, email, roles), 400, "field name must be a string, not null"},
		{"number id", rawUser(`10`, name, email, roles), 400, "field id must be a string, not a number"},
		{"roles a string", rawUser(id(11), name, email, `"admin"`), 400, "field roles must be an array of strings, not a string"},
		{"roles null", rawUser(id(12), name, email, `null`), 400, "field roles must be an array of strings, not null"},
		{"role a number", rawUser(id(13), name, email, `["admin",1]`), 400, "field roles[1] must be a string, not a number"},
		{"email an object", rawUser(id(14), name, `{"at":"example.com"}`, roles), 400, "field email must be a string, not an object"},
		{"byte order mark", "\xef\xbb\xbf" + rawUser(id(15), name, email, roles), 400, "byte order mark"},
		{"empty body", "", 400, "body is empty"},
		{"an array", `[` + rawUser(id(16), name, email, roles) + `]`, 400, "must be a JSON object, not an array"},
		{"garbage after the object", rawUser(id(17), name, email, roles) + ` x`, 400, "exactly one JSON object"},
		{"cut in the middle", rawUser(id(18), name, email, roles)[:30], 400, "the body ends before the object closes"},
		{"an opening brace alone", "{", 400, "the body ends before the object closes"},
		{"cut after a field", `{"id":` + id(20), 400, "the body ends before the object closes"},
		{"no closing brace", strings.TrimSuffix(rawUser(id(21), name, email, roles), "}"), 400, "the body ends before the object closes"},
		{"unknown field", `{"id":` + id(19) + `,"nam":` + name + `}`, 400, `unknown field "nam"`},
	}
}

// testFailingBodies checks that a body whose connection fails, as a real
// one reports it (naming both sockets), is answered about the request.
func testFailingBodies(t *testing.T, h http.Handler) {
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
		wantErrorSaying(t, tc.name, doReader(h, "POST", "/users", body), tc.status, tc.says)
	}
}
