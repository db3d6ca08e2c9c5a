package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"example.com/userperf/common/api"
	"example.com/userperf/common/api/guard"
	"example.com/userperf/common/apitest/plain"
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

// watched is a stage that tells seen of each call made to it, before it is made.
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

// BadRequest is one malformed request, its status and words its error must hold.
type BadRequest struct {
	Name, Method, Target, Body string
	Status                     int
	Says                       string
}

// newUserJSON is a valid POST body with one field replaced or removed.
func newUserJSON(id string, edit func(m map[string]any)) string {
	m := map[string]any{"id": id, "name": "Bad Input", "email": "bad.input@example.com", "roles": []string{"admin"}}
	if edit != nil {
		edit(m)
	}
	return string(mustMarshal(m))
}

// rawUser is a POST body of raw JSON values, which may hold bytes that
// encoding/json would never write.
func rawUser(id, name, email, roles string) string {
	return fmt.Sprintf(`{"id":%s,"name":%s,"email":%s,"roles":%s}`, id, name, email, roles)
}

// BadRequests lists every kind of bad input that the API layer must refuse
// alone, before any stage sees it; the "strict-n" bodies would be stored
// only by guessing, or changing what was sent.
func BadRequests() []BadRequest {
	tooManyRoles := make([]string, api.MaxRoles+1)
	for i := range tooManyRoles {
		tooManyRoles[i] = fmt.Sprintf("r%d", i)
	}
	const (
		name  = `"Strict Body"`
		email = `"strict@example.com"`
		roles = `["admin"]`
	)
	id := func(n int) string { return fmt.Sprintf(`"strict-%d"`, n) }
	post := func(what, body, says string) BadRequest { return BadRequest{what, "POST", "/users", body, 400, says} }
	return []BadRequest{
		{"missing role", "GET", "/users", "", 400, ""},
		{"role of another name", "GET", "/users?rol=admin", "", 400, ""},
		{"empty role", "GET", "/users?role=", "", 400, ""},
		{"10,000-byte role", "GET", "/users?role=" + strings.Repeat("a", 10_000), "", 400, ""},
		{"role one byte over the limit", "GET", "/users?role=" + strings.Repeat("a", api.MaxRoleBytes+1), "", 400, ""},
		{"role not UTF-8", "GET", "/users?role=%ff", "", 400, ""},
		{"role with a broken character", "GET", "/users?role=ad%c3min", "", 400, ""},
		{"role cut in a character", "GET", "/users?role=%e2%80", "", 400, ""},
		{"role one character over the limit", "GET", "/users?role=" + url.QueryEscape(strings.Repeat("가", api.MaxRoleBytes/len("가")+1)), "", 400, ""},
		{"role with a broken escape", "GET", "/users?role=%zz", "", 400, ""},
		{"repeated role", "GET", "/users?role=admin&role=editor", "", 400, ""},
		{"repeated role, same value", "GET", "/users?role=admin&role=admin", "", 400, ""},
		{"semicolon in the query", "GET", "/users?role=admin;x", "", 400, ""},
		{"10,001 query parameters", "GET", "/users?role=admin" + strings.Repeat("&x", 10_000), "", 400, ""},

		post("malformed JSON", `{"id": "bad-1", "name": `, ""),
		post("not an object", `["bad-2"]`, ""),
		post("two objects", newUserJSON("bad-3", nil)+newUserJSON("bad-3b", nil), ""),
		post("unknown field", newUserJSON("bad-4", func(m map[string]any) { m["admin"] = true }), ""),
		post("missing id", newUserJSON("", func(m map[string]any) { delete(m, "id") }), ""),
		post("missing name", newUserJSON("bad-5", func(m map[string]any) { delete(m, "name") }), ""),
		post("missing email", newUserJSON("bad-6", func(m map[string]any) { delete(m, "email") }), ""),
		post("missing roles", newUserJSON("bad-7", func(m map[string]any) { delete(m, "roles") }), ""),
		post("null name", newUserJSON("bad-8", func(m map[string]any) { m["name"] = nil }), "field name must be a string, not null"),
		post("empty name", newUserJSON("bad-9", func(m map[string]any) { m["name"] = "" }), ""),
		post("email without @", newUserJSON("bad-10", func(m map[string]any) { m["email"] = "nobody.example.com" }), ""),
		post("id with a space", newUserJSON("bad 11", nil), ""),
		post("id with a slash", newUserJSON("bad/12", nil), ""),
		post("id too long", newUserJSON(strings.Repeat("x", api.MaxIDBytes+1), nil), ""),
		post("no roles", newUserJSON("bad-13", func(m map[string]any) { m["roles"] = []string{} }), ""),
		post("too many roles", newUserJSON("bad-14", func(m map[string]any) { m["roles"] = tooManyRoles }), ""),
		post("role too long", newUserJSON("bad-15", func(m map[string]any) { m["roles"] = []string{strings.Repeat("r", api.MaxRoleBytes+1)} }), ""),
		post("empty role in roles", newUserJSON("bad-16", func(m map[string]any) { m["roles"] = []string{"admin", ""} }), ""),
		post("role listed twice", newUserJSON("bad-17", func(m map[string]any) { m["roles"] = []string{"admin", "admin"} }), ""),
		post("roles not strings", newUserJSON("bad-18", func(m map[string]any) { m["roles"] = []int{1} }), ""),
		post("name in upper case", newUserJSON("bad-21", func(m map[string]any) { m["NAME"] = m["name"]; delete(m, "name") }), ""),
		post("id given twice", strings.Replace(newUserJSON("bad-22", nil), `"id":"bad-22"`, `"id":"bad-22","id":"bad-23"`, 1), ""),
		post("name a number", newUserJSON("bad-24", func(m map[string]any) { m["name"] = 24 }), ""),
		post("backslash before a letter", rawUser(`"bad-26"`, `"a\x"`, `"bad@example.com"`, `["admin"]`), ""),
		post("control byte in the id", newUserJSON("bad\x00-27", nil), ""),
		post("control byte in a key", `{"\u0001":1}`, ""),
		post("control byte in the email", newUserJSON("bad-28", func(m map[string]any) { m["email"] = "\x01" }), ""),
		post("role listed twice, with control bytes", newUserJSON("bad-29", func(m map[string]any) { m["roles"] = []string{"\x7f", "\x7f"} }), ""),

		post("name not UTF-8", rawUser(id(1), "\"bad \xff name\"", email, roles), "field name is not valid UTF-8"),
		post("email not UTF-8", rawUser(id(2), name, "\"a\xc3@example.com\"", roles), "field email is not valid UTF-8"),
		post("id not UTF-8", rawUser("\"strict-3\xe2\x80\"", name, email, roles), "field id is not valid UTF-8"),
		post("second role not UTF-8", rawUser(id(4), name, email, "[\"admin\",\"r\xed\xa0\x80\"]"), "field roles[1] is not valid UTF-8"),
		post("lone high surrogate", rawUser(id(5), `"x \ud800 y"`, email, roles), "field name holds an unpaired surrogate"),
		post("lone low surrogate", rawUser(id(6), `"\udc00"`, email, roles), "field name holds an unpaired surrogate"),
		post("surrogates in the wrong order", rawUser(id(7), `"\udc00\ud800"`, email, roles), "unpaired surrogate"),
		post("key in upper case", `{"ID":`+id(8)+`,"name":`+name+`,"email":`+email+`,"roles":`+roles+`}`,
			`unknown field "ID": field names are case-sensitive`),
		post("key given twice", `{"id":`+id(9)+`,"name":`+name+`,"name":"Other","email":`+email+`,"roles":`+roles+`}`,
			"field name is given twice"),
		post("number id", rawUser(`10`, name, email, roles), "field id must be a string, not a number"),
		post("roles a string", rawUser(id(11), name, email, `"admin"`), "field roles must be an array of strings, not a string"),
		post("roles null", rawUser(id(12), name, email, `null`), "field roles must be an array of strings, not null"),
		post("role a number", rawUser(id(13), name, email, `["admin",1]`), "field roles[1] must be a string, not a number"),
		post("email an object", rawUser(id(14), name, `{"at":"example.com"}`, roles), "field email must be a string, not an object"),
		post("byte order mark", "\xef\xbb\xbf"+rawUser(id(15), name, email, roles), "byte order mark"),
		post("empty body", "", "body is empty"),
		post("an array", `[`+rawUser(id(16), name, email, roles)+`]`, "must be a JSON object, not an array"),
		post("garbage after the object", rawUser(id(17), name, email, roles)+` x`, "exactly one JSON object"),
		post("cut in the middle", rawUser(id(18), name, email, roles)[:30], "the body ends before the object closes"),
		post("an opening brace alone", "{", "the body ends before the object closes"),
		post("cut after a field", `{"id":`+id(20), "the body ends before the object closes"),
		post("no closing brace", strings.TrimSuffix(rawUser(id(21), name, email, roles), "}"), "the body ends before the object closes"),
		post("unknown field, misspelt", `{"id":`+id(19)+`,"nam":`+name+`}`, `unknown field "nam"`),
		{"10 MiB body", "POST", "/users", `{"id": "bad-19", "name": "` + strings.Repeat("n", 10<<20) + `"}`, 413, ""},

		{"unknown path", "GET", "/nowhere", "", 404, ""},
		{"unsupported method", "PUT", "/users", "", 405, ""},
	}
}

