package main

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// hand is one participant's hand-in: the "key: value" lines of the file that
// scripts/handin writes or sends (the benchmark lines it also carries have
// no ": " and are left out).
type hand struct {
	ID, Name string
	Stages   []string          // the stages it has a verdict of, in the file's order
	values   map[string]string // every "key: value" line
}

// maxStages bounds the stages of one hand-in, so that one cannot fill the
// page; maxRatio bounds a speed-up either way, so that one cannot flatten
// the chart's log scale: no step of the workshop comes near it.
const (
	maxStages = 30
	maxRatio  = 10000
)

// meaningful says whether r is a speed-up the room shows: a ratio from
// 1/maxRatio to maxRatio, which NaN, infinities, zero and negatives are not.
func meaningful(r float64) bool { return r >= 1.0/maxRatio && r <= maxRatio }

var (
	stageName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	idPattern = regexp.MustCompile(`^[a-z0-9]{8,32}$`)
)

// parseHand reads a hand-in and says in one line what is wrong with a malformed one.
func parseHand(data []byte) (hand, error) {
	if !utf8.Valid(data) {
		return hand{}, errors.New("it is not UTF-8 text")
	}
	h := hand{values: map[string]string{}}
	for n, line := range strings.Split(string(data), "\n") {
		key, value, ok := strings.Cut(strings.TrimRight(line, "\r"), ": ")
		if !ok {
			continue
		}
		h.values[key] = value
		if stage, ok := strings.CutPrefix(key, "verdict-"); ok {
			if !stageName.MatchString(stage) {
				return hand{}, fmt.Errorf("line %d: %q is not a stage's name", n+1, stage)
			}
			if !slices.Contains(h.Stages, stage) {
				h.Stages = append(h.Stages, stage)
			}
			if len(h.Stages) > maxStages {
				return hand{}, fmt.Errorf("more than %d stages: the workshop has fewer", maxStages)
			}
		}
		if strings.HasPrefix(key, "speedup-") {
			if r, err := strconv.ParseFloat(value, 64); err != nil || !meaningful(r) {
				return hand{}, fmt.Errorf("line %d: %s is %q, not a ratio from 1/%d to %d (a speed-up is never NaN, infinite, zero or negative)",
					n+1, key, value, maxRatio, maxRatio)
			}
		}
		if strings.HasPrefix(key, "predicted-") {
			if r, err := strconv.ParseFloat(trimTimes(value), 64); err == nil && !meaningful(r) {
				return hand{}, fmt.Errorf("line %d: %s is %q, not a ratio from 1/%d to %d (a prediction that is a number is a speed-up)",
					n+1, key, value, maxRatio, maxRatio)
			}
		}
	}
	h.Name, h.ID = strings.TrimSpace(h.values["participant"]), h.values["id"]
	if err := checkName(h.Name); err != nil {
		return hand{}, err
	}
	if h.ID != "" && !idPattern.MatchString(h.ID) {
		return hand{}, fmt.Errorf("the id line %q is not 8 to 32 lower-case letters and digits", h.ID)
	}
	return h, nil
}

// checkName accepts any name a person types, up to 40 printable characters.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("no participant line: not a hand-in of go run ./scripts/handin")
	case utf8.RuneCountInString(name) > 40:
		return fmt.Errorf("the name %.40q... is longer than 40 characters", name)
	case strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }):
		return fmt.Errorf("the name %q holds a character that cannot be printed", name)
	}
	return nil
}

// cell is one participant's answer to one exercise.
type cell struct {
	Handed, Passed bool
	Failed         string  // the check that failed
	Ratio          float64 // against the exercise's start; 0 when not measured
	Told           bool    // the check could tell Ratio from its noise
	Guess          string  // the prediction as typed, "" if none
	GuessRatio     float64 // Guess as a ratio, 0 if it is not one
	Counted        string  // what an exact count decided where the time could not: "−49% allocs"
	Changed        bool    // the stage changed after its check: the verdict may not be the stage's
}

// cell returns h's answer to the exercise made in stage ex.
func (h hand) cell(ex string) cell {
	verdict, ok := h.values["verdict-"+ex]
	c := cell{Handed: ok, Guess: strings.TrimSpace(h.values["predicted-"+ex])}
	c.GuessRatio = parseGuess(c.Guess)
	if failed, ok := strings.CutPrefix(verdict, "FAILED: "); ok {
		c.Failed = strings.TrimSuffix(failed, ", see above") // as an older handin wrote it
		return c
	}
	c.Passed = ok && verdict != ""
	_, c.Changed = h.values["changed-"+ex]
	if r, err := strconv.ParseFloat(h.values["speedup-"+ex+"-origin"], 64); c.Passed && err == nil {
		c.Ratio, c.Told = r, !strings.Contains(firstClause(verdict), "cannot tell")
		c.Counted = counted(firstClause(verdict))
	}
	return c
}

