package apitest

import (
	"regexp"
	"testing"
)

// leakPatterns are what an error body must never hold: it is read by a
// client, which needs a sentence about its request, not the server's
// addresses or the names of the Go program's types.
var leakPatterns = []struct {
	what string
	re   *regexp.Regexp
}{
	{"an IPv4 address", regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}\b`)},
	{"an IPv6 address", regexp.MustCompile(`\[[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*\]|::1\b`)},
	{"a socket error", regexp.MustCompile(`\b(read|write|dial) (tcp|udp)|i/o timeout|connection reset`)},
	{"a Go library's text", regexp.MustCompile(`invalid character|semicolon separator|exceeded limit|in string escape code`)},
	{"a Go escape (JSON has none for bytes)", regexp.MustCompile(`\\x`)},
	{"a Go type name", regexp.MustCompile(`Go (struct|value)|\bjson: |\bstruct\b|\binterface ?\{|\bmap\[|\[\][a-z]|` +
		`\*[a-z]+\.?[A-Za-z]*\b|\b(u?int|float|complex)(8|16|32|64|128)\b|\bnewUserRequest\b|\b(user|api|main)\.[A-Z]`)},
}

// leakIn names what body leaks, or returns "".
func leakIn(body string) string {
	for _, p := range leakPatterns {
		if m := p.re.FindString(body); m != "" {
			return p.what + " (" + m + ")"
		}
	}
	return ""
}

// wantNoLeak fails t if the error body of a response leaks.
func wantNoLeak(t *testing.T, what, body string) {
	t.Helper()
	if leak := leakIn(body); leak != "" {
		t.Errorf("%s: the error body holds %s: %.300s", what, leak, body)
	}
}