// testBadInput sends the bad requests that only a stage can refuse, as
// only it knows which ids exist, each followed by reads of what it could
// have changed: none of them may change what the stage holds, and one that
// stores or drops something is named with that request.
func testBadInput(t *testing.T, newStage api.NewStage) {
	s := newServer(t, newStage)
	dup, _ := s.store.Get(user.FormatID(1))
	for _, bad := range []BadRequest{
		{"duplicate id", "POST", "/users", newUserJSON(user.FormatID(1), nil), 409, "already exists"},
		{"DELETE of an unknown id", "DELETE", "/users/nobody", "", 404, ""},
		{"GET of an unknown id", "GET", "/users/nobody", "", 404, ""},
		{"GET of an id with a zero byte", "GET", "/users/%00", "", 404, ""},
		{"DELETE of an id with control bytes", "DELETE", "/users/%01%7f%ff", "", 404, ""},
	} {
		wantError(t, bad.Name, s.do(bad.Method, bad.Target, bad.Body), bad.Status, bad.Says)
		// A POST of dup's id could touch dup's roles; the others are checked
		// on the two fixed roles, which are short to read.
		roles := []string{user.RoleAdmin, user.RoleEditor}
		if bad.Method == "POST" {
			roles = rolesTouched(dup)
		}
		after := fmt.Sprintf("after the refused %s (%s %s)", bad.Name, bad.Method, clip(bad.Target, 80))
		s.checkLists(after, roles...)
		wantJSON(t, after+": GET /users/"+dup.ID, s.do("GET", "/users/"+dup.ID, ""), http.StatusOK, mustMarshal(dup))
		if t.Failed() {
			return // the later requests would repeat what this one found
		}
	}

	t.Run("UnusualBodiesStoredAsSent", func(t *testing.T) { testUnusualBodies(t, newStage) })
	t.Run("MaxUsers", func(t *testing.T) { testMaxUsers(t, newStage) })
	t.Run("MaxStoredBytes", func(t *testing.T) { testStoredBytes(t, newStage) })
	t.Run("PathIDsDecodedOnce", func(t *testing.T) { testPathIDsDecodedOnce(t, newStage) })
}

