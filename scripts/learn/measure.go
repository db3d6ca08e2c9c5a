package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/pages"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// plan is a question's command, when it is a comparison (go run ./scripts/compare ...): what learn
// measures itself, with the test binaries that one learn process builds once for every question.
type plan struct {
	env       []string // KEY=value before the command, such as USERPERF_MILLION=1
	rounds    int
	benchtime string
	bench     string
	hold      bool
	stages    []stages.Folder
}

// words splits a command as a shell would: spaces apart, single or double quotes kept together.
func words(command string) ([]string, error) {
	var out []string
	var word strings.Builder
	quote, in := rune(0), false
	for _, r := range command {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				out, in = append(out, word.String()), false
				word.Reset()
			}
		default:
			word.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("%s: a quote is not closed", command)
	}
	if in {
		out = append(out, word.String())
	}
	return out, nil
}

var envWord = regexp.MustCompile(`^[A-Z_]+=`)

// parsePlan reads a compare command; a command of another kind is no plan (nil, nil).
func parsePlan(root, command string) (*plan, error) {
	ws, err := words(command)
	if err != nil {
		return nil, err
	}
	p := &plan{rounds: 10, benchtime: "150ms", bench: "^Benchmark(ListByRole|ServeHTTP|Write|Build|Bare)$"}
	for len(ws) > 0 && envWord.MatchString(ws[0]) {
		p.env, ws = append(p.env, ws[0]), ws[1:]
	}
	if len(ws) < 3 || ws[0] != "go" || ws[1] != "run" || ws[2] != "./scripts/compare" || slices.Contains(ws, "--go") {
		return nil, nil // run as it is: another command, or compare's Go releases, which it labels itself
	}
	flags := flag.NewFlagSet("compare", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	flags.IntVar(&p.rounds, "rounds", p.rounds, "")
	flags.StringVar(&p.benchtime, "benchtime", p.benchtime, "")
	flags.StringVar(&p.bench, "bench", p.bench, "")
	flags.BoolVar(&p.hold, "hold-cores", false, "")
	var names []string
	for args := ws[3:]; len(args) > 0; {
		if err := flags.Parse(args); err != nil {
			return nil, fmt.Errorf("%s: %v", command, err)
		}
		if args = flags.Args(); len(args) > 0 {
			names, args = append(names, args[0]), args[1:]
		}
	}
	if p.rounds < 6 {
		return nil, fmt.Errorf("%s: --rounds %d, under the 6 that a p-value needs", command, p.rounds)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: name the stages it compares", command)
	}
	p.stages, err = stages.Find(root, names...)
	return p, err
}

// measurer measures questions in one results/learn/<stamp>/ run, each stage's test binary built once.
type measurer struct {
	c     *harness.Cmd
	run   *harness.Run
	built map[string]bool
	kept  bool
}

// build builds the test binaries of the stages not built yet.
func (m *measurer) build(list []stages.Folder) {
	var dirs []string
	for _, s := range list {
		if !m.built[s.Dir] {
			dirs, m.built[s.Dir] = append(dirs, s.Dir), true
		}
	}
	if len(dirs) > 0 {
		if m.run == nil {
			m.run = m.c.NewRun("learn", 0)
			m.c.Cleanup(m.keep)
		}
		m.run.Build(dirs...)
	}
}

// keep keeps the run's results once anything was measured, once.
func (m *measurer) keep() {
	if m.run != nil && !m.kept {
		m.kept = true
		if entries, _ := os.ReadDir(m.run.Dir); len(entries) > 0 {
			m.run.Keep()
		}
	}
}

// outcome is what a question's run measured: a line per row, and the measurement of its first row.
type outcome struct {
	lines []string
	first measurement
}

// measure runs q's plan in interleaved rounds (benchtime, if given, in place of the command's) and
// decides, at each of q's rows, the last stage against the first with internal/results, the first
// stage measured twice for the noise band; with one stage, each row against the first row.
func (m *measurer) measure(q pages.Question, p *plan, benchtime string) (outcome, error) {
	m.build(p.stages)
	dir := filepath.Join(m.run.Dir, strings.ReplaceAll(q.ID, "/", "-"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return outcome{}, err
	}
	if benchtime == "" {
		benchtime = p.benchtime
	}
	for _, kv := range p.env {
		k, v, _ := strings.Cut(kv, "=")
		defer os.Unsetenv(k)
		os.Setenv(k, v)
	}
	if p.hold {
		defer harness.HoldCores()()
	}
	first := p.stages[0]
	measured := append(slices.Clone(p.stages), stages.Folder{Name: first.Name + ".again", Dir: first.Dir})
	header := m.c.Header() + fmt.Sprintf("compare-settings: rounds=%d, benchtime=%s, bench=%s, hold-cores=%v\n", p.rounds, benchtime, p.bench, p.hold)
	file := func(name string) string { return filepath.Join(dir, name+".txt") }
	for _, s := range measured {
		if err := os.WriteFile(file(s.Name), []byte(header), 0o644); err != nil {
			return outcome{}, err
		}
	}
	m.run.Rounds = p.rounds
	for round := range p.rounds {
		for k := range measured {
			s := measured[(round+k)%len(measured)] // rotate who goes first
			m.run.Bench(round+1, s.Dir, p.bench, benchtime, file(s.Name), s.Name)
		}
	}
	fmt.Printf("\r%70s\r", "")
	read := func(name string) *results.File {
		f, err := results.Read(file(name))
		m.c.Fatal(err)
		return f
	}
	base, again := read(first.Name), read(first.Name+".again")
	var out outcome
	add := func(row, label string, b, a, o *results.File, bench, against string) error {
		c, err := results.Compare(b, a, o, bench)
		if err != nil {
			return err
		}
		shown, value, baseValue := results.Times(c.Ratio), c.Ratio, 0.0
		if q.Ask != "x" && q.Ask != "text" {
			value, baseValue = results.Median(o.Values(bench, q.Ask)), results.Median(b.Values(bench, q.Ask))
			shown = strconv.FormatFloat(value, 'g', 3, 64) + " " + q.Ask
		}
		verdict := strings.TrimSpace(label + " " + results.FirstLine(c.Verdict(against)))
		out.lines = append(out.lines, fmt.Sprintf("%s: %s: %s", row, shown, verdict))
		if len(out.lines) == 1 {
			out.first = measurement{Shown: shown, Value: value, Base: baseValue, Verdict: row + ": " + verdict}
		}
		return nil
	}
	for i, row := range q.Rows {
		var err error
		switch {
		case len(p.stages) > 1: // every other stage against the first, at this row
			for _, s := range p.stages[1:] {
				if err = add(row, s.Name, base, again, read(s.Name), row, first.Name); err != nil {
					break
				}
			}
		case len(q.Rows) == 1: // one stage at one row: the A/A pair itself, decided on its own spread
			err = add(row, first.Name+",again", base, nil, again, row, first.Name)
		case i > 0: // one stage: this row against the first row
			err = add(row, "", asRow(base, q.Rows[0]), asRow(again, q.Rows[0]), asRow(base, row), "row", q.Rows[0])
		}
		if err != nil {
			return out, err
		}
	}
	if len(out.lines) == 0 {
		return out, fmt.Errorf("question %s: no row to decide on (rows=)", q.ID)
	}
	return out, nil
}

// units are what a row of one stage is compared in, against another row of it.
var units = []string{"sec/op", "cpu-sec/op", "allocs/op", "B/op", "held-B/user"}

// asRow is the samples of f at row as a file of their own, at the benchmark "row": two rows of one
// stage compared as two stages are.
func asRow(f *results.File, row string) *results.File {
	samples := map[results.Measurement][]float64{}
	for _, u := range units {
		if v := f.Values(row, u); len(v) > 0 {
			samples[results.Measurement{Bench: "row", Unit: u}] = v
		}
	}
	return results.NewFile(f.Name+"@"+row, f.Config, samples)
}

// execute runs a command that is no comparison as it is written, its output on the terminal.
func execute(command string) error {
	ws, err := words(command)
	if err != nil {
		return err
	}
	var env []string
	for len(ws) > 0 && envWord.MatchString(ws[0]) {
		env, ws = append(env, ws[0]), ws[1:]
	}
	if len(ws) == 0 {
		return errors.New("an empty command")
	}
	cmd := exec.Command(ws[0], ws[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = append(os.Environ(), env...), os.Stdout, os.Stderr
	start := time.Now()
	err = cmd.Run()
	fmt.Printf("   (%s)\n", harness.Elapsed(start))
	return err
}
