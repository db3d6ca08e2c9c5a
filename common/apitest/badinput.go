package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

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

// StageBadRequests lists the bad requests that only a stage can refuse, as
// only it knows which ids exist. None of them may change what it holds.
func StageBadRequests() []BadRequest {
	return []BadRequest{
		{"duplicate id", "POST", "/users", newUserJSON(user.FormatID(1), nil), 409, "already exists"},
		{"DELETE of an unknown id", "DELETE", "/users/nobody", "", 404, ""},
		{"GET of an unknown id", "GET", "/users/nobody", "", 404, ""},
		{"GET of an id with a zero byte", "GET", "/users/%00", "", 404, ""},
		{"DELETE of an id with control bytes", "DELETE", "/users/%01%7f%ff", "", 404, ""},
	}
}

// testBadInput sends the bad requests that reach the stage, each followed
// by reads of what it could have changed, so that a stage that stores or
// drops something on a refused request is named with that request.
func testBadInput(t *testing.T, newStage api.NewStage) {
	s := newServer(t, newStage)
	dup, _ := s.store.Get(user.FormatID(1))
	for _, bad := range StageBadRequests() {
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