// testUnusualBodies checks that a surrogate pair and U+FFFD are stored as sent.
func testUnusualBodies(t *testing.T, newStage api.NewStage) {
	s := newServer(t, newStage)
	for _, name := range []string{`"pair \ud83d\ude00"`, `"replacement \ufffd \uFFFD ` + "\uFFFD" + `"`} {
		var want user.User
		body := rawUser(`"strict-ok"`, name, `"ok@example.com"`, `["strict-ok"]`)
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatal(err)
		}
		wantJSON(t, "POST of the name "+name, s.do("POST", "/users", body), http.StatusCreated, mustMarshal(want))
		s.store.Add(want)
		wantJSON(t, "GET of the name "+name, s.do("GET", "/users/strict-ok", ""), http.StatusOK, mustMarshal(want))
		s.checkLists("the role of the name "+name, "strict-ok")
		s.delete("strict-ok")
	}
}

// testPathIDsDecodedOnce checks that an id in the path is percent-decoded
// exactly once: /users/%750000001 names u0000001 (%75 is 'u'), and
// /users/%25750000001 names "%750000001", which nobody has.
func testPathIDsDecodedOnce(t *testing.T, newStage api.NewStage) {
	s := newServer(t, newStage)
	first, second := user.FormatID(1), user.FormatID(2)
	escaped := func(id string) string { return "%75" + strings.TrimPrefix(id, "u") }

	u, _ := s.store.Get(first)
	wantJSON(t, "GET /users/"+escaped(first), s.do("GET", "/users/"+escaped(first), ""), http.StatusOK, mustMarshal(u))
	twice := s.do("GET", "/users/%25"+strings.TrimPrefix(escaped(first), "%"), "")
	wantError(t, "GET of an id escaped twice", twice, http.StatusNotFound, `"`+escaped(first)+`"`)

	if w := s.do("DELETE", "/users/"+escaped(second), ""); w.Code != http.StatusNoContent {
		t.Errorf("DELETE /users/%s: status %d, want 204", escaped(second), w.Code)
	}
	wantError(t, "GET /users/"+second+" after its DELETE by an escaped id", s.do("GET", "/users/"+second, ""), http.StatusNotFound)
}

