package apitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// badBody is a POST /users body that must be refused, the status it must
// get, and words its error message must hold: the field at fault, or the
// problem in the client's terms.
type badBody struct {
	name, body string
	status     int
	says       string
}

// rawUser is a POST body built from raw JSON values, so that a test can
// put in bytes that encoding/json would never write.
func rawUser(id, name, email, roles string) string {
	return fmt.Sprintf(`{"id":%s,"name":%s,"email":%s,"roles":%s}`, id, name, email, roles)
}

// badBodies are the POST bodies that are refused because storing them
// would mean guessing, or changing what was sent. Their ids start with
// "strict-", and none of them may be stored.
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

// failingBody reads s, then fails with err as a connection would.
func failingBody(s string, err error) io.Reader {
	return io.MultiReader(strings.NewReader(s), errReader{err})
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// doBody sends a POST /users whose body is read from body.
func doBody(h http.Handler, body io.Reader) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", "/users", body)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// testBadBodies checks that each bad body is refused with its status and
// a message that says what was wrong and leaks nothing, and that a body
// whose connection fails is answered about the request, not the socket.
// h is the API over a stage that fails the test if any request reaches it.
func testBadBodies(t *testing.T, h http.Handler) {
	for _, bad := range badBodies() {
		w := Do(h, "POST", "/users", bad.body)
		wantError(t, bad.name, w, bad.status)
		wantNoLeak(t, bad.name, w.Body.String())
		if msg := errorMessage(w); !strings.Contains(msg, bad.says) {
			t.Errorf("%s: error %q does not say %q", bad.name, msg, bad.says)
		}
	}

	// What a real connection reports: a body shorter than its
	// Content-Length, and a read deadline passed, both naming the sockets.
	sockets := &net.OpError{Op: "read", Net: "tcp",
		Source: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 19101},
		Addr:   &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 42588}, Err: os.ErrDeadlineExceeded}
	whole := rawUser(`"strict-read"`, `"Read Fails"`, `"read@example.com"`, `["admin"]`)
	for _, tc := range []struct {
		name   string
		body   io.Reader
		status int
		says   string
	}{
		{"body shorter than its Content-Length", failingBody(whole, io.ErrUnexpectedEOF), 400, "ended before"},
		{"body cut in a value", failingBody(whole[:20], io.ErrUnexpectedEOF), 400, "ended before"},
		{"body too slow", failingBody(whole[:20], sockets), 408, "too slowly"},
		{"whole body, then too slow", failingBody(whole, sockets), 408, "too slowly"},
		{"connection reset", failingBody(whole[:20], &net.OpError{Op: "read", Net: "tcp", Err: os.ErrClosed}), 400, "could not be read"},
	} {
		w := doBody(h, tc.body)
		wantError(t, tc.name, w, tc.status)
		wantNoLeak(t, tc.name, w.Body.String())
		if msg := errorMessage(w); !strings.Contains(msg, tc.says) {
			t.Errorf("%s: error %q does not say %q", tc.name, msg, tc.says)
		}
	}
}

// testUnusualBodies checks that bodies which only look unusual reach the
// stage and are stored exactly as sent: a surrogate pair is one character,
// and U+FFFD sent as such is what was sent. Both are read back as
// encoding/json writes them, which is the stage's encoder's business.
func testUnusualBodies(t *testing.T, newStage api.NewStage) {
	h, _ := newServer(newStage)
	for _, name := range []string{`"pair \ud83d\ude00"`, `"replacement \ufffd \uFFFD ` + "\uFFFD" + `"`} {
		var want user.User
		body := rawUser(`"strict-ok"`, name, `"ok@example.com"`, `["strict-ok"]`)
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatal(err)
		}
		wantJSON(t, "POST of the name "+name, Do(h, "POST", "/users", body), http.StatusCreated, mustMarshal(want))
		wantJSON(t, "GET of the name "+name, Do(h, "GET", "/users/strict-ok", ""), http.StatusOK, mustMarshal(want))
		wantJSON(t, "GET of the role of the name "+name, Do(h, "GET", ListTarget("strict-ok"), ""), http.StatusOK, mustMarshal([]user.User{want}))
		if w := Do(h, "DELETE", "/users/strict-ok", ""); w.Code != http.StatusNoContent {
			t.Fatalf("DELETE strict-ok: status %d", w.Code)
		}
	}
}

// errorMessage returns the message of an error response, or "".
func errorMessage(w *httptest.ResponseRecorder) string {
	var body struct{ Error string }
	json.Unmarshal(w.Body.Bytes(), &body)
	return body.Error
}
