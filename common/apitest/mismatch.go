package apitest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Mismatch describes where got parts from want: the offset of the first
// byte that differs, what each body holds there, and about 60 bytes on each
// side of it in both, quoted, with a caret under the spot on a line of its
// own, where it cannot be read as a bracket or a comma of the body.
func Mismatch(got, want []byte) string {
	at := min(len(got), len(want))
	for i := range at {
		if got[i] != want[i] {
			at = i
			break
		}
	}
	if continues(got, at) || continues(want, at) {
		at = characterStart(got, at) // the bytes before at are the same in both
	}
	start := max(0, at-60)
	for start < at && !utf8.RuneStart(got[start]) {
		start++
	}
	g, column := excerpt(got, start, at)
	w, _ := excerpt(want, start, at)
	return fmt.Sprintf("first difference at byte %d (got %d bytes, want %d): got has %s, want has %s\n got %s\nwant %s\n     %s^",
		at, len(got), len(want), holds(got, at), holds(want, at), g, w, strings.Repeat(" ", column))
}

// characterStart is the first byte of the character that holds b[at], or
// at where no lead byte is before it (bytes that are not UTF-8).
func characterStart(b []byte, at int) int {
	for i := at - 1; i >= 0 && i > at-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if b[i] >= 0xC0 { // the lead byte of a character of two bytes or more
				return i
			}
			break
		}
	}
	return at
}

// continues reports whether b[i] is the second byte of a character or later.
func continues(b []byte, i int) bool { return i < len(b) && !utf8.RuneStart(b[i]) }

// excerpt quotes b from start to 60 bytes after at, and returns the column,
// in the terminal's cells, at which the quoted b[at] starts.
func excerpt(b []byte, start, at int) (string, int) {
	end := min(len(b), at+60)
	for end < len(b) && !utf8.RuneStart(b[end]) {
		end++
	}
	before := strconv.Quote(string(b[start:at]))
	before = before[:len(before)-1] // without its closing quote
	if start > 0 {
		before = "…" + before
	}
	after := strconv.Quote(string(b[at:end]))[1:]
	if end < len(b) {
		after += "…"
	}
	return before + after, cells(before)
}

// holds says what b holds at at: a character, a byte that is not UTF-8, or its end.
func holds(b []byte, at int) string {
	if at >= len(b) {
		return "its end"
	}
	r, size := utf8.DecodeRune(b[at:])
	switch {
	case r == utf8.RuneError && size == 1:
		return fmt.Sprintf("byte 0x%02X (not UTF-8)", b[at])
	case r < utf8.RuneSelf:
		return strconv.QuoteRune(r)
	}
	return fmt.Sprintf("%U %s (%d bytes)", r, strconv.QuoteRune(r), size)
}

// cells is the width of the quoted s in a terminal: two cells for a wide
// character (Hangul, CJK, emoji), one for any other.
func cells(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x1100 && r <= 0x115F || r >= 0x2E80 && r <= 0xA4CF || r >= 0xAC00 && r <= 0xD7A3 ||
			r >= 0xF900 && r <= 0xFAFF || r >= 0xFF00 && r <= 0xFF60 || r >= 0x1F300 && r <= 0x1FAFF || r >= 0x20000 {
			n++
		}
	}
	return n
}

// ListMismatch describes how the list body got parts from want: first the
// ids that are missing, extra or out of order, which name the bug, then
// Mismatch's bytes.
func ListMismatch(got, want []byte) string {
	g, gotList := listIDs(got)
	w, wantList := listIDs(want)
	if !gotList || !wantList {
		return Mismatch(got, want)
	}
	var parts []string
	if missing := without(w, g); len(missing) > 0 {
		parts = append(parts, "missing ids "+firstFew(missing))
	}
	if extra := without(g, w); len(extra) > 0 {
		parts = append(parts, "extra ids "+firstFew(extra))
	}
	// Of the ids both hold, the first whose place differs is out of order.
	g, w = without(g, without(g, w)), without(w, without(w, g))
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			parts = append(parts, fmt.Sprintf("out of order: %q is where %q belongs (ids go in ascending order)", g[i], w[i]))
			break
		}
	}
	return strings.Join(append(parts, Mismatch(got, want)), "; ")
}

// listIDs returns the ids of a JSON array of users, and false if body is not one.
func listIDs(body []byte) ([]string, bool) {
	var users []struct{ ID string }
	if json.Unmarshal(body, &users) != nil {
		return nil, false
	}
	ids := make([]string, len(users))
	for i, u := range users {
		ids[i] = u.ID
	}
	return ids, true
}

// without returns the ids of a that b does not hold, in a's order.
func without(a, b []string) []string {
	held := make(map[string]bool, len(b))
	for _, id := range b {
		held[id] = true
	}
	return slices.DeleteFunc(slices.Clone(a), func(id string) bool { return held[id] })
}

// firstFew quotes up to five ids, and counts the rest.
func firstFew(ids []string) string {
	quoted := fmt.Sprintf("%q", ids[:min(5, len(ids))])
	if len(ids) > 5 {
		quoted += fmt.Sprintf(" and %d more", len(ids)-5)
	}
	return quoted
}