// newLimitedServer returns a server of the smaller data set, with limits that edit sets.
func newLimitedServer(t *testing.T, stage api.NewStage, edit func(users []user.User, l *api.Limits)) *server {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	limits := api.DefaultLimits
	edit(users, &limits)
	return &server{t, api.NewHandlerWithLimits(stage(users), users, limits), plain.New(users)}
}

// testMaxUsers checks the limit on the number of users: a POST beyond it
// is refused and changes nothing, a DELETE or a POST that Add refused frees
// the slot again, and concurrent POSTs never take more slots than there are.
func testMaxUsers(t *testing.T, newStage api.NewStage) {
	// Each Add pauses, so that concurrent POSTs overlap: a limit checked
	// before Add and counted after it would let several through.
	slow := func(users []user.User) api.Stage {
		return watched{newStage(users), func(call, _ string) {
			if call == "Add" {
				time.Sleep(time.Millisecond)
			}
		}}
	}
	s := newLimitedServer(t, slow, func(users []user.User, l *api.Limits) { l.MaxUsers = len(users) + 1 })
	newUser := func(id string) user.User {
		return user.User{ID: id, Name: "Capped " + id, Email: id + "@example.com", Roles: []string{"capped", user.RoleAdmin}}
	}

	first, second := newUser("cap-1"), newUser("cap-2")
	s.post("POST into the last slot", first)
	wantError(t, "POST beyond the limit", s.do("POST", "/users", string(mustMarshal(second))), http.StatusConflict)
	wantError(t, "GET of the user refused", s.do("GET", "/users/cap-2", ""), http.StatusNotFound)
	s.checkLists("after the refused POST", "capped", user.RoleAdmin)

	// A DELETE frees a slot, and a duplicate id that Add refuses gives it back.
	s.delete(user.FormatID(7))
	wantError(t, "POST of a taken id", s.do("POST", "/users", string(mustMarshal(first))), http.StatusConflict, "already exists")
	s.post("POST into the slot a DELETE freed", second)
	s.checkLists("after the DELETE and the POST", "capped", user.RoleAdmin)

	// Concurrent POSTs for three free slots: exactly three are stored.
	const writers, perWriter, free = 4, 5, 3
	for _, id := range []string{"cap-1", "cap-2", user.FormatID(8)} {
		s.delete(id)
	}
	var created atomic.Int32
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				u := newUser(fmt.Sprintf("race-%d-%d", w, i))
				switch code := s.do("POST", "/users", string(mustMarshal(u))).Code; code {
				case http.StatusCreated:
					created.Add(1)
				case http.StatusConflict:
				default:
					t.Errorf("concurrent POST: status %d", code)
				}
			}
		})
	}
	wg.Wait()
	stored := 0
	for w := range writers {
		for i := range perWriter {
			if s.do("GET", fmt.Sprintf("/users/race-%d-%d", w, i), "").Code == http.StatusOK {
				stored++
			}
		}
	}
	if created.Load() != free || stored != free {
		t.Errorf("%d concurrent POSTs for %d free slots: %d answered 201 and %d stored", writers*perWriter, free, created.Load(), stored)
	}
}

