// Package pages reads the questions of the learner's path from the pages' markers, and folds the
// generated blocks that would show an answer too early. Its tests read every page of the repository.
package pages

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Question is one question of the path, as its marker names it:
//
//	<!-- question stage1.rows ask=text rows=ListByRole/users=100000/matches=100: go run ./scripts/compare ... -->
//
// ask is what a prediction gives (x: a speed-up; allocs/op, B/op, held-B/user: a count; text: words);
// rows are the benchmarks whose measurement answers it; the command measures them. scripts/learn reads
// the questions from the pages, so that the guide and the pages cannot drift.
type Question struct {
	ID, Page   string // Page: slash-separated, from the root
	Line       int    // the marker's, from 1
	Ask        string
	Rows       []string
	Command    string
	Text       string // the question, as the page puts it, without markers
	Answer     string // the text of the answer's fold, or "" for none
	AnswerLine int    // the line of the answer's <details>, or 0
	BlockLine  int    // the line of the first generated block between the marker and the answer, or 0
}

// Chapter is the page's name without its folder and .md: stage1-index.
func (q Question) Chapter() string { return strings.TrimSuffix(filepath.Base(q.Page), ".md") }

// Path are the pages of the learner's path, in reading order: README.md, measuring, the chapters, results.
func Path(root string) []string {
	paths := []string{"README.md", "docs/measuring.md"}
	chapters, _ := filepath.Glob(filepath.Join(root, "docs", "stage*.md")) // a pattern without errors
	for _, c := range chapters {
		paths = append(paths, "docs/"+filepath.Base(c))
	}
	return append(paths, "docs/results.md")
}

var (
	generated = regexp.MustCompile(`<!-- (BEGIN|END) GENERATED: (\S+) -->`) // a block that report writes
	marker    = regexp.MustCompile(`<!-- question (\S+)((?: [a-z]+=\S+)*):(.*?) ?-->`)
	param     = regexp.MustCompile(` ([a-z]+)=(\S+)`)
	predict   = regexp.MustCompile(`\bPredict\b`)
	answer    = regexp.MustCompile(`^<details><summary>Answer`)
	envPrefix = regexp.MustCompile(`^([A-Z_]+=\S* )+`) // USERPERF_MILLION=1 before a command
	stopLine  = regexp.MustCompile("^(```|#|<!-- BEGIN GENERATED)")
)

// Fold is the line that opens a generated block's fold: the measured answer stays closed until the
// learner has measured their own.
const Fold = "<details><summary>measured here: open after your own run</summary>"

// Questions reads the questions of the path's pages under root, and the problems of their markers,
// each as "page:line: what": a Predict paragraph with no marker before its command, block or next
// heading, a marker that is not in one, a marker without a command or with a parameter it does
// not know. A page that a checkout lacks is skipped.
func Questions(root string) (qs []Question, problems []string) {
	for _, p := range Path(root) {
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			continue
		}
		found, probs := PageQuestions(p, string(data))
		qs, problems = append(qs, found...), append(problems, probs...)
	}
	return qs, problems
}

