package apitest

import "fmt"

// Mismatch describes where got parts from want: the offset of the first
// byte that differs and about 60 bytes on each side of it in both, with the
// differing byte in brackets, so that a failure shows the difference itself
// rather than the first few hundred bytes, which are usually alike.
func Mismatch(got, want []byte) string {
	at := firstDifference(got, want)
	return fmt.Sprintf("first difference at byte %d (got %d bytes, want %d):\n got %s\nwant %s",
		at, len(got), len(want), around(got, at), around(want, at))
}

// around quotes b from 60 bytes before at to 60 bytes after, with b[at] in
// brackets, or "(ends here)" when b has no byte at at.
func around(b []byte, at int) string {
	const context = 60
	start, end := max(0, at-context), min(len(b), at+1+context)
	if at >= len(b) {
		return fmt.Sprintf("…%q (ends here)", b[start:])
	}
	return fmt.Sprintf("…%q[%q]%q…", b[start:at], b[at:at+1], b[at+1:end])
}
