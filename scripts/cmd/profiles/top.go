package main

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/google/pprof/profile"
)

// measure is one kind of value in a profile, with the title of its table.
type measure struct {
	sampleType string // as the profile names it: cpu, alloc_space, alloc_objects
	title      string
}

// The measures profile.sh shows: time from the CPU profile, and what was
// allocated (bytes and count) from the memory profile.
var (
	cpuTime          = measure{"cpu", "CPU time"}
	allocatedBytes   = measure{"alloc_space", "Allocated bytes"}
	allocatedObjects = measure{"alloc_objects", "Allocated objects"}
)

// row is one function's share of a profile: flat counts the samples in
// which the function itself was running (or allocating), cum the samples in
// which it was anywhere on the stack, so cum includes what it called.
type row struct {
	name      string
	flat, cum int64
}

// shares is a normalized profile summed per function for one measure.
type shares struct {
	rows  []row // by flat, largest first
	total int64
}

// percent is v as a percentage of the total.
func (s shares) percent(v int64) float64 {
	if s.total == 0 {
		return 0
	}
	return 100 * float64(v) / float64(s.total)
}

// sumByFunction adds up the values of m in a normalized profile (one line
// per location, leaf first) per function. A function that appears twice on a
// stack, by recursion or because two closures now share a name, counts once
// towards cum, as in go tool pprof.
func sumByFunction(p *profile.Profile, m measure) (shares, error) {
	index := slices.IndexFunc(p.SampleType, func(t *profile.ValueType) bool { return t.Type == m.sampleType })
	if index < 0 {
		return shares{}, fmt.Errorf("profile has no %s samples", m.sampleType)
	}
	byName := map[string]*row{}
	get := func(name string) *row {
		if byName[name] == nil {
			byName[name] = &row{name: name}
		}
		return byName[name]
	}
	var s shares
	for _, sample := range p.Sample {
		v := sample.Value[index]
		s.total += v
		seen := map[string]bool{}
		for i, loc := range sample.Location {
			name := loc.Line[0].Function.Name
			if i == 0 {
				get(name).flat += v
			}
			if !seen[name] {
				seen[name] = true
				get(name).cum += v
			}
		}
	}
	for _, r := range byName {
		s.rows = append(s.rows, *r)
	}
	slices.SortFunc(s.rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(b.flat, a.flat), cmp.Compare(b.cum, a.cum), cmp.Compare(a.name, b.name))
	})
	return s, nil
}

// minShown is the smallest flat share, in percent, that gets a row of its own.
const minShown = 0.05

// topRows is the first n rows with a flat share of at least minShown, and
// the flat share of all the others, the "other" line of perf report.
func (s shares) topRows(n int) (top []row, other int64, others int) {
	for _, r := range s.rows {
		if r.flat == 0 {
			continue
		}
		if len(top) < n && s.percent(r.flat) >= minShown {
			top = append(top, r)
		} else {
			other += r.flat
			others++
		}
	}
	return top, other, others
}
