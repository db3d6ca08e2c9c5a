package main

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// handIn is one participant's hand-in: the "key: value" lines of the file
// that scripts/handin writes or sends (its benchmark lines have no ": ").
// view fills Tag and Cells, and the page Short.
type handIn struct {
	ID, Name string
	Release  string   // the Go version its checks ran on, "" if it does not say
	Machine  string   // the CPU and its cores
	Stages   []string // the stages it has a verdict of, in the file's order
	values   map[string]string

	Tag   string // the shortest start of the id that tells it from others of its name, if any
	Cells []cell // its answers, one per exercise of the view
	Short string // the name, cut to fit the page
}

// maxStages bounds the stages of one hand-in; maxRatio bounds a speed-up
// either way, far beyond any step of the workshop's.
const (
	maxStages = 30
	maxRatio  = 10000
)

// meaningful says whether r is a speed-up the room shows, which NaN, infinities, zero and negatives are not.
func meaningful(r float64) bool { return r >= 1.0/maxRatio && r <= maxRatio }

var (
	stageName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	idPattern = regexp.MustCompile(`^[a-z0-9]{8,32}$`)
)

// parseHandIn reads a hand-in, and says in one line what is wrong with a malformed one.
func parseHandIn(data []byte) (handIn, error) {
	if !utf8.Valid(data) {
		return handIn{}, errors.New("it is not UTF-8 text")
	}
	h := handIn{values: map[string]string{}}
	for n, line := range strings.Split(string(data), "\n") {
		key, value, ok := strings.Cut(strings.TrimRight(line, "\r"), ": ")
		if !ok {
			continue
		}
		h.values[key] = value
		if stage, ok := strings.CutPrefix(key, "verdict-"); ok {
			if !stageName.MatchString(stage) {
				return handIn{}, fmt.Errorf("line %d: %q is not a stage's name", n+1, stage)
			}
			if !slices.Contains(h.Stages, stage) {
				h.Stages = append(h.Stages, stage)
			}
			if len(h.Stages) > maxStages {
				return handIn{}, fmt.Errorf("more than %d stages: the workshop has fewer", maxStages)
			}
		}
		if strings.HasPrefix(key, "speedup-") {
			if r, err := strconv.ParseFloat(value, 64); err != nil || !meaningful(r) {
				return handIn{}, fmt.Errorf("line %d: %s is %q, not a ratio from 1/%d to %d (a speed-up is never NaN, infinite, zero or negative)",
					n+1, key, value, maxRatio, maxRatio)
			}
		}
		if strings.HasPrefix(key, "predicted-") {
			if r, err := strconv.ParseFloat(trimTimes(value), 64); err == nil && !meaningful(r) {
				return handIn{}, fmt.Errorf("line %d: %s is %q, not a ratio from 1/%d to %d (a prediction that is a number is a speed-up)",
					n+1, key, value, maxRatio, maxRatio)
			}
		}
	}
	h.Name, h.ID = strings.TrimSpace(h.values["participant"]), h.values["id"]
	switch {
	case h.Name == "":
		return handIn{}, errors.New("no participant line: not a hand-in of go run ./scripts/handin")
	case utf8.RuneCountInString(h.Name) > 40:
		return handIn{}, fmt.Errorf("the name %.40q... is longer than 40 characters", h.Name)
	case strings.ContainsFunc(h.Name, func(r rune) bool { return !unicode.IsPrint(r) }):
		return handIn{}, fmt.Errorf("the name %q holds a character that cannot be printed", h.Name)
	case h.ID != "" && !idPattern.MatchString(h.ID):
		return handIn{}, fmt.Errorf("the id line %q is not 8 to 32 lower-case letters and digits", h.ID)
	}
	h.Release, h.Machine = h.values["go-version"], h.values["machine-cpu"]
	if cores := h.values["machine-cores"]; cores != "" {
		h.Machine += ", " + cores + " cores"
	}
	return h, nil
}

// cell is one participant's answer to one exercise.
type cell struct {
	Handed, Passed bool
	Failed         string  // the check that failed
	Ratio          float64 // against the exercise's start; 0 when not measured
	Told           bool    // the check could tell Ratio from its noise
	Guess          string  // the prediction as typed, cut to maxGuessRunes; "" if none
	GuessRatio     float64 // Guess as a ratio, 0 if it is not one
	Counted        string  // what an exact count decided where the time could not: "−49% allocs"
	Changed        bool    // the stage changed after its check: the verdict may not be the stage's
}

// cell returns h's answer to the exercise made in stage ex.
func (h handIn) cell(ex string) cell {
	verdict, ok := h.values["verdict-"+ex]
	guess := strings.TrimSpace(h.values["predicted-"+ex])
	c := cell{Handed: ok, Guess: cut(guess, maxGuessRunes)}
	if r, err := strconv.ParseFloat(trimTimes(guess), 64); err == nil && meaningful(r) {
		c.GuessRatio = r
	}
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

// trimTimes is a prediction as typed ("3x", "1.5×", "0.5 x") without its spaces and "x".
func trimTimes(s string) string {
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), "xX×"))
}

// origin is the stage that ex was made from, "" if the hand-in does not say (an older handin).
func (h handIn) origin(ex string) string {
	if o := h.values["origin-"+ex]; o != "" {
		return path.Base(o)
	}
	return ""
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

// exactCount is a count that decided a verdict, as results.Comparison.Verdict words it: "49% fewer allocs/op".
var exactCount = regexp.MustCompile(`(\d+(?:\.\d+)?)% (fewer|more) (allocs|B)/op`)

// counted is what decided a verdict's clause about the start where the time
// could not tell, "−49% allocs" or "+12% B", or "" if the time decided, or nothing did.
func counted(clause string) string {
	m := exactCount.FindStringSubmatch(clause)
	if m == nil || !strings.Contains(clause, "counted exactly") || !strings.Contains(clause, "cannot tell") {
		return ""
	}
	return map[string]string{"fewer": "−", "more": "+"}[m[2]] + m[1] + "% " + m[3]
}
