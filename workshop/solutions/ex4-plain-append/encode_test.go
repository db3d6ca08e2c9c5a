package main

import (
	"encoding/json"
	"testing"

	"example.com/userperf/common/apitest"
	"example.com/userperf/common/user"
)

// awkwardStrings are strings on which a hand-written JSON encoder most
// often parts from encoding/json; the API refuses invalid UTF-8, so only
// this test sends it to the encoder.
var awkwardStrings = []string{
	"", "plain", `"`, `\`, "</script>", "a<b>c&d", "\b\f\n\r\t", "\x00", "\x1f", "\x7f",
	"\u2028", "a\u2028b\u2029c", "김민준", "Zoë", "😀", "\uFFFD", "\xff", "a\xe2", "\xed\xa0\x80",
}

func TestAppendUserMatchesMarshal(t *testing.T) {
	for _, s := range awkwardStrings {
		for _, u := range []user.User{
			{ID: s, Name: s, Email: s, Roles: []string{s, "admin"}},
			{ID: s, Roles: nil},
			{ID: s, Roles: []string{}},
		} {
			checkUser(t, u)
		}
	}
}

func FuzzAppendUser(f *testing.F) {
	for _, s := range awkwardStrings {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, name, role string) {
		checkUser(t, user.User{ID: "u1", Name: name, Email: role, Roles: []string{role}})
	})
}

// checkUser fails t if appendUser writes u otherwise than json.Marshal
// writes validUser(u). That is the encoders' contract: encoding/json's bytes
// for valid UTF-8 on the Go that runs the test, and each byte of invalid
// UTF-8 (which the API refuses at the door) as U+FFFD itself, as Go 1.27's
// encoding/json writes it; Go 1.26's wrote the escape \ufffd instead.
func checkUser(t *testing.T, u user.User) {
	t.Helper()
	want, err := json.Marshal(validUser(u))
	if err != nil {
		t.Fatal(err)
	}
	if got := appendUser(nil, &u); string(got) != string(want) {
		t.Errorf("appendUser(%+q):\n%s", u, apitest.Mismatch(got, want))
	}
}

// validUser returns u with each byte of invalid UTF-8 in its strings
// replaced by U+FFFD, as a range over a string reads it: converting to
// []rune does that. Nil Roles stay nil.
func validUser(u user.User) user.User {
	valid := func(s string) string { return string([]rune(s)) }
	v := user.User{ID: valid(u.ID), Name: valid(u.Name), Email: valid(u.Email)}
	if u.Roles != nil {
		v.Roles = make([]string, len(u.Roles))
		for i, r := range u.Roles {
			v.Roles[i] = valid(r)
		}
	}
	return v
}
