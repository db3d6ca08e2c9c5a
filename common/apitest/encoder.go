package apitest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"example.com/userperf/common/user"
)

// The suites of this file hold a hand-written JSON encoder (stage 4 on) to
// the encoders' contract: the bytes of encoding/json.Marshal on the running
// Go for valid UTF-8, and for invalid UTF-8, which no response carries (the
// API refuses it at the door), each invalid byte as U+FFFD, written as it
// is. Go 1.27's encoding/json writes that; Go 1.26's wrote the escape
// \ufffd. A real U+FFFD is written as it is by both, so marshalling the
// input with its invalid bytes replaced first gives the contract's bytes on
// either release: the suites want json.Marshal(ValidUser(u)).
//
// A stage's encode_test.go passes its own functions in, one line a test:
//
//	func TestAppendUserMatchesEncodingJSON(t *testing.T) { apitest.EncodeUsers(t, appendUser, encodeUsers) }
//	func FuzzEncodeString(f *testing.F) { apitest.FuzzEncodeString(f, appendEscaped) }

// TrickyStrings are the strings on which a hand-written JSON encoder most
// often parts from encoding/json.
func TrickyStrings() []string {
	s := []string{
		"", "a", "plain ascii", `"`, `\`, `\"`, "</script>", "a<b>c&d",
		"\b\f\n\r\t", "\x00", "\x1f", "\x7f", " ~",
		"\u2028", "\u2029", "a\u2028b\u2029c", "\u2027\u202a", // separators and their neighbours
		"김민준", "Zoë Ünal-Müller", "😀", "최 '지우' 😀", "Ａｌｉｃｅ　全角",
		"\uFFFD", "\xef\xbf\xbd", // a real U+FFFD is copied, not escaped
		"\xff", "\xc0\x80", "\xed\xa0\x80", // invalid byte, overlong NUL, surrogate half
		"\xe2\x80", "\xe2\x80\xa8\xe2", "a\xe2", "\xf0\x9f\x98", // truncated runes
		"\xea\xb0", "가\xea", "\xe1\x80", "\xef\xbf", // truncated three-byte runes
		"\xe0\x80\x80", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xed\xbf\xbf", // overlong, first valid, last before and inside the surrogates
		"\xe1\x80\x80", "\xec\xbf\xbf", "\xee\x80\x80", "\xef\xbf\xbf", // the edges of stage 4's fast path
		"\xea\x41\x80", "\xea\x80\x41", "\xea\xc0\x80", // a bad continuation byte
		"\x80\x80\x80\x80\x80\x80\x80\x80\x80", // continuation bytes alone
		strings.Repeat("long ascii run ", 20),
		strings.Repeat("한글", 50) + "<",
	}
	for b := range 256 {
		s = append(s, string([]byte{byte(b)}))
		s = append(s, "01234567"+string([]byte{byte(b)})+"89abcdef")
	}
	// A special character at every position of the words that stage 4's
	// isPlain tests, for lengths around one, two and three words, so that
	// the word-wise and the tail paths both meet it in every byte lane.
	for _, special := range []string{`"`, `\`, "<", ">", "&", "\n", "\x01", "\x1f", "é", "\u2028", "\xff"} {
		for n := 1; n <= 25; n++ {
			for at := 0; at < n; at++ {
				s = append(s, strings.Repeat("x", at)+special+strings.Repeat("y", n-at-1))
			}
		}
	}
	// A special byte followed by a byte that a borrow out of it could
	// mark, at every distance from the end of the string.
	for _, special := range []string{"\x00", "\x1f", `"`, "&", "<", ">", `\`, "\xff"} {
		for _, edge := range []string{" ", "#", "'", "=", "?", "]", "!"} {
			for k := range 12 {
				for m := range 4 {
					s = append(s, strings.Repeat("x", k)+special+edge+strings.Repeat("y", m))
				}
			}
		}
	}
	// Bytes one away from every special value, which a wrong mask would
	// take for one.
	for _, b := range []byte{0x1f, 0x20, 0x21, 0x23, 0x25, 0x27, 0x3b, 0x3d, 0x3f, 0x5b, 0x5d, 0x7e, 0x7f} {
		s = append(s, strings.Repeat(string([]byte{b}), 17))
	}
	return s
}

// validUTF8 replaces each byte of invalid UTF-8 in s by U+FFFD, as a range
// over s reads it (strings.ToValidUTF8 would replace a run by one).
func validUTF8(s string) string { return string([]rune(s)) }

// ValidUser returns a copy of u with each byte of invalid UTF-8 in its
// strings replaced by U+FFFD; nil Roles stay nil. json.Marshal of it is
// what the contract wants for u.
func ValidUser(u *user.User) *user.User {
	v := &user.User{ID: validUTF8(u.ID), Name: validUTF8(u.Name), Email: validUTF8(u.Email)}
	if u.Roles != nil {
		v.Roles = make([]string, len(u.Roles))
		for i, r := range u.Roles {
			v.Roles[i] = validUTF8(r)
		}
	}
	return v
}

