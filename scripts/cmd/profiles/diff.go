package main

import (
	"cmp"
	"math"
	"slices"
)

// move is where one function's share of time went between two profiles, in
// percent of each profile's own total.
type move struct {
	name          string
	before, after float64 // flat %
}

// change is the difference in percentage points.
func (m move) change() float64 { return m.after - m.before }

// moves lines up the functions of two profiles by their normalized names:
// every function with a flat share in either, the largest change first.
func moves(before, after shares) []move {
	byName := map[string]*move{}
	get := func(name string) *move {
		if byName[name] == nil {
			byName[name] = &move{name: name}
		}
		return byName[name]
	}
	for _, r := range before.rows {
		if r.flat > 0 {
			get(r.name).before = before.percent(r.flat)
		}
	}
	for _, r := range after.rows {
		if r.flat > 0 {
			get(r.name).after = after.percent(r.flat)
		}
	}
	var ms []move
	for _, m := range byName {
		ms = append(ms, *m)
	}
	slices.SortFunc(ms, func(a, b move) int {
		return cmp.Or(cmp.Compare(math.Abs(b.change()), math.Abs(a.change())), cmp.Compare(a.name, b.name))
	})
	return ms
}
