package apitest

import (
	"strings"
	"testing"
)

// TestMismatchShowsTheDifference checks that the message marks the first
// differing byte with a caret, deep inside long bodies, and says when one
// body ends first.
func TestMismatchShowsTheDifference(t *testing.T) {
	long := strings.Repeat("x", 500)
	got := Mismatch([]byte(long+"<a>"+long), []byte(long+"<b>"+long))
	before, after := strings.Repeat("x", 59), strings.Repeat("x", 58) // 60 bytes on each side of a and b
	want := "first difference at byte 501 (got 1003 bytes, want 1003): got has 'a', want has 'b'\n" +
		` got …"` + before + `<a>` + after + "\"…\n" +
		`want …"` + before + `<b>` + after + "\"…\n" +
		strings.Repeat(" ", len(" got ")+len(`…"`+before+"<")-len("…")+1) + "^" // … is one cell in three bytes
	if got != want {
		t.Errorf("Mismatch =\n%s\nwant\n%s", got, want)
	}
	short := Mismatch([]byte("[1,2]"), []byte("[1,2]x"))
	if want := "got has its end, want has 'x'\n got \"[1,2]\"\nwant \"[1,2]x\"\n           ^"; !strings.HasSuffix(short, want) {
		t.Errorf("Mismatch of a body that ends first =\n%s\nwant it to end\n%s", short, want)
	}
}

// TestMismatchAtJSONPunctuation checks the three cases where brackets
// around the differing byte misled: a bracket, a comma and a raw line
// separator against its escaped form. The caret marks the spot, and the
// first line names what each body holds there.
func TestMismatchAtJSONPunctuation(t *testing.T) {
	caret := func(column int) string { return strings.Repeat(" ", len(" got ")+column) + "^" }
	for _, c := range []struct{ name, got, want, says, caret string }{
		{"a bracket", `[{"id":"1"}][`, `[{"id":"1"}]`,
			"at byte 12 (got 13 bytes, want 12): got has '[', want has its end\n" +
				" got \"[{\\\"id\\\":\\\"1\\\"}][\"\n" +
				"want \"[{\\\"id\\\":\\\"1\\\"}]\"\n", caret(len(`"[{\"id\":\"1\"}]`))},
		{"a comma", `["a","b"]`, `["a"],"b"]`,
			"at byte 4 (got 9 bytes, want 10): got has ',', want has ']'\n", caret(len(`"[\"a\"`))},
		{"a raw line separator", "\"a\u2029b\"", `"a\u2029b"`,
			"at byte 2 (got 7 bytes, want 10): got has U+2029 '\\u2029' (3 bytes), want has '\\\\'\n" +
				" got \"\\\"a\\u2029b\\\"\"\n" +
				"want \"\\\"a\\\\u2029b\\\"\"\n", caret(len(`"\"a`))},
		// And: a character that differs in its second byte is shown whole, bytes that are not
		// UTF-8 one by one, and a Hangul syllable before the spot takes two cells of a terminal.
		{"a second byte", "[\"é\"]", "[\"è\"]", "at byte 2 (got 6 bytes, want 6): got has U+00E9 'é' (2 bytes), want has U+00E8 'è' (2 bytes)\n", caret(len(`"[\"`))},
		{"not UTF-8", "[\x80\x80\x80\x80\x81]", "[\x80\x80\x80\x80\x82]",
			"at byte 5 (got 7 bytes, want 7): got has byte 0x81 (not UTF-8), want has byte 0x82 (not UTF-8)\n", caret(len(`"[\x80\x80\x80\x80`))},
		{"after Hangul", "이a", "이b", "at byte 3 (got 4 bytes, want 4): got has 'a', want has 'b'\n", caret(len(`"`) + 2)},
	} {
		msg := Mismatch([]byte(c.got), []byte(c.want))
		if !strings.Contains(msg, c.says) || !strings.HasSuffix(msg, "\n"+c.caret) {
			t.Errorf("%s: Mismatch =\n%s\nwant it to hold\n%s\nand end with the caret line\n%s", c.name, msg, c.says, c.caret)
		}
	}
}

// TestListMismatchNamesTheIDs checks that a wrong list is described by its
// ids: the ones missing, the extra ones, and the first out of its place.
func TestListMismatchNamesTheIDs(t *testing.T) {
	list := func(ids ...string) []byte {
		var b strings.Builder
		for i, id := range ids {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"id":"` + id + `","name":"n","email":"e","roles":[]}`)
		}
		return []byte("[" + b.String() + "]")
	}
	want := list("a", "b", "c", "d")
	for _, c := range []struct {
		got  []byte
		says string
	}{
		{list("a", "c", "d"), `missing ids ["b"]`},
		{list("a", "b", "c", "d", "e"), `extra ids ["e"]`},
		{list("b", "c", "d", "a"), `out of order: "b" is where "a" belongs`},
		{list("a", "c", "b", "x"), `missing ids ["d"]; extra ids ["x"]; out of order: "c" is where "b" belongs`},
	} {
		if msg := ListMismatch(c.got, want); !strings.Contains(msg, c.says) || !strings.Contains(msg, "first difference at byte") {
			t.Errorf("ListMismatch(%s) = %s\nwant it to say %s, then where the bytes differ", c.got, msg, c.says)
		}
	}
	if msg := ListMismatch([]byte(`{"error":"x"}`), want); !strings.HasPrefix(msg, "first difference") {
		t.Errorf("ListMismatch of a body that is no list = %s; want the bytes alone", msg)
	}
}
