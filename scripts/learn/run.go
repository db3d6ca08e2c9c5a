package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/pages"
	"example.com/userperf/scripts/internal/provenance"
)

// run measures the current question, prints the measurement beside the prediction, then the answer.
func (g *guide) run(noPredict bool, benchtime string) {
	i := g.current()
	if i < 0 {
		g.c.Usage("every question is measured: learn goto QUESTION picks one again")
	}
	q := g.qs[i]
	predicted, ok := g.s.Predictions[q.ID]
	switch {
	case !ok && !noPredict:
		g.c.Usage("predict %s first: go run ./scripts/learn predict %s (or learn run --no-predict, to measure without)", q.ID, example(q.Ask))
	case !ok:
		fmt.Printf("learn: measuring %s without a prediction (--no-predict): nothing to hold the measurement against\n", q.ID)
	}
	fmt.Printf("== %s: %s\n", q.ID, q.Command)
	p, err := parsePlan(g.c.Root, q.Command)
	g.c.Fatal(err)
	var m measurement
	if p == nil { // no comparison: the command as it is, its output the measurement
		err := execute(q.Command)
		m = measurement{Shown: "the output above", Verdict: "no verdict: the command compares no stages; its output above is the measurement"}
		if err != nil {
			m.Verdict = fmt.Sprintf("the command failed (%v)", err)
		}
		fmt.Println()
	} else {
		ms := &measurer{c: g.c, built: map[string]bool{}}
		out, err := ms.measure(q, p, benchtime)
		g.c.Fatal(err)
		ms.keep()
		m = out.first
		fmt.Printf("\nMeasured here:\n  %s\n\n", strings.Join(out.lines, "\n  "))
	}
	m.Predicted = predicted
	fmt.Printf("%-18s %s\n%-18s %s\n", "you predicted:", cmpOr(predicted, "nothing (--no-predict)"), "you measured:", m.Shown)
	if close := closeness(q.Ask, m); close != "" {
		fmt.Printf("%-18s %s\n", "how close:", close)
	}
	fmt.Printf("%-18s %s\n", "verdict:", m.Verdict)
	g.s.Measured[q.ID] = m
	g.s.Current = ""
	for _, next := range slices.Concat(g.qs[i+1:], g.qs[:i]) { // the next not measured, after this one
		if _, ok := g.s.Measured[next.ID]; !ok {
			g.s.Current = next.ID
			break
		}
	}
	g.c.Fatal(g.s.save())

	fmt.Printf("\nThe chapter's answer (%s:%d):\n\n%s\n", q.Page, q.AnswerLine, indent(cmpOr(q.Answer, "(the page gives none)")))
	if q.BlockLine > 0 {
		fmt.Printf("\nThe project's measurement: %s:%d, the fold \"measured here\".\n", q.Page, q.BlockLine)
	}
	if next := g.current(); next >= 0 {
		fmt.Printf("\nNext: %s. go run ./scripts/learn shows it.\n", g.qs[next].ID)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// closeness says how close a numeric prediction came: within 2x, and in the right direction
// (faster or slower, more or fewer than the first stage); "" where it cannot say.
func closeness(ask string, m measurement) string {
	within, direction, ok := judge(ask, m)
	if !ok {
		return ""
	}
	say := func(b bool, yes, no string) string {
		if b {
			return yes
		}
		return no
	}
	return say(within, "within 2x", "more than 2x off") + ", " + say(direction, "the right direction", "the wrong direction")
}

// judge reports whether m's prediction came within 2x of the measurement, and in its direction.
func judge(ask string, m measurement) (within, direction, ok bool) {
	p, err := parsePrediction(ask, m.Predicted)
	if err != nil || math.IsNaN(p) || m.Value <= 0 || m.Predicted == "" {
		return false, false, false
	}
	within = p/m.Value <= 2 && m.Value/p <= 2
	if ask == "x" {
		return within, (p >= 1) == (m.Value >= 1), true
	}
	return within, m.Base == 0 || (p >= m.Base) == (m.Value >= m.Base), true
}

// list prints every question with its state, then per chapter and in all how close the guesses came.
func (g *guide) list() {
	fmt.Println(g.progress())
	cur := g.current()
	var tally, total [3]int // guesses judged, within 2x, the right direction
	for i, q := range g.qs {
		if i == 0 || g.qs[i-1].Chapter() != q.Chapter() {
			fmt.Printf("\n%s\n", q.Chapter())
		}
		mark, p := " ", g.s.Predictions[q.ID]
		if i == cur {
			mark = ">"
		}
		state := "not predicted"
		if p != "" {
			state = "predicted " + p
		}
		if m, ok := g.s.Measured[q.ID]; ok {
			state = fmt.Sprintf("predicted %s, measured %s", cmpOr(m.Predicted, "nothing"), m.Shown)
			if close := closeness(q.Ask, m); close != "" {
				state += " (" + close + ")"
			}
			if w, d, ok := judge(q.Ask, m); ok {
				tally[0]++
				tally[1] += b2i(w)
				tally[2] += b2i(d)
			}
		}
		fmt.Printf("%s %2d. %-28s %s\n", mark, i+1, q.ID, state)
		if i == len(g.qs)-1 || g.qs[i+1].Chapter() != q.Chapter() {
			fmt.Printf("   %s\n", howClose(q.Chapter(), tally))
			for k := range tally {
				total[k] += tally[k]
			}
			tally = [3]int{}
		}
	}
	fmt.Printf("\n%s\n", howClose("the path", total))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func howClose(what string, t [3]int) string {
	if t[0] == 0 {
		return what + ": no number predicted and measured yet"
	}
	return fmt.Sprintf("%s: of %d numbers predicted and measured, %d within 2x, %d in the right direction", what, t[0], t[1], t[2])
}

// goTo makes the question named, or numbered in the list, the next.
func (g *guide) goTo(name string) {
	i := slices.IndexFunc(g.qs, func(q pages.Question) bool { return q.ID == name })
	if n, err := strconv.Atoi(name); err == nil && n >= 1 && n <= len(g.qs) {
		i = n - 1
	}
	if i < 0 {
		var ids []string
		for _, q := range g.qs {
			ids = append(ids, q.ID)
		}
		g.c.Usage("no question %s; the questions: %s", name, strings.Join(ids, ", "))
	}
	g.s.Current = g.qs[i].ID
	g.c.Fatal(g.s.save())
	g.status()
}

// fullCommand is the first command of the page's code block after q's marker: the chapter's own.
func fullCommand(q pages.Question) string {
	data, _ := os.ReadFile(q.Page) // the root is the working folder; no page, no command
	lines := strings.Split(string(data), "\n")
	for i := q.Line; i+1 < len(lines); i++ {
		if strings.HasPrefix(lines[i], "```sh") {
			return strings.TrimSpace(strings.SplitN(lines[i+1], "#", 2)[0])
		}
	}
	return ""
}

// timeQuestions runs every question's command, as learn run does, and writes how long each took as
// the block questions of file: each is to take at most 90 seconds on an idle 2-core machine.
func timeQuestions(cmd *harness.Cmd, qs []pages.Question, file, benchtime string) {
	ms := &measurer{c: cmd, built: map[string]bool{}}
	start := time.Now()
	for _, q := range qs { // the builds first, shared by every question, timed apart
		if p, err := parsePlan(cmd.Root, q.Command); err == nil && p != nil {
			ms.build(p.stages)
		}
	}
	builds := time.Since(start)
	rows := []string{"| question | page | wall time |", "|---|---|---:|"}
	for _, q := range qs {
		fmt.Printf("== %s: %s\n", q.ID, q.Command)
		began := time.Now()
		p, err := parsePlan(cmd.Root, q.Command)
		cmd.Fatal(err)
		if p == nil {
			cmd.Fatal(execute(q.Command))
		} else {
			_, err = ms.measure(q, p, benchtime)
			cmd.Fatal(err)
		}
		took := time.Since(began).Round(time.Second)
		rows = append(rows, fmt.Sprintf("| `%s` | %s:%d | %s |", q.ID, q.Page, q.Line, took))
		fmt.Printf("   %s\n", took)
	}
	rows = append(rows, fmt.Sprintf("| the builds, once for every question | | %s |", builds.Round(time.Second)),
		fmt.Sprintf("| **the path, %d questions** | | **%s** |", len(qs), time.Since(start).Round(time.Second)))
	config := map[string]string{}
	for line := range strings.Lines(cmd.Header()) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ": "); ok {
			config[k] = v
		}
	}
	content := strings.Join(rows, "\n") + "\n\n" + provenance.Line(config) + "\n"
	cmd.Fatal(provenance.UpdateFile(filepath.Join(cmd.Root, file), provenance.Block{Name: "questions", Content: content}))
	fmt.Printf("learn: wrote the block questions of %s\n", file)
}
