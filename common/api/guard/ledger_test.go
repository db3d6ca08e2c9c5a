package guard

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

func TestLedgerForgetsARoleNobodyHolds(t *testing.T) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	l := NewLedger(plain.New(users), users, DefaultLimits)
	before := len(l.roles)
	passing := user.User{ID: "passing-1", Name: "Passing", Email: "p@example.com", Roles: []string{"comes-and-goes"}}
	for range 3 {
		if err := l.Add(passing); err != nil {
			t.Fatal(err)
		}
		if !l.Delete(passing.ID) {
			t.Fatal("the user just added could not be deleted")
		}
	}
	if len(l.roles) != before {
		t.Errorf("after a role came and went: the ledger counts %d roles, %d before", len(l.roles), before)
	}
}

// asMarshalCounts is s with each byte of invalid UTF-8 replaced by U+2028,
// which encoding/json writes as six bytes, as long as the \ufffd that
// stringLen counts for such a byte.
func asMarshalCounts(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			r = '\u2028'
		}
		b.WriteRune(r)
		i += size
	}
	return b.String()
}

// FuzzJSONLen checks the ledger's count of a user's JSON against the
// length of what encoding/json.Marshal writes for it.
//
//	go test -run '^$' -fuzz FuzzJSONLen -fuzztime 30s -fuzzminimizetime 5s ./common/api/guard
func FuzzJSONLen(f *testing.F) {
	for _, s := range []string{"", "plain", `"quoted" \ back`, "<tag> & amp", "\n\r\t\b\f", "\x00\x01\x1f\x7f",
		"장도윤", "\u2028\u2029", "😀", "\xff", "a\xe2\x80"} {
		f.Add(s, s+"n", s+"@e", s)
	}
	f.Fuzz(func(t *testing.T, id, name, email, role string) {
		u := user.User{ID: id, Name: name, Email: email, Roles: []string{role, "r"}}
		same := user.User{ID: asMarshalCounts(id), Name: asMarshalCounts(name), Email: asMarshalCounts(email),
			Roles: []string{asMarshalCounts(role), "r"}}
		b, err := json.Marshal(&same)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonLen(&u); got != len(b) {
			t.Errorf("jsonLen of %+q: %d, Marshal writes %d: %s", u, got, len(b), b)
		}
	})
}