// PageQuestions reads the questions of one page, named page in the problems.
func PageQuestions(page, text string) (qs []Question, problems []string) {
	lines := strings.Split(text, "\n")
	bad := func(i int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d: %s", page, i+1, fmt.Sprintf(format, args...)))
	}
	claimed := map[int]bool{} // answers taken by a question
	intro, lastMarker := -1, -1
	var open, marked, inFence, inBlock bool // marked: the open Predict paragraph has a marker
	closeOpen := func() {
		if open && !marked {
			bad(intro, "a Predict paragraph without a question marker (<!-- question ID ask=UNIT rows=ROW: COMMAND -->) before its command, block or next heading")
		}
		open = false
	}
	for i, line := range lines {
		fence := strings.HasPrefix(line, "```")
		inFence = inFence != fence
		inBlock = inBlock || strings.Contains(line, "<!-- BEGIN GENERATED")
		if hidden := fence || inFence || inBlock; hidden || stopLine.MatchString(line) {
			closeOpen()
			if hidden {
				inBlock = inBlock && !strings.Contains(line, "<!-- END GENERATED")
				continue
			}
		}
		visible := marker.ReplaceAllString(line, "")
		if predict.MatchString(visible) && (i == 0 || strings.TrimSpace(lines[i-1]) == "" || !open) {
			closeOpen()
			start := i
			for start > 0 && strings.TrimSpace(lines[start-1]) != "" && !stopLine.MatchString(lines[start-1]) {
				start-- // the paragraph's first line
			}
			intro, lastMarker, open, marked = start, start-1, true, false
		}
		m := marker.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if !open {
			bad(i, "question %s: its marker follows no Predict paragraph", m[1])
			continue
		}
		q := Question{ID: m[1], Page: page, Line: i + 1, Command: strings.TrimSpace(m[3])}
		for _, p := range param.FindAllStringSubmatch(m[2], -1) {
			switch p[1] {
			case "ask":
				q.Ask = p[2]
			case "rows":
				q.Rows = strings.Split(p[2], ",")
			default:
				bad(i, "question %s: unknown parameter %s (ask, rows)", q.ID, p[1])
			}
		}
		if !strings.HasPrefix(envPrefix.ReplaceAllString(q.Command, ""), "go ") {
			bad(i, "question %s: no command that runs (go run ./scripts/compare ..., go test ...)", q.ID)
		}
		if q.Ask == "" {
			bad(i, "question %s: no ask= (x, allocs/op, B/op, held-B/user or text)", q.ID)
		}
		var words []string
		if lastMarker >= intro { // a later question of the same paragraph: its lead, then its own lines
			for j := intro; j < len(lines) && strings.TrimSpace(lines[j]) != ""; j++ {
				words = append(words, lines[j])
			}
		}
		for j := lastMarker + 1; j <= i; j++ {
			words = append(words, marker.ReplaceAllString(lines[j], ""))
		}
		q.Text = strings.TrimSpace(strings.Join(words, "\n"))
		lastMarker, marked = i, true
		for j := i + 1; j < len(lines); j++ {
			if answer.MatchString(lines[j]) && !claimed[j] {
				claimed[j], q.AnswerLine = true, j+1
				for k := i + 1; k < j && q.BlockLine == 0; k++ {
					if m := generated.FindStringSubmatch(lines[k]); m != nil && m[1] == "BEGIN" {
						q.BlockLine = k + 1
					}
				}
				var body []string
				for k := j + 1; k < len(lines) && !strings.HasPrefix(lines[k], "</details>"); k++ {
					body = append(body, lines[k])
				}
				q.Answer = strings.TrimSpace(strings.Join(body, "\n"))
				break
			}
		}
		qs = append(qs, q)
	}
	closeOpen()
	return qs, problems
}

// folded reports whether the block that begins at line i opens with the fold.
func folded(lines []string, i int) bool {
	return i+1 < len(lines) && strings.HasPrefix(lines[i+1], Fold)
}

// FoldBlocks puts the fold into every block of text that sits between a question's marker and its
// answer, and returns the page: a block regenerated there stays folded (internal/provenance calls it).
func FoldBlocks(page, text string) string {
	qs, _ := PageQuestions(page, text)
	lines := strings.Split(text, "\n")
	var out []string
	open := false
	for i, l := range lines {
		if open && strings.Contains(l, "<!-- END GENERATED") {
			out, open = append(out, "", "</details>"), false
		}
		out = append(out, l)
		m := generated.FindStringSubmatch(l)
		asked := slices.ContainsFunc(qs, func(q Question) bool { return q.Line <= i && i < q.AnswerLine-1 })
		if m != nil && m[1] == "BEGIN" && asked && !folded(lines, i) {
			out, open = append(out, Fold, ""), true
		}
	}
	return strings.Join(out, "\n")
}
