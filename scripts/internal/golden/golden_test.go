package golden

import "testing"

func TestFirstDifference(t *testing.T) {
	for _, c := range [][3]string{
		{"a\nb\n", "a\nc\n", "line 2:\nwant \"b\"\n got \"c\""},
		{"a\n", "a\nb\n", "line 2:\nwant \"\"\n got \"b\""},
		{"a\n", "a\n", "the end"},
	} {
		if got := firstDifference(c[0], c[1]); got != c[2] {
			t.Errorf("firstDifference(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}