// EncodeStrings checks escape, which appends a string's JSON between the
// quotes (stage 4's appendEscaped), on every one of TrickyStrings.
func EncodeStrings(t *testing.T, escape func(dst []byte, s string) []byte) {
	for _, s := range TrickyStrings() {
		checkString(t, escape, s)
	}
}

// FuzzEncodeString looks for a string that escape writes otherwise than
// the contract. Its seed corpus is kept small on purpose: the fuzzer first
// runs every seed to learn the coverage, and with the thousands of
// TrickyStrings that would take the whole of a short -fuzztime.
func FuzzEncodeString(f *testing.F, escape func(dst []byte, s string) []byte) {
	for _, s := range []string{"plain", `"\<>&`, "\b\f\n\r\t\x00\x1f\x7f", "김민준 😀", "\u2028\u2029", "\xff\xe2\x80", "0123456789abcdef<"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkString(t, escape, s) })
}

// checkString fails t if escape(s), quoted, differs from the contract.
func checkString(t *testing.T, escape func(dst []byte, s string) []byte, s string) {
	t.Helper()
	want, err := json.Marshal(validUTF8(s))
	if err != nil {
		t.Fatalf("json.Marshal(%q): %v", s, err)
	}
	// Appending after existing bytes must keep them.
	got := append(escape([]byte(`prefix"`), s), '"')
	if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len("prefix"):], want) {
		t.Errorf("the JSON string of %q = %s, want %s", s, got[min(len(got), len("prefix")):], want)
	}
}

// FuzzEncodeUser checks appendUser on whole users built from arbitrary
// strings.
func FuzzEncodeUser(f *testing.F, appendUser func(dst []byte, u *user.User) []byte) {
	f.Add("u0000001", `Jae "JJ" Park`, "jae@example.com", "admin", "연구원")
	f.Add("", "\x00<\u2028>", "\xff@", "", "\xe2\x80")
	f.Add("u1", "n", "e@x", "a<b>", "tab\there")
	f.Fuzz(func(t *testing.T, id, name, email, role1, role2 string) {
		u := &user.User{ID: id, Name: name, Email: email, Roles: []string{role1, role2}}
		want, err := json.Marshal(ValidUser(u))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendUser(nil, u); !bytes.Equal(got, want) {
			t.Errorf("appendUser(%+q):\n%s", *u, Mismatch(got, want))
		}
	})
}

// EncodeUsers checks appendUser on users with nil, empty and tricky roles,
// on a thousand generated users and on every one of TrickyStrings in every
// field; then encodeUsers, which makes a body of a list of users as the
// stage holds them, on none, one, two and all of those users.
func EncodeUsers(t *testing.T, appendUser func(dst []byte, u *user.User) []byte, encodeUsers func([]*user.User) []byte) {
	users := []*user.User{
		{ID: "nil-roles", Name: "n", Email: "n@x"},
		{ID: "empty-roles", Name: "e", Email: "e@x", Roles: []string{}},
		{ID: "one-role", Name: "o", Email: "o@x", Roles: []string{"a<b"}},
		{},
	}
	for _, u := range user.MustGenerate(1000, user.DefaultSeed) {
		users = append(users, &u)
	}
	for _, s := range TrickyStrings() {
		users = append(users, &user.User{ID: s, Name: s, Email: s, Roles: []string{s, "x" + s, s}})
	}
	for _, u := range users {
		want, _ := json.Marshal(ValidUser(u))
		if got := appendUser(nil, u); !bytes.Equal(got, want) {
			t.Errorf("appendUser(%+q):\n%s", *u, Mismatch(got, want))
		}
	}
	for _, n := range []int{0, 1, 2, len(users)} {
		valid := make([]*user.User, n) // "[]" for none: empty, not nil
		for i, u := range users[:n] {
			valid[i] = ValidUser(u)
		}
		want, _ := json.Marshal(valid)
		if got := encodeUsers(users[:n]); !bytes.Equal(got, want) {
			t.Errorf("encodeUsers of %d users:\n%s", n, Mismatch(got, want))
		}
	}
}

// SpecialBytes checks special, which tells whether a word of eight bytes
// holds a byte that a JSON string cannot copy as it is (stage 4's
// hasSpecialByte), for every byte value in every lane of a word of
// otherwise plain bytes. A word with two special bytes, where a borrow out
// of the lower one could mark the other, is special either way; the
// strings of TrickyStrings that put a special byte before an edge byte
// check what the word-wise scan makes of it.
func SpecialBytes(t *testing.T, special func(word string) bool) {
	for b := range 256 {
		quoted, _ := json.Marshal(string([]byte{byte(b)}))
		copied := b < utf8.RuneSelf && string(quoted) == `"`+string([]byte{byte(b)})+`"`
		for lane := range 8 {
			word := []byte("abcdefgh")
			word[lane] = byte(b)
			if got := special(string(word)); got == copied {
				t.Errorf("byte %#02x in lane %d: special %v, want %v", b, lane, got, !copied)
			}
		}
	}
}
