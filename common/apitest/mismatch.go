package apitest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

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

// ListMismatch describes how the list body got parts from want: first the
// ids that are missing, extra or out of order, which name the bug (a user
// appended instead of inserted is out of order), then Mismatch's bytes.
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