// firstClause is the clause of a passed check's verdict about the start,
// which comes first: up to "), " before the clause about the reference, or
// ". " in the check's later wording.
func firstClause(verdict string) string {
	end := len(verdict)
	for _, sep := range []string{"), ", ". "} {
		if i := strings.Index(verdict, sep); i >= 0 {
			end = min(end, i)
		}
	}
	return verdict[:end]
}

// parseGuess reads a prediction as typed: "3x", "3", "1.5×", "0.5x" (twice as slow).
func parseGuess(s string) float64 {
	if r, err := strconv.ParseFloat(trimTimes(s), 64); err == nil && meaningful(r) {
		return r
	}
	return 0
}

// trimTimes is a prediction without its spaces and "x".
func trimTimes(s string) string {
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), "xX×"))
}

// origin is the stage that ex was made from, "" if the hand-in does not say (an older handin).
func (h hand) origin(ex string) string {
	if o := h.values["origin-"+ex]; o != "" {
		return path.Base(o)
	}
	return ""
}

// exercise is one column of the room: the stages of that name, with what the room found.
type exercise struct {
	Name, Start, Colour string
	Answers             int        // right answers with a ratio
	Median              float64    // of their ratios, 0 if none
	Guesses             int        // right answers with a prediction that is a ratio
	GuessMedian         float64    // of those predictions
	Off                 float64    // the median factor between a prediction and its measurement, 0 if none
	ByRelease           []exercise // per Go release, where the room mixes them: Name is the release
}

// row is one participant's line.
type row struct {
	Release           string // the Go release that the hand-in's checks ran on
	Name, ID, Machine string
	Tag               string // the shortest start of the id that tells it from the others of the same name, if any
	Cells             []cell
}

// roomView is what the page and the table show.
type roomView struct {
	Releases  []string // the Go releases of the room's hand-ins, "go1.27" and such, oldest first
	Unshown   []string // the stages left out of the columns, the most handed-in first
	Exercises []exercise
	Rows      []row
	Refused   int // new participants the server refused for their address's limit
}

// view lays hands out in columns, one per exercise: a stage whose origin is
// an exercise's start (isStart); a stage of an older hand-in, which does not
// name its origin, counts too. Rows are sorted by name, then id.
func view(hands []hand, isStart func(stage string) bool) roomView {
	origins := map[string]map[string]int{} // per stage name, how many hand-ins made it from each start
	for _, h := range hands {
		for _, s := range h.Stages {
			if o := h.origin(s); o == "" || isStart(o) {
				if origins[s] == nil {
					origins[s] = map[string]int{}
				}
				origins[s][o]++
			}
		}
	}
	var v roomView
	v.Unshown = fewestLeftOut(origins)
	for name, counts := range origins {
		// The column's start is the one most of the room gave (an older hand-in gives none).
		start := ""
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
	sorted := slices.Clone(hands)
	slices.SortFunc(sorted, func(a, b hand) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), strings.Compare(a.ID, b.ID))
	})
	ids := map[string][]string{} // per name
	for _, h := range hands {
		ids[h.Name] = append(ids[h.Name], h.ID)
	}
	for _, h := range sorted {
		r := row{Name: h.Name, ID: h.ID, Machine: h.values["machine-cpu"]}
		if len(ids[h.Name]) > 1 {
			r.Tag = tag(h.ID, ids[h.Name])
		}
		if cores := h.values["machine-cores"]; cores != "" {
			r.Machine += ", " + cores + " cores"
		}
		r.Release = h.values["go-version"]
		for _, ex := range v.Exercises {
			c := h.cell(ex.Name)
			if o := h.origin(ex.Name); o != "" && o != ex.Start && isStart(o) {
				c = cell{} // another exercise under this name: not comparable with the column
			}
			r.Cells = append(r.Cells, c)
		}
		v.Rows = append(v.Rows, r)
	}
	for i := range v.Exercises {
		var ratios, guesses, off []float64
		for _, r := range v.Rows {
			c := r.Cells[i]
			if !c.Passed || c.Ratio == 0 {
				continue
			}
			ratios = append(ratios, c.Ratio)
			if c.GuessRatio > 0 {
				guesses = append(guesses, c.GuessRatio)
				off = append(off, math.Exp(math.Abs(math.Log(c.GuessRatio/c.Ratio))))
			}
		}
		ex := &v.Exercises[i]
		ex.Answers, ex.Median = len(ratios), results.Median(ratios)
		ex.Guesses, ex.GuessMedian, ex.Off = len(guesses), results.Median(guesses), results.Median(off)
	}
	v.Releases = releases(v.Rows)
	if len(v.Releases) > 1 { // a release changes the ratios: each has its own medians
		v.splitByRelease(hands, isStart)
	}
	return v
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
		if a == "" {
			return 1
		}
		return -1
	}
	return stages.Compare(a, b)
}

// The workshop's exercises keep their colours whoever hands in; any other
// name takes one of the rest by its letters, so it too keeps its colour.
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
	sum := 0
	for _, b := range []byte(name) {
		sum = sum*31 + int(b)
	}
	return others[(sum%len(others)+len(others))%len(others)]
}
