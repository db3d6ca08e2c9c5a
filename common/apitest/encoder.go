package apitest

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"example.com/userperf/common/user"
)

// The suites of this file hold a hand-written JSON encoder (stage 4 on) to
// the bytes of encoding/json.Marshal, and for invalid UTF-8 (which the API
// refuses at the door) each invalid byte as U+FFFD written as it is: Go
// 1.27's json.Marshal writes that, Go 1.26's the escape \ufffd, so the
// suites want json.Marshal(ValidUser(u)), the same on either release.

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
		s = append(s, string([]byte{byte(b)}), "01234567"+string([]byte{byte(b)})+"89abcdef")
	}
	// A special character in every byte lane of one to three words, for
	// stage 4's word-wise and tail paths.
	for _, special := range []string{`"`, `\`, "<", ">", "&", "\n", "\x01", "\x1f", "é", "\u2028", "\xff"} {
		for n := 1; n <= 25; n++ {
			for at := 0; at < n; at++ {
				s = append(s, strings.Repeat("x", at)+special+strings.Repeat("y", n-at-1))
			}
		}
	}
	// A special byte before one that a borrow out of it could mark, at
	// every distance from the end.
	for _, special := range []string{"\x00", "\x1f", `"`, "&", "<", ">", `\`, "\xff"} {
		for _, edge := range []string{" ", "#", "'", "=", "?", "]", "!"} {
			for k := range 12 {
				for m := range 4 {
					s = append(s, strings.Repeat("x", k)+special+edge+strings.Repeat("y", m))
				}
			}
		}
	}
	// Bytes one away from a special value, which a wrong mask would take for one.
	for _, b := range []byte{0x1f, 0x20, 0x21, 0x23, 0x25, 0x27, 0x3b, 0x3d, 0x3f, 0x5b, 0x5d, 0x7e, 0x7f} {
		s = append(s, strings.Repeat(string([]byte{b}), 17))
	}
	return s
}

// validUTF8 replaces each byte of invalid UTF-8 in s by U+FFFD, as a range
// over s reads it (strings.ToValidUTF8 would replace a run by one).
func validUTF8(s string) string { return string([]rune(s)) }

// ValidUser returns a copy of u with each byte of invalid UTF-8 replaced by
// U+FFFD; nil Roles stay nil. json.Marshal of it is what the contract wants.
func ValidUser(u *user.User) *user.User {
	v := &user.User{ID: validUTF8(u.ID), Name: validUTF8(u.Name), Email: validUTF8(u.Email), Roles: slices.Clone(u.Roles)}
	for i, r := range v.Roles {
		v.Roles[i] = validUTF8(r)
	}
	return v
}

// EncodeStrings checks escape, which appends a string's JSON between the
// quotes (stage 4's appendEscaped), on TrickyStrings.
func EncodeStrings(t *testing.T, escape func(dst []byte, s string) []byte) {
	for _, s := range TrickyStrings() {
		checkString(t, escape, s)
	}
}

// FuzzEncodeString looks for a string that escape writes otherwise. Its
// seeds are few: the fuzzer runs each first, and TrickyStrings would take
// a short -fuzztime.
func FuzzEncodeString(f *testing.F, escape func(dst []byte, s string) []byte) {
	for _, s := range []string{"plain", `"\<>&`, "\b\f\n\r\t\x00\x1f\x7f", "김민준 😀", "\u2028\u2029", "\xff\xe2\x80", "0123456789abcdef<"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkString(t, escape, s) })
}

// checkString fails t if escape(s), quoted, differs from the contract.
func checkString(t *testing.T, escape func(dst []byte, s string) []byte, s string) {
	t.Helper()
	want := mustMarshal(validUTF8(s))
	got := append(escape([]byte(`prefix"`), s), '"') // what was there must stay

	if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len("prefix"):], want) {
		t.Errorf("the JSON string of %q = %s, want %s", s, got[min(len(got), len("prefix")):], want)
	}
}

// checkUser fails t if appendUser writes u otherwise than the contract.
func checkUser(t *testing.T, appendUser func(dst []byte, u *user.User) []byte, u *user.User) {
	t.Helper()
	if got, want := appendUser(nil, u), mustMarshal(ValidUser(u)); !bytes.Equal(got, want) {
		t.Errorf("appendUser(%+q):\n%s", *u, Mismatch(got, want))
	}
}

// FuzzEncodeUser checks appendUser on users of arbitrary strings.
func FuzzEncodeUser(f *testing.F, appendUser func(dst []byte, u *user.User) []byte) {
	f.Add("u0000001", `Jae "JJ" Park`, "jae@example.com", "admin", "연구원")
	f.Add("", "\x00<\u2028>", "\xff@", "", "\xe2\x80")
	f.Add("u1", "n", "e@x", "a<b>", "tab\there")
	f.Fuzz(func(t *testing.T, id, name, email, role1, role2 string) {
		checkUser(t, appendUser, &user.User{ID: id, Name: name, Email: email, Roles: []string{role1, role2}})
	})
}

// EncodeUsers checks appendUser on users with nil, empty and tricky roles,
// a thousand generated users and TrickyStrings in every field; then
// encodeUsers, which makes a list's body, on none, one, two and all of them.
func EncodeUsers(t *testing.T, appendUser func(dst []byte, u *user.User) []byte, encodeUsers func([]*user.User) []byte) {
	users := []*user.User{
		{ID: "nil-roles", Name: "n", Email: "n@x"},
		{ID: "empty-roles", Name: "e", Email: "e@x", Roles: []string{}},
		{ID: "one-role", Name: "o", Email: "o@x", Roles: []string{"a<b"}},
		{},
	}
	users = append(users, UserPointers(1000)...)
	for _, s := range TrickyStrings() {
		users = append(users, &user.User{ID: s, Name: s, Email: s, Roles: []string{s, "x" + s, s}})
	}
	for _, u := range users {
		checkUser(t, appendUser, u)
	}
	for _, n := range []int{0, 1, 2, len(users)} {
		valid := make([]*user.User, n) // "[]" for none: empty, not nil
		for i, u := range users[:n] {
			valid[i] = ValidUser(u)
		}
		if got, want := encodeUsers(users[:n]), mustMarshal(valid); !bytes.Equal(got, want) {
			t.Errorf("encodeUsers of %d users:\n%s", n, Mismatch(got, want))
		}
	}
}

// SpecialBytes checks special, which tells whether a word of eight bytes
// holds a byte that a JSON string cannot copy as it is (stage 4's
// hasSpecialByte), for every byte value in every lane of a plain word.
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
