package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"example.com/userperf/common/user"
)

// Limits on input. A request beyond one of them gets a 4xx answer that
// names the limit; nothing is stored.
const (
	MaxRoleBytes  = 64       // bytes in one role, in a query or in a user
	MaxRoles      = 32       // roles of one user
	MaxIDBytes    = 64       // bytes in an id, which is made of [A-Za-z0-9_-]
	MaxNameBytes  = 256      // bytes in a name
	MaxEmailBytes = 254      // bytes in an email address (RFC 5321's path limit)
	MaxBodyBytes  = 64 << 10 // bytes in a POST body

	// MaxHeaderBytes bounds the request line and headers together, CRLFs
	// and the blank line that ends them included; net/http answers 431
	// beyond it. The API needs a few hundred bytes (a role is at most 192
	// once percent-encoded), and 8 KiB, the most that Apache takes in one
	// header line by default, leaves room for what proxies and browsers
	// add, where net/http's default of 1 MiB let every open connection
	// hold a megabyte of headers still arriving.
	MaxHeaderBytes = 8 << 10
)

// headerReadSlack is what net/http adds to http.Server.MaxHeaderBytes
// before it stops reading: room for its 4 KiB read buffer, which may hold
// the start of the body. The server sets MaxHeaderBytes minus this, so that
// the limit is exactly MaxHeaderBytes.
const headerReadSlack = 4096

// DefaultMaxUsers is how many users a server started by Main holds at most
// unless its -max-users flag says otherwise: ten times the default data
// set. A POST beyond it is refused, so that a client that keeps writing
// cannot grow the server's memory without bound.
const DefaultMaxUsers = 100_000

// errInput is an input error: the client's fault, answered with 400.
type errInput struct{ msg string }

func (e errInput) Error() string { return e.msg }

func inputErrorf(format string, args ...any) error {
	return errInput{fmt.Sprintf(format, args...)}
}

// roleFromQuery returns the single role of a GET /users query string.
// A repeated role parameter is an error, not "the first one wins": a client
// that sends two roles probably expects a union, and silently answering for
// one of them would hide its bug.
func roleFromQuery(rawQuery string) (string, error) {
	if role, ok := plainRole(rawQuery); ok {
		return role, validateRole(role)
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return "", queryError(rawQuery, err)
	}
	roles, ok := q["role"]
	switch {
	case !ok:
		return "", inputErrorf("missing query parameter role")
	case len(roles) > 1:
		return "", inputErrorf("query parameter role given %d times; give it once", len(roles))
	}
	return roles[0], validateRole(roles[0])
}

// plainRole reads the role of a query of a few parameters that holds no
// escape, no '+' and no ';', and reports false for any other, which
// url.ParseQuery reads (and may refuse): such a query reads the same
// either way, without a map built for one key.
func plainRole(rawQuery string) (role string, ok bool) {
	if strings.ContainsAny(rawQuery, "%+;") || strings.Count(rawQuery, "&") > 8 {
		return "", false
	}
	found := false
	for part := range strings.SplitSeq(rawQuery, "&") {
		key, value, _ := strings.Cut(part, "=")
		if key != "role" {
			continue
		}
		if found {
			return "", false // given twice: ParseQuery's path says so
		}
		role, found = value, true
	}
	return role, found
}

// queryError says what url.ParseQuery found wrong with rawQuery, in the
// API's words rather than the library's.
func queryError(rawQuery string, err error) error {
	var escape url.EscapeError
	switch {
	case errors.As(err, &escape):
		return inputErrorf("malformed query string: a '%%' must be followed by two hexadecimal digits")
	case strings.Contains(rawQuery, ";"):
		return inputErrorf("malformed query string: it holds a ';'; separate parameters with '&' and write a ';' in a value as %%3B")
	default:
		return inputErrorf("malformed query string: it has %d parameters; this endpoint takes one, role",
			strings.Count(rawQuery, "&")+1)
	}
}

func validateRole(role string) error {
	switch {
	case role == "":
		return inputErrorf("role is empty")
	case len(role) > MaxRoleBytes:
		return inputErrorf("role is %d bytes long; the limit is %d", len(role), MaxRoleBytes)
	case !utf8.ValidString(role):
		return inputErrorf("role is not valid UTF-8")
	}
	return nil
}

func validateUser(u *user.User) error {
	if u.ID == "" || len(u.ID) > MaxIDBytes || !isIDSafe(u.ID) {
		return inputErrorf("id %s must be 1 to %d letters, digits, '-' or '_'", quoteJSON(u.ID), MaxIDBytes)
	}
	if u.Name == "" || len(u.Name) > MaxNameBytes {
		return inputErrorf("name must be 1 to %d bytes; it is %d", MaxNameBytes, len(u.Name))
	}
	if len(u.Email) > MaxEmailBytes || strings.IndexByte(u.Email, '@') < 1 {
		return inputErrorf("email %s must hold an '@' after its first byte and be at most %d bytes", quoteJSON(u.Email), MaxEmailBytes)
	}
	if len(u.Roles) == 0 || len(u.Roles) > MaxRoles {
		return inputErrorf("roles must list 1 to %d roles; it lists %d", MaxRoles, len(u.Roles))
	}
	for i, r := range u.Roles {
		if err := validateRole(r); err != nil {
			return inputErrorf("roles[%d]: %v", i, err)
		}
		for _, earlier := range u.Roles[:i] {
			if earlier == r {
				return inputErrorf("roles lists %s twice", quoteJSON(r))
			}
		}
	}
	return nil
}

func isIDSafe(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// quoteJSON writes s, shortened, as a JSON string literal, for an error
// message: in the notation of the API that the client speaks, where Go's %q
// would write a byte 0 as \x00, which JSON does not have.
func quoteJSON(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a '<' is clearer as itself, and the error body escapes it anyway
	enc.Encode(truncate(s))  // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// truncate shortens s for an error message, so that a megabyte of input is
// not echoed back.
func truncate(s string) string {
	const keep = 40
	if len(s) <= keep {
		return s
	}
	return string(bytes.ToValidUTF8([]byte(s[:keep]), nil)) + "..."
}
