package main

import (
	"cmp"
	"go/version"
	"hash/crc32"
	"maps"
	"math"
	"slices"
	"strings"

	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// maxColumns is the most exercises the view shows: the workshop has five exercises and three quests.
const maxColumns = 8

// exercise is one column of the view: the stages of one name, with what the room found.
type exercise struct {
	Name, Start, Colour string
	Answers             int        // right answers with a ratio
	Median              float64    // of their ratios, 0 if none
	Guesses             int        // right answers with a prediction that is a ratio
	GuessMedian         float64    // of those predictions
	Off                 float64    // the median factor between a prediction and its measurement, 0 if none
	ByRelease           []exercise // per Go release, where the room mixes them: Name is the release
}

// roomView is what the page and the table show.
type roomView struct {
	Releases  []string // the releases of the hand-ins, "go1.27" and such, oldest first
	Unshown   []string // the stages left out of the columns, the most handed-in first
	Exercises []exercise
	HandIns   []handIn // by name, then id, each with a cell per exercise
	Refused   int      // new participants the server refused for their address's limit
}

// view lays handIns out in columns, one per exercise: a stage whose origin
// is an exercise's start (isStart); a stage of an older hand-in, which does
// not name its origin, counts too.
func view(handIns []handIn, isStart func(stage string) bool) roomView {
	origins := map[string]map[string]int{} // per stage name, how many hand-ins made it from each start
	made := map[string]int{}               // per stage name, how many hand-ins made it
	for _, h := range handIns {
		for _, s := range h.Stages {
			if o := h.origin(s); o == "" || isStart(o) {
				if origins[s] == nil {
					origins[s] = map[string]int{}
				}
				origins[s][o]++
				made[s]++
			}
		}
	}
	// The columns are the maxColumns stages that most hand-ins name (ties by name).
	names := slices.SortedFunc(maps.Keys(made), func(a, b string) int { return cmp.Or(made[b]-made[a], cmp.Compare(a, b)) })
	var v roomView
	if len(names) > maxColumns {
		names, v.Unshown = names[:maxColumns], names[maxColumns:]
	}
	for _, name := range names {
		// The column's start is the one most of the room gave (an older hand-in gives none).
		start, counts := "", origins[name]
		for _, o := range slices.Sorted(maps.Keys(counts)) {
			if o != "" && (start == "" || counts[o] > counts[start]) {
				start = o
			}
		}
		v.Exercises = append(v.Exercises, exercise{Name: name, Start: start, Colour: colour(name)})
	}
	slices.SortFunc(v.Exercises, func(a, b exercise) int {
		return cmp.Or(compareStages(a.Start, b.Start), strings.Compare(a.Name, b.Name))
	})
	v.HandIns = slices.Clone(handIns)
	slices.SortFunc(v.HandIns, func(a, b handIn) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), strings.Compare(a.ID, b.ID))
	})
	tagSame(v.HandIns, func(h handIn) string { return h.Name })
	for i, h := range v.HandIns {
		for _, ex := range v.Exercises {
			c := h.cell(ex.Name)
			if o := h.origin(ex.Name); o != "" && o != ex.Start && isStart(o) {
				c = cell{} // another exercise under this name: not comparable with the column
			}
			v.HandIns[i].Cells = append(v.HandIns[i].Cells, c)
		}
	}
	v.Releases = releases(v.HandIns)
	for i := range v.Exercises {
		ex := &v.Exercises[i]
		var all []cell
		byRelease := map[string][]cell{}
		for _, h := range v.HandIns {
			all = append(all, h.Cells[i])
			byRelease[version.Lang(h.Release)] = append(byRelease[version.Lang(h.Release)], h.Cells[i])
		}
		ex.summarize(all)
		if len(v.Releases) < 2 {
			continue
		}
		for _, release := range v.Releases { // a release changes the ratios: each has its own medians
			by := exercise{Name: release}
			by.summarize(byRelease[release])
			ex.ByRelease = append(ex.ByRelease, by)
		}
	}
	return v
}

// summarize counts the right answers among an exercise's cells, and their medians.
func (ex *exercise) summarize(cells []cell) {
	var ratios, guesses, off []float64
	for _, c := range cells {
		if !c.Passed || c.Ratio == 0 {
			continue
		}
		ratios = append(ratios, c.Ratio)
		if c.GuessRatio > 0 {
			guesses = append(guesses, c.GuessRatio)
			off = append(off, math.Exp(math.Abs(math.Log(c.GuessRatio/c.Ratio))))
		}
	}
	ex.Answers, ex.Median = len(ratios), results.Median(ratios)
	ex.Guesses, ex.GuessMedian, ex.Off = len(guesses), results.Median(guesses), results.Median(off)
}

// releases lists the releases of handIns, oldest first: "go1.27" of
// "go1.27.3", since encoding/json changes between releases, not patches. A
// hand-in that names none (an older one, a development build) counts as "".
func releases(handIns []handIn) []string {
	var list []string
	for _, h := range handIns {
		list = append(list, version.Lang(h.Release))
	}
	slices.SortFunc(list, version.Compare) // "" first: an invalid version sorts before every valid one
	return slices.Compact(list)
}

// tagSame tags each hand-in that has no tag and shares its name (as name
// gives it) with others, with the shortest start of its id that tells it apart.
func tagSame(handIns []handIn, name func(handIn) string) {
	ids := map[string][]string{}
	for _, h := range handIns {
		ids[name(h)] = append(ids[name(h)], h.ID)
	}
	for i, h := range handIns {
		if same := ids[name(h)]; len(same) > 1 && h.Tag == "" {
			handIns[i].Tag = tag(h.ID, same)
		}
	}
}

// tag is the shortest start of id, of 4 characters at least, that none of
// others but id itself starts with: ids are unique, so tags are.
func tag(id string, others []string) string {
	n := 4
	for _, o := range others {
		if o != id {
			common := 0
			for common < min(len(id), len(o)) && id[common] == o[common] {
				common++
			}
			n = max(n, common+1)
		}
	}
	return id[:min(n, len(id))]
}

// compareStages orders the starts as the workspace's stages are ordered; an unknown start last.
func compareStages(a, b string) int {
	if (a == "") != (b == "") {
		return strings.Compare(b, a)
	}
	return stages.Compare(a, b)
}

// An exercise keeps its colour whoever hands in; another name takes one of
// the rest by its letters.
var (
	colours = map[string]string{
		"ex1": "#1f77b4", "ex2": "#ff7f0e", "ex3": "#2ca02c", "ex4": "#d62728", "ex5": "#9467bd",
		"mycache": "#8c564b", "mylog": "#e377c2", "mypgo": "#7f7f7f",
	}
	others = []string{"#17becf", "#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173"}
)

func colour(name string) string {
	if c, ok := colours[name]; ok {
		return c
	}
	return others[crc32.ChecksumIEEE([]byte(name))%uint32(len(others))]
}
