package apitest

import (
	"strings"
	"testing"
)

// TestMismatchShowsTheDifference checks that the message brackets the first
// differing byte, deep inside long bodies, and says when one body ends first.
func TestMismatchShowsTheDifference(t *testing.T) {
	long := strings.Repeat("x", 500)
	got := Mismatch([]byte(long+"<a>"+long), []byte(long+"<b>"+long))
	for _, part := range []string{"first difference at byte 501 (got 1003 bytes, want 1003)", `<"["a"]">`, `<"["b"]">`} {
		if !strings.Contains(got, part) {
			t.Errorf("Mismatch = %s\nwant it to contain %s", got, part)
		}
	}
	if short := Mismatch([]byte("[1,2]"), []byte("[1,2]x")); !strings.Contains(short, `"[1,2]" (ends here)`) {
		t.Errorf("Mismatch of a body that ends first = %s", short)
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
