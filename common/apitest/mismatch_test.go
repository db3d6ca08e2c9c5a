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
