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

// checkUser fails t if appendUser and json.Marshal write u differently.
func checkUser(t *testing.T, u user.User) {
	t.Helper()
	want, err := json.Marshal(&u)
	if err != nil {
		t.Fatal(err)
	}
	if got := appendUser(nil, &u); string(got) != string(want) {
		t.Errorf("appendUser(%+q):\n%s", u, apitest.Mismatch(got, want))
	}
}
