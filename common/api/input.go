package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"example.com/userperf/common/api/guard"
	"example.com/userperf/common/user"
	"github.com/labstack/echo/v4"
)

// Limits on one request; beyond one, a 4xx names it.
const (
	MaxRoleBytes  = 64       // bytes in one role, in a query or in a user
	MaxRoles      = 32       // roles of one user
	MaxIDBytes    = 64       // bytes in an id, which is made of [A-Za-z0-9_-]
	MaxNameBytes  = 256      // bytes in a name
	MaxEmailBytes = 254      // bytes in an email address (RFC 5321's path limit)
	MaxBodyBytes  = 64 << 10 // bytes in a POST body

	// MaxHeaderBytes bounds the request line and headers together (431
	// beyond): the API needs a few hundred bytes, and net/http's default of
	// 1 MiB would let every connection hold a megabyte of headers.
	MaxHeaderBytes = 8 << 10
)

// HeaderReadSlack is what net/http reads beyond http.Server.MaxHeaderBytes,
// for its read buffer; the server takes it off, so that the limit is exact.
const HeaderReadSlack = 4096

// errInput is the client's fault, answered with 400.
type errInput struct{ msg string }

func (e errInput) Error() string { return e.msg }

func inputErrorf(format string, args ...any) error {
	return errInput{fmt.Sprintf(format, args...)}
}

// queryError says what url.ParseQuery found wrong with rawQuery.
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

// roleFromQuery returns the role in the query of req. A repeated role is
// refused: its client probably expects a union, and a silent choice would
// hide its bug.
func roleFromQuery(req *http.Request) (string, error) {
	rawQuery := req.URL.RawQuery
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

// plainRole reads the role of a short query without escapes, '+' or ';'
// as url.ParseQuery would, without its map; for any other it reports false.
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

// pathID returns the id in the path, percent-decoded once. Echo routes on
// the raw path when it is set, so its parameter alone would leave
// /users/%750000001, which names u0000001, encoded.
func pathID(c echo.Context) (string, error) {
	id := c.Param("id")
	if c.Request().URL.RawPath == "" {
		return id, nil // routed on the decoded path
	}
	decoded, err := url.PathUnescape(id)
	if err != nil { // unreachable: net/http refuses a malformed escape before routing
		return "", inputErrorf("malformed id in the path: a '%%' must be followed by two hexadecimal digits")
	}
	return decoded, nil
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
		if slices.Contains(u.Roles[:i], r) {
			return inputErrorf("roles lists %s twice", quoteJSON(r))
		}
	}
	return nil
}

func isIDSafe(id string) bool {
	return !strings.ContainsFunc(id, func(c rune) bool {
		return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_')
	})
}

// quoteJSON writes s, shortened, as a JSON string for an error message,
// where Go's %q would write escapes that JSON does not have.
func quoteJSON(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a '<' is clearer as itself, and the error body escapes it anyway
	enc.Encode(truncate(s))  // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// truncate shortens s for an error message.
func truncate(s string) string {
	const keep = 40
	if len(s) <= keep {
		return s
	}
	return string(bytes.ToValidUTF8([]byte(s[:keep]), nil)) + "..."
}

// newUserFields are the keys of a POST /users body, in the order in which
// a missing one is reported. Unlike encoding/json, they are case-sensitive.
var newUserFields = []string{"id", "name", "email", "roles"}

// utf8BOM must not start JSON sent over the network (RFC 8259, 8.1).
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// decodeNewUser reads and validates the body of POST /users into a
// buffer of capacity bytes. A body that could only be stored by changing
// it (invalid UTF-8, a key given twice) is refused.
func decodeNewUser(body io.Reader, capacity int) (user.User, error) {
	data, err := readBody(body, capacity)
	if err != nil {
		return user.User{}, err
	}
	if bytes.HasPrefix(data, utf8BOM) {
		return user.User{}, inputErrorf("body starts with a byte order mark (EF BB BF); send the JSON without it")
	}
	fields, err := objectFields(data)
	if err != nil {
		return user.User{}, err
	}
	for _, name := range newUserFields {
		if _, ok := fields[name]; !ok {
			return user.User{}, inputErrorf("field %s is missing", name)
		}
	}
	var u user.User
	if u.ID, err = textField("id", fields["id"]); err != nil {
		return user.User{}, err
	}
	if u.Name, err = textField("name", fields["name"]); err != nil {
		return user.User{}, err
	}
	if u.Email, err = textField("email", fields["email"]); err != nil {
		return user.User{}, err
	}
	if u.Roles, err = textList("roles", fields["roles"]); err != nil {
		return user.User{}, err
	}
	return u, validateUser(&u)
}

// bodyCapacity is the buffer that the body of req is read into (see
// guard.BodyCapacity). A body announced as too large is refused before
// its first read, and so before net/http answers 100 Continue.
func bodyCapacity(req *http.Request) (int, error) {
	if req.ContentLength > MaxBodyBytes {
		return 0, &http.MaxBytesError{Limit: MaxBodyBytes}
	}
	return guard.BodyCapacity(req.ContentLength, MaxBodyBytes), nil
}

// readBody reads a whole request body into a buffer of capacity bytes,
// and turns a failed read into an answer that names no socket address.
func readBody(body io.Reader, capacity int) ([]byte, error) {
	data, err := guard.ReadBody(body, capacity)
	if err == nil {
		return data, nil
	}
	var (
		tooLarge *http.MaxBytesError
		netErr   net.Error
	)
	switch {
	case errors.As(err, &tooLarge):
		return nil, err // answered with 413 by writeError
	case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		return nil, echo.NewHTTPError(http.StatusRequestTimeout,
			fmt.Sprintf("request body arrived too slowly: the whole request must arrive within %v", ReadTimeout))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, inputErrorf("request body ended before the length it announced")
	default:
		return nil, inputErrorf("request body could not be read")
	}
}

// objectFields splits data, one JSON object whose keys are newUserFields,
// each at most once, into the raw JSON of each value.
func objectFields(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxError(data, err)
	}
	if tok != json.Delim('{') {
		return nil, inputErrorf("body must be a JSON object, not %s", kindOfJSON(bytes.TrimLeft(data, " \t\r\n")))
	}
	fields := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxError(data, err)
		}
		key := tok.(string) // inside an object, the decoder yields keys as strings
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, syntaxError(data, err)
		}
		if err := checkKey(key); err != nil {
			return nil, err
		}
		if _, seen := fields[key]; seen {
			return nil, inputErrorf("field %s is given twice; give it once", key)
		}
		fields[key] = value
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, syntaxError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, inputErrorf("body must hold exactly one JSON object and nothing after it")
	}
	return fields, nil
}

