package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
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
)

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
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return "", inputErrorf("malformed query string: %v", err)
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

// newUserRequest is the body of POST /users. Pointers tell a missing field
// from an empty one.
type newUserRequest struct {
	ID    *string  `json:"id"`
	Name  *string  `json:"name"`
	Email *string  `json:"email"`
	Roles []string `json:"roles"`
}

// decodeNewUser reads and validates the body of POST /users.
func decodeNewUser(body io.Reader) (user.User, error) {
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	var req newUserRequest
	if err := dec.Decode(&req); err != nil {
		return user.User{}, jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return user.User{}, inputErrorf("body must hold exactly one JSON object")
	}
	switch {
	case req.ID == nil:
		return user.User{}, inputErrorf("field id is missing")
	case req.Name == nil:
		return user.User{}, inputErrorf("field name is missing")
	case req.Email == nil:
		return user.User{}, inputErrorf("field email is missing")
	case req.Roles == nil:
		return user.User{}, inputErrorf("field roles is missing")
	}
	u := user.User{ID: *req.ID, Name: *req.Name, Email: *req.Email, Roles: req.Roles}
	return u, validateUser(&u)
}

func jsonError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return err // answered with 413 by the caller
	}
	if strings.HasPrefix(err.Error(), "json: unknown field") {
		return inputErrorf("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return inputErrorf("malformed JSON body: %v", err)
}

func validateUser(u *user.User) error {
	if u.ID == "" || len(u.ID) > MaxIDBytes || !isIDSafe(u.ID) {
		return inputErrorf("id %q must be 1 to %d letters, digits, '-' or '_'", truncate(u.ID), MaxIDBytes)
	}
	if u.Name == "" || len(u.Name) > MaxNameBytes {
		return inputErrorf("name must be 1 to %d bytes; it is %d", MaxNameBytes, len(u.Name))
	}
	if len(u.Email) > MaxEmailBytes || strings.IndexByte(u.Email, '@') < 1 {
		return inputErrorf("email %q must hold an '@' after its first byte and be at most %d bytes", truncate(u.Email), MaxEmailBytes)
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
				return inputErrorf("roles lists %q twice", r)
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

// truncate shortens s for an error message, so that a megabyte of input is
// not echoed back.
func truncate(s string) string {
	const keep = 40
	if len(s) <= keep {
		return s
	}
	return string(bytes.ToValidUTF8([]byte(s[:keep]), nil)) + "..."
}
