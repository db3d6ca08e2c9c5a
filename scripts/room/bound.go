package main

import (
	"cmp"
	"maps"
	"slices"
	"unicode/utf8"
)

// The page's bounds, so that a room of any size makes a page a browser
// shows at once and the server renders in little memory: a column per
// exercise for the most handed-in stages (the workshop has five exercises
// and three quests), a few characters per field, and a ceiling on the bytes,
// beyond which the last participants are left out and the page says so.
const (
	maxColumns    = 8
	maxFieldRunes = 40
	maxGuessRunes = 12
)

// maxPageBytes is the most a page may weigh; a variable, so that a test can lower it.
var maxPageBytes = 1 << 20

// fewestLeftOut keeps in origins the maxColumns stages that most hand-ins
// name (ties by name) and returns the others' names, removed from it, the
// most handed-in first.
func fewestLeftOut(origins map[string]map[string]int) []string {
	total := func(stage string) int {
		n := 0
		for _, c := range origins[stage] {
			n += c
		}
		return n
	}
	names := slices.SortedFunc(maps.Keys(origins), func(a, b string) int {
		return cmp.Or(total(b)-total(a), cmp.Compare(a, b))
	})
	if len(names) <= maxColumns {
		return nil
	}
	for _, name := range names[maxColumns:] {
		delete(origins, name)
	}
	return names[maxColumns:]
}

// cut shortens s to n runes by its middle, where names that share a start
// and an end ("Load Tester 01", "Load Tester 02") differ least: it keeps the
// start and the end, and an ellipsis between them.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}