// largestUser is the user whose JSON is the longest the limits allow, as
// each character is written in six bytes (\u003c); n makes it distinct.
func largestUser(n int) user.User {
	const escaped = "<"
	u := user.User{
		ID:    fmt.Sprintf("largest-%0*d", api.MaxIDBytes-len("largest-"), n),
		Name:  strings.Repeat(escaped, api.MaxNameBytes),
		Email: escaped + "@" + strings.Repeat(escaped, api.MaxEmailBytes-2),
		Roles: []string{"largest"},
	}
	for r := 1; r < api.MaxRoles; r++ {
		tag := fmt.Sprintf("-%d-%d", n, r)
		u.Roles = append(u.Roles, strings.Repeat(escaped, api.MaxRoleBytes-len(tag))+tag)
	}
	return u
}

// storedCost is what users count against Limits.MaxStoredBytes: their JSON
// once and once per role, and guard.RoleBytes per role.
func storedCost(users ...user.User) int64 {
	var sum int64
	for _, u := range users {
		sum += int64(len(mustMarshal(u)))*int64(1+len(u.Roles)) + guard.RoleBytes*int64(len(u.Roles))
	}
	return sum
}

// testStoredBytes checks the limit on what the stored users count, as
// testMaxUsers does the number.
func testStoredBytes(t *testing.T, newStage api.NewStage) {
	first, second := largestUser(1), largestUser(2)
	s := newLimitedServer(t, newStage, func(users []user.User, l *api.Limits) {
		l.MaxStoredBytes = storedCost(users...) + storedCost(first) + storedCost(second) - 1 // room for one of them
	})
	check := func(what string) {
		t.Helper()
		for _, role := range []string{"largest", first.Roles[1], second.Roles[1], user.RoleAdmin} {
			s.checkLists(what, role)
			get, head := s.do("GET", ListTarget(role), ""), s.do("HEAD", ListTarget(role), "")
			if cl := head.Header().Get("Content-Length"); cl != strconv.Itoa(get.Body.Len()) {
				t.Errorf("%s: HEAD of role %q announces %s bytes, GET gives %d", what, role, cl, get.Body.Len())
			}
		}
	}

	s.post("POST of the largest user", first)
	wantError(t, "POST beyond the stored bytes", s.do("POST", "/users", string(mustMarshal(second))), http.StatusConflict, "store is full", "bytes")
	wantError(t, "GET of the user refused", s.do("GET", "/users/"+second.ID, ""), http.StatusNotFound)
	check("after the refused POST")

	// A small user still fits, and a taken id gives back what it reserved.
	small := user.User{ID: "small-1", Name: "Small", Email: "small@example.com", Roles: []string{"largest"}}
	s.post("POST of a small user", small)
	for range 3 {
		wantError(t, "POST of a taken id", s.do("POST", "/users", string(mustMarshal(small))), http.StatusConflict, "already exists")
	}
	s.delete(small.ID)

	// The DELETE of the first makes room for the second.
	s.delete(first.ID)
	s.post("POST into the room a DELETE made", second)
	check("after the DELETE and the POST")
}