// checkKey refuses a key that is not one of newUserFields.
func checkKey(key string) error {
	for _, name := range newUserFields {
		switch {
		case key == name:
			return nil
		case strings.EqualFold(key, name):
			return inputErrorf("unknown field %s: field names are case-sensitive; did you mean %s?", quoteJSON(key), quoteJSON(name))
		}
	}
	return inputErrorf("unknown field %s", quoteJSON(key))
}

// syntaxError describes data, a body that is not well-formed JSON, by the
// byte where it went wrong, not in the words of Go's scanner.
func syntaxError(data []byte, err error) error {
	var syntax *json.SyntaxError
	isSyntax := errors.As(err, &syntax)
	// A cut body: Go 1.26's decoder says EOF between tokens ("{",
	// `{"id":"a"`) and unexpected EOF inside one; Go 1.27's says a syntax
	// error at the end of the input, "unexpected end of JSON input".
	cut := errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		isSyntax && syntax.Offset >= int64(len(data)) && strings.HasPrefix(syntax.Error(), "unexpected end")
	switch {
	case len(bytes.TrimSpace(data)) == 0 && cut:
		return inputErrorf("body is empty; send a JSON object")
	case cut:
		return inputErrorf("malformed JSON body: the body ends before the object closes, after %d bytes", len(data))
	case isSyntax && 0 < syntax.Offset && syntax.Offset <= int64(len(data)):
		// The decoder stops right after the byte it could not take.
		return inputErrorf("malformed JSON body: %s at byte %d is not valid there",
			describeByte(data[syntax.Offset-1]), syntax.Offset)
	default:
		return inputErrorf("malformed JSON body")
	}
}

// describeByte names b as itself if it is visible ASCII, else by its value.
func describeByte(b byte) string {
	if '!' <= b && b <= '~' {
		return "'" + string(rune(b)) + "'"
	}
	return fmt.Sprintf("byte 0x%02X", b)
}

// textField returns the string that raw, the JSON value of field, holds.
func textField(field string, raw json.RawMessage) (string, error) {
	if raw[0] != '"' {
		return "", inputErrorf("field %s must be a string, not %s", field, kindOfJSON(raw))
	}
	if err := checkText(raw); err != nil {
		return "", inputErrorf("field %s %v", field, err)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", inputErrorf("field %s is not a well-formed JSON string", field)
	}
	return s, nil
}

// textList returns the strings that raw, the JSON value of field, holds.
func textList(field string, raw json.RawMessage) ([]string, error) {
	if raw[0] != '[' {
		return nil, inputErrorf("field %s must be an array of strings, not %s", field, kindOfJSON(raw))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, inputErrorf("field %s is not a well-formed JSON array", field)
	}
	list := make([]string, len(items))
	for i, item := range items {
		s, err := textField(fmt.Sprintf("%s[%d]", field, i), item)
		if err != nil {
			return nil, err
		}
		list[i] = s
	}
	return list, nil
}

// kindOfJSON names the kind of the JSON value that raw starts, in the
// words of JSON rather than of Go.
func kindOfJSON(raw json.RawMessage) string {
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// Why a JSON string cannot be stored as sent: encoding/json would put
// U+FFFD in place of the offending byte or escape.
var (
	errNotUTF8         = errors.New("is not valid UTF-8")
	errLoneSurrogate   = errors.New(`holds an unpaired surrogate escape (\uD800 to \uDFFF), which is not a character`)
	errMalformedEscape = errors.New("holds a malformed escape")
)

// checkText reports why the JSON string lit, quotes included, would not
// decode to exactly the text it spells.
func checkText(lit []byte) error {
	if !utf8.Valid(lit) {
		return errNotUTF8
	}
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' {
			continue
		}
		i++ // the escaped byte
		if i >= len(lit) || lit[i] != 'u' {
			continue
		}
		r, ok := hexRune(lit, i+1)
		if !ok {
			return errMalformedEscape
		}
		i += 4 // the last hex digit
		if !utf16.IsSurrogate(r) {
			continue
		}
		// A high surrogate must be followed at once by an escaped low one.
		if r < 0xDC00 && i+2 < len(lit) && lit[i+1] == '\\' && lit[i+2] == 'u' {
			if low, ok := hexRune(lit, i+3); ok && 0xDC00 <= low && low <= 0xDFFF {
				i += 6
				continue
			}
		}
		return errLoneSurrogate
	}
	return nil
}

// hexRune returns the rune spelled by the four hex digits of lit at from.
func hexRune(lit []byte, from int) (rune, bool) {
	if from+4 > len(lit) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(lit[from:from+4]), 16, 32)
	return rune(n), err == nil
}
