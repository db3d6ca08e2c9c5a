// Command learn is the learner's guide through the path: where you are,
// the next question, your prediction, your own measurement beside it, and
// only then the chapter's answer.
//
// Usage:
//
//	go run ./scripts/learn [flags] [predict ANSWER | run | list | goto QUESTION | reset | hint [EXERCISE]]
//
// Without a subcommand it prints a progress line (questions predicted and
// measured, chapter by chapter; exercises passed) and the next question with
// its two commands. predict records your answer: a number with its unit
// where the question asks for one (3x, 40 allocs/op, 2KiB), else a few
// words. run measures the question on this machine with a narrow form of
// the chapter's command (the rows that answer it), prints your measurement
// beside your prediction with the verdict of internal/results, then the
// chapter's answer and where the project's block is. list shows every
// question with its state and, per chapter and for the path, how close
// your guesses came. goto makes a question (its name or number) the next;
// reset forgets everything; hint prints the next hint of a WORKSHOP.md
// exercise, one per call.
//
// The questions are the chapters' own: each carries a marker (an HTML
// comment) naming it and its command, so the pages and the guide cannot
// drift. Your progress lives in your configuration folder
// (userperf/learn.json) and survives a new clone; results go to
// results/learn/.
//
// The flags are:
//
//	--no-predict
//		With run: measure a question you have not predicted, and say so.
//	--benchtime D
//		With run: go test's -benchtime D in place of the question's (1x is a
//		quick look that may not decide; the scripts' tests use it).
//	--time-all
//		Run every question's command and write how long each took into
//		the block "questions" of docs/results.md.
//	--file PAGE
//		With --time-all: write the block into PAGE instead.
//
// # Examples
//
//	go run ./scripts/learn
//	go run ./scripts/learn predict 1.5x
//	go run ./scripts/learn run
//	go run ./scripts/learn list
package main

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/pages"
)

func main() {
	c := harness.New("learn")
	noPredict := c.Flags.Bool("no-predict", false, "")
	benchtime := c.Flags.String("benchtime", "", "")
	timeAll := c.Flags.Bool("time-all", false, "")
	file := c.Flags.String("file", "docs/results.md", "")
	args := c.Parse()
	qs, problems := pages.Questions(c.Root)
	if len(problems) > 0 {
		c.Fatal(fmt.Errorf("the pages' questions have problems:\n  %s", strings.Join(problems, "\n  ")))
	}
	if len(qs) == 0 {
		c.Fatal(fmt.Errorf("no question found on the pages (%s)", strings.Join(pages.Path(c.Root), ", ")))
	}
	if *timeAll {
		timeQuestions(c, qs, *file, *benchtime)
		c.Exit(0)
	}
	s, err := load()
	c.Fatal(err)
	g := &guide{c: c, qs: qs, s: s}
	what := ""
	if len(args) > 0 {
		what = args[0]
	}
	switch {
	case what == "":
		g.status()
	case what == "predict" && len(args) >= 2:
		g.predict(strings.Join(args[1:], " "))
	case what == "run" && len(args) == 1:
		g.run(*noPredict, *benchtime)
	case what == "list" && len(args) == 1:
		g.list()
	case what == "goto" && len(args) == 2:
		g.goTo(args[1])
	case what == "reset" && len(args) == 1:
		c.Fatal(reset())
		fmt.Println("learn: forgot every prediction, measurement and hint; go run ./scripts/learn starts again")
	case what == "hint":
		g.hint(args[1:])
	default:
		c.Usage("%s: not a learn command (--help lists them)", strings.Join(args, " "))
	}
	c.Exit(0)
}

// guide is one run of learn over the questions of the pages and the learner's state.
type guide struct {
	c  *harness.Cmd
	qs []pages.Question
	s  *state
}

// current is the index of the question learn shows: the one goto chose, else the first not measured.
func (g *guide) current() int {
	if i := slices.IndexFunc(g.qs, func(q pages.Question) bool { return q.ID == g.s.Current }); i >= 0 {
		return i
	}
	for i, q := range g.qs {
		if _, ok := g.s.Measured[q.ID]; !ok {
			return i
		}
	}
	return -1
}

// status prints the progress line, then the next question and its two commands.
func (g *guide) status() {
	fmt.Println(g.progress())
	i := g.current()
	if i < 0 {
		fmt.Println("\nEvery question is measured. go run ./scripts/learn list shows how close your guesses came.")
		return
	}
	q := g.qs[i]
	fmt.Printf("\nQuestion %d of %d, %s (%s:%d):\n\n%s\n\n", i+1, len(g.qs), q.ID, q.Page, q.Line, indent(q.Text))
	if p, ok := g.s.Predictions[q.ID]; ok {
		fmt.Printf("Your prediction: %s\n\n", p)
	}
	fmt.Printf("  go run ./scripts/learn predict %s   %s\n  go run ./scripts/learn run\n", example(q.Ask), askSays(q.Ask))
	if full := fullCommand(q); full != "" && full != q.Command {
		fmt.Printf("\nrun measures: %s\nthe chapter's full command, for every row: %s\n", q.Command, full)
	}
}

// progress is the line of where the learner is: questions predicted and measured, chapter by chapter, and exercises passed.
func (g *guide) progress() string {
	var chapters []string
	predicted, measured := 0, 0
	for i := 0; i < len(g.qs); {
		ch, n, m := g.qs[i].Chapter(), 0, 0
		for ; i < len(g.qs) && g.qs[i].Chapter() == ch; i++ {
			if _, ok := g.s.Predictions[g.qs[i].ID]; ok {
				predicted++
			}
			if _, ok := g.s.Measured[g.qs[i].ID]; ok {
				measured, m = measured+1, m+1
			}
			n++
		}
		chapters = append(chapters, fmt.Sprintf("%s %d/%d", ch, m, n))
	}
	passed, all := exercisesPassed(g.c.Root)
	return fmt.Sprintf("learn: %d predicted, %d measured of %d questions (%s); exercises passed: %d of %d",
		predicted, measured, len(g.qs), strings.Join(chapters, ", "), passed, all)
}

// askSays says what a prediction of the unit looks like.
func askSays(ask string) string {
	switch ask {
	case "x":
		return "(a speed-up: 3x faster, 0.8x slower)"
	case "text":
		return "(a few words)"
	}
	return "(a number of " + ask + ")"
}

func example(ask string) string {
	switch ask {
	case "x":
		return "3x"
	case "text":
		return "'your answer'"
	}
	return "'40 " + ask + "'"
}

var number = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*(x|[KMG]i?B)?\b`)

// parsePrediction reads a prediction in the question's unit: its number, or an error saying what to give.
func parsePrediction(ask, p string) (float64, error) {
	if ask == "text" {
		if len(p) > 200 {
			return 0, fmt.Errorf("a few words, at most 200 characters")
		}
		return math.NaN(), nil
	}
	m := number.FindStringSubmatch(strings.TrimSpace(p))
	if m == nil || ask == "x" && m[2] != "x" || ask != "x" && m[2] == "x" {
		return 0, fmt.Errorf("give %s", strings.Trim(askSays(ask), "()"))
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	scale := map[string]float64{"KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m[2]]
	if scale > 0 {
		v *= scale
	}
	if v <= 0 {
		return 0, fmt.Errorf("give a positive number")
	}
	return v, nil
}

func (g *guide) predict(p string) {
	i := g.current()
	if i < 0 {
		g.c.Usage("every question is measured: learn goto QUESTION picks one again")
	}
	q := g.qs[i]
	if _, err := parsePrediction(q.Ask, p); err != nil {
		g.c.Usage("%s: %v, such as: go run ./scripts/learn predict %s", p, err, example(q.Ask))
	}
	g.s.Predictions[q.ID] = p
	g.s.Current = q.ID
	g.c.Fatal(g.s.save())
	fmt.Printf("learn: your prediction for %s: %s. Now measure it: go run ./scripts/learn run\n", q.ID, p)
}

func indent(text string) string { return "   " + strings.ReplaceAll(text, "\n", "\n   ") }
